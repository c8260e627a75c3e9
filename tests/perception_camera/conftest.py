"""Rendered demonstrations for the camera perception tests: one short routine with every action kind and the
look-alikes near at hand, rendered at two seeds (different layouts): one trains a small model, the other is
what the tests look at. Rendered once per test run (real MuJoCo rendering) and encoded lossless: at its default
quality libx264 gave different bytes for the same rendered frames now and then here (threads=1; 4 of 16 encodes
in one trial, none of 120 in another; 2026-12-02), enough to move a small model trained on one session. Lossless
decoding returns exactly the frames rendered, so these tests see the same pixels on every run. The perception
benchmark keeps the lossy default."""
from __future__ import annotations

from pathlib import Path

import pytest

from memora_core.perception import PerceptionConfig
from memora_core.perception.camera.model import CameraModel
from memora_core.perception.camera.train import TrainSettings, train

SHORT = {
    "name": "camera_test", "idle_start_s": [1.0, 1.0], "idle_end_s": [1.5, 1.5],
    "sequence": [{"steps": [
        {"do": "pick", "object": "coca-cola bottle"},
        {"do": "pour", "object": "coca-cola bottle", "target": "orange cup"},
        {"do": "put", "object": "coca-cola bottle", "target": "table", "near": "origin"},
        {"do": "pick", "object": "yellow spoon"},
        {"do": "put", "object": "yellow spoon", "target": "yellow bowl"},
    ]}],
}


def render(seed: int, out: Path):
    from sim.demonstrator import RoutineConfig, render_session
    from sim.demonstrator.config import load_render_config

    cfg = load_render_config()
    cfg = cfg.model_copy(update={"video": cfg.video.model_copy(update={"crf": 0})})
    return render_session(RoutineConfig.model_validate(SHORT), seed=seed, session=0, out_dir=out, cfg=cfg)


ROUTINES = ("task_a_drink", "task_b_breakfast")


def render_routine(routine: str, seed: int, out: Path):
    from sim.demonstrator import render_session
    from sim.demonstrator.config import load_render_config

    cfg = load_render_config()
    cfg = cfg.model_copy(update={"video": cfg.video.model_copy(update={"crf": 0})})
    return render_session(routine, seed=seed, session=0, out_dir=out, cfg=cfg)


@pytest.fixture(scope="session")
def train_demo(tmp_path_factory: pytest.TempPathFactory):
    return render(11, tmp_path_factory.mktemp("camera_train"))


@pytest.fixture(scope="session")
def test_demo(tmp_path_factory: pytest.TempPathFactory):
    return render(12, tmp_path_factory.mktemp("camera_test"))


@pytest.fixture(scope="session")
def camera_model_path(train_demo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    # the holding forest (camera/holding.py) learns from the two demo routines too: one short session shows too
    # few grasps and holds
    more = [render_routine(r, 13, tmp_path_factory.mktemp(f"camera_train_{r}")) for r in ROUTINES]
    path, _ = train([train_demo], tmp_path_factory.mktemp("camera_model") / "model.npz", TrainSettings(),
                    hold_sessions=[train_demo, *more])
    return path


@pytest.fixture(scope="session")
def camera_model(camera_model_path) -> CameraModel:
    return CameraModel.load(camera_model_path)


@pytest.fixture
def camera_config() -> PerceptionConfig:
    return PerceptionConfig(backend="camera")
