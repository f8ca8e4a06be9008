-- An agent's boundary is its own memories and the shared ones (no agent): a newest-first lookup inside it walks
-- each of the two in time order on this key, instead of the organization's every row for the few the agent
-- sees (see docs/performance.md).
CREATE INDEX "MemoryTimeline_agentSlug_idx" ON "MemoryTimeline" ("orgId", "environment", "agentSlug", "createdAt", "id");
