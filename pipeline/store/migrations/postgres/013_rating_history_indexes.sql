-- 013 on PostgreSQL: the rating history is written a row per player per rated table, and
-- its two B-tree indexes of 011 more than quadrupled the time of that COPY (200,000 rows:
-- 0.45 s without them, 2.0 s with them). They answered two lookups, now served by
-- indexes that cost a load little: the ladder's tail from a position (a replay deletes
-- it), by a BRIN index on the position, which follows the order the rows are appended
-- in; and one player's ratings (a replay's starting state, the player page), by a hash
-- index on the player. Measured on the same 200,000 rows: 1.0 s.
DROP INDEX rating_history_position;
DROP INDEX rating_history_player;
CREATE INDEX rating_history_seq ON rating_history_t USING brin (seq);
CREATE INDEX rating_history_player ON rating_history_t USING hash (player_key)
