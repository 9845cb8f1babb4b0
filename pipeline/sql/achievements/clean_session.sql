-- clean_session: a session won (rank 1 of round_standings, pepet) without one ambyar hand
-- (ambyar, ambyar1, ambyar2) in it. One row per such session. Parameter: $player.
with won as (
    select s.event, s.round, s.player_key
    from round_standings s
    where s.rank = 1 and s.player_key = $player
),
ambyar as (
    select distinct event, round, player_key
    from hand_points_t
    where player_key = $player and category in ('ambyar', 'ambyar1', 'ambyar2')
)
select w.player_key, cast(null as integer) as season, w.event, w.round,
       cast(null as varchar) as "table", cast(null as integer) as hand,
       coalesce(e.event_date, cast(e.created_at as date)) as played_on,
       cast(null as integer) as count
from won w
join events e on e.event = w.event
left join ambyar a on a.event = w.event and a.round = w.round and a.player_key = w.player_key
where a.player_key is null
