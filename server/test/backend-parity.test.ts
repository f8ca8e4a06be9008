import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, startServerOn, temporaryDirectory } from "@engram/test-support";
import { benchmarkQueries, syntheticMemories } from "../bench/corpus";
import type { Caller } from "../src/domain/access/caller";
import type { RunningServer } from "../src/server";

/** The same memories in SQLite and in Postgres must come back in the same order for the same query. */
describe("SQLite and Postgres rank alike", () => {
  const servers: Record<"sqlite" | "postgres", { server: RunningServer; caller: Caller } | undefined> = { sqlite: undefined, postgres: undefined };
  // Small enough that every query's matches fit within the candidate limit, where parity is exact.
  const corpus = [...new Map([...syntheticMemories(280, 11)].map((m) => [m.text, m])).values()];

  beforeAll(async () => {
    const databases = {
      sqlite: { provider: "sqlite" as const, file: join(temporaryDirectory("engram-parity-"), "engram.db") },
      postgres: await freshDatabase(),
    };
    for (const name of ["sqlite", "postgres"] as const) {
      const server = await startServerOn(databases[name]);
      const org = await server.services.organizations.create({ name: "parity" });
      const { token } = await server.services.tokens.create({ orgId: org.id, name: "parity", scopes: ["memory:read", "memory:write", "memory:control"], environment: "production" });
      const caller = await server.services.tokens.authenticate(token, "parity");
      for (const memory of corpus) await server.services.memories.encode(caller, null, memory, undefined);
      servers[name] = { server, caller };
    }
  }, 120_000);
  afterAll(async () => {
    await servers.sqlite?.server.close();
    await servers.postgres?.server.close();
  });

  it.each(benchmarkQueries)("%s", async (query) => {
    const ranked = async (name: "sqlite" | "postgres") => {
      const { server, caller } = servers[name]!;
      const result = await server.services.memories.retrieve(caller, null, { query, limit: 10, includeContext: false, contextMode: "full" });
      return result.memories.map((m) => m.text);
    };
    const sqlite = await ranked("sqlite");
    expect(sqlite.length).toBeGreaterThan(0);
    expect(await ranked("postgres")).toEqual(sqlite);
  });
});
