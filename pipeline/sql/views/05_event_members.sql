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
-- A member's row wins over a reserve's: each player's candidate rows are ranked, not
-- filtered with NOT EXISTS (DuckDB 2.0.0 never returned from a LIMIT over that anti-join
-- on a large store: `domino players import` hung on a 1-million-hand database).
candidates as (
    select event, player_key, "group", 'member' as role, 0 as role_rank
    from dated where pick = 1
    union all
    select p.event, p.player_key, lp.reserve_for as "group", 'reserve' as role, 1 as role_rank
    from played p
    join ev on ev.event = p.event
    join league_players lp on lp.league = ev.league and lp.player_key = p.player_key
    where lp.reserve_for is not null
),
ranked as (
    select event, player_key, "group", role,
           row_number() over (partition by event, player_key order by role_rank) as k
    from candidates
)
select event, player_key, "group", role from ranked where k = 1;
