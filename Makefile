# The two commands: `make book` (build the book; PROFILE=smoke|quick|paper) and `make test`.
PROFILE ?= quick
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: setup browser book test lint bench

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[book,dev]"
	rm -f $(VENV)/.installed-*; touch $(STAMP)

setup: $(STAMP)

# Debian's Chromium drives the browser test (Playwright never downloads a browser here).
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

book: $(STAMP)
	$(PY) -m pruneaudit.book build --profile $(PROFILE)

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP) browser lint
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) benchmarks/train_speed.py
