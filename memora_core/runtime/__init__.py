"""Process-level runtime with no ROS imports: the node-graph definition and a supervisor that runs it.

`launch/graph.yaml` is the one definition of the node graph. `launch/demo_kitchen.launch.py` (ROS 2 launch)
and `memora launch` (this package's supervisor, for machines with only the pip ROS wheels) both read it.
"""
from memora_core.runtime.graph import GraphDef, NodeDef, ProcessSpec, load_graph, resolve_executable
from memora_core.runtime.supervisor import Supervisor, SupervisorReport

__all__ = ["GraphDef", "NodeDef", "ProcessSpec", "Supervisor", "SupervisorReport", "load_graph", "resolve_executable"]
