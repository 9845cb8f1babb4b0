-- 013: on PostgreSQL the rating history's two B-tree indexes (011) are replaced by indexes
-- that cost a load less to keep up (migrations/postgres/013_rating_history_indexes.sql).
-- The file store has no index on the rating history (see 011): nothing to do here.
SELECT 1;
