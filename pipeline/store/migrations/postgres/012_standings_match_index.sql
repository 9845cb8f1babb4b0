-- 012 on PostgreSQL: the stored standings indexed by match (event, round, table). The
-- index also answers what 003's event index answered (its first column), so that one is
-- dropped: a load keeps one index up to date, as before.
CREATE INDEX table_standings_match ON table_standings_t (event, round, "table");
DROP INDEX table_standings_event
