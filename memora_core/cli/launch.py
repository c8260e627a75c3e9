"""`memora launch`: start the ROS 2 node graph of launch/graph.yaml on a machine without `ros2 launch`.

Same graph, same parameter files, same launch arguments (`name:=value`) as
`ros2 launch memora demo_kitchen.launch.py`. Needs the colcon workspace built and
`source scripts/ros_env.sh` (for AMENT_PREFIX_PATH). Exit codes: 0 clean, 1 a node crashed,
2 bad arguments, 128+N when stopped by signal N.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memora_core.runtime.graph import load_graph
from memora_core.runtime.supervisor import Supervisor

DEFAULT_GRAPH = Path(__file__).resolve().parents[2] / "launch" / "graph.yaml"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("launch", help="run the ROS 2 node graph (pip-only replacement for ros2 launch)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("arguments", nargs="*", metavar="NAME:=VALUE", help="launch arguments, e.g. robot:=sim")
    p.add_argument("--graph", type=Path, default=DEFAULT_GRAPH, help="node-graph definition (YAML)")
    p.add_argument("--log-dir", type=Path, default=None, help="also write each node's output to DIR/<node>.log")
    p.add_argument("--report", type=Path, default=None, help="write the supervisor report (JSON) here")
    p.add_argument("--dry-run", action="store_true", help="print the resolved command lines and exit")
    p.set_defaults(func=run)


def _parse_assignments(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition(":=")
        if not sep or not name:
            raise ValueError(f"launch argument {item!r} must look like name:=value")
        out[name] = value
    return out


def run(args: argparse.Namespace) -> int:
    graph = load_graph(args.graph)
    try:
        values = graph.argument_values(_parse_assignments(args.arguments))
    except ValueError as exc:
        print(f"memora launch: {exc}", file=sys.stderr)
        return 2
    specs = graph.process_specs(values)
    if args.dry_run:
        for spec in specs:
            print(json.dumps(spec.model_dump()))
        return 0
    report = Supervisor(specs, graph.supervisor, log_dir=args.log_dir).run()
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(report.model_dump_json(indent=2))
    return report.exit_code
