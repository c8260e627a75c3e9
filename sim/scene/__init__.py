"""The kitchen scene: typed config, generated label textures, seeded layouts, the MjSpec builder."""
from sim.scene.config import ObjectSpec, SceneConfig, load_scene_config
from sim.scene.layout import Layout, sample_layout

__all__ = ["Layout", "ObjectSpec", "SceneConfig", "load_scene_config", "sample_layout"]
