-- The scoring input typed inside DuckDB, with no validation at all: the least any
-- design has to do before the scoring models can run (bench/run.py, `sql_bound`).
-- Input: the corpus files ($files) as DuckDB's read_csv types them. Player keys are the names in
-- lower case (no registry); a seat's value is its pips column (tiles are not parsed);
-- every match is version 1. `mid` and `hid` are the integer ids pipeline/score.py adds.
select
    event, round, "table", 1 as version, try_cast(hand as integer) as hand,
    upper(ended_by) as ended_by, lower(ending) as ending,
    nullif(lower(trim(player_a)), '') as key_a,
    nullif(lower(trim(player_b)), '') as key_b,
    nullif(lower(trim(player_c)), '') as key_c,
    nullif(lower(trim(player_d)), '') as key_d,
    try_cast(pips_a as integer) as value_a,
    try_cast(pips_b as integer) as value_b,
    try_cast(pips_c as integer) as value_c,
    try_cast(pips_d as integer) as value_d,
    sanctions_a::varchar as sanctions_a,
    sanctions_b::varchar as sanctions_b,
    sanctions_c::varchar as sanctions_c,
    sanctions_d::varchar as sanctions_d,
    hash(event, round, "table") as mid,
    row_number() over () as hid
from read_csv($files, header = true)
