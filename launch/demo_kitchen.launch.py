"""ROS 2 launch file for the memora kitchen demo: `ros2 launch memora demo_kitchen.launch.py robot:=sim`.

A thin reading of graph.yaml (next to this file, in the repository and in share/memora/launch): the
launch arguments, nodes, parameter files and overrides all come from there, through the same
memora_core.runtime.graph code that `memora launch` (the pip-only runner) uses.
"""
from __future__ import annotations

from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, EmitEvent, OpaqueFunction, RegisterEventHandler
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from memora_core.runtime.graph import GraphDef, load_graph
from memora_core.runtime.supervisor import EXIT_COMPLETED_WITH_FAILURES

GRAPH_FILE = Path(__file__).resolve().with_name("graph.yaml")


def _on_exit(graph_node, event, _context):  # noqa: ANN001 - launch's callback signature
    code = event.returncode
    if code == 0 and graph_node.ends_graph:
        return [EmitEvent(event=Shutdown(reason=f"{graph_node.name} finished"))]
    if code == EXIT_COMPLETED_WITH_FAILURES and graph_node.ends_graph:
        # Done, with failures to report (its `outcome:` line says which): not a crash.
        return [EmitEvent(event=Shutdown(reason=f"{graph_node.name} finished with failures (exit code {code})"))]
    if graph_node.required:
        return [EmitEvent(event=Shutdown(reason=f"node {graph_node.name} exited with code {code}"))]
    return None


def _nodes(context, graph: GraphDef):  # noqa: ANN001
    values = graph.argument_values({name: LaunchConfiguration(name).perform(context) for name in graph.arguments})
    actions = []
    for gn in graph.nodes_for(values):
        params = [str(p) for p in graph.param_files(gn, values)]
        overrides = graph.param_overrides(gn, values)
        node = Node(package=gn.package, executable=gn.executable, name=gn.name, output="screen",
                    arguments=graph.node_args(gn, values), parameters=[*params, overrides] if overrides else params)
        actions.append(node)
        actions.append(RegisterEventHandler(OnProcessExit(
            target_action=node, on_exit=lambda event, ctx, gn=gn: _on_exit(gn, event, ctx))))
    return actions


def generate_launch_description() -> LaunchDescription:
    graph = load_graph(GRAPH_FILE)
    declared = [DeclareLaunchArgument(name, default_value=arg.default, description=arg.description,
                                      **({"choices": arg.choices} if arg.choices else {}))
                for name, arg in graph.arguments.items()]
    return LaunchDescription([*declared, OpaqueFunction(function=_nodes, args=[graph])])
