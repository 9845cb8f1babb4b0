-- 011 on PostgreSQL: indexes for the rating ladders' lookups after an upload, so that one
-- upload reads a handful of rows however long the ladder is (the DuckDB text of this
-- migration says why the file store has none).
CREATE INDEX rating_tables_position ON rating_tables (ruleset, seq);
CREATE INDEX rating_tables_match ON rating_tables (event, round, "table");
CREATE INDEX rating_history_position ON rating_history_t (ruleset, seq);
CREATE INDEX rating_history_player ON rating_history_t (ruleset, player_key, seq);
CREATE INDEX ratings_player ON ratings_t (ruleset, player_key);
CREATE INDEX ratings_last ON ratings_t (ruleset, last_seq)
