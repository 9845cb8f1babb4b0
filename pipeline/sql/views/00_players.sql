-- players: how each player key is shown — the registry's spelling, else the first seen.
create or replace view players as
select
    n.player_key,
    coalesce(r.player, n.player) as player,
    r."group",
    r.city
from player_names n
left join registry r using (player_key);
