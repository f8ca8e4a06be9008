import pg from "pg";

/**
 * What autovacuum does within a minute or so of a bulk load: vacuum (which also merges the GIN index's pending
 * list) and analyse the memories and the timeline newest-first lookups walk. Figures measured before it would
 * be those of the minute after the load, over the empty table's statistics (docs/performance.md).
 */
export async function vacuumAnalyzeMemories(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE "Memory", "MemoryTimeline"');
  } finally {
    await client.end();
  }
}
