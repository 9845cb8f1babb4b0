-- rating_history: each player's rating after each table they played, in play order.
-- change is the move of the ordinal (mu - 3 * sigma) that table brought.
create or replace view rating_history as
select
    h.ruleset,
    h.seq,
    t.played_on,
    t.event,
    t.round,
    t."table",
    p.player,
    h.rank,
    h.mu,
    h.sigma,
    h.mu - 3 * h.sigma as ordinal,
    (h.mu - 3 * h.sigma) - (h.mu_before - 3 * h.sigma_before) as change,
    h.matches,
    h.player_key
from rating_history_t h
join rating_tables t on t.ruleset = h.ruleset and t.seq = h.seq
join players p on p.player_key = h.player_key;
