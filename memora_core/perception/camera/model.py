"""The camera backend's learned parts, stored as plain arrays in one .npz (no pickle, nothing executed on
load): the pixel-class lookup table, the hand share of each colour (hand.py; absent in files written before it), the
pixel classifier with spatial context (context.py; optional), the superpixel merge forest (instances.py; optional),
and a random forest per attribute (category, material, label; colour, optional: absent in files written before it),
each tree as its node arrays. All forests take a region's full measure vector (features.ALL_FEATURE_NAMES); category
and material were trained on its shape/appearance part only, the label forest on all of it, the colour forest on
its colour measures only (features.COLOUR_FEATURES: it names the colour, not the object). `memora camera-train` writes
the file; loading checks its shape."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memora_core.errors import MemoraError
from memora_core.perception.camera.context import ContextClassifier, n_features
from memora_core.perception.camera.features import ALL_FEATURE_NAMES
from memora_core.perception.camera.instances import PAIR_FEATURE_NAMES
from memora_core.perception.camera.regions import LUT_BITS

ATTRIBUTES = ("category", "material", "label")
OPTIONAL_ATTRIBUTES = ("colour",)  # forests a model may lack (files written before them, or trained without)
FORMAT_VERSION = 2


class CameraModelError(MemoraError):
    """The camera model file is missing or not one `memora camera-train` wrote."""


@dataclass
class Forest:
    """Trees as padded node arrays: feature (-1 at a leaf), threshold, left, right, leaf class index."""

    feature: np.ndarray    # T x N int32
    threshold: np.ndarray  # T x N float32
    left: np.ndarray       # T x N int32
    right: np.ndarray      # T x N int32
    value: np.ndarray      # T x N x C float32 (class probabilities at each node)
    classes: list[str]

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Mean class probabilities over the trees for samples x (S x F); all trees descend at once."""
        x = np.atleast_2d(x)
        s, n_trees = len(x), len(self.feature)
        total = np.zeros((s, len(self.classes)), np.float32)
        if n_trees == 0 or s == 0:
            return total
        tree = np.arange(n_trees)[:, None]
        rows = np.arange(s)[None, :]
        node = np.zeros((n_trees, s), np.int32)
        for _ in range(64):  # depth bound: trees are trained with max_depth well below this
            f = self.feature[tree, node]
            inner = f >= 0
            if not inner.any():
                break
            go_left = x[rows, np.maximum(f, 0)] <= self.threshold[tree, node]
            node = np.where(inner, np.where(go_left, self.left[tree, node], self.right[tree, node]), node)
        for t in range(n_trees):  # summed tree by tree, in order: the same sums as one tree at a time
            total += self.value[t, node[t]]
        return total / n_trees

    def predict(self, x: np.ndarray) -> tuple[list[str], np.ndarray]:
        p = self.predict_proba(x)
        k = p.argmax(1)
        return [self.classes[i] for i in k], p[np.arange(len(k)), k]


def forest_from_sklearn(rf, classes: list[str], columns: tuple[int, ...] | None = None) -> Forest:
    """The fitted forest's trees as node arrays. `columns`: the forest was fitted on these columns of the full
    measure vector, in this order; its split features are mapped back to them, so it takes the full vector."""
    trees = [e.tree_ for e in rf.estimators_]
    n = max(t.node_count for t in trees)
    T, C = len(trees), len(classes)
    feature = np.full((T, n), -1, np.int32)
    threshold = np.zeros((T, n), np.float32)
    left = np.zeros((T, n), np.int32)
    right = np.zeros((T, n), np.int32)
    value = np.zeros((T, n, C), np.float32)
    for i, t in enumerate(trees):
        k = t.node_count
        leaf = t.children_left[:k] < 0
        feature[i, :k] = np.where(leaf, -1, t.feature[:k])
        threshold[i, :k] = t.threshold[:k]
        left[i, :k] = np.where(leaf, 0, t.children_left[:k])
        right[i, :k] = np.where(leaf, 0, t.children_right[:k])
        v = t.value[:k, 0, :]
        value[i, :k] = v / np.maximum(v.sum(1, keepdims=True), 1e-9)
    if columns is not None:
        cols = np.asarray(columns, np.int32)
        feature = np.where(feature >= 0, cols[np.maximum(feature, 0)], -1).astype(np.int32)
    return Forest(feature, threshold, left, right, value, list(classes))


