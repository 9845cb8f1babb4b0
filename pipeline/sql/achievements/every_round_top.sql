-- every_round_top: first at the table (rank 1, shared or not) in every round the player
-- played of an event, over two rounds or more. count = the rounds. Parameter: $player.
with mine as (
    select event, count(*) as rounds, sum(case when rank = 1 then 1 else 0 end) as tops
    from table_standings_t
    where player_key = $player and not walkover
    group by event
)
select cast($player as varchar) as player_key, cast(null as integer) as season, m.event,
       cast(null as varchar) as round, cast(null as varchar) as "table",
       cast(null as integer) as hand,
       coalesce(e.event_date, cast(e.created_at as date)) as played_on,
       cast(m.rounds as integer) as count
from mine m
join events e on e.event = m.event
where m.rounds >= 2 and m.tops = m.rounds
