import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUnderTest, startTestServer, type TestServer } from "@engram/test-support";
import { dialectFor } from "../src/db/dialect";
import { postgresPool } from "../src/db/prisma";
import { empty, sql } from "../src/db/sql";
import { postgresReads, type SqlReads } from "../src/db/sql-reads";
import { tsvectorSearch } from "../src/db/tables/memories/tsvector-search";
import type { MemoryScope } from "../src/domain/memory/ports";
import type { CandidateQuery } from "../src/domain/retrieval/ports";

/**
 * Postgres's newest-first lookup walks the scope in time order (a window, then a longer walk when the window's
 * matches say the rest lie near) before the planner searches what lies beyond. Whichever way it goes, it must
 * find exactly the newest matches. Small sizes here make every way reachable with a few hundred memories.
 */
let server: TestServer;
let reads: SqlReads;
let statements: string[];
let endPool: () => Promise<void>;
const sizes = { window: 20, walk: 40 };

// Memory i (0 the oldest) holds: "common" in every third; "burst" in every second of the newest 20 and every
// fifth of the oldest 100; "ancient" only among the oldest 30; "rare" in memories 5 and 390 (of 400).
const wordsOf = (i: number) =>
  [
    i % 3 === 0 && "common",
    ((i >= 380 && i % 2 === 0) || (i < 100 && i % 5 === 0)) && "burst",
    i < 30 && "ancient",
    (i === 5 || i === 390) && "rare",
  ].filter(Boolean);

/** The newest `limit` matches as the plainest query finds them: every match, sorted. */
async function newestMatches(scope: MemoryScope, tsquery: string, limit: number): Promise<string[]> {
  const agent = scope.agentSlug === null ? empty : sql`AND (m."agentSlug" = ${scope.agentSlug} OR m."agentSlug" IS NULL)`;
  const rows = await server.db.$queryRaw<Array<{ id: string }>>(sql`
    SELECT m."id" FROM "Memory" m WHERE m."orgId" = ${scope.orgId} AND m."environment" = 'production' AND m."state" = 'durable' ${agent}
      AND m."searchVector" @@ ${tsquery}::tsquery
    ORDER BY m."createdAt" DESC, m."id" DESC LIMIT ${limit}`);
  return rows.map(({ id }) => id);
}

const TERMS_READ = 'SELECT m."id", m."searchVersion", m."searchText" FROM "Memory" m WHERE m."id" IN';
const search = () => tsvectorSearch(dialectFor("postgres").packRow, sizes);
const lookup = (terms: string[], limit: number): CandidateQuery => ({ groups: terms.map((term) => [term]), match: "all", order: "newest", limit });

describe.runIf(databaseUnderTest === "postgres")("newest-first lookups on Postgres", () => {
  const scopes: Record<"large" | "small" | "tiny" | "agent", MemoryScope> = {} as never;

  beforeAll(async () => {
    server = await startTestServer();
    if (server.database.provider !== "postgres") throw new Error("these lookups are Postgres's");
    const pool = postgresPool(server.database);
    const counting = postgresReads(pool);
    reads = { rows: (statement) => (statements.push(statement.text), counting.rows(statement)) };
    endPool = () => pool.end();
    // In "agent", memory i is shared, agent-a's, agent-b's, agent-a's in turn; agent-a's lookups see 3 in 4.
    const agentOf = (name: string, i: number) => (name === "agent" ? [null, "agent-a", "agent-b", "agent-a"][i % 4]! : null);
    for (const [name, count] of [["large", 400], ["small", 30], ["tiny", 10], ["agent", 400]] as const) {
      const { orgId, token } = await server.newTenant();
      const caller = await server.services.tokens.authenticate(token, "t");
      scopes[name] = { orgId, environment: "production", agentSlug: name === "agent" ? "agent-a" : null };
      for (let i = 0; i < count; i++) {
        await server.services.memories.encode(caller, agentOf(name, i), { text: `Entry ${i} ${wordsOf(i).join(" ")} filler`, memoryKind: "fact", confidence: 0.8 }, undefined);
      }
    }
  }, 120_000);
  afterAll(async () => {
    await endPool?.();
    await server?.stop();
  });

  it.each([
    // [scope, terms, limit, statements: the window, the walk on from its last match, the planner's search beyond
    // the last match found; where the window ends is read only when it holds no match]
    ["large", ["common"], 5, 1], // the window holds them
    ["large", ["common"], 15, 2], // its share of matches says the rest lie within the walk, which finds them
    ["large", ["burst"], 15, 3], // dense in the window, absent from the walk: the planner finds the older ones
    ["large", ["ancient"], 10, 3], // none in the window: where it ends, then the planner
    ["large", ["rare"], 10, 2], // one in the window says the rest lie far: straight to the planner
    ["large", ["common", "burst"], 100, 2],
    ["small", ["common"], 12, 3], // the walk reaches the scope's oldest memory; the planner finds nothing older
    ["tiny", ["common"], 10, 3], // the window holds the whole scope
    // An agent's boundary is two lanes looked up alike, its own memories (odd i) and the shared ones (i in 4),
    // their matches merged in time order: the statements of both.
    ["agent", ["common"], 5, 2], // each window holds them
    ["agent", ["common"], 15, 4], // each window, then each walk
    ["agent", ["burst"], 15, 6], // none in its own lane (window, its end, the planner); the shared lane as "large"
    ["agent", ["ancient"], 10, 6], // none in either window
    ["agent", ["rare"], 10, 6], // its own lane's one is old, the other is agent-b's
  ] as const)("%s: %j, newest %i, in %i statements", async (name, terms, limit, expected) => {
    statements = [];
    const found = await search().candidates(reads, scopes[name], lookup([...terms], limit));
    expect(found.map(({ id }) => id)).toEqual(await newestMatches(scopes[name], terms.map((t) => `'${t}'`).join(" & "), limit));
    expect(found.length).toBeGreaterThan(0);
    // Candidates found for the first time have their terms read by id too, apart from the walk (see unpackCandidates).
    expect(statements.filter((text) => !text.startsWith(TERMS_READ))).toHaveLength(expected);
  });
});
