-- 007: ratings (OpenSkill Plackett-Luce, one ladder per ruleset; pipeline/ratings.py).
-- Derived data, like hand_points_t: `domino rescore` rebuilds all three tables from the
-- table standings, and every load or correction brings them up to date by itself.

-- The tables rated, in play order: position `seq` (1, 2, … per ruleset) and what the
-- table's finishing order was when it was rated (`fingerprint`: each player key with its
-- rank). A later update keeps the longest prefix that is still the same and replays the rest.
CREATE TABLE rating_tables (
    ruleset      VARCHAR NOT NULL,
    seq          BIGINT NOT NULL,
    event        VARCHAR NOT NULL,
    round        VARCHAR NOT NULL,
    "table"      VARCHAR NOT NULL,
    version      INTEGER NOT NULL,
    played_on    DATE NOT NULL,          -- the event's date, else the day it was first loaded
    fingerprint  VARCHAR NOT NULL
);

-- Each player's rating after each table they played (the rating history).
CREATE TABLE rating_history_t (
    ruleset      VARCHAR NOT NULL,
    seq          BIGINT NOT NULL,
    player_key   VARCHAR NOT NULL,
    rank         INTEGER NOT NULL,       -- the player's finishing place at the table
    mu           DOUBLE NOT NULL,        -- after the table
    sigma        DOUBLE NOT NULL,
    mu_before    DOUBLE NOT NULL,
    sigma_before DOUBLE NOT NULL,
    matches      INTEGER NOT NULL        -- tables rated so far, this one included
);

-- Each player's current rating per ruleset (the last row of their history).
CREATE TABLE ratings_t (
    ruleset      VARCHAR NOT NULL,
    player_key   VARCHAR NOT NULL,
    mu           DOUBLE NOT NULL,
    sigma        DOUBLE NOT NULL,
    matches      INTEGER NOT NULL,
    last_seq     BIGINT NOT NULL
);
