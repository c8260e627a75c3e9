# memora: `make test` and `make demo` each bring the machine up to date first (scripts/setup.sh).
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
ROS_ENV := source scripts/ros_env.sh
PYTEST_ARGS ?=

.PHONY: setup test test-fast demo bench-store sim-regression clean help

help:
	@echo "make test   - set up the machine, then run the whole test suite"
	@echo "make demo   - set up the machine, then run the kitchen demo"
	@echo "make bench-store - store write/query benchmark (figures, not a test)"
	@echo "make sim-regression - the demo tasks on SEEDS (20) seeded layouts, success table"

setup:
	@bash scripts/setup.sh

# Two pytest-xdist workers (one per core here; a test file's tests stay on one worker, in order), then the tests
# that bound wall-clock time (marker `solo`) alone. TEST_WORKERS=0 runs everything in this process, in order.
TEST_WORKERS ?= 2
test: setup
	@$(ROS_ENV) && if [ "$(TEST_WORKERS)" = 0 ]; then $(PY) -m pytest $(PYTEST_ARGS); else \
	  $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not solo" $(PYTEST_ARGS); rc=$$?; \
	  $(PY) -m pytest -m solo $(PYTEST_ARGS); rc2=$$?; \
	  [ $$rc = 0 -o $$rc = 5 ] && [ $$rc2 = 0 -o $$rc2 = 5 ] && ! [ $$rc = 5 -a $$rc2 = 5 ]; fi

test-fast: setup
	@$(ROS_ENV) && $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not slow" $(PYTEST_ARGS)

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
