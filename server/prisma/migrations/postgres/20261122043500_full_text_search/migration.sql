-- Full-text candidate search (written by hand: Prisma does not model tsvector indexes).
-- Memory.searchText already holds the analysed terms, so the vector is built from them verbatim
-- (array_to_tsvector: no parser, no stemming) and queried with tsquery lexemes; only durable
-- memories are indexed.
CREATE INDEX "Memory_searchTerms_idx" ON "Memory"
  USING GIN (array_to_tsvector(string_to_array(btrim("searchText"), ' ')))
  WHERE "state" = 'durable';
