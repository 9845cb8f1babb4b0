-- draws: every draw of a round with its seed; the newest is current (HANDLOG.md).
create or replace view draws as
select event, round, seed, drawn_at, reason, current
from draws_t;
