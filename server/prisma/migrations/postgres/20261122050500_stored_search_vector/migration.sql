-- Store the tsvector instead of computing it per row: matching and ranking then read it, whichever
-- index the planner picks for the organization and environment filter.
DROP INDEX IF EXISTS "Memory_searchTerms_idx";
ALTER TABLE "Memory" ADD COLUMN "searchVector" tsvector
  GENERATED ALWAYS AS (array_to_tsvector(string_to_array(btrim("searchText"), ' '))) STORED;
CREATE INDEX "Memory_searchVector_idx" ON "Memory" USING GIN ("searchVector") WHERE "state" = 'durable';
