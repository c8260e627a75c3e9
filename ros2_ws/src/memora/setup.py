"""memora ROS 2 nodes (ament_python). The launch file, the node-graph definition and the node parameters
live at the repository top level (launch/, robot_configs/ros/) and are installed into share/memora."""
import os
from glob import glob
from pathlib import Path

from setuptools import find_packages, setup

PACKAGE = "memora"
HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]  # ros2_ws/src/memora -> repository root


def _rel(paths: list[str]) -> list[str]:
    # setuptools wants data_files sources relative to setup.py.
    return sorted(os.path.relpath(Path(p).resolve(), HERE) for p in paths)


# One (console name, module) list: each node is `memora.nodes.<module>:main`.
NODES = {
    "instruct": "instruct",
    "echo": "echo",
    "execute": "execute",
    "estop": "estop",
    "camera": "camera",
    "planner": "planner",
    "asr": "asr",
    "memory_writer": "memory_writer",
    "consolidation": "consolidation",
    "controller": "controller",
    "simulator": "simulator",
    "recorder": "recorder",
    "demo_driver": "demo_driver",
    "sim_bridge": "sim_bridge",
    "scene_model": "scene_model",
}
available = {name: mod for name, mod in NODES.items() if (HERE / PACKAGE / "nodes" / f"{mod}.py").exists()}

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", _rel(glob(str(REPO / "launch" / "*.launch.py")) + glob(str(REPO / "launch" / "*.yaml")))),
        (f"share/{PACKAGE}/config", _rel(glob(str(REPO / "robot_configs" / "ros" / "*.yaml")))),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="memora",
    maintainer_email="memora@example.com",
    description="memora ROS 2 nodes: thin adapters over memora_core",
    license="Apache-2.0",
    entry_points={"console_scripts": [f"{name} = {PACKAGE}.nodes.{mod}:main" for name, mod in available.items()]},
)
