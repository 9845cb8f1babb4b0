-- rounds: every round label of every event with its place in the event (round_no, 1 = first).
-- The one definition of the round order in the database (RULES.md, "Decided (round
-- order)"); every query that orders rounds joins this view. pipeline/rounds.py holds the
-- same default rule for Python and polars, and tests/test_rounds.py checks they agree.
-- First the organiser's own order (event_rounds), then the rounds it does not list by the
-- default rule: a label without "final" (ASCII case ignored) before any with it; among
-- those, quarter-finals, then semi-finals, then the rest; within each, the natural order
-- of the labels (the label without digits, then its first number: R2 before R10), then
-- the label itself. A round is listed once it has results, a draw, or a place in the
-- organiser's order (a round drawn and not yet played is a round of the event).
create or replace view rounds as
with labels as (
    select event, round,
           translate(round, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') as low,
           regexp_extract(round, '[0-9]+') as first_number
    from (
        select event, round from table_standings_t
        union
        select event, round from draws_t where current
        union
        select event, round from event_rounds
    ) as every_round
),
keyed as (
    select l.event, l.round, o.position,
           case
               when not contains(l.low, 'final') then 0
               when contains(l.low, 'perempat') or contains(l.low, 'quarter') or contains(l.low, '1/4') then 1
               when contains(l.low, 'semi') or contains(l.low, '1/2') then 2
               else 3
           end as stage,
           regexp_replace(l.low, '[0-9]+', '', 'g') as text_part,
           case when length(l.first_number) between 1 and 18 then l.first_number::bigint else -1 end as number
    from labels l
    left join event_rounds o using (event, round)
)
select
    event,
    round,
    row_number() over (
        partition by event
        order by position asc nulls last, stage, text_part, number, round
    )::integer as round_no
from keyed;
