-- 002: an ingest's report keeps its problems and the matches it did not write.
-- The matches it wrote are in match_versions (with its ingest_id); repeating every one
-- of them in the report made a 500k-hand file's report 8 MB, and DuckDB rewrites the
-- ingests row group at every checkpoint, so each later upload paid for it (~0.4 s at
-- 10 million hands).
-- Two statements: a file that wrote every match it had (the big ones) keeps an empty
-- list without its matches being unpacked; the others are filtered.
UPDATE ingests
SET report = json_object('problems', json_extract(report, '$.problems'), 'matches', '[]'::JSON)
WHERE report IS NOT NULL AND coalesce(matches_unchanged, 0) = 0 AND coalesce(matches_rejected, 0) = 0;

UPDATE ingests
SET report = json_object(
    'problems', json_extract(report, '$.problems'),
    'matches', to_json(list_filter(
        json_extract(report, '$.matches[*]'),
        lambda m: json_extract_string(m, '$.status') NOT IN ('new', 'update', 'correction')
    ))
)
WHERE report IS NOT NULL AND (coalesce(matches_unchanged, 0) > 0 OR coalesce(matches_rejected, 0) > 0);
