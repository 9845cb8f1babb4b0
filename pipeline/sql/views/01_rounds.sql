-- rounds: every round label of every event with its natural order (R2 before R10).
create or replace view rounds as
select
    event,
    round,
    dense_rank() over (
        partition by event
        order by regexp_replace(round, '[0-9]+', '', 'g'),
                 try_cast(nullif(regexp_extract(round, '[0-9]+'), '') as bigint) nulls first,
                 round
    )::integer as round_no
from (select distinct event, round from table_standings_t);
