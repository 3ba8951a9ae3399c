# `make demo` and `make test` create .venv on first use and install into it (editable) what they need:
# the demo only the core and the light plugins; the tests every package and the development tools.
# Each install leaves a stamp, so `make demo` then `make test` installs only what the demo did not.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check --quiet
PACKAGES := core $(patsubst %/pyproject.toml,%,$(wildcard plugins/*/pyproject.toml))
# what the demo suite uses; the rest (agent-eval-ray and its Ray) is for the tests
DEMO_PACKAGES := core plugins/contains plugins/exact plugins/json plugins/judge plugins/trajectory
DEMO := $(VENV)/.demo
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench bench-scale clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(DEMO): $(BIN)/python $(addsuffix /pyproject.toml,$(DEMO_PACKAGES))
	$(PIP) install $(addprefix -e ./,$(DEMO_PACKAGES))
	touch $(DEMO)

# pip 25.1 reads dependency groups (--group dev)
$(STAMP): $(DEMO) pyproject.toml $(addsuffix /pyproject.toml,$(PACKAGES))
	$(PIP) install --upgrade "pip>=25.1"
	$(PIP) install --group dev $(addprefix -e ./,$(filter-out $(DEMO_PACKAGES),$(PACKAGES)))
	touch $(STAMP)

## demo: run the example suite through the real CLI (its intended failures stay above the bar)
demo: $(DEMO)
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
