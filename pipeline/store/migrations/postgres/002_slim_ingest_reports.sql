-- 002 on PostgreSQL: the same slimming of old ingest reports (a PostgreSQL store is new
-- with this product, so it has none; the statement keeps the two stores' histories alike).
UPDATE ingests
SET report = json_build_object('problems', report -> 'problems', 'matches', '[]'::json)
WHERE report IS NOT NULL AND coalesce(matches_unchanged, 0) = 0 AND coalesce(matches_rejected, 0) = 0
