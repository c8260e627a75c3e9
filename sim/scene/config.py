"""Typed scene description (robot_configs/scenes/*.yaml): the only place object facts live."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memora_core.config import CONFIG_DIR, load_yaml

Vec2 = tuple[float, float]
Vec3 = tuple[float, float, float]
RGBA = tuple[float, float, float, float]


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableSpec(_Cfg):
    center: Vec2
    size: Vec2
    height: float = Field(gt=0)
    rgba: RGBA = (0.7, 0.6, 0.4, 1.0)


class LayoutSpec(_Cfg):
    x_range: Vec2
    y_range: Vec2
    min_spacing: float = Field(gt=0)
    min_gap: float = Field(default=0.015, ge=0)  # free gap between two footprints (edge to edge)
    max_tries: int = Field(default=400, ge=1)
    # Table spots no object may cover (x, y, radius), e.g. where a person takes a handed-over object.
    keep_clear: list[Vec3] = Field(default_factory=list)


class ObjectSpec(_Cfg):
    name: str
    category: str
    colour: str
    material: str
    label: str | None = None
    shape: Literal["cylinder", "box", "cup", "bowl"]
    size: tuple[float, ...]  # cylinder/cup/bowl: (radius, half-height); box: (hx, hy, hz)
    rgba: RGBA
    mass: float = Field(gt=0)
    container: bool = False
    role: Literal["target", "distractor"] = "target"
    aliases: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _size_matches_shape(self) -> "ObjectSpec":
        want = 3 if self.shape == "box" else 2
        if len(self.size) != want:
            raise ValueError(f"{self.name}: shape {self.shape} needs {want} size values, got {len(self.size)}")
        return self

    @property
    def body_name(self) -> str:
        return "obj_" + "_".join(self.name.replace("-", "_").split())

    @property
    def half_height(self) -> float:
        return self.size[2] if self.shape == "box" else self.size[1]

    @property
    def footprint_radius(self) -> float:
        return max(self.size[0], self.size[1]) if self.shape == "box" else self.size[0]


class SceneConfig(_Cfg):
    name: str
    table: TableSpec
    layout: LayoutSpec
    regions: dict[str, Vec3] = Field(default_factory=dict)
    objects: list[ObjectSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "SceneConfig":
        names = [o.name for o in self.objects]
        if len(set(names)) != len(names):
            raise ValueError("object names in a scene must be unique")
        return self

    def object(self, name: str) -> ObjectSpec:
        for obj in self.objects:
            if obj.name == name:
                return obj
        raise KeyError(name)


def load_scene_config(path: Path | str | None = None) -> SceneConfig:
    path = Path(path) if path else CONFIG_DIR / "scenes" / "kitchen.yaml"
    return SceneConfig.model_validate(load_yaml(path))
