#!/usr/bin/env bash
# The test suite as `make test` runs it: pytest-xdist workers first (TEST_WORKERS, default 2: one per core here;
# a test file's tests stay on one worker, in order), then the tests marked `solo` in one process, alone on the
# machine (they bound wall-clock time or run a Unitree sim bridge in real time against deadlines).
#   scripts/run_tests.sh [MARKER_EXPRESSION]     e.g. "not slow" (make test-fast)
# TEST_WORKERS=0 runs everything in one process, in order. PYTEST_ARGS is passed to every pytest run.
# Exit status: 0 when both runs pass (a run that selects no test counts as passed, unless neither selects any).
cd "$(dirname "$0")/.." || exit 2
source scripts/ros_env.sh
PY=.venv/bin/python
expr=${1:-}
workers=${TEST_WORKERS:-2}
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
