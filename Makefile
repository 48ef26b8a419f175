# Each target sets up its own virtual env, so a fresh machine with Python 3.11 needs nothing else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench,lint]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/giftdesk --demo

# Lint first: a broken layer contract or a type error fails fast, naming the import or the line.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q -n 2

# `make bench FIGURES=1,2` runs only those figures (bench/results.md keeps the last whole run).
bench: $(STAMP)
	$(BIN)/python -m bench $(if $(FIGURES),--figures $(FIGURES))

clean:
	rm -rf $(VENV) build *.egg-info
