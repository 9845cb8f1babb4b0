-- The road to the final: every player at every table of every round of one event, with
-- the table of the next round they sat at (played, else drawn), and how they left it.
-- Rounds come from _order (round, round_no): the played rounds in the rounds view's
-- order, then the rounds drawn but not played yet. A drawn table with nothing loaded
-- shows as drawn, also in a round whose other tables are played.
-- Parameters: 1 the event (played rows), 2 the event (drawn rows), 3 whether the rulebook
-- qualifies players from a table (its [dashboard] qualification).
with played as (
    select t.round, o.round_no, t."table", t.player_key, t.points, t.tiebreak_points, t.rank,
           t.qualified, t.needs_tiebreak, t.complete, t.walkover
    from table_standings_t t
    join _order o on o.round = t.round
    where t.event = ?
),
drawn as (
    select distinct s.round, o.round_no, s."table", s.player_key, s.player as drawn_name
    from draw_seats s
    join draws_t d on d.event = s.event and d.round = s.round and d.draw_no = s.draw_no
    join _order o on o.round = s.round
    where d.current and s.event = ?
      and not exists (select 1 from played p where p.round = s.round and p."table" = s."table")
),
rows_all as (
    select round, round_no, "table", player_key, points, tiebreak_points, rank, qualified,
           needs_tiebreak, complete, walkover, null as drawn_name
    from played
    union all
    select round, round_no, "table", player_key, null, null, null, null, null, null, null,
           drawn_name
    from drawn
),
final as (
    select a.*, n.round as next_round, n."table" as next_table
    from rows_all a
    left join rows_all n on n.player_key = a.player_key and n.round_no = a.round_no + 1
)
select
    f.round, f.round_no, f."table", coalesce(p.player, f.drawn_name) as player, f.points,
    f.tiebreak_points, f.rank, f.qualified, f.needs_tiebreak, f.complete, f.walkover,
    f.next_round, f.next_table,
    case
        when f.rank is null then 'drawn'
        when not ? then case when f.next_table is null then 'played' else 'moved' end
        when f.qualified and f.next_table is not null then 'advanced'
        when f.qualified then 'qualified'
        when f.complete and not f.needs_tiebreak then 'eliminated'
        else 'playing'
    end as outcome,
    f.player_key
from final f
-- an entrant seated before any of their results is loaded is not in players yet: the
-- draw's spelling (the roster's, keyed through the registry) stands in
left join players p using (player_key)
