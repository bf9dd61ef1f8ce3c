# The two commands of the README: `make book` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: book test test-quick nbval preview clean

# The virtual environment, rebuilt whenever the pins or the package metadata change.
# It says what it does first: pip, kept quiet (a line per package would bury CI's log), takes about
# a minute on a fresh clone.
$(STAMP): requirements.txt pyproject.toml
	@echo "setting up .venv: installing $$(grep -c '==' requirements.txt) pinned packages (about a minute on a fresh clone)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)
	@echo "set up .venv"

# The committed data must name every system its claims look for: --strict makes a miss an error.
book: $(STAMP)
	@echo "building the book: each page executed says so (a fresh clone executes them all, a few minutes)"
	$(PY) -m claimbook build --strict

# The book served on 127.0.0.1 with live reload while you edit the registries, templates, data or
# pages (`claimbook preview`; PORT=0 picks any free port). Ctrl-C stops it and what it started.
PORT ?= 8000
preview: $(STAMP)
	$(PY) -m claimbook preview --port $(PORT)

# Lint and format first (a lint error fails the run), then unit and end-to-end tests, and the committed executed notebooks re-run strictly by nbval.
# Three workers on two cores (many tests wait on a subprocess, a browser or a timer); each test
# file stays on one worker, as its shared builds and a notebook's cells must, and the long files
# start first (tests/conftest.py orders them; xdist keeps that order).
# Bytecode caches (the gitignored __pycache__ folders) are written even where PYTHONDONTWRITEBYTECODE
# is set: without them each of the suite's few hundred Python processes (commands, kernels, workers)
# compiles the package and the tests again, tens of seconds of CPU in all.
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	@echo "running the test suite: about 2,000 tests, a few minutes on two cores; each line ends with how many are done"
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 3 --dist loadfile --no-loadscope-reorder -o console_output_style=count --nbval tests book/generated

# The unit tier alone, for a developer's own loop (about a minute): every test that runs no build,
# kernel, preview, Sphinx or browser (tests/conftest.py tier_of). `make test` stays the whole suite.
test-quick: $(STAMP)
	$(VENV)/bin/ruff check .
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 3 --dist loadfile -q -m "not build and not browser" tests

# The committed executed pages re-run strictly in fresh kernels: the README's "nbval in CI" command.
nbval: $(STAMP)
	.venv/bin/python -m pytest --nbval book/generated

# Only what the build made: the site, its work folders and the environment (never book/generated,
# which is committed).
clean:
	rm -rf _build $(VENV)
