"""An action's nouns (camera/backend.py `_action`): a thing is not put into, poured into or set next to something of
its own name; that is the object seen twice (two tracks of one object), so the target is dropped (a put lands on the
surface)."""
from __future__ import annotations

from types import SimpleNamespace

from memora_core.perception.base import PerceptionConfig
from memora_core.perception.camera.backend import CameraPerception
from memora_core.perception.camera.tracks import Event


def backend_naming(names: list[str]) -> tuple[CameraPerception, SimpleNamespace]:
    b = CameraPerception(PerceptionConfig(backend="camera"), model=object())
    b.track_name = lambda tr, tracker=None: tr.name
    return b, SimpleNamespace(tracks=[SimpleNamespace(name=n) for n in names])


def test_a_put_into_the_objects_own_double_lands_on_the_surface():
    b, tracker = backend_naming(["yellow bowl", "yellow bowl", "orange cup"])
    put = b._action(Event("put", 0, 5.0, 4.0, 5.0, target=1), tracker)
    assert put.nouns == ["yellow bowl", b.cfg.surface_name]
    beside = b._action(Event("put", 0, 5.0, 4.0, 5.0, beside=1), tracker)
    assert beside.nouns == ["yellow bowl", b.cfg.surface_name]
    pour = b._action(Event("pour", 0, 5.0, 4.0, 6.0, target=1), tracker)
    assert pour.nouns == ["yellow bowl"]


def test_a_put_into_another_object_keeps_it():
    b, tracker = backend_naming(["yellow bowl", "yellow bowl", "orange cup"])
    assert b._action(Event("pour", 0, 5.0, 4.0, 6.0, target=2), tracker).nouns == ["yellow bowl", "orange cup"]
