-- table_standings (public, HANDLOG.md): one row per player per match.
create or replace view table_standings as
select
    t.event, t.round, t."table", p.player, t.points, t.rank, t.qualified, t.needs_tiebreak,
    t.tiebreak_points, t.hands, t.match_hands, t.complete, t.walkover, t.wins, t.version,
    t.player_key
from table_standings_t t
join players p using (player_key);