def _save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An .npz (np.load reads it) whose bytes depend on the arrays alone: np.savez stamps each member with the
    time of writing, so two trainings giving the same arrays would still give different files."""
    import io
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asanyarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, buf.getvalue())


@dataclass
class MergeForest:
    """Whether two touching superpixels are one object (instances.py): a forest over instances.PAIR_FEATURE_NAMES."""

    forest: Forest

    def same_probability(self, x: np.ndarray) -> np.ndarray:
        if len(x) == 0:
            return np.zeros(0, np.float32)
        return self.forest.predict_proba(x)[:, self.forest.classes.index("1")]


@dataclass
class CameraModel:
    lut: np.ndarray                  # 2**(3*LUT_BITS) uint8 pixel classes
    forests: dict[str, Forest]
    hand_share: np.ndarray | None = None  # 2**(3*LUT_BITS) uint8: share of each colour's pixels that were hand
    context: ContextClassifier | None = None  # pixel classes from colour and neighbourhood (context.py)
    merge: MergeForest | None = None  # superpixels merged into instances (instances.py)
    # training regions per category (rows, the category forest's classes) and material (columns, the material
    # forest's): which materials each kind of object was seen made of (None: older files, any material)
    kinds: np.ndarray | None = None

    def material_of(self, category: int, material_votes: np.ndarray) -> int:
        """The material (index into the material forest's classes) a track of category `category` is named by: the
        most voted of those its category was seen made of in training (bread is food whatever its crust looks like);
        the most voted of all without that table, or where the category was never seen with any."""
        votes = np.asarray(material_votes, float)
        if self.kinds is not None and self.kinds.shape == (len(self.forests["category"].classes), len(votes)):
            seen = self.kinds[category] > 0
            if seen.any():
                return int(np.argmax(np.where(seen, votes, -np.inf)))
        return int(np.argmax(votes))

    def save(self, path: Path | str) -> Path:
        path = Path(path).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {"version": np.array(FORMAT_VERSION), "lut": self.lut,
                                         "features": np.array(ALL_FEATURE_NAMES)}
        for a, f in self.forests.items():
            for k in ("feature", "threshold", "left", "right", "value"):
                arrays[f"{a}.{k}"] = getattr(f, k)
            arrays[f"{a}.classes"] = np.array(f.classes)
        if self.hand_share is not None:
            arrays["hand_share"] = self.hand_share
        if self.context is not None:
            c = self.context
            arrays.update({"context.prob": c.prob, "context.weights": c.weights, "context.bias": c.bias,
                           "context.scales": np.array(c.scales, np.int32)})
        if self.merge is not None:
            f = self.merge.forest
            for k in ("feature", "threshold", "left", "right", "value"):
                arrays[f"merge.{k}"] = getattr(f, k)
            arrays["merge.classes"] = np.array(f.classes)
            arrays["merge.features"] = np.array(PAIR_FEATURE_NAMES)
        if self.kinds is not None:
            arrays["kinds"] = self.kinds
        tmp = path.with_suffix(".partial.npz")
        _save_npz(tmp, arrays)
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: Path | str) -> "CameraModel":
        path = Path(path).expanduser()
        if not path.exists():
            raise CameraModelError(f"camera model {path} not found; train it with `memora camera-train`")
        with np.load(path, allow_pickle=False) as z:
            if int(z["version"]) != FORMAT_VERSION or tuple(z["features"].tolist()) != ALL_FEATURE_NAMES:
                raise CameraModelError(f"camera model {path} was written for other features; retrain it")
            lut = z["lut"].astype(np.uint8)
            if lut.shape != (2 ** (3 * LUT_BITS),):
                raise CameraModelError(f"camera model {path}: pixel table of shape {lut.shape}")
            hand_share = z["hand_share"].astype(np.uint8) if "hand_share" in z.files else None  # older files: none
            if hand_share is not None and hand_share.shape != lut.shape:
                raise CameraModelError(f"camera model {path}: hand-share table of shape {hand_share.shape}")
            context = None
            if "context.prob" in z.files:  # older files: none
                scales = tuple(int(v) for v in z["context.scales"])
                context = ContextClassifier(prob=z["context.prob"].astype(np.float32),
                                            weights=z["context.weights"].astype(np.float32),
                                            bias=z["context.bias"].astype(np.float32), scales=scales)
                if (context.prob.shape != (len(lut), 4) or context.weights.shape != (n_features(scales), 4)
                        or context.bias.shape != (4,) or any(s < 1 or s > 255 for s in scales)):
                    raise CameraModelError(f"camera model {path}: context classifier of the wrong shape")
            forests = {a: Forest(*(z[f"{a}.{k}"] for k in ("feature", "threshold", "left", "right", "value")),
                                 classes=[str(c) for c in z[f"{a}.classes"]])
                       for a in ATTRIBUTES + OPTIONAL_ATTRIBUTES if a in ATTRIBUTES or f"{a}.feature" in z.files}
            for name in ("holding", "pouring"):  # when the hand holds something, tilted (holding.py); older: none
                if f"{name}.feature" in z.files:
                    forests[name] = Forest(*(z[f"{name}.{k}"] for k in ("feature", "threshold", "left", "right",
                                                                         "value")),
                                           classes=[str(c) for c in z[f"{name}.classes"]])
            merge = None
            if "merge.feature" in z.files:  # older files: none
                if tuple(z["merge.features"].tolist()) != PAIR_FEATURE_NAMES or \
                        sorted(str(c) for c in z["merge.classes"]) != ["0", "1"]:
                    raise CameraModelError(f"camera model {path}: merge classifier for other features; retrain it")
                merge = MergeForest(Forest(*(z[f"merge.{k}"] for k in ("feature", "threshold", "left", "right", "value")),
                                           classes=[str(c) for c in z["merge.classes"]]))
            kinds = z["kinds"].astype(np.int64) if "kinds" in z.files else None  # older files: none
            if kinds is not None and kinds.shape != (len(forests["category"].classes),
                                                     len(forests["material"].classes)):
                raise CameraModelError(f"camera model {path}: category-material table of shape {kinds.shape}")
        return cls(lut=lut, forests=forests, hand_share=hand_share, context=context, merge=merge, kinds=kinds)
