import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unitVector } from "@engram/retrieval";
import { apiClient, conceptVector, startEmbeddingsServer, startServerOn, startTestServer, type TestServer } from "@engram/test-support";
import { EmbeddingsError, openAiEmbedder } from "../src/adapters/openai-embeddings/openai-embedder";

/** Semantic retrieval through a real OpenAI-compatible embeddings endpoint, fused with lexical retrieval. */
let embeddings: Awaited<ReturnType<typeof startEmbeddingsServer>>;
let server: TestServer;

const semanticSettings = () => ({ baseUrl: embeddings.baseUrl, apiKey: "sk-test", model: "concepts-1", dimensions: null, timeoutMs: 5_000, minSimilarity: 0.3 });

beforeAll(async () => {
  embeddings = await startEmbeddingsServer();
  server = await startTestServer({ embeddings: semanticSettings() });
});
afterAll(async () => {
  await server?.stop();
  await embeddings?.close();
});

async function tenant() {
  const { orgId, token } = await server.newTenant();
  return { orgId, api: apiClient(server.url, token) };
}

async function encode(api: ReturnType<typeof apiClient>, text: string, agentSlug?: string): Promise<string> {
  const res = agentSlug ? await api.memory.encodeForAgent({ params: { agentSlug }, body: { text } }) : await api.memory.encode({ body: { text } });
  if (res.status !== 201) throw new Error(`encode answered ${res.status}`);
  return res.body.memory.id;
}

async function retrievedIds(api: ReturnType<typeof apiClient>, query: string, headers: Record<string, string> = {}): Promise<string[]> {
  const res = await api.memory.retrieve({ body: { query, limit: 10 }, headers });
  if (res.status !== 200) throw new Error(`retrieve answered ${res.status}`);
  return res.body.memories.map((memory) => memory.id);
}

const embedded = async () => server.services.embeddings!.idle();
const storedVectors = (memoryId: string) => server.db.memoryEmbedding.count({ where: { memoryId } });

describe("semantic retrieval", () => {
  it("answers a write before the embeddings endpoint does, and stores the vector afterwards", async () => {
    const { api } = await tenant();
    const release = embeddings.hold();
    const id = await encode(api, "Checkout broke during the Friday rollout.");
    expect(await storedVectors(id)).toBe(0);
    release();
    await embedded();
    const row = await server.db.memoryEmbedding.findUniqueOrThrow({ where: { memoryId: id } });
    expect(row.model).toBe("concepts-1");
    expect(row.vector.byteLength).toBe(64 * 4);
    expect(embeddings.requests.at(-1)).toMatchObject({ model: "concepts-1", authorization: "Bearer sk-test" });
  });

  it("finds a memory by meaning when no word of the query is in it", async () => {
    const { api } = await tenant();
    const id = await encode(api, "Checkout broke during the Friday rollout.");
    await encode(api, "Lunch is served at noon on the third floor.");
    await embedded();
    expect(await retrievedIds(api, "incident")).toEqual([id]);
  });

  it("ranks a memory that matches in words and in meaning above one that matches in meaning only", async () => {
    const { api } = await tenant();
    const meaningOnly = await encode(api, "The billing db is maintained by Dana.");
    const both = await encode(api, "The ledger database is maintained by the payments team.");
    await embedded();
    const ids = await retrievedIds(api, "who maintains the ledger database");
    expect(ids[0]).toBe(both);
    expect(ids).toContain(meaningOnly);
  });

  it("keeps an agent's memories inside its boundary", async () => {
    const { api } = await tenant();
    const shared = await encode(api, "The main database failed over at 3am.");
    const triage = await encode(api, "Triage saw the db outage first.", "triage");
    const support = await encode(api, "Support logged the postgres failure for customers.", "support");
    await embedded();
    const forSupport = await retrievedIds(api, "mysql", { "x-service-agent": "support" });
    expect(forSupport.sort()).toEqual([shared, support].sort());
    expect(forSupport).not.toContain(triage);
  });

  it("forgets a tombstoned memory's vector and never returns it", async () => {
    const { api } = await tenant();
    const id = await encode(api, "The escalation rotation changes every Monday.");
    await embedded();
    expect(await retrievedIds(api, "pager")).toEqual([id]);
    expect((await api.memory.delete({ params: { id } })).status).toBe(200);
    expect(await storedVectors(id)).toBe(0);
    expect(await retrievedIds(api, "pager")).toEqual([]);
  });

  it("finds by meaning at once what another server over the same database embedded, after searching that scope", async () => {
    const { orgId, api } = await tenant();
    const other = await startServerOn(server.database, { embeddings: semanticSettings() });
    try {
      const there = apiClient(other.url, await server.newToken(orgId));
      await encode(api, "Lunch is served at noon on the third floor.");
      await embedded();
      // The other server holds this scope's vectors now; the next one is stored by this server.
      expect(await retrievedIds(there, "incident")).toEqual([]);
      const id = await encode(api, "Checkout broke during the Friday rollout.");
      await embedded();
      expect(await retrievedIds(there, "incident")).toEqual([id]);
    } finally {
      await other.close();
    }
  });

  it("keeps writing and retrieving lexically while the endpoint is down, then a sweep embeds what was missed", async () => {
    const { api } = await tenant();
    embeddings.setFailing(true);
    try {
      const id = await encode(api, "Payments keep their ledger in postgres.");
      await embedded();
      expect(await storedVectors(id)).toBe(0);
      expect(await retrievedIds(api, "payments ledger")).toEqual([id]);
      expect(await retrievedIds(api, "mysql")).toEqual([]);
      embeddings.setFailing(false);
      const swept = await server.services.embeddings!.sweep();
      expect(swept.embedded).toBeGreaterThanOrEqual(1);
      expect(await storedVectors(id)).toBe(1);
      expect(await retrievedIds(api, "mysql")).toEqual([id]);
    } finally {
      embeddings.setFailing(false);
    }
  });
});

describe("OpenAI-compatible embeddings client", () => {
  const config = () => ({ baseUrl: `${embeddings.baseUrl}/`, apiKey: null, model: "concepts-1", dimensions: 32, timeoutMs: 5_000 });

  it("sends the model and dimensions, and returns unit vectors in input order", async () => {
    const texts = ["db outage", "pager rotation", "lunch menu"];
    const vectors = await openAiEmbedder(config()).embed(texts);
    expect(vectors.map((v) => [...v])).toEqual(texts.map((text) => [...unitVector(conceptVector(text))]));
    expect(embeddings.requests.at(-1)).toMatchObject({ model: "concepts-1", input: texts, dimensions: 32, authorization: undefined });
  });

  it("reports an endpoint failure or an unreachable endpoint as an EmbeddingsError", async () => {
    embeddings.setFailing(true);
    try {
      await expect(openAiEmbedder(config()).embed(["x"])).rejects.toMatchObject({ name: "EmbeddingsError", status: 503 });
    } finally {
      embeddings.setFailing(false);
    }
    await expect(openAiEmbedder({ ...config(), baseUrl: "http://127.0.0.1:9/v1" }).embed(["x"])).rejects.toBeInstanceOf(EmbeddingsError);
  });
});
