-- Group (KG) standings after round N: the group_standings view
-- (pipeline/sql/views/14_group_standings.sql) over the rounds up to N in round order, on
-- the same footing: membership on the event's date (event_members) and a registered
-- reserve counted for the group they are a reserve of (rule 23; `reserves`).
-- Parameters: 1 the event, 2 N's round_no.
with members as (
    select t.event, m."group", t.player_key, m.role,
           cast(sum(t.points) as integer) as points, cast(sum(t.hands) as integer) as hands
    from table_standings_t t
    join events e on e.event = t.event
    join rounds r on r.event = t.event and r.round = t.round
    join event_members m on m.event = t.event and m.player_key = t.player_key
    where t.event = ? and r.round_no <= ? and e.models = 'pepet'
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
from final
order by rank, "group"
