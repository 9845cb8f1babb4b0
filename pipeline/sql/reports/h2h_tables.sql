-- h2h_tables: the tables two players shared, in play order. Parameters: $a, $b (player keys).
-- ahead: 'a' or 'b' finished ahead at the table (lower rank), 'level' for a shared rank.
with a as (select * from table_standings_t where player_key = $a),
b as (select * from table_standings_t where player_key = $b)
select
    e.ruleset, coalesce(e.event_date, cast(e.created_at as date)) as played_on,
    a.event, a.round, r.round_no, a."table",
    a.rank as rank_a, b.rank as rank_b, a.points as points_a, b.points as points_b,
    case when a.rank < b.rank then 'a' when b.rank < a.rank then 'b' else 'level' end as ahead,
    a.complete, a.walkover
from a
join b on b.event = a.event and b.round = a.round and b."table" = a."table"
join events e on e.event = a.event
join rounds r on r.event = a.event and r.round = a.round
order by played_on, a.event, r.round_no, a."table"
