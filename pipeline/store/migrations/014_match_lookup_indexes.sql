-- 014: on PostgreSQL the hand rows and their points are found by event
-- (migrations/postgres/014_match_lookup_indexes.sql): a correction or a re-upload reads
-- the match's loaded hands and deletes its old points, and PostgreSQL scanned the whole of
-- both tables for it. DuckDB skips the other matches' row groups by their zone maps and
-- keeps no index up to date in a bulk load: nothing to do here.
SELECT 1;
