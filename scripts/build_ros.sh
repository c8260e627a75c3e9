#!/usr/bin/env bash
# Build the colcon workspace ros2_ws (memora_interfaces + memora) against the pip-installed ROS 2 wheels.
# Called by scripts/setup.sh when ros2_ws/src changes; safe to run by hand at any time (idempotent).
#   ros2_ws/build, ros2_ws/install, ros2_ws/log are the outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=$ROOT/.venv
PY=$VENV/bin/python
log() { printf '[build_ros] %s\n' "$*"; }

[ -x "$PY" ] || { echo "build_ros: $PY missing; run scripts/setup.sh first" >&2; exit 1; }

# 1. Native build tools: rosidl generates and compiles C typesupport for every interface.
PY_INCLUDE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
NP_INCLUDE=$("$PY" -c 'import numpy; print(numpy.get_include())')
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
if [ ! -f "$PY_INCLUDE/Python.h" ]; then
  ver=$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  need+=("python$ver-dev")
fi
if [ ${#need[@]} -gt 0 ]; then
  log "apt install ${need[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
[ -f "$PY_INCLUDE/Python.h" ] || { echo "build_ros: no Python.h under $PY_INCLUDE" >&2; exit 1; }

# 2. The ROS wheels were built in a manylinux image; their exported CMake targets point at that image's
#    Python and numpy headers. Rewrite them to this venv's (a no-op once done).
WHEEL_PY_INCLUDE=/opt/python/cp311-cp311/include/python3.11
WHEEL_NP_INCLUDE=/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include
mapfile -t stale < <(grep -rlF -e "$WHEEL_PY_INCLUDE" -e "$WHEEL_NP_INCLUDE" "$VENV/share" --include='*.cmake' 2>/dev/null || true)
if [ ${#stale[@]} -gt 0 ]; then
  log "rewriting ${#stale[@]} CMake export files to $PY_INCLUDE and $NP_INCLUDE"
  sed -i -e "s|$WHEEL_PY_INCLUDE|$PY_INCLUDE|g" -e "s|$WHEEL_NP_INCLUDE|$NP_INCLUDE|g" "${stale[@]}"
fi

# 3. Environment: the venv is the ROS "underlay" (ament index, CMake packages, Python modules).
export VIRTUAL_ENV=$VENV PATH=$VENV/bin:$PATH
export AMENT_PREFIX_PATH=$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}
export CMAKE_PREFIX_PATH=$VENV${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export COLCON_LOG_PATH=$ROOT/ros2_ws/log
export PYTHONWARNINGS=${PYTHONWARNINGS:-ignore::DeprecationWarning}

# 4. Build. colcon.meta (top level) carries per-package arguments; the Python used by rosidl's
#    generators must be the venv's, not whatever FindPython3 would pick first.
start=$(date +%s)
log "colcon build (ros2_ws/src -> ros2_ws/install)"
"$VENV/bin/colcon" build \
  --base-paths ros2_ws/src \
  --build-base ros2_ws/build \
  --install-base ros2_ws/install \
  --metas colcon.meta \
  --event-handlers console_cohesion- summary+ \
  --cmake-args -DBUILD_TESTING=OFF "-DPython3_EXECUTABLE=$PY" "-DPYTHON_EXECUTABLE=$PY" \
    -DCMAKE_BUILD_TYPE=Release
log "colcon build finished in $(( $(date +%s) - start )) s"
