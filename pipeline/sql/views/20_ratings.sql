-- ratings (public, HANDLOG.md): each player's current rating per ruleset ladder.
-- OpenSkill Plackett-Luce (pipeline/ratings.py keeps ratings_t current); ordinal is the
-- conservative rating shown to users, mu - 3 * sigma. Every player with at least one
-- rated table has a row. player_key and last_played follow the contract's columns.
create or replace view ratings as
select
    r.ruleset,
    p.player,
    cast(r.mu as double) as mu,
    cast(r.sigma as double) as sigma,
    cast(r.mu - 3 * r.sigma as double) as ordinal,
    cast(r.matches as double) as matches,
    r.player_key,
    t.played_on as last_played
from ratings_t r
join players p on p.player_key = r.player_key
left join rating_tables t on t.ruleset = r.ruleset and t.seq = r.last_seq;
