import type { TestProject } from "vitest/node";
import { startLocalPostgres } from "../local-postgres";
import "../provided-context";

/** Vitest global setup: one Postgres server for the run, stopped afterwards. */
export default async function setup(project: TestProject): Promise<() => void> {
  const postgres = await startLocalPostgres();
  project.provide("postgresAdminUrl", postgres.adminUrl);
  return () => postgres.stop();
}
