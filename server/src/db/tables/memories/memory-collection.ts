import type { CollectionScope, CollectionState } from "../../../domain/retrieval/ports";
import { sql } from "../../sql";
import type { SqlReads } from "../../sql-reads";

/**
 * The "MemoryCollection" row of a scope: its durable memories, their terms and the versions, all kept by
 * the triggers of its migration in the transaction of every write. A scope that never had a durable
 * memory or a vector has no row yet, which reads as empty.
 */
export async function collectionState(db: SqlReads, scope: CollectionScope): Promise<CollectionState> {
  const [row] = await db.rows<Record<"documents" | "totalTerms" | "version" | "vectorsVersion", number | bigint | string>>(sql`
    SELECT "documents", "totalTerms", "version", "vectorsVersion" FROM "MemoryCollection"
    WHERE "orgId" = ${scope.orgId} AND "environment" = ${scope.environment}`);
  if (!row) return { documents: 0, averageLength: 0, version: 0n, vectorsVersion: 0n };
  const documents = Number(row.documents);
  return {
    documents,
    averageLength: documents === 0 ? 0 : Number(row.totalTerms) / documents,
    version: BigInt(row.version),
    vectorsVersion: BigInt(row.vectorsVersion),
  };
}
