"""The soak's node graph: the memory part of launch/graph.yaml (camera, memory writer, consolidation,
planner), resolved by memora_core.runtime.graph exactly as `memora launch` resolves it, with the
consolidation timer switched on. The controller and recorder are left out: no task is executed, and the
recorder would write every camera image of the run to disk."""
from __future__ import annotations

import json
from pathlib import Path

from memora_core.runtime.graph import ProcessSpec, load_graph

REPO = Path(__file__).resolve().parents[3]
GRAPH = REPO / "launch" / "graph.yaml"
SOAK_NODES = ("camera", "memory_writer", "consolidation", "planner")


def soak_specs(videos: list[Path], run_dir: Path, demo_root: Path, speed: float, consolidate_period_s: float,
               participant: str = "P01") -> tuple[list[ProcessSpec], dict]:
    """The soak's process specs and the graph's supervisor settings (as a dict)."""
    graph = load_graph(GRAPH)
    for node in graph.nodes:
        if node.name == "consolidation" and consolidate_period_s > 0:
            node.set = {**node.set, "period_s": str(float(consolidate_period_s))}
    values = graph.argument_values({
        "videos": json.dumps([str(v) for v in videos]), "participant": participant, "run_dir": str(run_dir),
        "demo_root": str(demo_root), "camera_speed": str(float(speed)), "perception": "sim"})
    specs = [s for s in graph.process_specs(values) if s.name in SOAK_NODES]
    missing = set(SOAK_NODES) - {s.name for s in specs}
    if missing:
        raise ValueError(f"{GRAPH}: the soak needs nodes {sorted(missing)}")
    return specs, graph.supervisor.model_dump()
