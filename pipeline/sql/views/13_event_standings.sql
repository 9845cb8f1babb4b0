-- event_standings (public, HANDLOG.md): one row per player per event.
-- Rulesets scored by the unhas models (RULES.md, decided): later round reached first, then rank at the table in that
-- round, then total points; by the pepet models: points, then stars, then jawara1 + gaple; still tied:
-- a shared rank. Ruleset-specific columns follow the four of the contract.
create or replace view event_standings as
with unhas_rows as (
    select
        t.event, e.ruleset, t.player_key, t.points, t.rank, r.round_no, t.round, t.qualified
    from table_standings_t t
    join events e using (event)
    join rounds r using (event, round)
    where e.models = 'unhas'
),
unhas_players as (
    select
        event, ruleset, player_key,
        sum(points)::integer as points,
        max(round_no) as round_no,
        arg_max(rank, round_no) as table_rank,
        arg_max(round, round_no) as round_reached,
        arg_max(qualified, round_no) as qualified
    from unhas_rows
    group by all
),
unhas_final as (
    select
        event, player_key, points,
        rank() over (partition by event order by round_no desc, table_rank asc, points desc)::integer as rank,
        ruleset, round_reached, table_rank::integer as table_rank, qualified,
        null::integer as stars, null::integer as jawara_gaple, null::integer as hands
    from unhas_players
),
pepet_players as (
    select
        s.event, e.ruleset, s.player_key,
        sum(s.points)::integer as points,
        count(*) filter (where s.star)::integer as stars,
        sum(s.wins)::integer as jawara_gaple,
        sum(s.hands)::integer as hands
    from round_standings s
    join events e using (event)
    group by all
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
join players p using (player_key);
