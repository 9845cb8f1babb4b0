-- hand_points (public, HANDLOG.md): one row per seated player per hand, net points
-- (sanctions folded in). Tie-break hands appear with their points.
create or replace view hand_points as
select
    h.event, h.round, h."table", h.hand, p.player, h.chair, h.category, h.points,
    h.game_points, h.sanction_points, h.value, h.tiebreak, h.version, h.player_key
from hand_points_t h
join players p using (player_key);
