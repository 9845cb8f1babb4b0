-- rated_scope: the rows of rated_tables.sql for the tables in _rating_scope (event,
-- round, table) only, with the same columns and order: what one upload wrote.
-- _scope_rounds holds the rounds view's rows of those events (read one event at a time).
-- Parameter: $ruleset.
with ev as (
    select event, ruleset, coalesce(event_date, cast(created_at as date)) as played_on
    from events
    where ruleset = $ruleset
)
select
    ev.played_on, t.event, t.round, r.round_no, t."table", t.version, t.player_key, t.rank
from table_standings_t t
join ev on ev.event = t.event
join _rating_scope s on s.event = t.event and s.round = t.round and s."table" = t."table"
join _scope_rounds r on r.event = t.event and r.round = t.round
where t.complete and not t.walkover
order by ev.played_on, t.event, r.round_no, t."table", t.rank, t.player_key
