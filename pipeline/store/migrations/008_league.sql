-- 008: leagues, a registry with history, levels that feed each other, substitutes.
-- A registry belongs to a league (a set of events): an event is checked against its own
-- league's registry only. Events and registries that name no league are in the league
-- 'default' (every database before this migration).
ALTER TABLE events ADD COLUMN league VARCHAR DEFAULT 'default';
UPDATE events SET league = 'default' WHERE league IS NULL;

-- A league's registered players: how they are written and what is known of them.
-- `registry` (001) stays: the spelling, newest group and city of each player key across
-- leagues, for the `players` view and older readers.
CREATE TABLE league_players (
    league       VARCHAR NOT NULL,
    player_key   VARCHAR NOT NULL,
    player       VARCHAR NOT NULL,
    city         VARCHAR,
    birth_date   DATE,                     -- eligibility: age on the event's date
    citizenship  VARCHAR,                  -- eligibility, where known
    reserve_for  VARCHAR,                  -- a reserve of this group (rule 23)
    imported_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (league, player_key)
);
INSERT INTO league_players (league, player_key, player, city, imported_at)
SELECT 'default', player_key, player, city, imported_at FROM registry;

-- Group memberships over time (RULES.md, decided: group over time). The membership in
-- force on an event's date is the one with the latest valid_from on or before it; a
-- NULL valid_from holds for every date (and loses to any dated one in force).
CREATE TABLE memberships (
    league       VARCHAR NOT NULL,
    player_key   VARCHAR NOT NULL,
    "group"      VARCHAR NOT NULL,
    valid_from   DATE,
    imported_at  TIMESTAMP NOT NULL
);
INSERT INTO memberships (league, player_key, "group", valid_from, imported_at)
SELECT 'default', player_key, "group", NULL, imported_at FROM registry WHERE "group" IS NOT NULL;

-- Every registry import: who, when, from which file, why (needed when it changed what
-- loaded matches use), and what it changed, as shown before it was applied.
CREATE TABLE registry_history (
    change_no    INTEGER NOT NULL PRIMARY KEY,
    league       VARCHAR NOT NULL,
    file         VARCHAR,
    applied_at   TIMESTAMP NOT NULL,
    applied_by   VARCHAR,
    reason       VARCHAR,
    players      INTEGER NOT NULL,         -- players in the file
    changes      VARCHAR                   -- the diff shown (text), NULL when none
);

-- Qualifiers of one level put into the roster of the next (`domino advance`).
CREATE TABLE advancements (
    from_event   VARCHAR NOT NULL,
    to_event     VARCHAR NOT NULL,
    "top"        INTEGER NOT NULL,
    per_group    BOOLEAN NOT NULL,
    advanced_at  TIMESTAMP NOT NULL,
    advanced_by  VARCHAR,
    players      INTEGER NOT NULL          -- qualifiers put in (ties at the cut included)
);

-- Substitutes (rule 23): an entrant who is a reserve plays for an absent member; the
-- roster records whom they replace and the core player's consent.
ALTER TABLE entrants ADD COLUMN replaces VARCHAR;   -- the member's player key
ALTER TABLE entrants ADD COLUMN consent VARCHAR;    -- how the consent was given (text)
