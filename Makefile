# Each target sets up its own virtual env, so a fresh machine with Python 3.11 needs nothing else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint bench clean

# pyproject.toml's requires-python, checked before a virtual env is made with the wrong one.
NEEDS_PYTHON := 3.11
VERSION_OK := import sys; sys.exit(sys.version_info < (3, 11))

$(BIN)/python:
	@$(PYTHON) -c '$(VERSION_OK)' 2>/dev/null || { \
	  echo "giftdesk needs Python $(NEEDS_PYTHON) or newer; '$(PYTHON)' is $$($(PYTHON) -V 2>&1 || echo 'not found')." >&2; \
	  echo "Install Python $(NEEDS_PYTHON)+ and run e.g. 'make PYTHON=python3.11 test'. Nothing was created." >&2; \
	  exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	@$(BIN)/python -c '$(VERSION_OK)' 2>/dev/null || { \
	  echo "$(VENV) was made with $$($(BIN)/python -V 2>&1); giftdesk needs Python $(NEEDS_PYTHON) or newer." >&2; \
	  echo "Run 'make clean', then e.g. 'make PYTHON=python3.11 test'." >&2; \
	  exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench,lint]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/giftdesk --demo

# Lint first: a broken layer contract or a type error fails fast, naming the import or the line.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

# Four workers on two cores: most tests wait on a simulator, a receiver, PostgreSQL or a pty (the suite used 42-86%
# of the CPU with two), and four took it from 9.3 to 6 minutes in one run on a loaded machine (docs/decisions.md).
test: lint
	$(BIN)/python -m pytest -q -n 4

# Under a minute: no other process, no PostgreSQL, no pty, no running app (tests/conftest.py marks the rest).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m "not outside and not screen"

# `make bench FIGURES=1,2` runs only those figures (bench/results.md keeps the last whole run).
bench: $(STAMP)
	$(BIN)/python -m bench $(if $(FIGURES),--figures $(FIGURES))

clean:
	rm -rf $(VENV) build *.egg-info
