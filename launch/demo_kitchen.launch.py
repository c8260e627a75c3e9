"""ROS 2 launch file for the memora kitchen demo: `ros2 launch memora demo_kitchen.launch.py [name:=value ...]`.

mode:=demo (the default) runs what `make demo` runs and ends: memora_core.demo.DemoRun renders the
demonstrations when absent and speaks the voice instructions, the graph of graph.yaml runs with the demo
driver and the tasks of the demo config, and once every node has exited summary.json and report.html are
written. mode:=live keeps the graph up for voice/text instructions until Ctrl-C.

The nodes, their parameter files and the graph's launch arguments come from graph.yaml (next to this file, in
the repository and in share/memora/launch) through memora_core.runtime.graph, and what a node's exit means
(crash, driver done, driver done with failed tasks) from memora_core.runtime.verdict: the rules `memora launch`
and `make demo` apply. `ros2 launch` returns launch's own exit code, which is 0 after a Shutdown event
whatever its reason; launch returns non-zero when an exception reaches its run loop, so a failed graph
(a node died, a task failed, or the demo was interrupted) raises GraphFailed once every node has exited.
"""
from __future__ import annotations

import signal
from functools import partial
from pathlib import Path

from launch import Event, EventHandler, LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, EmitEvent, OpaqueFunction, RegisterEventHandler
from launch.event_handlers import OnProcessExit, OnShutdown
from launch.events import Shutdown
from launch.logging import get_logger
from launch_ros.actions import Node

from memora_core.demo import DEFAULT_CONFIG, DEFAULT_RUNS, DemoRun, load_demo_config
from memora_core.runtime.graph import GraphDef, NodeDef, load_graph
from memora_core.runtime.verdict import GraphFailed, Verdict, interrupted, judge_exit

GRAPH_FILE = Path(__file__).resolve().with_name("graph.yaml")

# This file's own arguments (graph.yaml declares the graph's): name -> (default, choices, description).
OWN_ARGUMENTS = {
    "mode": ("demo", ["demo", "live"],
             "demo: run the kitchen demo of demo_config end to end (as `make demo`) and exit, non-zero when a "
             "node dies or a task fails; live: start the graph and keep it up for voice/text instructions"),
    "demo_config": (str(DEFAULT_CONFIG), None,
                    "mode:=demo: the demo's tasks, demonstrations and layout (memora_core.demo.DemoConfig); its "
                    "values replace the graph arguments videos, tasks, episodes, driver, participant, run_dir, "
                    "demo_root, layout_seed and camera_speed"),
    "run_name": ("", None, f"mode:=demo: outputs go to {DEFAULT_RUNS}/<run_name> (empty: the demo config's run_name)"),
    "graph": (str(GRAPH_FILE), None, "the node-graph definition to run (tests run small ones); an argument it "
              "shares a name with graph.yaml has graph.yaml's default unless given"),
}
log = get_logger("memora")


class GraphEnded(Event):
    """Every node of the graph has exited (emitted once, after the last ProcessExited was handled)."""

    name = "memora.GraphEnded"


class _GraphWatch:
    """Judges each node's exit while the graph runs, shuts the graph down on the first verdict, and once the
    last node has exited finishes a demo run and fails the launch when the graph failed."""

    def __init__(self, nodes: list[NodeDef], demo: DemoRun | None):
        self.running = {n.name for n in nodes}
        self.demo = demo
        self.verdict: Verdict | None = None

    def on_shutdown(self, event: Shutdown, _context: LaunchContext) -> None:
        if self.verdict is None:  # a shutdown this watch did not ask for: Ctrl-C, or launch idle / torn down
            self.verdict = interrupted(signal.SIGINT) if event.due_to_sigint else Verdict(
                exit_code=0 if self.demo is None else 1, reason=f"launch shut down: {event.reason}")

    def on_exit(self, node: NodeDef, event, _context: LaunchContext):  # noqa: ANN001 - launch's ProcessExited
        self.running.discard(node.name)
        actions = []
        if self.verdict is None:
            self.verdict = judge_exit(node.name, event.returncode, required=node.required, ends_graph=node.ends_graph)
            if self.verdict is not None:
                (log.info if self.verdict.exit_code == 0 else log.error)(self.verdict.reason)
                actions.append(EmitEvent(event=Shutdown(reason=self.verdict.reason)))
        if not self.running:
            # Its own event: an exception raised while launch handles it ends `ros2 launch` non-zero without
            # cutting short launch's handlers of this ProcessExited (an async action's exception can be missed).
            actions.append(EmitEvent(event=GraphEnded()))
        return actions

    def finish(self, _context: LaunchContext) -> None:
        verdict = self.verdict or Verdict(exit_code=0, reason="all nodes finished")
        if self.demo is not None:
            if not self.demo.finish(verdict.exit_code):  # summary.json, report.html: every node has exited
                raise GraphFailed(verdict if verdict.exit_code else Verdict(exit_code=1, reason="demo tasks failed"))
        elif verdict.exit_code != 0 and verdict.exit_code != 128 + signal.SIGINT:  # Ctrl-C ends a live graph
            raise GraphFailed(verdict)


def _start(context: LaunchContext):
    given = context.launch_configurations
    graph: GraphDef = load_graph(given["graph"])
    overrides = {name: given[name] for name in graph.arguments if name in given}
    demo = None
    if given["mode"] == "demo":
        cfg = load_demo_config(Path(given["demo_config"]))
        demo = DemoRun(cfg, DEFAULT_RUNS / (given["run_name"] or cfg.run_name)).prepare()
        overrides |= demo.graph_arguments()
    values = graph.argument_values(overrides)
    nodes = graph.nodes_for(values)
    watch = _GraphWatch(nodes, demo)
    actions = [RegisterEventHandler(OnShutdown(on_shutdown=watch.on_shutdown)),
               RegisterEventHandler(EventHandler(matcher=lambda event: isinstance(event, GraphEnded),
                                                 entities=OpaqueFunction(function=watch.finish)))]
    for gn in nodes:
        params = [str(p) for p in graph.param_files(gn, values)]
        overrides_ = graph.param_overrides(gn, values)
        node = Node(package=gn.package, executable=gn.executable, name=gn.name, output="screen",
                    arguments=graph.node_args(gn, values), parameters=[*params, overrides_] if overrides_ else params)
        actions += [node, RegisterEventHandler(OnProcessExit(target_action=node, on_exit=partial(watch.on_exit, gn)))]
    return actions


def generate_launch_description() -> LaunchDescription:
    own = [DeclareLaunchArgument(name, default_value=default, description=text, **({"choices": ch} if ch else {}))
           for name, (default, ch, text) in OWN_ARGUMENTS.items()]
    graph = load_graph(GRAPH_FILE)
    declared = [DeclareLaunchArgument(name, default_value=arg.default, description=arg.description,
                                      **({"choices": arg.choices} if arg.choices else {}))
                for name, arg in graph.arguments.items()]
    return LaunchDescription([*own, *declared, OpaqueFunction(function=_start)])
