-- 015: the rating ladders are brought up to date in a transaction of their own, right
-- after the results that move them are committed. A row here, written in the same
-- transaction as those results, says a ladder owes them; the rating transaction that
-- follows removes it. A row left behind (the process was killed, the machine lost power,
-- the rating update failed between the two commits) is found by the next rating update
-- of the same ruleset, which then rebuilds that ladder from the first table that
-- differs instead of only adding its own tables (pipeline/ratings.py).
CREATE TABLE ratings_due (
    ruleset    VARCHAR NOT NULL,
    owner      BIGINT NOT NULL,      -- the load's ingest_id, or the change's own token
    marked_at  TIMESTAMP NOT NULL
);
