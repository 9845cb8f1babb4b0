-- 017: when the coordinator who sent a change request first saw the jury's decision on it
-- (the change requests page), so the sidebar can tell them of a decision they have not
-- seen yet. NULL: pending, cancelled, or decided and not seen. Requests decided before
-- this migration count as seen.
ALTER TABLE change_requests ADD COLUMN seen_at TIMESTAMP;
UPDATE change_requests SET seen_at = decided_at WHERE status IN ('approved', 'rejected', 'stale');
