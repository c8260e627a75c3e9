# Source me: environment for the pip-installed ROS 2 wheels and this repository's colcon workspace.
_memora_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_venv=$_memora_root/.venv
export VIRTUAL_ENV=$_venv
export PATH=$_venv/bin:$PATH
export AMENT_PREFIX_PATH=$_venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}
export CMAKE_PREFIX_PATH=$_venv${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export RMW_IMPLEMENTATION=${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}
export MUJOCO_GL=${MUJOCO_GL:-egl}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
if [ -f "$_memora_root/ros2_ws/install/local_setup.bash" ]; then
  # colcon's setup scripts read unset variables; relax nounset while sourcing them.
  case $- in *u*) _memora_u=1; set +u;; *) _memora_u=0;; esac
  source "$_memora_root/ros2_ws/install/local_setup.bash"
  [ "$_memora_u" = 1 ] && set -u
fi
unset _memora_root _venv _memora_u
