-- 006: events as records (title, date, venue, level), their entrants, and draws.
-- An event may now exist before any result: `domino event create` writes the row, and a
-- load of that event uses its ruleset. `event_date` is the day the event is played
-- (ratings order tables by it; group membership is read on it).
ALTER TABLE events ADD COLUMN title VARCHAR;
ALTER TABLE events ADD COLUMN event_date DATE;
ALTER TABLE events ADD COLUMN venue VARCHAR;
ALTER TABLE events ADD COLUMN level VARCHAR;   -- group | kabupaten | kota | provinsi | nasional

-- The entrants of an event (`domino event roster`, or qualifiers put in by `domino advance`).
CREATE TABLE entrants (
    event       VARCHAR NOT NULL,
    player_key  VARCHAR NOT NULL,
    player      VARCHAR NOT NULL,            -- the spelling shown (registry's, else the file's)
    "group"     VARCHAR,                     -- the KG, where the roster or registry names one
    source      VARCHAR,                     -- the roster file, or "advance from E1, E2 …"
    added_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (event, player_key)
);

-- Every draw of a round (`domino draw`); a redraw adds a row with its reason and the
-- newest becomes current. Draws are never deleted.
CREATE TABLE draws_t (
    event     VARCHAR NOT NULL,
    round     VARCHAR NOT NULL,
    draw_no   INTEGER NOT NULL,              -- 1, 2, … per round
    seed      BIGINT NOT NULL,
    drawn_at  TIMESTAMP NOT NULL,
    drawn_by  VARCHAR,
    reason    VARCHAR,                       -- required from the second draw of a round on
    current   BOOLEAN NOT NULL,
    PRIMARY KEY (event, round, draw_no)
);

-- The seats of a draw: one row per chair per regular hand after the ruleset's swap
-- schedule (unhas: hands 1-10), or one row per chair with hand NULL where chairs do not
-- change (pepet sessions). An empty chair has no row.
CREATE TABLE draw_seats (
    event       VARCHAR NOT NULL,
    round       VARCHAR NOT NULL,
    draw_no     INTEGER NOT NULL,
    "table"     VARCHAR NOT NULL,
    hand        INTEGER,
    chair       VARCHAR NOT NULL,
    player_key  VARCHAR NOT NULL,
    player      VARCHAR NOT NULL
);
