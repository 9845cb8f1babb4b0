-- stg_seats: one row per seated chair per played hand of the hands being scored, with
-- the facts of its hand computed once per hand row, in wide form (no window functions).
-- Input: _hands (rows of the `hands` table for the match versions in scope, with an
-- integer `mid` per match version and `hid` per hand row, added by pipeline/score.py).
--   above_chair  the chair that plays immediately before this one (RULES.md, common
--                part): A→B→C→D→A, an empty chair skipped
--   ender_above  the chair above the one that ended the hand
--   ender_value  the value left in the ender's hand (the blocker's pips after a block)
--   others_min   the lowest value among the seated players other than the ender
--   n_lowest     how many of them hold exactly others_min
--   position     1 + the seated players ahead of this one: whoever went out is ahead of
--                everyone, otherwise a strictly lower value is ahead (ties share)

with hands as (
    select
        *,
        case when key_d is not null then 'D' when key_c is not null then 'C' else 'B' end as above_a,
        case when key_a is not null then 'A' when key_d is not null then 'D' else 'C' end as above_b,
        case when key_b is not null then 'B' when key_a is not null then 'A' else 'D' end as above_c,
        case when key_c is not null then 'C' when key_b is not null then 'B' else 'A' end as above_d,
        -- values of the seated players who did not end the hand
        case when key_a is not null and ended_by <> 'A' then value_a end as other_a,
        case when key_b is not null and ended_by <> 'B' then value_b end as other_b,
        case when key_c is not null and ended_by <> 'C' then value_c end as other_c,
        case when key_d is not null and ended_by <> 'D' then value_d end as other_d,
        -- sort keys for positions: the player who went out first, then by value
        case when key_a is null then null when ending = 'out' and ended_by = 'A' then -1 else value_a end as sk_a,
        case when key_b is null then null when ending = 'out' and ended_by = 'B' then -1 else value_b end as sk_b,
        case when key_c is null then null when ending = 'out' and ended_by = 'C' then -1 else value_c end as sk_c,
        case when key_d is null then null when ending = 'out' and ended_by = 'D' then -1 else value_d end as sk_d
    from _hands
    where ending <> 'wo'
),

facts as (
    select
        *,
        case ended_by when 'A' then above_a when 'B' then above_b when 'C' then above_c when 'D' then above_d end as ender_above,
        case ended_by when 'A' then value_a when 'B' then value_b when 'C' then value_c when 'D' then value_d end as ender_value,
        least(other_a, other_b, other_c, other_d) as others_min
    from hands
),

hands_wide as (
    select
        *,
        coalesce(other_a = others_min, false)::integer + coalesce(other_b = others_min, false)::integer
            + coalesce(other_c = others_min, false)::integer + coalesce(other_d = others_min, false)::integer as n_lowest,
        1 + coalesce(sk_b < sk_a, false)::integer + coalesce(sk_c < sk_a, false)::integer + coalesce(sk_d < sk_a, false)::integer as pos_a,
        1 + coalesce(sk_a < sk_b, false)::integer + coalesce(sk_c < sk_b, false)::integer + coalesce(sk_d < sk_b, false)::integer as pos_b,
        1 + coalesce(sk_a < sk_c, false)::integer + coalesce(sk_b < sk_c, false)::integer + coalesce(sk_d < sk_c, false)::integer as pos_c,
        1 + coalesce(sk_a < sk_d, false)::integer + coalesce(sk_b < sk_d, false)::integer + coalesce(sk_c < sk_d, false)::integer as pos_d
    from facts
),

final as (
    select mid, hid, event, round, "table", version, hand, ended_by, ending,
           'A' as chair, 1 as idx, key_a as player_key, value_a as value, sanctions_a as sanctions,
           above_a as above_chair, pos_a as position, ender_above, ender_value, others_min, n_lowest
    from hands_wide where key_a is not null
    union all
    select mid, hid, event, round, "table", version, hand, ended_by, ending,
           'B', 2, key_b, value_b, sanctions_b, above_b, pos_b, ender_above, ender_value, others_min, n_lowest
    from hands_wide where key_b is not null
    union all
    select mid, hid, event, round, "table", version, hand, ended_by, ending,
           'C', 3, key_c, value_c, sanctions_c, above_c, pos_c, ender_above, ender_value, others_min, n_lowest
    from hands_wide where key_c is not null
    union all
    select mid, hid, event, round, "table", version, hand, ended_by, ending,
           'D', 4, key_d, value_d, sanctions_d, above_d, pos_d, ender_above, ender_value, others_min, n_lowest
    from hands_wide where key_d is not null
)

select * from final
