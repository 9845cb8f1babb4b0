-- group_standings (public, HANDLOG.md; pepet): a group (KG) is the sum of its members.
-- points: members' points; hands: hands its members played; players: members who played.
-- A group none of whose members played has no row; unregistered players have no group.
-- Membership is read on the event's date (event_members, 05_event_members.sql); a
-- registered reserve who played counts for the group they are a reserve of: their own
-- points, added to the group's (rule 23). reserves: how many of `players` were reserves.
create or replace view group_standings as
with members as (
    select t.event, m."group", t.player_key, m.role,
           cast(sum(t.points) as integer) as points, cast(sum(t.hands) as integer) as hands
    from table_standings_t t
    join events e on e.event = t.event
    join event_members m on m.event = t.event and m.player_key = t.player_key
    where e.models = 'pepet'
    group by t.event, m."group", t.player_key, m.role
),
final as (
    select event, "group", cast(sum(points) as integer) as points,
           cast(sum(hands) as integer) as hands,
           cast(count(*) filter (where hands > 0) as integer) as players,
           cast(count(*) filter (where hands > 0 and role = 'reserve') as integer) as reserves
    from members
    group by event, "group"
)
select event, "group", points, hands, players,
       cast(rank() over (partition by event order by points desc) as integer) as rank,
       reserves
from final;
