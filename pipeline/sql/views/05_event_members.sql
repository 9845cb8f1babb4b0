-- event_members: the group each player of an event played for, read on the event's date
-- (RULES.md, decided: group over time). An event's date is events.event_date, else the
-- day it was created; its registry is its league's. The membership in force is the one
-- with the latest valid_from on or before that date (a NULL valid_from holds always and
-- loses to a dated one in force). A registered reserve (reserve_for) with no membership
-- in force plays for the group they are a reserve of (rule 23): role 'reserve'.
create or replace view event_members as
with ev as (
    select event, coalesce(league, 'default') as league,
           coalesce(event_date, cast(created_at as date)) as on_date
    from events
),
played as (
    select distinct event, player_key from table_standings_t
),
dated as (
    select p.event, p.player_key, m."group",
           row_number() over (
               partition by p.event, p.player_key order by m.valid_from desc nulls last
           ) as pick
    from played p
    join ev on ev.event = p.event
    join memberships m on m.league = ev.league and m.player_key = p.player_key
    where m.valid_from is null or m.valid_from <= ev.on_date
),
members as (
    select event, player_key, "group", 'member' as role from dated where pick = 1
),
reserves as (
    select p.event, p.player_key, lp.reserve_for as "group", 'reserve' as role
    from played p
    join ev on ev.event = p.event
    join league_players lp on lp.league = ev.league and lp.player_key = p.player_key
    where lp.reserve_for is not null
      and not exists (
          select 1 from members m where m.event = p.event and m.player_key = p.player_key
      )
)
select event, player_key, "group", role from members
union all
select event, player_key, "group", role from reserves;
