"""The scene model as the controller's objects: each perceived object that matched a known one becomes that
object's `SceneObject` (identity and size from the catalogue, position from the camera). This is the object
source a backend without ground truth plans from (UnitreeG1Robot's `objects`)."""
from __future__ import annotations

from memora_core.perception.scene.model import entity_from_object
from memora_core.perception.scene.types import EntityDescription, SceneModel
from memora_core.robot.robot import SceneObject


def entities(catalogue: list[SceneObject]) -> list[EntityDescription]:
    """What the scene model looks for: the catalogue's objects' category, colour, shape and size."""
    return [entity_from_object(o.name, o.category, o.colour, o.half_height, o.radius, o.extent, o.container,
                               o.label) for o in catalogue]


def perceived_objects(scene: SceneModel, catalogue: list[SceneObject]) -> list[SceneObject]:
    """Catalogue objects the camera sees, at the perceived position; objects not seen are left out, and
    perceived objects that matched nothing known are not the controller's to handle."""
    return [o for o, _, _ in perceived_sightings(scene, catalogue)]


def perceived_sightings(scene: SceneModel, catalogue: list[SceneObject]) -> list[tuple[SceneObject, float, bool]]:
    """`perceived_objects` with how much of each the view explains (0..1, the matched blob's `explained`; a
    part seen gives the part's position) and whether only part of the blob was in view (cut by the image border or
    hidden behind something nearer)."""
    known = {o.name: o for o in catalogue}
    return [(known[p.name].model_copy(update={"position": tuple(float(v) for v in p.position),
                                               "yaw": _box_yaw(known[p.name], p.yaw)}),
             1.0 if p.explained is None else float(p.explained), p.partial)
            for p in scene.objects if p.name in known]


def _box_yaw(known: SceneObject, yaw: float | None) -> float | None:
    """The perceived turn of a known box's long side; None for a round object (it has no turn to speak of)."""
    return None if yaw is None or known.extent is None else float(yaw)
