-- group_standings (public, HANDLOG.md; pepet): a group (KG) is the sum of its members.
-- points: members' points; hands: hands its members played; players: members who played.
-- A group none of whose members played has no row; unregistered players have no group.
create or replace view group_standings as
with members as (
    select t.event, r."group", t.player_key, sum(t.points)::integer as points,
           sum(t.hands)::integer as hands
    from table_standings_t t
    join events e using (event)
    join registry r using (player_key)
    where e.models = 'pepet' and r."group" is not null
    group by all
),
final as (
    select event, "group", sum(points)::integer as points, sum(hands)::integer as hands,
           count(*) filter (where hands > 0)::integer as players
    from members
    group by all
)
select event, "group", points, hands, players,
       rank() over (partition by event order by points desc)::integer as rank
from final;
