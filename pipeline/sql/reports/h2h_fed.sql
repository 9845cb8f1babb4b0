-- h2h_fed: hands of a shared table where one of two players sat above the other as the
-- other won (the feeder's category is `above`: RULES.md, the player above the winner
-- pays). Parameters: $a, $b (player keys); {winning} is the list of winning categories.
with x as (
    select event, round, "table", hand, player_key, category, points
    from hand_points_t
    where player_key = $a or player_key = $b
)
select
    f.event, f.round, f."table", f.hand,
    case when f.player_key = $a then 'a' else 'b' end as feeder,
    w.category, f.points as feeder_points, w.points as winner_points
from x f
join x w on w.event = f.event and w.round = f.round and w."table" = f."table" and w.hand = f.hand
where f.category = 'above' and w.player_key <> f.player_key and w.category in ({winning})
order by f.event, f.round, f."table", f.hand
