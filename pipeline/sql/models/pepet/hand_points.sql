-- pepet hand points: one category and its points per seated player per hand
-- (RULES.md, ruleset pepet, "Per-hand categories").
-- Input: _seats (staging/seats.sql; `value` already counts dead tiles and the 0-0 rule),
-- _params (pepet.toml flattened).

with seats as (
    select s.*, p.*exclude (event)
    from _seats s join _params p using (event)
),

categorised as (
    select
        *,
        case
            when ending = 'tutup' and chair = ended_by then 'ambyar2'
            when ending = 'tutup' then 'kado'
            when ending = 'locked' and chair = ended_by
                 and (locker_penalty = 'always' or position > 1) then 'ambyar1'
            when position = 1 and ending = 'out' then 'jawara1'
            when position = 1 then 'gaple'
            when position = 2 then 'jawara2'
            when position = 3 then 'jawara3'
            else 'ambyar'
        end as category
    from seats
),

final as (
    select
        mid, event, round, "table", version, hand, player_key, chair, category,
        case category
            when 'jawara1' then points_jawara1
            when 'gaple' then points_gaple
            when 'jawara2' then points_jawara2
            when 'jawara3' then points_jawara3
            when 'ambyar' then points_ambyar
            when 'ambyar1' then points_ambyar1
            when 'ambyar2' then points_ambyar2
            when 'kado' then points_kado
        end::integer as points,
        points as game_points,
        0 as sanction_points,
        value,
        false as tiebreak
    from categorised
)

select * from final
