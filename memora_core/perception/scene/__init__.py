"""Scene model from the head RGB-D camera: depth segmentation over the table plane gives each object's 3D
pose and size; colour, shape and size match them to the known entities. Pure numpy/OpenCV (no simulator)."""
from memora_core.perception.scene.types import (CameraIntrinsics, EntityDescription, PerceivedObject, RGBDFrame,
                                                 SceneModel, Shape)
from memora_core.perception.scene.model import SceneModeller

__all__ = ["CameraIntrinsics", "EntityDescription", "PerceivedObject", "RGBDFrame", "SceneModel", "SceneModeller",
           "Shape"]
