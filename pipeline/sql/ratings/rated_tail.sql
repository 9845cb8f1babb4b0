-- rated_tail: the rows of rated_tables.sql from the table ($d, $e, $r, $t) on — its
-- played_on, event, round_no and table — with the same columns and order. Events played
-- before it are not read at all, so a live upload reads what follows it in play order.
-- _tail_rounds holds the rounds view's rows of those events.
-- Parameters: $ruleset, $d, $e, $r, $t.
with ev as (
    select event, ruleset, coalesce(event_date, cast(created_at as date)) as played_on
    from events
    where ruleset = $ruleset
      and (coalesce(event_date, cast(created_at as date)) > $d
           or (coalesce(event_date, cast(created_at as date)) = $d and event >= $e))
)
select
    ev.played_on, t.event, t.round, r.round_no, t."table", t.version, t.player_key, t.rank
from table_standings_t t
join ev on ev.event = t.event
join _tail_rounds r on r.event = t.event and r.round = t.round
where t.complete and not t.walkover
  and not (t.event = $e and (r.round_no < $r or (r.round_no = $r and t."table" < $t)))
order by ev.played_on, t.event, r.round_no, t."table", t.rank, t.player_key
