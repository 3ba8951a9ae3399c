# `make demo` and `make test` create .venv on first use and install every package into it
# (editable), with the development tools.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PACKAGES := core $(patsubst %/pyproject.toml,%,$(wildcard plugins/*/pyproject.toml))

.PHONY: demo test lint typecheck unit bench bench-scale clean

$(STAMP): pyproject.toml core/pyproject.toml $(wildcard plugins/*/pyproject.toml)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --group dev $(addprefix -e ./,$(PACKAGES))
	touch $(STAMP)

## demo: run the example suite through the real CLI (its intended failures stay above the bar)
demo: $(STAMP)
	$(BIN)/agent-eval run examples/warranty.yaml

## test: lint, type-check and run every test against the installed packages
test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/python -m pytest

## bench: agent-eval against pydantic-evals, inspect-ai and plain asyncio; writes bench/RESULTS.md
## (not part of CI; BENCH_ARGS=--quick for a short run)
bench: $(STAMP)
	$(BIN)/python bench/run.py $(BENCH_ARGS)

## bench-scale: scenario G alone (the whole run at 10^4..10^6 cases, phase by phase), printed
bench-scale: $(STAMP)
	$(BIN)/python bench/scale.py $(SCALE_ARGS)

clean:
	rm -rf $(VENV) .agent-eval
