-- 010: matches entered hand by hand at the table (the dashboard's hand entry page).
-- A row says the match was opened for entry by a referee; while closed_at is NULL the
-- match is open, and a new version of it may change its hands without a reason (the
-- referee fixes a wrong hand before closing). The referee closes it after the last
-- regular hand (or the tie-break hands); from then on, as for every match loaded from a
-- file, a change to a loaded hand is a correction and needs a reason. A match with no
-- row here was never opened for entry and counts as closed.
CREATE TABLE match_entry (
    event       VARCHAR NOT NULL,
    round       VARCHAR NOT NULL,
    "table"     VARCHAR NOT NULL,
    opened_by   VARCHAR,
    opened_at   TIMESTAMP NOT NULL,
    closed_by   VARCHAR,
    closed_at   TIMESTAMP,                   -- NULL: open for entry
    PRIMARY KEY (event, round, "table")
);
