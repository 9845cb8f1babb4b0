-- crosstable: one event, player x round (chess-results style), with the event's standings
-- after every round. Parameter: $event.
-- Per round: the table played, the points and the place at that table; then the totals
-- over rounds 1..N and the event rank after round N, by the same rules as event_standings
-- (unhas models: later round reached, then the place at the table in that round, then
-- points; pepet models: points, then stars, then jawara1 + gaple; still tied: shared rank).
-- After the last round the rank is event_standings.rank.
with ev as (
    select event, models from events where event = $event
),
played as (
    select t.event, t.round, r.round_no, t."table", t.player_key, t.points, t.rank as table_rank,
           t.hands, t.wins
    from table_standings_t t
    join ev on ev.event = t.event
    join rounds r on r.event = t.event and r.round = t.round
),
round_labels as (
    select distinct round, round_no from played
),
per_round as (
    select round_no, player_key, sum(points) as points, min(table_rank) as table_rank,
           sum(wins) as wins, sum(hands) as hands
    from played
    group by round_no, player_key
),
starred as (
    -- a session's star (pepet): rank 1 over the round, every tied player earning one
    select per_round.*,
           case when rank() over (partition by round_no order by points desc) = 1 then 1 else 0 end as star
    from per_round
),
upto as (
    select s.round_no as step, p.round_no, p.player_key, p.points, p.table_rank, p.wins, p.star,
           row_number() over (partition by s.round_no, p.player_key order by p.round_no desc) as latest
    from round_labels s
    join starred p on p.round_no <= s.round_no
),
totals as (
    select step, player_key,
           sum(points) as total,
           max(round_no) as reached,
           max(case when latest = 1 then table_rank end) as last_place,
           sum(star) as stars,
           sum(wins) as jawara_gaple
    from upto
    group by step, player_key
),
ranked as (
    select t.*,
           case when ev.models = 'pepet'
                then rank() over (partition by step order by total desc, stars desc, jawara_gaple desc)
                else rank() over (partition by step order by reached desc, last_place asc, total desc)
           end as event_rank
    from totals t
    cross join ev
)
select
    l.round, k.step as round_no, n.player, p."table", p.points, p.table_rank,
    cast(k.total as integer) as total, cast(k.event_rank as integer) as event_rank,
    cast(k.stars as integer) as stars, k.player_key
from ranked k
join round_labels l on l.round_no = k.step
left join played p on p.round_no = k.step and p.player_key = k.player_key
join players n on n.player_key = k.player_key
order by k.step, k.event_rank, n.player
