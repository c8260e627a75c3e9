#!/usr/bin/env bash
# The memora ROS package installs launch/*.launch.py, launch/graph.yaml and robot_configs/ros/*.yaml into
# share/memora; setup.sh only watches ros2_ws/src, so rebuild when these change. Stamp kept in $STAMPS.
set -euo pipefail
cd "${ROOT:?}"
[ -x scripts/build_ros.sh ] && [ -d ros2_ws/install/memora ] || exit 0
sum=$(cat $(find launch robot_configs/ros -type f \( -name '*.py' -o -name '*.yaml' \) | sort) | sha256sum | cut -d' ' -f1)
[ -f "$STAMPS/ros-share" ] && [ "$(cat "$STAMPS/ros-share")" = "$sum" ] && exit 0
echo "[setup] launch/ or robot_configs/ros changed: rebuilding ros2_ws"
scripts/build_ros.sh >/dev/null
echo "$sum" > "$STAMPS/ros-share"
