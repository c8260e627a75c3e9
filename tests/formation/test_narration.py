"""Narration ingest and the narration perception backend on the real shared EPIC data."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from memora_core.config import SegmentingConfig, load_config
from memora_core.ingest.narration import (
    NounClasses,
    group_narrations,
    load_narrations,
    load_video_durations,
    readable_noun,
)
from memora_core.perception import PerceptionInput, load_perception_config, make_perception

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def epic(shared_data):
    return shared_data / "epic100"


@pytest.fixture(scope="module")
def p06(epic):
    return load_narrations(epic / "EPIC_100_extension_narrations_P06_P28.csv", "P06")


@pytest.fixture(scope="module")
def perception(shared_data):
    cfg = load_perception_config(backend="narration")
    cfg.data_dir = str(shared_data)
    return make_perception(cfg)


def test_load_rows(p06, epic):
    assert len(p06) == 1229  # the README's count for P06
    both = load_narrations(epic / "EPIC_100_extension_narrations_P06_P28.csv")
    assert len(both) == 1229 + 1515
    first = next(r for r in p06 if r.narration_id == "P06_101_0")
    assert first.narration == "open fridge" and first.verb == "open"
    assert first.start_s == pytest.approx(2.2) and first.stop_s == pytest.approx(3.95)
    assert first.all_nouns == ("fridge",) and first.all_noun_classes == (12,)


def test_noun_classes_normalise(epic):
    classes = NounClasses.load(epic / "EPIC_100_noun_classes_v2.csv")
    assert classes.key(3) == "cupboard"  # 'cabinet', 'door:cupboard' ... share this class
    assert classes.get(3).category == "storage"
    assert readable_noun("board:chopping") == "chopping board"
    assert readable_noun("liquid:washing:up") == "up washing liquid"


def test_grouping_matches_segment_grid(p06, epic):
    cfg = SegmentingConfig()
    durations = load_video_durations(epic / "EPIC_100_video_info.csv")
    segs = group_narrations(p06, cfg, durations)
    assert sum(len(s.rows) for s in segs) == len(p06)
    ids = [s.segment.segment_id for s in segs]
    assert len(ids) == len(set(ids))
    for s in segs:
        for r in s.rows:
            assert s.segment.start_s <= r.start_s < s.segment.end_s or r.start_s >= s.segment.start_s
        assert s.segment.index == int(s.segment.start_s // 10)
        assert s.segment.end_s <= durations[s.segment.video_id] + 1e-6
    last = [s for s in segs if s.segment.video_id == "P06_101"][-1]
    assert last.segment.end_s <= 1859.1


def test_perception_objects_actions(p06, epic, perception):
    segs = group_narrations(p06, SegmentingConfig(), load_video_durations(epic / "EPIC_100_video_info.csv"))
    observations = [perception.observe(PerceptionInput(segment=s.segment, narrations=s.rows)) for s in segs]
    n_actions = sum(len(o.actions) for o in observations)
    assert n_actions == len(p06)
    for o in observations:
        names = [x.name for x in o.objects]
        assert len(names) == len(set(names)), "each object once per segment"
        for x in o.objects:  # narrations say nothing about colours or materials: never invented
            assert x.colour is None and x.material is None and x.label is None
            assert x.category  # every EPIC noun has a class
    # 'put pot in cupboard' puts the pot in the cupboard
    placed = [(x.name, x.location) for o in observations for x in o.objects if x.location]
    assert placed and all(name != loc for name, loc in placed)
    assert ("pot", "cupboard") in placed
    # 'open fridge' leaves the fridge open
    opened = [x for o in observations for x in o.objects if x.name == "fridge" and x.state == "open"]
    assert opened
    total_objects = sum(len(o.objects) for o in observations)
    assert total_objects == 1075  # distinct nouns per 10 s segment: the reference's observation count


@pytest.mark.slow
def test_write_and_stats_cli_p06(tmp_path, epic, capsys):
    """`memora write` + `memora stats` on P06 with real MiniLM embeddings and the real Chroma index.

    Run in-process through the CLI entry point so MiniLM loads once for the test session.
    """
    from memora_core.cli.main import main

    store = tmp_path / "mem"
    csv_path = epic / "EPIC_100_extension_narrations_P06_P28.csv"
    assert main(["write", "--participant", "P06", "--narrations", str(csv_path), "--store", str(store),
                 "--json", "--quiet"]) == 0
    run = json.loads(capsys.readouterr().out)
    assert run["processed"] > 300 and run["skipped"] == 0
    s = subprocess.run([sys.executable, "-m", "memora_core.cli.main", "stats", "--store", str(store),
                        "--participant", "P06", "--json"], capture_output=True, text=True, timeout=60)
    assert s.returncode == 0, s.stderr
    st = json.loads(s.stdout)
    for key in ("compression_ratio", "decisions", "entities", "entity_observations", "activities", "segments"):
        assert key in st
    assert set(st["decisions"]) == {"add", "update", "delete", "noop"}
    assert st["activities"] == st["segments"] == run["processed"]
    assert st["entity_observations"] == sum(st["decisions"].values())
    # target: at least the one-entity-per-noun reference (10.6x), at most one entity per noun class merged
    assert st["compression_ratio"] >= 10.6
    assert st["entities"] + st["entities_deleted"] >= 79  # never fewer entities than EPIC noun classes
    assert st["decisions"]["add"] == st["entities"] + st["entities_deleted"]
    assert main(["stats", "--store", str(store)]) == 0
    text = capsys.readouterr().out
    assert "compression ratio" in text and "P06" in text
    # the vector index got every retained entity (MiniLM embeddings through Chroma)
    from memora_core.store import MemoryStore

    ms = MemoryStore.open(store, load_config())
    assert ms.vectors.embedder.name == "minilm"
    assert ms.vectors.count("entities") == st["entities"]
    hits = ms.semantic_search("entities", "cutting board", participant_id="P06", k=3)
    assert "chopping board" in [ms.entity(i).name for i, _ in hits]
    ms.close()
