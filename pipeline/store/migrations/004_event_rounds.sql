-- 004: the organiser's own round order of an event (`domino event rounds EVENT R1 R2 …`).
-- The rounds view (pipeline/sql/views/01_rounds.sql) puts the listed rounds first, in
-- this order; rounds not listed follow by the default rule (RULES.md, round order).
CREATE TABLE event_rounds (
    event     VARCHAR NOT NULL,
    round     VARCHAR NOT NULL,
    position  INTEGER NOT NULL,           -- 1, 2, … in the organiser's order
    PRIMARY KEY (event, round)
);
