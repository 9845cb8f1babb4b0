-- first_apollo: the player's first Apollo (went out on a double, unhas), in play order
-- (event date — else the day it was first loaded — event, round order, table, hand).
-- Parameter: $player (a player key). Every achievement query returns the same columns.
with apollos as (
    select
        h.player_key, h.event, h.round, h."table", h.hand,
        coalesce(e.event_date, cast(e.created_at as date)) as played_on,
        row_number() over (
            partition by h.player_key
            order by coalesce(e.event_date, cast(e.created_at as date)), h.event, r.round_no,
                     h."table", h.hand
        ) as n
    from hand_points_t h
    join events e on e.event = h.event
    join rounds r on r.event = h.event and r.round = h.round
    where h.category = 'apollo' and h.player_key = $player
)
select player_key, cast(null as integer) as season, event, round, "table", hand, played_on,
       cast(null as integer) as count
from apollos
where n = 1
