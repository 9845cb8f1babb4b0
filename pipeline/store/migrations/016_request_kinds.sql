-- 016: a change request is a correction (an upload kept for the jury) or a withdrawal (a
-- match loaded by mistake, taken out when the jury approves: pipeline/ingest/withdraw.py).
-- A withdrawal request has one match and no file. Every request before this one was a
-- correction.
ALTER TABLE change_requests ADD COLUMN kind VARCHAR DEFAULT 'correction';
