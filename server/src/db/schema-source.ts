/**
 * The Postgres Prisma schema is derived from the SQLite one, which is the single model source: only
 * the datasource provider and url and the generated client's output folder differ.
 */
export function postgresSchemaFrom(sqliteSchema: string): string {
  return sqliteSchema
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('url      = "file:./dev.db"', 'url      = "postgresql://localhost/engram"')
    .replace('output     = "../src/db/generated/sqlite"', 'output     = "../src/db/generated/postgres"');
}
