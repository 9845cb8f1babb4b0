-- Every event with its settings and how far it has come: entrants, rounds drawn (a
-- current draw) and played (results loaded), matches loaded. Newest first, as the
-- dashboard's event pickers list them.
select
    e.event, e.title, e.ruleset, e.event_date, e.venue, e.level,
    coalesce(e.league, 'default') as league,
    cast((select count(*) from entrants n where n.event = e.event) as integer) as entrants,
    cast((select count(*) from draws_t d where d.event = e.event and d.current) as integer)
        as rounds_drawn,
    cast((select count(distinct round) from table_standings_t t where t.event = e.event)
        as integer) as rounds_played,
    cast((select count(*) from match_versions v where v.event = e.event and v.current
                and v.kind <> 'withdrawn')
        as integer) as matches
from events e
order by e.created_at desc, e.event
