-- Event standings after round N (the dashboard's round picker): the event_standings view
-- (pipeline/sql/views/13_event_standings.sql) computed only over the rounds up to N in
-- the event's round order (the rounds view). Same ordering rules, same columns:
-- unhas models: later round reached first, then rank at the table in that round, then
-- points over those rounds; pepet models: points, then stars, then jawara1 + gaple.
-- Parameters: 1 the event, 2 N's round_no (1 = the first round).
with scoped as (
    select t.*, e.ruleset, e.models, r.round_no
    from table_standings_t t
    join events e using (event)
    join rounds r using (event, round)
    where t.event = ? and r.round_no <= ?
),
unhas_players as (
    select
        event, ruleset, player_key,
        sum(points)::integer as points,
        max(round_no) as round_no,
        arg_max(rank, round_no) as table_rank,
        arg_max(round, round_no) as round_reached,
        arg_max(qualified, round_no) as qualified
    from scoped
    where models = 'unhas'
    group by event, ruleset, player_key
),
unhas_final as (
    select
        event, player_key, points,
        rank() over (partition by event order by round_no desc, table_rank asc, points desc)::integer as rank,
        ruleset, round_reached, table_rank::integer as table_rank, qualified,
        null::integer as stars, null::integer as jawara_gaple, null::integer as hands
    from unhas_players
),
sessions as (
    select event, ruleset, round, player_key, sum(points)::integer as points,
           sum(hands)::integer as hands, sum(wins)::integer as wins
    from scoped
    where models = 'pepet'
    group by event, ruleset, round, player_key
),
session_ranked as (
    select *, rank() over (partition by event, round order by points desc) = 1 as star
    from sessions
),
pepet_players as (
    select
        event, ruleset, player_key,
        sum(points)::integer as points,
        count(*) filter (where star)::integer as stars,
        sum(wins)::integer as jawara_gaple,
        sum(hands)::integer as hands
    from session_ranked
    group by event, ruleset, player_key
),
pepet_final as (
    select
        event, player_key, points,
        rank() over (partition by event order by points desc, stars desc, jawara_gaple desc)::integer as rank,
        ruleset, null::varchar as round_reached, null::integer as table_rank,
        null::boolean as qualified, stars, jawara_gaple, hands
    from pepet_players
),
final as (
    select * from unhas_final
    union all
    select * from pepet_final
)
select f.event, p.player, f.points, f.rank, f.ruleset, f.round_reached, f.table_rank,
       f.qualified, f.stars, f.jawara_gaple, f.hands, f.player_key
from final f
join players p using (player_key)
order by f.rank, p.player
