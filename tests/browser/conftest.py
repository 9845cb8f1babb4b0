"""Fixtures for the end-to-end tests: headless Chromium (Debian's) and real dashboards."""

import os

import pytest

from tests.browser.support import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, RUNNING


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        reason = f"browser test skipped: {CHROMIUM} is missing (sudo apt-get install chromium, or .ci/run as root)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def new_page(browser):
    """``new_page(width, height)``: a page in a fresh context (its own Streamlit session).
    When the test fails, each page's screenshot and visible text are kept (see below)."""
    contexts: list = []

    def make(width: int = 1366, height: int = 900):
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale="id-ID")
        ctx.set_default_timeout(60_000)
        contexts.append(ctx)
        return ctx.new_page()

    make.contexts = contexts  # type: ignore[attr-defined]  # read by the failure report below
    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture(autouse=True)
def _server_logs():
    """The failure report below reads the logs of the servers this test started."""
    RUNNING.clear()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test keeps what each of its pages showed: a screenshot in
    tests/artifacts/ and the page's visible text in the failure report (a wait that timed
    out says what it waited for, not what was on the screen instead)."""
    outcome = yield
    report = outcome.get_result()
    make = item.funcargs.get("new_page") if hasattr(item, "funcargs") else None
    if report.when != "call" or not report.failed or make is None:
        return
    pages = [page for ctx in getattr(make, "contexts", []) for page in ctx.pages]
    for i, page in enumerate(pages):
        try:
            shot = ARTIFACTS / f"failed-{item.name}-{i}.png"
            page.screenshot(path=str(shot), full_page=True)
            text = page.inner_text("body", timeout=5_000)
        except Exception as exc:  # a closed page: say so, keep the test's own failure
            text, shot = f"(page {i} could not be read: {exc})", None
        report.sections.append(
            (f"page {i} at failure ({page.url}; screenshot {shot})", text[-3000:])
        )
    # what a page shows as "This app has encountered an error" is in its server's log, and
    # so is where a server still busy at the failure was (its stacks, support._dump_stacks)
    for log in list(RUNNING):
        said = log.read_text(errors="replace") if log.exists() else ""
        if "Traceback" in said or "Fatal Python error" in said:
            kept = ARTIFACTS / f"failed-{item.name}-{log.name}"
            kept.write_text(said)
            report.sections.append((f"server log {log.name} (kept as {kept})", said[-4000:]))
