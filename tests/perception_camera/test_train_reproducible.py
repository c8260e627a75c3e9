"""`camera-train` is reproducible: training again on the same rendered (lossless) session gives the same model
file, byte for byte, and so the same arrays; and the context classifier it fits is in the file."""
from __future__ import annotations

import numpy as np

from memora_core.perception.camera.model import CameraModel
from memora_core.perception.camera.train import TrainSettings, train


def test_two_trainings_give_the_same_model_file(train_demo, camera_model_path, tmp_path) -> None:
    again, _ = train([train_demo], tmp_path / "again.npz", TrainSettings())
    first = np.load(camera_model_path, allow_pickle=False)
    second = np.load(again, allow_pickle=False)
    assert sorted(first.files) == sorted(second.files)
    assert "context.weights" in first.files
    for k in first.files:
        assert np.array_equal(first[k], second[k]), k
    assert again.read_bytes() == camera_model_path.read_bytes()


def test_context_classifier_round_trip(camera_model, tmp_path) -> None:
    assert camera_model.context is not None
    again = CameraModel.load(camera_model.save(tmp_path / "m.npz"))
    idx = np.random.default_rng(0).integers(0, len(camera_model.lut), size=(24, 32))
    assert np.array_equal(again.context.classify(idx), camera_model.context.classify(idx))
