-- unhas table standings: one row per player per match (RULES.md Art. 2.12-2.13, 4.3).
-- Input: _hand_points (unhas/hand_points.sql), _hands, _params.
-- points = regular hands + every sanction (tie-break hands' sanctions included);
-- tie-break game points order the tied players only.

with hp as (
    select h.*, p.qualifiers_per_table, p.tiebreak_points_count, p.regular_hands
    from _hand_points h join _params p using (event)
),

matches as (
    select mid,
           count(distinct hand) filter (where hand <= p.regular_hands) as match_hands,
           bool_or(ending = 'wo') as walkover
    from _hands join _params p using (event)
    group by mid
),

per_player as (
    select
        mid, player_key,
        any_value(event) as event, any_value(round) as round, any_value("table") as "table",
        any_value(version) as version,
        sum(case when not tiebreak or tiebreak_points_count then points else sanction_points end)::integer as points,
        sum(case when tiebreak then game_points else 0 end)::integer as tiebreak_points,
        count(*) filter (where not tiebreak)::integer as hands,
        count(*) filter (where category in ('apollo', 'ceki', 'kandang', 'biasa', 'tangkap') and not tiebreak)::integer as wins,
        any_value(qualifiers_per_table) as q
    from hp
    group by mid, player_key
),

ranked as (
    select
        pp.*, m.match_hands, m.walkover,
        m.match_hands >= p.regular_hands as complete,
        rank() over match_w as rank,
        count(*) over (partition by pp.mid, pp.points, pp.tiebreak_points) as tied
    from per_player pp
    join matches m using (mid)
    join _params p using (event)
    window match_w as (partition by pp.mid order by pp.points desc, pp.tiebreak_points desc)
),

played as (
    select
        event, round, "table", version, player_key, points,
        rank::integer as rank,
        -- Decided: qualified once the match is complete and the whole tied group fits
        complete and rank + tied - 1 <= q as qualified,
        tied > 1 and (rank = 1 or (rank <= q and rank + tied - 1 > q)) as needs_tiebreak,
        tiebreak_points, hands, wins, match_hands::integer as match_hands, complete,
        false as walkover
    from ranked
),

walkovers as (
    -- Art. 4.3: the listed players advance, 0 points, rank 1
    select distinct event, round, "table", version, player_key,
           0 as points, 1 as rank, true as qualified, false as needs_tiebreak,
           0 as tiebreak_points, 0 as hands, 0 as wins, 0 as match_hands, true as complete,
           true as walkover
    from (
        select event, round, "table", version, unnest([key_a, key_b, key_c, key_d]) as player_key
        from _hands where ending = 'wo'
    )
    where player_key is not null
),

final as (
    select * from played
    union all
    select * from walkovers
)

select * from final
