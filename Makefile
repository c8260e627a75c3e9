# memora: `make test` and `make demo` each bring the machine up to date first (scripts/setup.sh).
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
ROS_ENV := source scripts/ros_env.sh
PYTEST_ARGS ?=
export PYTEST_ARGS TEST_WORKERS

.PHONY: setup test test-all demo bench-store sim-regression clean help

help:
	@echo "make test   - set up the machine, then run the tests not marked slow (what CI runs)"
	@echo "make test-all - set up the machine, then run every test, the slow ones too"
	@echo "make demo   - set up the machine, then run the kitchen demo"
	@echo "make bench-store - store write/query benchmark (figures, not a test)"
	@echo "make sim-regression - the demo tasks on SEEDS (20) seeded layouts, success table"

setup:
	@bash scripts/setup.sh

# scripts/run_tests.sh: one pytest process by default; TEST_WORKERS=N: N xdist workers, then the `solo` tests alone.
# make test (CI) leaves out the tests marked slow (pyproject.toml's markers say which); make test-all runs them too.
test: setup
	@bash scripts/run_tests.sh "not slow"

test-all: setup
	@bash scripts/run_tests.sh

demo: setup
	@$(ROS_ENV) && $(PY) -m memora_core.demo

bench-store: setup
	@$(PY) bench/benchmarks/store_bench.py

# The demo's tasks on 20 seeded layouts (memory formed once from the demonstrations); prints the success table.
SEEDS ?= 20
sim-regression: setup
	@$(PY) -m memora_core.runtime.regression --seeds $(SEEDS)

clean:
	rm -rf ros2_ws/build ros2_ws/install ros2_ws/log .stamps runs
