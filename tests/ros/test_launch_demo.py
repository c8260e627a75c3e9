"""The demo mode of the launch file and `make demo` share memora_core.demo.DemoRun: the graph arguments it
gives make launch/graph.yaml the demo's graph (no ROS needed)."""
from __future__ import annotations

import json

from memora_core.demo import GRAPH_FILE, DemoRun, load_demo_config
from memora_core.runtime.graph import load_graph


def test_demo_run_arguments_make_graph_yaml_the_demo_graph(tmp_path):
    cfg = load_demo_config(layout_seed=1005)
    run = DemoRun(cfg, tmp_path / "run")
    run.videos = [tmp_path / "a.mp4", tmp_path / "b.mp4"]  # what prepare() renders
    run.tasks = [{"instruction": t.instruction, "voice_file": "", "expected_objects": t.expected_objects}
                 for t in cfg.tasks]
    graph = load_graph(GRAPH_FILE)
    values = graph.argument_values(run.graph_arguments())  # every name known, every value allowed
    nodes = {n.name: n for n in graph.nodes_for(values)}
    assert nodes["demo_driver"].ends_graph
    driver = graph.param_overrides(nodes["demo_driver"], values)
    assert json.loads(driver["tasks_json"]) == run.tasks and driver["episodes_expected"] == 2
    assert driver["out_dir"] == str((tmp_path / "run").resolve())
    camera = graph.param_overrides(nodes["camera"], values)
    assert camera["videos"] == [str(v) for v in run.videos]
    assert graph.param_overrides(nodes["controller"], values)["layout_seed"] == 1005



def _controller_robot_config(graph, run: DemoRun) -> str:
    """The robot_config the controller's parameter files give it, the last file that sets it winning (as ROS does)."""
    import yaml

    values = graph.argument_values(run.graph_arguments())
    controller = next(n for n in graph.nodes_for(values) if n.name == "controller")
    found = [yaml.safe_load(f.read_text())["/**"]["ros__parameters"].get("robot_config")
             for f in graph.param_files(controller, values)]
    return [r for r in found if r][-1]


def test_robot_perception_camera_gives_the_controller_the_perceived_robot(tmp_path):
    graph = load_graph(GRAPH_FILE)
    camera = DemoRun(load_demo_config(robot_perception="camera"), tmp_path / "a")
    assert _controller_robot_config(graph, camera) == "sim_g1_perceived"
    assert _controller_robot_config(graph, DemoRun(load_demo_config(), tmp_path / "b")) == "sim_g1"


def test_sim_g1_perceived_is_the_camera_planning_sim_with_sim_g1s_body():
    from memora_core.robot import load_robot_config
    from memora_core.robot.robot import ROBOT_REGISTRY

    perceived, truth = load_robot_config("sim_g1_perceived"), load_robot_config("sim_g1")
    assert perceived.type == "sim_perceived" and ROBOT_REGISTRY["sim_perceived"].startswith("sim.perceived_robot:")
    assert perceived.model_dump(exclude={"type"}) == truth.model_dump(exclude={"type"})


def test_robot_g1_runs_the_unitree_backend_against_the_sim_bridge(tmp_path):
    graph = load_graph(GRAPH_FILE)
    run = DemoRun(load_demo_config(robot="g1"), tmp_path / "g1")
    assert _controller_robot_config(graph, run) == "unitree_g1"
    names = {n.name for n in graph.nodes_for(graph.argument_values(run.graph_arguments()))}
    assert {"unitree_sim_bridge", "scene_model", "controller", "demo_driver"} <= names
    sim = {n.name for n in graph.nodes_for(graph.argument_values(DemoRun(load_demo_config(), tmp_path / "s")
                                                                  .graph_arguments()))}
    assert "unitree_sim_bridge" not in sim and "scene_model" not in sim


def test_a_g1_domain_reaches_the_controller_and_the_bridge(tmp_path):
    graph = load_graph(GRAPH_FILE)
    run = DemoRun(load_demo_config(robot="g1", g1_domain=7), tmp_path / "g1")
    values = graph.argument_values(run.graph_arguments())
    nodes = {n.name: n for n in graph.nodes_for(values)}
    for name in ("controller", "unitree_sim_bridge"):
        assert graph.param_overrides(nodes[name], values)["dds_domain"] in (7, "7")
    # Without one, the graph's default stays (empty: the bridge's domain 1).
    plain = DemoRun(load_demo_config(robot="g1"), tmp_path / "p").graph_arguments()
    assert "g1_domain" not in plain
