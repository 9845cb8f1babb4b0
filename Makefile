# Two commands for a fresh machine with python3 and make: `make demo` and `make test`.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed-$(shell cat uv.lock pyproject.toml | cksum | cut -d' ' -f1)
PORT    ?= 8501
HOST    ?= 0.0.0.0
# test processes (pytest-xdist); TEST_WORKERS=0 runs the suite in this one process. Each file's
# tests run in one process, in order (--dist loadfile): some check what the earlier ones saw
TEST_WORKERS ?= 2

.DEFAULT_GOAL := help

$(STAMP): pyproject.toml uv.lock
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check uv==0.13.9
	@$(BIN)/uv sync -q --frozen --extra dev --compile-bytecode
	@# the project's own modules too (uv compiles the dependencies): where Python is told
	@# not to write bytecode, each command would otherwise compile them again (~0.1 s)
	@$(BIN)/python -m compileall -q pipeline dashboard >/dev/null
	@rm -f $(VENV)/.installed-*; touch $@

.PHONY: help setup demo test test-fast bench lint typecheck fmt clean serve

help:  ## List the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12

setup: $(STAMP)  ## Create .venv from the lock file (uv)

demo: setup  ## Load the sample events, print standings, start the dashboard (PORT=8501 HOST=0.0.0.0)
	$(BIN)/domino demo --port $(PORT) --host $(HOST)

serve: setup  ## Start the dashboard on data/domino.duckdb
	$(BIN)/domino serve --port $(PORT) --host $(HOST)

test: setup lint typecheck  ## ruff (lint + format check), mypy, then the whole suite (browser tests need /usr/bin/chromium; slow tests too)
	@test -x /usr/bin/chromium || echo "*** /usr/bin/chromium is missing: the browser tests (tests/browser/) will be SKIPPED. Install it: sudo apt-get install chromium (or run .ci/run as root) ***" >&2
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

test-fast: setup  ## The suite without slow and browser tests
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile -m "not slow and not browser"

bench: setup  ## Benchmarks (not part of make test); results in bench/results/
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.draws
	$(BIN)/python -m bench.postgres_run --size 1m
	$(BIN)/python -m bench.postgres_run --size 10m --no-file --kills 0

lint: setup  ## ruff check and ruff format --check
	$(BIN)/ruff check pipeline dashboard simulator tests bench
	$(BIN)/ruff format --check pipeline dashboard simulator tests bench

typecheck: setup  ## mypy over pipeline/ and dashboard/ (settings in pyproject.toml)
	$(BIN)/mypy

fmt: setup  ## ruff format
	$(BIN)/ruff format pipeline dashboard simulator tests bench

clean:  ## Remove the environment and generated files
	rm -rf $(VENV) generated bench/corpora tests/artifacts/*.png
