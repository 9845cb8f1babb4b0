"""Reading one batch ahead (pipeline/ingest/ahead.py): order, errors in place, early stop."""

import threading

import pytest

from pipeline.ingest.ahead import read_ahead


def test_batches_come_out_in_order_and_one_is_read_ahead():
    produced: list[int] = []
    second_read = threading.Event()

    def items():
        for k in range(5):
            produced.append(k)
            if k == 1:
                second_read.set()
            yield k

    out = read_ahead(items())
    assert next(out) == 0
    # while the first batch is in the consumer's hands, the next one is read
    assert second_read.wait(30)
    assert list(out) == [1, 2, 3, 4]
    assert produced == [0, 1, 2, 3, 4]


def test_an_error_while_reading_is_raised_where_its_batch_would_come():
    def items():
        yield "a"
        yield "b"
        raise ValueError("file c cannot be read")

    got: list[str] = []
    with pytest.raises(ValueError, match="file c"):
        for item in read_ahead(items()):
            got.append(item)
    assert got == ["a", "b"]


def test_a_consumer_that_stops_stops_the_reader():
    reader_ended = threading.Event()
    produced: list[int] = []

    def items():
        try:
            for k in range(1000):
                produced.append(k)
                yield k
        finally:
            reader_ended.set()

    out = read_ahead(items())
    assert next(out) == 0
    out.close()  # the consumer gave up (an error, a refused plan)
    assert reader_ended.is_set()  # closing waited for the reader to stop
    assert len(produced) <= 3  # one handed over, at most one waiting, one being read
