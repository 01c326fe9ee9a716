# Two entry points work on a machine with only python3, pip and make:
#   make run    set up and run the main job (validate the example vault)
#   make test   set up and run the full test suite (pytest, ruff, mypy --strict)
PYTHON ?= python3
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test setup setup-dev lint typecheck pytest bench schema clean

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv

setup: $(UV)
	$(UV) sync --frozen --no-dev --quiet

setup-dev: $(UV)
	$(UV) sync --frozen --quiet

run: setup
	$(BIN)/roster --vault examples/vault validate

test: setup-dev
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest

bench: setup-dev
	-$(BIN)/python bench/parse.py
	-$(BIN)/python bench/sync.py
	-$(BIN)/python bench/resolve.py
	-$(BIN)/python bench/render.py

schema: setup-dev
	$(BIN)/roster schema --out schemas

clean:
	rm -rf $(TOOLS) $(VENV) .mypy_cache .pytest_cache .ruff_cache
