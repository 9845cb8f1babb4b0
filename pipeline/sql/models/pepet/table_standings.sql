-- pepet table standings: points and rank per player per table of a session.
-- The league has no qualification from a table: qualified and needs_tiebreak are false.
-- Input: _hand_points (pepet/hand_points.sql), _hands.

with per_player as (
    select
        mid, player_key,
        any_value(event) as event, any_value(round) as round, any_value("table") as "table",
        any_value(version) as version,
        sum(points)::integer as points,
        count(*)::integer as hands,
        count(*) filter (where category in ('jawara1', 'gaple'))::integer as wins
    from _hand_points
    group by mid, player_key
),

matches as (
    select mid, count(distinct hand)::integer as match_hands
    from _hands
    group by mid
),

final as (
    select
        event, round, "table", version, player_key, points,
        rank() over (partition by mid order by points desc)::integer as rank,
        false as qualified,
        false as needs_tiebreak,
        0 as tiebreak_points,
        hands, wins, match_hands,
        true as complete,
        false as walkover
    from per_player
    join matches using (mid)
)

select * from final
