-- most_stars_season: the most session stars (pepet: rank 1 of a session) of anyone in a
-- season (the calendar year of the event's date, else of the day it was first loaded);
-- tied players all hold it. count = the stars. Parameter: $player.
with stars as (
    select s.player_key, extract(year from coalesce(e.event_date, cast(e.created_at as date))) as season,
           count(*) as stars
    from round_standings s
    join events e on e.event = s.event
    where s.star
    group by s.player_key, season
),
best as (
    select season, max(stars) as stars from stars group by season
)
select s.player_key, cast(s.season as integer) as season, cast(null as varchar) as event,
       cast(null as varchar) as round, cast(null as varchar) as "table",
       cast(null as integer) as hand, cast(null as date) as played_on,
       cast(s.stars as integer) as count
from stars s
join best b on b.season = s.season and b.stars = s.stars
where s.player_key = $player
