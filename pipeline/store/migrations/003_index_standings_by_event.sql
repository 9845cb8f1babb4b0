-- 003: find an event's table standings without reading every event's.
-- DuckDB keeps only an 8-byte prefix of a text column's min/max per row group, so event
-- names with a common prefix ("pepet-2025-…") never let a scan skip row groups; at 10
-- million hands a leaderboard query read 5 million rows. An ART index on the event
-- answers `event = ?` directly (pipeline/queries.py asks by event alone, then filters).
CREATE INDEX table_standings_event ON table_standings_t (event);
