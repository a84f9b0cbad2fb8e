# The two commands: `make book` (build the book; PROFILE=smoke|quick|paper) and `make test`.
# No environment variable is needed: the data root is found as the README's "Data" says.
# BOOK_FLAGS passes more options to the build, e.g. BOOK_FLAGS="--only 03_pareto_selection".
PROFILE ?= quick
BOOK_FLAGS ?=
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: setup npm browser book test lint bench live

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[book,dev]"
	rm -f $(VENV)/.installed-*; touch $(STAMP)

setup: $(STAMP)

# System tools from Debian: npm (fetches MathJax for the offline book) and Chromium (browser
# test; Playwright never downloads a browser here). Installed only when missing.
npm:
	@command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq npm >/dev/null; }

browser:
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

book: $(STAMP) npm
	$(PY) -m pruneaudit.book build --profile $(PROFILE) $(BOOK_FLAGS)

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP) npm browser lint
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) benchmarks/training_speed.py

# Workshops: JupyterLab on 127.0.0.1 over copies of nbs/ in live/ (git-ignored), results store
# shared with `make book`. LIVE_ARGS="--port 8890 --fresh --no-browser" passes options.
live: $(STAMP)
	$(PY) -m pruneaudit.book.live $(LIVE_ARGS)
