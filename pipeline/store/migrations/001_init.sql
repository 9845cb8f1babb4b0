-- 001: the tables behind every public view.
-- Hand rows are never updated or deleted: a new version of a match supersedes the old
-- one, which stays with who, when, which file and why (match_versions).

CREATE TABLE events (
    event        VARCHAR PRIMARY KEY,
    ruleset      VARCHAR NOT NULL,
    params_hash  VARCHAR NOT NULL,        -- hash of the ruleset parameters last scored with
    created_at   TIMESTAMP NOT NULL,
    created_by   VARCHAR
);

CREATE SEQUENCE ingest_seq START 1;

-- One row per file per `domino ingest` call (or dashboard upload).
CREATE TABLE ingests (
    ingest_id          BIGINT NOT NULL,
    file               VARCHAR NOT NULL,
    sha256             VARCHAR,
    rows               BIGINT,
    matches_loaded     INTEGER,
    matches_unchanged  INTEGER,
    matches_rejected   INTEGER,
    loaded_by          VARCHAR,
    started_at         TIMESTAMP NOT NULL,
    finished_at        TIMESTAMP,            -- null: the load was interrupted
    reason             VARCHAR,
    status             VARCHAR NOT NULL,     -- started | done | rejected
    report             JSON                  -- the problems found, as shown to the user
);

CREATE TABLE match_versions (
    event          VARCHAR NOT NULL,
    round          VARCHAR NOT NULL,
    "table"        VARCHAR NOT NULL,
    version        INTEGER NOT NULL,
    kind           VARCHAR NOT NULL,         -- new | update | correction
    ingest_id      BIGINT NOT NULL,
    file           VARCHAR NOT NULL,
    loaded_by      VARCHAR,
    loaded_at      TIMESTAMP NOT NULL,
    reason         VARCHAR,
    content_hash   VARCHAR NOT NULL,
    hands          INTEGER NOT NULL,
    changed_hands  VARCHAR,                  -- for a correction: the hands it changed or dropped
    current        BOOLEAN NOT NULL,
    superseded_at  TIMESTAMP,
    superseded_by  BIGINT,                   -- ingest that brought the next version
    PRIMARY KEY (event, round, "table", version)
);

-- Every hand row ever loaded, typed, with its lineage (file, line).
CREATE TABLE hands (
    event       VARCHAR NOT NULL,
    round       VARCHAR NOT NULL,
    "table"     VARCHAR NOT NULL,
    version     INTEGER NOT NULL,
    hand        INTEGER,                     -- null for a walkover row
    player_a    VARCHAR, player_b VARCHAR, player_c VARCHAR, player_d VARCHAR,
    key_a       VARCHAR, key_b VARCHAR, key_c VARCHAR, key_d VARCHAR,
    ended_by    VARCHAR,
    ending      VARCHAR NOT NULL,
    last_tile   VARCHAR,
    pips_a      INTEGER, pips_b INTEGER, pips_c INTEGER, pips_d INTEGER,
    tiles_a     VARCHAR, tiles_b VARCHAR, tiles_c VARCHAR, tiles_d VARCHAR,
    value_a     INTEGER, value_b INTEGER, value_c INTEGER, value_d INTEGER,
    sanctions_a VARCHAR, sanctions_b VARCHAR, sanctions_c VARCHAR, sanctions_d VARCHAR,
    note        VARCHAR,
    extra       JSON,                        -- columns the file had beyond the contract
    file        VARCHAR NOT NULL,
    line        INTEGER NOT NULL
);

-- Derived: points of the current version of every match (rebuilt by `domino rescore`).
CREATE TABLE hand_points_t (
    event            VARCHAR NOT NULL,
    round            VARCHAR NOT NULL,
    "table"          VARCHAR NOT NULL,
    version          INTEGER NOT NULL,
    hand             INTEGER NOT NULL,
    player_key       VARCHAR NOT NULL,
    chair            VARCHAR NOT NULL,
    category         VARCHAR NOT NULL,
    points           INTEGER NOT NULL,
    game_points      INTEGER NOT NULL,
    sanction_points  INTEGER NOT NULL,
    value            INTEGER,
    tiebreak         BOOLEAN NOT NULL
);

-- Derived: standings of the current version of every match.
CREATE TABLE table_standings_t (
    event           VARCHAR NOT NULL,
    round           VARCHAR NOT NULL,
    "table"         VARCHAR NOT NULL,
    version         INTEGER NOT NULL,
    player_key      VARCHAR NOT NULL,
    points          INTEGER NOT NULL,
    rank            INTEGER NOT NULL,
    qualified       BOOLEAN NOT NULL,
    needs_tiebreak  BOOLEAN NOT NULL,
    tiebreak_points INTEGER NOT NULL,
    hands           INTEGER NOT NULL,        -- hands this player played in the match
    wins            INTEGER NOT NULL,        -- unhas: hands won; pepet: jawara1 + gaple
    match_hands     INTEGER NOT NULL,        -- regular hands recorded for the match
    complete        BOOLEAN NOT NULL,
    walkover        BOOLEAN NOT NULL
);

-- How a player is shown: the registry's spelling, else the first spelling seen.
CREATE TABLE player_names (
    player_key  VARCHAR PRIMARY KEY,
    player      VARCHAR NOT NULL
);

-- The player registry (`domino players import`).
CREATE TABLE registry (
    player_key  VARCHAR PRIMARY KEY,
    player      VARCHAR NOT NULL,
    "group"     VARCHAR,
    city        VARCHAR,
    imported_at TIMESTAMP NOT NULL
);

CREATE TABLE aliases (
    alias_key   VARCHAR PRIMARY KEY,
    player_key  VARCHAR NOT NULL
);

-- Coordinators who may upload and correct (`domino users add`).
CREATE TABLE users (
    name           VARCHAR PRIMARY KEY,
    password_hash  VARCHAR NOT NULL,
    created_at     TIMESTAMP NOT NULL
);

CREATE TABLE user_events (
    name   VARCHAR NOT NULL,
    event  VARCHAR NOT NULL,              -- '*' for every event
    PRIMARY KEY (name, event)
);
