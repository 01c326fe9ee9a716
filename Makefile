# Two entry points work on a machine with only python3, pip and make (plus node/npm for
# the harness CLIs the real-harness tests run):
#   make run    set up and run the main job: roster up on (a copy of) the example vault,
#               in the foreground until Ctrl-C
#   make test   set up and run the whole suite: ruff, mypy --strict, then pytest on every
#               supported Python this machine has (scripts/pytest_pythons.py), with the
#               pinned harness CLIs installed into .tools/npm (scripts/harness-clis)
#   make pytest the same pytest runs alone; PYTHONS="3.12" limits them, PYTEST_ARGS adds
PYTHON ?= python3
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
NPM_PREFIX := $(abspath $(TOOLS)/npm)
# Worker processes for pytest (pytest-xdist): one per core.
PYTEST_ARGS ?= -n auto
PYTHONS ?=
# make run serves a copy of the example vault, made on the first run and kept (edit it
# there): the daemon's first sync writes starter knowledge into a vault and its database
# beside it, which must not dirty the repository's example. RUN_ARGS go to roster up.
RUN_DIR ?= .run
RUN_ARGS ?=

.PHONY: run test setup setup-dev harness-clis lint typecheck pytest bench schema clean

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv

# Bytecode is compiled at install (uv does not by default, and the project's own modules
# are an editable install): where Python may not write it (PYTHONDONTWRITEBYTECODE, a
# read-only tree), every `roster` command would otherwise compile its imports again, most
# of a second of start-up on a slow machine.
# Then scripts/native.py compiles the render's hot modules with mypyc (about a quarter less
# CPU per render; pure Python where there is no C compiler, or with ROSTER_NATIVE=0).
setup: $(UV)
	$(UV) sync --frozen --no-dev --group native --quiet --compile-bytecode
	$(BIN)/python -m compileall -q src
	$(BIN)/python scripts/native.py build

setup-dev: $(UV)
	$(UV) sync --frozen --quiet --compile-bytecode
	$(BIN)/python -m compileall -q src
	$(BIN)/python scripts/native.py build

run: setup
	@test -d $(RUN_DIR)/vault || { mkdir -p $(RUN_DIR) && cp -R examples/vault $(RUN_DIR)/vault \
		&& echo "copied examples/vault to $(RUN_DIR)/vault: edit the profiles there"; }
	$(BIN)/roster --vault $(RUN_DIR)/vault up $(RUN_ARGS) || test $$? -eq 130  # Ctrl-C: stopped as asked

harness-clis:
	scripts/harness-clis $(NPM_PREFIX)

test: lint typecheck pytest

lint: setup-dev
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/lint-imports

typecheck: setup-dev
	$(BIN)/mypy

pytest: setup-dev harness-clis
	PATH="$(NPM_PREFIX)/node_modules/.bin:$$PATH" ROSTER_CLAUDE_BIN="$(NPM_PREFIX)" \
	ROSTER_PYTHONS="$(PYTHONS)" $(BIN)/python scripts/pytest_pythons.py $(PYTEST_ARGS)

bench: setup-dev
	-$(BIN)/python bench/parse.py
	-$(BIN)/python bench/sync.py
	-$(BIN)/python bench/resolve.py
	-$(BIN)/python bench/render.py
	-$(BIN)/python bench/harnesses.py
	-$(BIN)/python bench/serve.py
	-$(BIN)/python bench/redact.py

schema: setup-dev
	$(BIN)/roster schema --out schemas

clean:
	rm -rf $(TOOLS) $(VENV) .venvs .mypy_cache .pytest_cache .ruff_cache
