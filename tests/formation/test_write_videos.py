"""`memora write --video A B ...`: several videos of one person written in the order given by one perception backend
(as the memory writer node watches them), one summary line each; checked before anything is written."""
from __future__ import annotations

import json

from memora_core.cli.main import main
from memora_core.errors import ExitCode
from tests.formation.blank_perception import BlankPerception
from tests.formation.conftest import make_video

BASE = ["--vectors", "none", "--embedding", "hashing", "--quiet"]


def _pcfg(tmp_path):
    pcfg = tmp_path / "perception.yaml"
    pcfg.write_text("backend: blank\nplugins: {blank: tests.formation.blank_perception}\n")
    return pcfg


def test_videos_are_written_in_order_by_one_backend(capsys, tmp_path):
    first = make_video(tmp_path / "monday.mp4", seconds=12.0)
    second = make_video(tmp_path / "tuesday.mp4", seconds=6.0)
    store = tmp_path / "store"
    before = len(BlankPerception.made)
    code = main(["write", "--participant", "P99", "--video", str(first), str(second), "--store", str(store),
                 "--perception-config", str(_pcfg(tmp_path)), "--json", *BASE])
    assert code == ExitCode.OK, capsys.readouterr().err
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert [x["processed"] for x in lines] == [2, 1]  # 10-s segments: 12 s -> 2, 6 s -> 1
    made = BlankPerception.made[before:]
    assert len(made) == 1 and made[0].videos == ["monday", "tuesday"]
    # written again: everything is already there, nothing is processed twice
    assert main(["write", "--participant", "P99", "--video", str(first), str(second), "--store", str(store),
                 "--perception-config", str(_pcfg(tmp_path)), "--json", *BASE]) == ExitCode.OK
    again = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert [x["processed"] for x in again] == [0, 0] and [x["skipped"] for x in again] == [2, 1]


def test_one_bad_video_refuses_them_all_before_the_store_is_touched(capsys, tmp_path):
    good = make_video(tmp_path / "good.mp4", seconds=6.0)
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video" * 100)
    store = tmp_path / "store"
    code = main(["write", "--participant", "P99", "--video", str(good), str(bad), "--store", str(store),
                 "--perception-config", str(_pcfg(tmp_path)), *BASE])
    err = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT and "bad.mp4" in err and len(err.strip().splitlines()) == 1
    assert not store.exists()


def test_video_id_names_one_video_only(capsys, tmp_path):
    a, b = make_video(tmp_path / "a.mp4", seconds=3.0), make_video(tmp_path / "b.mp4", seconds=3.0)
    code = main(["write", "--participant", "P99", "--video", str(a), str(b), "--video-id", "x", "--store",
                 str(tmp_path / "store"), "--perception-config", str(_pcfg(tmp_path)), *BASE])
    assert code == ExitCode.BAD_INPUT and "--video-id" in capsys.readouterr().err
    assert not (tmp_path / "store").exists()
