"""The benchmark protocol: P06 is the development participant, P28 is test. No P28 item text (task query,
reference step, question stem, choice, ground truth) may appear in the repository's tracked files, so no
rule, threshold, word list or test can have been written from it.

A P28 string counts when it has at least MIN_WORDS words and MIN_CHARS characters once normalised (lower
case, runs of letters and digits joined by single spaces): shorter ones ("turn on tap") are generic kitchen
phrases. Strings that are also P06 item text are development material and are not flagged.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MIN_WORDS, MIN_CHARS = 4, 20
MAX_FILE_BYTES = 2_000_000
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def item_texts(data: Path, pid: str) -> set[str]:
    """Normalised task/question texts of one participant's MEMORA-Bench items."""
    out: list[str] = []
    plan = json.loads((data / "memora_bench" / f"planning_{pid}.json").read_text())
    for task in plan.get("replay", []) + plan.get("generalize", []):
        out.append(task.get("task_query", ""))
        out += [s for s in task.get("ground_truth_steps", []) if isinstance(s, str)]
    qa = json.loads((data / "memora_bench" / f"eam_qa_{pid}.json").read_text())
    for q in qa["questions"]:
        out += [q.get("q", ""), str(q.get("gt", "")), *q.get("choices", [])]
    return {" ".join(words(t)) for t in out}


def guarded(test: set[str], dev: set[str]) -> set[str]:
    return {t for t in test - dev if len(t.split()) >= MIN_WORDS and len(t) >= MIN_CHARS}


def occurrences(phrases: set[str], texts: dict[str, str]) -> list[tuple[str, str]]:
    """(file, phrase) for each guarded phrase found in a file's normalised words (indexed by first 3 words)."""
    by_head: dict[tuple[str, ...], list[list[str]]] = {}
    for p in phrases:
        w = p.split()
        by_head.setdefault(tuple(w[:3]), []).append(w)
    found = []
    for name, text in texts.items():
        ws = words(text)
        for i in range(len(ws) - 2):
            for cand in by_head.get((ws[i], ws[i + 1], ws[i + 2]), ()):
                if ws[i:i + len(cand)] == cand:
                    found.append((name, " ".join(cand)))
    return sorted(set(found))


def tracked_texts() -> dict[str, str]:
    listing = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    out = {}
    for name in filter(None, listing.decode().split("\0")):
        path = REPO / name
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            continue
        try:
            out[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # binary: no item text to look for
            continue
    return out


def test_the_scan_finds_a_test_string_and_ignores_short_or_development_ones():
    test = {"help px peel the parsnip", "turn on tap", "polish the kettle lid with a cloth"}
    dev = {"polish the kettle lid with a cloth"}
    phrases = guarded(test, dev)
    assert phrases == {"help px peel the parsnip"}
    texts = {"a.py": "# e.g. 'Help PX peel\n#  the parsnip.'", "b.py": "turn on tap; polish the kettle lid with a cloth"}
    assert occurrences(phrases, texts) == [("a.py", "help px peel the parsnip")]


def test_no_p28_item_text_in_tracked_files(shared_data):
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: no tracked files to scan")
    phrases = guarded(item_texts(shared_data, "p28"), item_texts(shared_data, "p06"))
    assert len(phrases) > 100  # the guard is real: most P28 item text is long enough to be checked
    hits = occurrences(phrases, tracked_texts())
    assert not hits, "P28 (test) item text in the repository:\n" + "\n".join(f"{f}: {p!r}" for f, p in hits)
