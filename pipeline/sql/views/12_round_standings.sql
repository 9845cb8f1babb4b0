-- round_standings (public, HANDLOG.md; pepet sessions): total per player per session,
-- a star (bintang) for rank 1, every tied player earning one.
create or replace view round_standings as
with per_round as (
    select t.event, t.round, t.player_key, sum(t.points)::integer as points,
           sum(t.hands)::integer as hands, sum(t.wins)::integer as wins
    from table_standings_t t
    join events e using (event)
    where e.models = 'pepet'
    group by all
),
final as (
    select
        r.event, r.round, p.player, r.points,
        rank() over (partition by r.event, r.round order by r.points desc)::integer as rank,
        r.hands, r.wins, r.player_key
    from per_round r
    join players p using (player_key)
)
select event, round, player, points, rank, rank = 1 as star, hands, wins, player_key
from final;
