# FinRPA's one task runner: the README, CI and developers all use these targets.
.PHONY: setup demo test test-fast lint typecheck chaos bench clean

VENV := .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

setup:
	@bash scripts/setup.sh

demo: setup
	$(VENV)/bin/finrpa demo

lint: setup
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

typecheck: setup
	$(VENV)/bin/mypy

test: lint
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

test-fast: setup
	$(PY) -m pytest -x -q $(PYTEST_ARGS)

chaos: setup
	FINRPA_CHAOS_TRIALS=$${FINRPA_CHAOS_TRIALS:-30} $(PY) -m pytest -s tests/chaos $(PYTEST_ARGS)

bench: setup
	@for f in bench/bench_*.py; do m=$$(basename $$f .py); echo "== $$m"; $(PY) -m bench.$$m || exit 1; done

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache
