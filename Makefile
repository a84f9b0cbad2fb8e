# The two commands: `make book` (build the book; PROFILE=smoke|quick|paper) and `make test`.
# No environment variable is needed: the data root is found as the README's "Data" says.
# BOOK_FLAGS passes more options to the build, e.g. BOOK_FLAGS="--only 03_pareto_selection".
PROFILE ?= quick
BOOK_FLAGS ?=
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: setup browser book test test-slow lint bench live publish

# PyPI's torch is a CUDA build: a new .venv takes about 6.6 GB. TORCH=cpu (`make setup TORCH=cpu`)
# installs torch and torchvision, at pyproject.toml's versions, from PyTorch's CPU index
# (TORCH_INDEX) first, then the rest from PyPI: no CUDA libraries (nvidia 3.2 GB and triton
# 0.9 GB of the 6.6), for a laptop without a GPU. TORCH_INDEX=<url> names another index.
TORCH ?=
ifneq ($(filter-out cpu,$(TORCH)),)
$(error TORCH=$(TORCH): the one choice is TORCH=cpu (PyTorch's CPU wheels); leave it out for PyPI's torch)
endif
TORCH_INDEX ?= $(if $(TORCH),https://download.pytorch.org/whl/cpu)
TORCH_PINS := $(shell grep -oE '"torch(vision)?==[^"]+"' pyproject.toml)
# Before the first install the free disk is checked, so that a full disk stops here with one line
# instead of inside pip's install: 8,000 MB for PyPI's torch, 3,500 from TORCH_INDEX (the 6.6 GB
# less the CUDA libraries is 2.6 GB with the CUDA torch itself, 1.2 GB, still in it).
INSTALL_NEEDS_MB ?= $(if $(TORCH_INDEX),3500,8000)
TORCH_BUILD := $(if $(TORCH_INDEX),torch from $(TORCH_INDEX),PyPI's torch is a CUDA build; TORCH=cpu needs less)
VENV_DISK := $(dir $(abspath $(VENV)))

$(STAMP): pyproject.toml
	@test -d $(VENV)/lib/python3*/site-packages/torch 2>/dev/null || { \
	  free=$$(df -Pm $(VENV_DISK) | awk 'NR==2 {print $$4}'); \
	  test "$$free" -ge $(INSTALL_NEEDS_MB) || { echo "only $$free MB of disk free at $(VENV_DISK); \
	installing $(VENV) needs about $(INSTALL_NEEDS_MB) MB ($(TORCH_BUILD)): free some \
	disk, or set VENV=<a path on a larger disk>" >&2; exit 1; }; }
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(if $(TORCH_INDEX),$(PY) -m pip install -q --index-url $(TORCH_INDEX) $(TORCH_PINS))
	$(PY) -m pip install -q -e ".[book,dev]"
	@# rfc3987-syntax (jupyter-events asks for jsonschema[format-nongpl]) builds 38 parsers at
	@# every import of jsonschema (altair, nbformat): about a second in each kernel, build and
	@# test process. Nothing here checks an IRI; without it jsonschema skips that one format.
	$(PY) -m pip uninstall -q -y rfc3987-syntax
	rm -f $(VENV)/.installed-*; touch $(STAMP)

setup: $(STAMP)

# The browser test's Chromium: the system's or Playwright's (tests/browsers.py). Where none is
# found, Playwright installs its own (no root; needs the internet), else one line says how.
browser: $(STAMP)
	@$(PY) tests/browsers.py >/dev/null 2>&1 || $(PY) -m playwright install chromium >/dev/null 2>&1 \
		|| { $(PY) tests/browsers.py; exit 1; }

book: $(STAMP)
	$(PY) -m pruneaudit build --profile $(PROFILE) $(BOOK_FLAGS)

# ruff, then the import contracts of pyproject.toml's [tool.importlinter] (layers, no circles;
# STYLE.md, principle 3): import-linter's command is `lint-imports` (it has no `python -m`).
lint: $(STAMP)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports

# `make test` leaves out the tests marked `slow` (over 10 s each on 2 cores: calibrations and
# end-to-end builds; and the AlexNet and VGG variants of the trainer's equivalence checks, 4-11 s
# each, whose LeNet variants stay); `make test-slow` runs them, and CI runs both (.ci/run).
# Tests run on every core (pytest-xdist, one torch thread each); the smoke book starts building
# in the background with the run and its tests run last (tests/conftest.py), in the order
# collected (--no-loadscope-reorder: xdist would otherwise send its largest groups, the page
# checks, first).
test: $(STAMP) browser lint
	$(PY) -m pytest -q -n auto --dist loadgroup --no-loadscope-reorder -m "not slow" --durations=15

test-slow: $(STAMP)
	$(PY) -m pytest -q -n auto -m slow

# The benchmarks write only under benchmarks/out/; package commands then read it into the
# package's data (measured GPU hours) and the book (Benchmarks appendix, paper-cost fragment,
# the page pooling the committed quick builds).
bench: $(STAMP)
	$(PY) benchmarks/training_speed.py
	$(PY) benchmarks/step_profile.py
	$(PY) benchmarks/stability_width.py --save benchmarks/out/stability_width.md
	$(PY) -m pruneaudit gpu-rates benchmarks/out/gpu_training_cuda_costs.csv
	$(PY) -m pruneaudit appendix benchmarks/out
	$(PY) -m pruneaudit pooled benchmarks/out/builds/quick

# Workshops: JupyterLab on 127.0.0.1 over copies of nbs/ in live/ (git-ignored), results store
# shared with `make book`. LIVE_ARGS="--port 8890 --fresh --no-browser" passes options.
live: $(STAMP)
	$(PY) -m pruneaudit live $(LIVE_ARGS)

# Publishing by hand: a new commit of the local gh-pages branch whose tree is the built book
# (_build/html; ghp-import -n adds .nojekyll so that GitHub Pages serves _static), pushed only
# when the remote `origin` is set. CI deploys with GitHub's Pages actions (.github/workflows/book.yml).
publish: $(STAMP)
	@test -f _build/html/index.html || { echo "no _build/html/index.html: run make book first" >&2; exit 1; }
	$(PY) -m ghp_import -n -m "Book of $$(git rev-parse --short HEAD)" _build/html
	@if git remote get-url origin >/dev/null 2>&1; then git push origin gh-pages; \
	else echo "gh-pages updated locally; no remote origin, nothing pushed"; fi
