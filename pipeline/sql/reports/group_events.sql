-- group_events: the events a coordinator's group (KG) rights reach. A right is a league and
-- a group ($leagues and $groups, paired by position); it reaches the events of its league
-- where a player of the group is on the roster (by the roster's group, else the group they
-- belong to on the event's date in the league's registry) or has played, a registered
-- reserve of the group included (rule 23: their points count for it). The membership in
-- force on a date is read as the view event_members reads it.
with rights as (
    select unnest($leagues) as league, unnest($groups) as "group"
),
ev as (
    select event, coalesce(league, 'default') as league,
           coalesce(event_date, cast(created_at as date)) as on_date
    from events
    where coalesce(league, 'default') in (select league from rights)
),
-- the players who ever belonged to a right's group, or are registered reserves of one:
-- no one else can reach it (read first, so a large store's results are not all scanned)
members as (
    select m.player_key
    from memberships m join rights r on m.league = r.league and m."group" = r."group"
    union
    select lp.player_key
    from league_players lp join rights r on lp.league = r.league and lp.reserve_for = r."group"
),
people as (
    select e.event, e.player_key, e."group" as own_group
    from entrants e join ev on ev.event = e.event
    where e."group" in (select "group" from rights)
       or e.player_key in (select player_key from members)
    union
    select distinct s.event, s.player_key, cast(null as varchar) as own_group
    from table_standings_t s join ev on ev.event = s.event
    where s.player_key in (select player_key from members)
),
dated as (
    select p.event, ev.league, m."group",
           row_number() over (
               partition by p.event, p.player_key order by m.valid_from desc nulls last
           ) as pick
    from people p
    join ev on ev.event = p.event
    join memberships m on m.league = ev.league and m.player_key = p.player_key
    where m.valid_from is null or m.valid_from <= ev.on_date
),
reach as (
    select p.event, ev.league, p.own_group as "group"
    from people p join ev on ev.event = p.event
    where p.own_group is not null
    union
    select event, league, "group" from dated where pick = 1
    union
    select p.event, ev.league, lp.reserve_for as "group"
    from people p
    join ev on ev.event = p.event
    join league_players lp on lp.league = ev.league and lp.player_key = p.player_key
    where lp.reserve_for is not null
)
select distinct reach.event
from reach
join rights on rights.league = reach.league and rights."group" = reach."group"
order by 1
