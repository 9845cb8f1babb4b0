-- event_groups: each player of the registry of an event's league with the group they
-- belong to on the event's date, as the view event_members reads it (RULES.md, decided:
-- group over time): the membership in force is the one with the latest valid_from on or
-- before that date (a NULL valid_from holds always and loses to a dated one in force);
-- reserve_for is the group a registered reserve plays for (rule 23). An event's date is
-- events.event_date, else the day it was created. Parameters: $event, and $entrants
-- (true: only the players on the event's roster, for what reads the roster alone).
with ev as (
    select coalesce(league, 'default') as league,
           coalesce(event_date, cast(created_at as date)) as on_date
    from events
    where event = $event
),
dated as (
    select m.player_key, m."group",
           row_number() over (
               partition by m.player_key order by m.valid_from desc nulls last
           ) as pick
    from memberships m
    join ev on m.league = ev.league
    where (m.valid_from is null or m.valid_from <= ev.on_date)
      and (not $entrants or m.player_key in (select player_key from entrants where event = $event))
)
select lp.player_key, lp.player, d."group", lp.reserve_for
from league_players lp
join ev on lp.league = ev.league
left join dated d on d.player_key = lp.player_key and d.pick = 1
where not $entrants or lp.player_key in (select player_key from entrants where event = $event)
