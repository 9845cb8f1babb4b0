"""A load collects young objects less often and gives the collector's thresholds back,
also when loads overlap in the dashboard's threads or one fails."""

import gc
import threading

import pytest

from pipeline import ingest
from pipeline.collector import LOAD_THRESHOLD, fewer_collections
from pipeline.demo import sample_files
from pipeline.store.db import connect
from tests.conftest import ROOT

PEPET = sample_files(ROOT / "data" / "samples" / "pepet")


@pytest.fixture
def thresholds():
    """Python's default thresholds for the test, whatever the process had."""
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_a_load_raises_the_first_threshold_while_it_runs(tmp_path, monkeypatch, thresholds):
    monkeypatch.setenv("DOMINO_BATCH_FILES", "3")
    during: list[tuple[int, int, int]] = []
    with connect(tmp_path / "d.duckdb") as con:
        p = ingest.load(con, PEPET, progress=lambda *_: during.append(gc.get_threshold()))
    assert p.exit_code == 0
    assert len(during) == 3 and set(during) == {(LOAD_THRESHOLD, 10, 10)}
    assert gc.get_threshold() == (700, 10, 10)


def test_overlapping_loads_put_the_thresholds_back_when_the_last_ends(thresholds):
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, tuple[int, int, int]] = {}

    def first() -> None:
        with fewer_collections():
            first_in.set()
            second_in.wait()
        first_out.set()

    def second() -> None:
        first_in.wait()
        with fewer_collections():
            second_in.set()
            first_out.wait()
            seen["after the first ended"] = gc.get_threshold()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["after the first ended"][0] == LOAD_THRESHOLD
    assert gc.get_threshold() == (700, 10, 10)


def test_a_failed_load_puts_the_thresholds_back(tmp_path, thresholds):
    with pytest.raises(ZeroDivisionError), fewer_collections():
        assert gc.get_threshold()[0] == LOAD_THRESHOLD
        _ = 1 / 0
    assert gc.get_threshold() == (700, 10, 10)


def test_a_collector_switched_off_stays_off(thresholds):
    gc.set_threshold(0)
    with fewer_collections():
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold()[0] == 0
