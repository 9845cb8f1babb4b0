-- stg_seats: one row per seated chair per played hand of the hands being scored.
-- Input: _hands (rows of the `hands` table for the match versions in scope).
-- `above_chair` is the chair that plays immediately before this one (RULES.md, common
-- part): A→B→C→D→A, an empty chair skipped.

with hands as (
    select * from _hands where ending <> 'wo'
),

chairs as (
    select event, round, "table", version, hand, ended_by, ending,
           'A' as chair, 1 as idx, key_a as player_key, value_a as value, sanctions_a as sanctions
    from hands where key_a is not null
    union all
    select event, round, "table", version, hand, ended_by, ending,
           'B', 2, key_b, value_b, sanctions_b
    from hands where key_b is not null
    union all
    select event, round, "table", version, hand, ended_by, ending,
           'C', 3, key_c, value_c, sanctions_c
    from hands where key_c is not null
    union all
    select event, round, "table", version, hand, ended_by, ending,
           'D', 4, key_d, value_d, sanctions_d
    from hands where key_d is not null
),

final as (
    select
        *,
        -- the seated chair before this one; the first seated chair's is the last one
        coalesce(
            lag(chair) over hand_w,
            last_value(chair) over (hand_w rows between unbounded preceding and unbounded following)
        ) as above_chair
    from chairs
    window hand_w as (partition by event, round, "table", version, hand order by idx)
)

select * from final
