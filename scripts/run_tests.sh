#!/usr/bin/env bash
# The test suite as `make test` and `make test-all` run it. By default (TEST_WORKERS=0) one pytest process runs the
# selected tests in order.
# With TEST_WORKERS=N (N > 0), N pytest-xdist workers run the tests not marked `solo` (a test file's tests stay on
# one worker, in order), then the `solo` tests run in one process, alone on the machine (they bound wall-clock time
# or run a Unitree sim bridge in real time against deadlines). On this 2-core machine two workers gained almost
# nothing (see README), so one process is the default; use workers on a machine with more cores.
#   scripts/run_tests.sh [MARKER_EXPRESSION]     e.g. "not slow" (make test); none: every test (make test-all)
# PYTEST_ARGS is passed to every pytest run, quoted as on a command line.
# Exit status: pytest's; with workers, 0 when both runs pass (a run that selects no test counts as passed, unless
# neither selects any).
cd "$(dirname "$0")/.." || exit 2
source scripts/ros_env.sh
PY=.venv/bin/python
expr=${1:-}
workers=${TEST_WORKERS:-0}
eval "extra=(${PYTEST_ARGS:-})"  # the caller's own pytest options, quoted as on a command line
marks() { if [ -n "$expr" ]; then echo "($expr) and $1"; else echo "$1"; fi; }

if [ "$workers" = 0 ]; then
  exec "$PY" -m pytest ${expr:+-m "$expr"} "${extra[@]}"
fi
"$PY" -m pytest -n "$workers" --dist loadfile -m "$(marks 'not solo')" "${extra[@]}"
rc=$?
"$PY" -m pytest -m "$(marks solo)" "${extra[@]}"
rc_solo=$?
ok() { [ "$1" = 0 ] || [ "$1" = 5 ]; }  # 5: pytest selected no test
if ok "$rc" && ok "$rc_solo" && ! { [ "$rc" = 5 ] && [ "$rc_solo" = 5 ]; }; then exit 0; fi
[ "$rc" != 0 ] && [ "$rc" != 5 ] && exit "$rc"
[ "$rc_solo" = 5 ] && exit 5
exit "$rc_solo"
