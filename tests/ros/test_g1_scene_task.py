"""robot:=g1 g1_bridge:=sim with the head RGB-D scene model, over the graph's own wiring (launch/graph.yaml): the
sim bridge publishes the head RealSense topics, the scene_model node turns them into a SceneModel, the controller's
G1 backend keeps what it sees in its object tracker and picks and places the bottle with a Dex3 finger grasp over
DDS. The bridge's ground truth only scores the outcome (the bottle on the free spot nearest the table centre,
standing, not held, clear of its neighbours, none of them moved: the backend's clearance checks see the perceived
objects)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from memora_core.runtime.graph import load_graph
from memora_core.schemas import Plan, PlanStep
from tests.dds_domains import unitree_domain
from tests.ros.conftest import stop_with_sigint

# solo: a sim bridge keeping real time against deadlines (TEST_WORKERS=N make test runs it alone, after the workers)
pytestmark = [pytest.mark.ros, pytest.mark.sim, pytest.mark.slow, pytest.mark.solo]

REPO = Path(__file__).resolve().parents[2]
NODES = ("unitree_sim_bridge", "scene_model", "controller")
BOTTLE = "coca-cola bottle"


@pytest.fixture(scope="module")
def graph(ros_env, tmp_path_factory):
    pytest.importorskip("unitree_sdk2py")
    env = dict(ros_env)
    env["ROS_DOMAIN_ID"] = str(170 + int(ros_env["ROS_DOMAIN_ID"]) % 30)  # away from other modules' controllers
    g = load_graph(REPO / "launch" / "graph.yaml")
    specs = {s.name: s.argv for s in g.process_specs(g.argument_values({"robot": "g1", "g1_bridge": "sim",
                                                                              "g1_domain": str(unitree_domain())}))}
    assert set(NODES) <= set(specs), sorted(specs)
    specs["unitree_sim_bridge"] += ["-p", "head_camera_hz:=0.0"]  # the RGB-D topics only
    logs = tmp_path_factory.mktemp("g1_scene_logs")
    procs = {}
    for name in NODES:
        log = logs / f"{name}.log"
        procs[name] = (subprocess.Popen(specs[name], env=env, cwd=REPO, stdout=log.open("w"),
                                        stderr=subprocess.STDOUT, start_new_session=True), log)
    yield env, procs
    for proc, _ in procs.values():
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    for name, (proc, log) in procs.items():
        stop_with_sigint(name, proc, log)


def _logs(procs) -> str:
    return "\n".join(f"--- {n} (rc {p.poll()})\n{log.read_text()[-1500:]}" for n, (p, log) in procs.items())


def _echo(env, node_bin, topic: str, typ: str, timeout: float) -> dict:
    res = subprocess.run([str(node_bin / "echo"), topic, typ, "--count", "1", "--timeout", str(timeout)], env=env,
                         capture_output=True, text=True, timeout=timeout + 30)
    assert res.returncode == 0, f"nothing on {topic}: {res.stdout}{res.stderr}"
    return json.loads(res.stdout.splitlines()[0])


# 2026-12-02: this failed in 2 of 3 clean-clone full runs with "landed 31 cm from target" (the bottle starts 34 cm
# from the table centre): a scene-model frame taken before the grasp came in after it, put the bottle back on its
# old place in the tracker, and at the let-go that stale sighting replaced where the hand let it go. The G1 backend
# now forgets the object's sightings at the let-go too, and the tracker drops frames older than a forget.
def test_g1_picks_and_places_what_the_scene_model_sees(graph, node_bin, tmp_path):
    env, procs = graph
    scene = _echo(env, node_bin, "/memora/scene_model", "memora_interfaces/msg/SceneModel", timeout=150)
    assert BOTTLE in [o["name"] for o in scene["objects"]], scene
    start = json.loads(_echo(env, node_bin, "/memora/sim/ground_truth", "std_msgs/msg/String", timeout=30)["data"])
    plan = Plan(participant_id="P01", instruction="g1 scene test", planner="test",
                steps=[PlanStep(index=0, action="pick", object=BOTTLE),
                       PlanStep(index=1, action="place", object=BOTTLE, target="on table center")])
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json())
    res = subprocess.run([str(node_bin / "execute"), str(path), "--timeout", "180"], env=env, capture_output=True,
                         text=True, timeout=240)
    assert res.returncode == 0, f"{res.stdout[-3000:]}{res.stderr[-2000:]}\n{_logs(procs)}"
    truth = json.loads(_echo(env, node_bin, "/memora/sim/ground_truth", "std_msgs/msg/String", timeout=30)["data"])
    from memora_core.robot import load_robot_config
    from sim.scene.config import load_scene_config

    cfg = load_robot_config("unitree_g1")
    kitchen = load_scene_config(cfg.scene_path())
    goal = np.array(kitchen.regions["table center"][:2])
    bottle = np.array(truth["objects"][BOTTLE])
    assert truth["held"] is None, truth
    # On the table centre where it is free, else on the free spot nearest it (this layout's grey bowl stands 4 cm
    # from the centre), standing, clear of every neighbour, none of them moved.
    assert np.linalg.norm(bottle[:2] - goal) < cfg.motion.table_spot_radius and abs(bottle[2] - 0.85) < 0.01, truth
    for name, pos in truth["objects"].items():
        if name == BOTTLE:
            continue
        assert np.linalg.norm(np.subtract(pos, start["objects"][name])) < 0.01, (name, start, truth)
        gap = np.linalg.norm(bottle[:2] - np.array(pos[:2])) - kitchen.object(BOTTLE).footprint_radius \
            - kitchen.object(name).footprint_radius
        assert gap > 0.0, (name, truth)
    assert all(p.poll() is None for p, _ in procs.values()), _logs(procs)


# The controller must stop this soon after SIGINT mid-step (s): 0.2 s measured here; without the e-stop 10.2 s (its
# robot close timed out behind the running step). CI's clean clone (2026-12-05) once saw over 20 s:
# the closes of its shutdown queued behind the running step on the physics thread.
STOP_S = 5.0


def test_sigint_during_a_pick_stops_the_arm_and_the_node_at_once(graph, node_bin, tmp_path):
    """SIGINT while a pick moves the arm: the controller engages the e-stop, the step ends where the arm is and the
    node exits within STOP_S (before, the shutdown's robot close waited behind the running step until it timed
    out). Runs after the pick-and-place above (same graph)."""
    env, procs = graph
    proc, log = procs["controller"]
    assert proc.poll() is None, _logs(procs)
    plan = Plan(participant_id="P01", instruction="g1 stop test", planner="test",
                steps=[PlanStep(index=0, action="pick", object=BOTTLE)])
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json())
    client = subprocess.Popen([str(node_bin / "execute"), str(path), "--timeout", "120"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(8.0)  # the goal is taken and the arm is on its way (a pick here takes about a minute)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        stop_s = time.monotonic() - t0
    finally:
        client.kill()
        client.wait()
    print(f"controller stopped {stop_s:.1f} s after SIGINT during a pick (bound {STOP_S} s)")
    text = log.read_text()
    assert "shutting down during a plan" in text, text[-3000:]  # the pick was running when SIGINT came
    assert rc == 0 and stop_s < STOP_S, (rc, stop_s, text[-3000:])
