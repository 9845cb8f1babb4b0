-- unhas hand points: one row per seated player per hand (RULES.md, ruleset unhas, Art. 2-3).
-- Input: _seats (staging/seats.sql), _params (unhas.toml flattened, one row per event).
-- points = game_points (Art. 2) + sanction_points (Art. 3).

with seats as (
    select s.*, p.*exclude (event)
    from _seats s join _params p using (event)
),

catchers as (
    select
        *,
        ender_value as blocker_value,
        -- Decided (catchers): the non-blockers at the lowest non-blocker pips, when that
        -- lowest is at or below the blocker's pips.
        ending = 'kandang' and chair <> ended_by and value = others_min
            and others_min <= ender_value as is_catcher
    from seats
),

outcome as (
    select
        *,
        case
            when ending in ('apollo', 'ceki', 'biasa', 'all_doubles') then ending
            when ending = 'kandang' and blocker_value < others_min then 'kandang'
            when ending = 'kandang' and others_min < blocker_value then 'tangkap_lower'
            when ending = 'kandang' then 'tangkap_equal'
        end as kind
    from catchers
),

game as (
    select
        *,
        case
            -- went out (or all doubles): the ender wins, the player above it loses
            when kind in ('apollo', 'ceki', 'biasa', 'all_doubles', 'kandang') and chair = ended_by
                then case kind when 'all_doubles' then 'biasa' else kind end
            when kind in ('apollo', 'ceki', 'biasa', 'all_doubles', 'kandang') and chair = ender_above
                then 'above'
            when kind like 'tangkap%' and chair = ended_by then 'caught'
            when kind like 'tangkap%' and is_catcher then 'tangkap'
            else '-'
        end as category,
        case kind
            when 'apollo' then points_apollo_winner
            when 'ceki' then points_ceki_winner
            when 'kandang' then points_kandang_winner
            when 'tangkap_lower' then points_tangkap_lower_winner
            when 'tangkap_equal' then points_tangkap_equal_winner
            else points_biasa_winner
        end as win_points,
        case kind
            when 'apollo' then points_apollo_loser
            when 'ceki' then points_ceki_loser
            when 'kandang' then points_kandang_loser
            when 'tangkap_lower' then points_tangkap_lower_loser
            when 'tangkap_equal' then points_tangkap_equal_loser
            else points_biasa_loser
        end as lose_points
    from outcome
),

scored as (
    select
        *,
        case
            when category = 'tangkap' and n_lowest >= 2 and catcher_split = 'halve'
                then win_points // 2
            -- "even" (RULES.md, decided): the row's points divided by the number of
            -- catchers, rounded half up, at least 1 (4/3 -> 1, 2/3 -> 1)
            when category = 'tangkap' and n_lowest >= 2
                then greatest(1, (2 * win_points + n_lowest) // (2 * n_lowest))
            when category in ('apollo', 'ceki', 'kandang', 'biasa', 'tangkap') then win_points
            when category in ('above', 'caught') then lose_points
            else 0
        end as game_points
    from game
),

sanction_codes as (
    -- one row per sanction code, numbered so warnings can be counted per player per match
    select
        mid, hid, event, hand, player_key, code, pos
    from (
        select s.mid, s.hid, s.event, s.hand, s.player_key,
               unnest(string_split(sanctions, ';')) as code,
               generate_subscripts(string_split(sanctions, ';'), 1) as pos
        -- from the staging view, not the seats CTE: with one consumer that CTE is
        -- inlined rather than materialised (most seats carry no sanction)
        from _seats s
        where sanctions is not null
    )
),

sanction_points as (
    select
        c.hid, c.player_key,
        sum(
            case c.code
                when 'warn' then case when warn_no <= p.sanctions_warn_free then 0 else p.sanctions_warn end
                when 'show' then p.sanctions_show
                when 'wrong' then p.sanctions_wrong
                else 0
            end
        )::integer as sanction_points
    from (
        select *,
               count(*) filter (where code = 'warn') over (
                   partition by mid, player_key
                   order by hand, pos rows between unbounded preceding and current row
               ) as warn_no
        from sanction_codes
    ) c
    join _params p using (event)
    group by c.hid, c.player_key
),

final as (
    select
        s.mid, s.event, s.round, s."table", s.version, s.hand, s.player_key, s.chair,
        s.category,
        (s.game_points + coalesce(sp.sanction_points, 0))::integer as points,
        s.game_points::integer as game_points,
        coalesce(sp.sanction_points, 0)::integer as sanction_points,
        s.value,
        s.hand > s.regular_hands as tiebreak
    from scored s
    left join sanction_points sp using (hid, player_key)
)

select * from final
