-- rated_tables: every table a rating counts, one row per seated player, in play order.
-- A table counts when it is complete and not a walkover (unhas: a match in progress or a
-- walkover does not count; pepet tables are always complete and never walkovers).
-- Play order: the event's date (else the day it was first loaded), the event name, the
-- round order (view rounds), the table label; the finishing order is table_standings'
-- rank (ties share a rank). Tables of one round share no player, so the order among
-- them does not change any rating; it only fixes the positions.
-- Parameter: $ruleset (one ladder at a time).
with ev as (
    select event, ruleset, coalesce(event_date, cast(created_at as date)) as played_on
    from events
    where ruleset = $ruleset
)
select
    ev.played_on, t.event, t.round, r.round_no, t."table", t.version, t.player_key, t.rank
from table_standings_t t
join ev on ev.event = t.event
join rounds r on r.event = t.event and r.round = t.round
where t.complete and not t.walkover
order by ev.played_on, t.event, r.round_no, t."table", t.rank, t.player_key
