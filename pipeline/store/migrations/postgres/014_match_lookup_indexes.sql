-- 014 on PostgreSQL: the hand rows and the hand points indexed by event, with BRIN bloom
-- indexes. A correction (or a file uploaded again) reads the match's loaded hands and
-- deletes its old points; without an index both were scans of the whole table, and at a
-- million hands a correction took 0.9 s, of which 0.47 s deleting the points and 0.11 s
-- reading the hands (ten times that at ten million). With these indexes: 2.6 ms and
-- 1.1 ms. A match's rows are written together, so they sit in one or two ranges of
-- pages, and a bloom summary per range of 8 pages says which ranges may hold the event.
-- Kept up to date they cost a bulk COPY almost nothing: the new pages at the end are
-- summarised afterwards by autovacuum (autosummarize), and until then they are read
-- whole, as every page was before. A B-tree on (event, round, table, version) answered
-- in 0.3 ms but doubled the COPY of the hand rows.
CREATE INDEX hands_event ON hands USING brin (event text_bloom_ops)
    WITH (pages_per_range = 8, autosummarize = on);
CREATE INDEX hand_points_event ON hand_points_t USING brin (event text_bloom_ops)
    WITH (pages_per_range = 8, autosummarize = on)
