-- 011: the lookups a live upload makes in the rating ladders (pipeline/ratings.py: the last
-- rated table, where the uploaded tables were rated before, the players rated after a
-- point, their ratings before it) are answered from indexes on PostgreSQL
-- (migrations/postgres/011_rating_indexes.sql). DuckDB answers them by scanning the
-- columns it needs, which costs milliseconds at 10 million hands, and keeps its bulk
-- loads free of index upkeep: nothing to do here.
SELECT 1;
