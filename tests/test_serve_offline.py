"""The served dashboard never asks the internet for this machine's address: a venue's
laptop is often offline, and Streamlit, served headless on every interface, asked a public
web service at every start and printed a warning with a link when it got no answer
(dashboard/__main__.py, ``no_external_address``)."""

import time

from streamlit import net_util

from dashboard.__main__ import no_external_address
from tests.browser.support import build_samples, dashboard


def test_the_address_is_never_asked_of_the_internet(monkeypatch):
    def asked(*args, **kwargs):
        raise AssertionError(f"a web service was asked for the address: {args}")

    monkeypatch.setattr(net_util, "get_external_ip", net_util.get_external_ip)
    monkeypatch.setattr(net_util, "_make_blocking_http_get", asked)
    monkeypatch.setattr(net_util, "_external_ip", None)
    no_external_address()
    assert net_util.get_external_ip() is None


def test_served_on_every_interface_it_names_this_machines_addresses_only(tmp_path):
    db = tmp_path / "samples.duckdb"
    build_samples(db, only="unhas")
    with dashboard(db, tmp_path, host="0.0.0.0") as srv:
        # the addresses are printed once the server has started, which may be after its
        # health check first answers: wait for them (any lookup came before the print)
        deadline = time.monotonic() + 60
        while "Local URL" not in (log := srv.log.read_text()):
            assert time.monotonic() < deadline, log
            time.sleep(0.1)
    for said in ("External URL", "auto detect", "docs.streamlit.io"):
        assert said not in log, log
