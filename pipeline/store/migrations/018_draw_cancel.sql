-- 018: a draw made by mistake (the wrong event picked, a mistyped round) can be cancelled
-- while nothing of its round is loaded: it stays in draws_t, no longer current, with who
-- cancelled it, when and why. The round then has no current draw (`seatings` shows none).
ALTER TABLE draws_t ADD COLUMN cancelled_at TIMESTAMP;
ALTER TABLE draws_t ADD COLUMN cancelled_by VARCHAR;
ALTER TABLE draws_t ADD COLUMN cancel_reason VARCHAR;
