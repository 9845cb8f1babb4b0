-- seatings: who sits in which chair of the current draw of every round (HANDLOG.md).
-- unhas: one row per chair per regular hand after the swap schedule; pepet: hand NULL.
create or replace view seatings as
select s.event, s.round, s."table", s.hand, s.chair, s.player
from draw_seats s
join draws_t d on d.event = s.event and d.round = s.round and d.draw_no = s.draw_no
where d.current;
