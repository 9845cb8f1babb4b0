"""The benchmark's smoke mode (10-thousand-hand corpora) runs in the suite so it cannot rot.
It checks that every measurement is produced and every generated match loads; it never
asserts on time."""

import json

import pytest

from bench import run as bench


@pytest.mark.slow
def test_bench_smoke_produces_every_figure(tmp_path):
    results = bench.main(
        ["--smoke", "--out", str(tmp_path / "results"), "--corpora", str(tmp_path / "corpora")]
    )
    runs = results["runs"]
    assert [r["ruleset"] for r in runs] == ["unhas", "pepet"]
    for r in runs:
        assert 9_000 <= r["hands"] <= 11_000
        assert r["matches_rejected"] == 0
        for key in (
            "rebuild_s",
            "peak_rss_mib",
            "polars_read_csv_s",
            "duckdb_read_csv_s",
            "ratio_to_floor",
            "incremental_median_ms",
            "leaderboard_p50_ms",
            "leaderboard_p95_ms",
            "incremental_open_ms",
            "incremental_ingest_ms",
            "incremental_query_ms",
            "incremental_close_ms",
        ):
            assert r[key] > 0, key
        for key in (
            "duckdb_store_s",
            "sql_bound_s",
            "store_ratio_to_floor",
            "sql_bound_ratio_to_floor",
        ):
            assert r[key] > 0, key
        # the SQL-only bound scored the same corpus as the rebuild: a row per seated
        # player per hand and per player per match, as many as the rebuild stored
        assert r["hand_points_rows"] >= 3 * r["hands"]
        assert (r["sql_bound_hand_points"], r["sql_bound_standings"]) == (
            r["hand_points_rows"],
            r["standings_rows"],
        )
        for key in (
            "page_render_first_s",
            "page_render_cached_s",
            "page_render_new_session_s",
            "page_render_first_served_s",
        ):
            assert r[key] > 0, key
        assert r["page_exceptions"] == 0
        # whole processes of the command line, each timed as often as smoke mode says
        assert set(r["cli"]) == {"cli_help", "cli_standings", "cli_ingest"}
        assert all(v["n"] == bench.SMOKE_REPEATS and v["median_s"] > 0 for v in r["cli"].values())
    assert results["smoke"] is True
    saved = list((tmp_path / "results").glob("*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["machine"]["cpus"] >= 1
    md = (tmp_path / "results" / "latest.md").read_text()
    assert "| unhas |" in md and "- cli_ingest: " in md


def test_the_draw_bench_measures_every_size_and_shape(tmp_path):
    from bench import draws

    rows = draws.main(["--sizes", "12,48", "--sessions", "2", "--out", str(tmp_path)])
    assert [(r["entrants"], r["shape"], r["session"]) for r in rows] == [
        *[(12, shape, s) for shape in ("groups", "one_group") for s in (1, 2)],
        (6, "knockout", 2),  # 12 players at 3 tables: 6 qualifiers
        *[(48, shape, s) for shape in ("groups", "one_group") for s in (1, 2)],
        (24, "knockout", 2),
    ]
    # twelve players in groups of 12 are one group: three clashes a table, as one_group
    assert {r["group_clashes"] for r in rows if r["entrants"] == 12} == {9}
    assert all(
        r["group_clashes"] == 0 for r in rows if (r["entrants"], r["shape"]) == (48, "groups")
    )
    assert len(list(tmp_path.glob("*-draws.json"))) == 1
