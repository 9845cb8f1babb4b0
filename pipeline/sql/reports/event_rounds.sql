-- Where an event stands, round by round: every round drawn or played, its current draw's
-- seed, and its tables drawn, loaded, complete (every regular hand, or a walkover) and
-- owing a tie-break that decides who qualifies (what keeps the next round from being
-- drawn, pipeline/draws/service.py). The caller orders the rounds.
-- Parameter: $event.
with drawn as (
    select d.round, d.seed, count(distinct s."table") as tables
    from draws_t d
    join draw_seats s on s.event = d.event and s.round = d.round and s.draw_no = d.draw_no
    where d.current and d.event = $event
    group by d.round, d.seed
),
played as (
    select round, "table",
           bool_and(complete or walkover) as complete,
           bool_or(needs_tiebreak and not qualified) as tiebreak
    from table_standings_t
    where event = $event
    group by round, "table"
),
per_round as (
    select round,
           count(*) as loaded,
           count(*) filter (where complete) as complete,
           count(*) filter (where complete and tiebreak) as tiebreaks
    from played
    group by round
)
select
    coalesce(d.round, p.round) as round,
    d.seed,
    cast(coalesce(d.tables, 0) as integer) as tables_drawn,
    cast(coalesce(p.loaded, 0) as integer) as tables_loaded,
    cast(coalesce(p.complete, 0) as integer) as tables_complete,
    cast(coalesce(p.tiebreaks, 0) as integer) as tiebreaks_owed
from drawn d
full join per_round p on p.round = d.round
