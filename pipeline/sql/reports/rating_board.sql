-- rating_board: one ladder's ratings as they stood at the end of a period, of the players
-- who played a rated table in it (optionally at events of one level, members of one
-- group), best ordinal first. Parameters: $ruleset, $level (NULL: any), $since, $until
-- (dates), $grp (NULL: any).
with hist as (
    select h.seq, h.player_key, h.mu, h.sigma, h.matches, t.played_on, t.event
    from rating_history_t h
    join rating_tables t on t.ruleset = h.ruleset and t.seq = h.seq
    where h.ruleset = $ruleset and t.played_on <= cast($until as date)
),
active as (
    select distinct hist.player_key
    from hist
    join events e on e.event = hist.event
    where hist.played_on >= cast($since as date)
      and (cast($level as varchar) is null or e.level = cast($level as varchar))
),
latest as (
    select hist.*, row_number() over (partition by player_key order by seq desc) as n
    from hist
)
select
    cast(rank() over (order by l.mu - 3 * l.sigma desc) as integer) as rank,
    p.player,
    l.mu - 3 * l.sigma as ordinal,
    l.mu,
    l.sigma,
    l.matches,
    l.played_on as last_played,
    p."group",
    l.player_key
from latest l
join active a on a.player_key = l.player_key
join players p on p.player_key = l.player_key
where l.n = 1 and (cast($grp as varchar) is null or p."group" = cast($grp as varchar))
order by ordinal desc, p.player
