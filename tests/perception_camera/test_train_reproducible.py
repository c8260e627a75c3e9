"""`camera-train` is reproducible: training twice on the same rendered (lossless) session gives the same model
file, byte for byte, and so the same arrays (with every optional part fitted: hand shares, context classifier).
Trained on one frame in two seconds of video to stay quick; the path is the full training's."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.perception.camera.context import SCALES
from memora_core.perception.camera.train import TrainSettings, train


@pytest.mark.slow
def test_two_trainings_give_the_same_model_file(train_demo, tmp_path) -> None:
    st = TrainSettings(fps=0.5, trees=5, context_scales=SCALES)
    first, _ = train([train_demo], tmp_path / "first.npz", st)
    second, _ = train([train_demo], tmp_path / "second.npz", st)
    a, b = np.load(first, allow_pickle=False), np.load(second, allow_pickle=False)
    assert sorted(a.files) == sorted(b.files)
    assert {"lut", "hand_share", "context.weights", "category.threshold"} <= set(a.files)
    for k in a.files:
        assert np.array_equal(a[k], b[k]), k
    assert first.read_bytes() == second.read_bytes()
