-- Group (KG) standings after round N: the group_standings view
-- (pipeline/sql/views/14_group_standings.sql) over the rounds up to N in round order.
-- Parameters: 1 the event, 2 N's round_no.
with members as (
    select t.event, g."group", t.player_key, sum(t.points)::integer as points,
           sum(t.hands)::integer as hands
    from table_standings_t t
    join events e using (event)
    join rounds r using (event, round)
    join registry g using (player_key)
    where t.event = ? and r.round_no <= ? and e.models = 'pepet' and g."group" is not null
    group by t.event, g."group", t.player_key
),
final as (
    select event, "group", sum(points)::integer as points, sum(hands)::integer as hands,
           count(*) filter (where hands > 0)::integer as players
    from members
    group by event, "group"
)
select event, "group", points, hands, players,
       rank() over (partition by event order by points desc)::integer as rank
from final
order by rank, "group"
