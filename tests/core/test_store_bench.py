"""The store benchmark at a few hundred items: what it reports as indexed is what it inserted, and the
shared setup (a real `chroma run` server, 1 writer + 2 reader processes) runs and loses nothing."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "benchmarks"
sys.path.insert(0, str(BENCH))

from store_shared import SharedSpec, run_shared  # noqa: E402


def run_bench(*args: str) -> dict:
    out = subprocess.run([sys.executable, str(BENCH / "store_bench.py"), "--json", "--no-progress", *args],
                         capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_reported_indexed_counts_are_what_was_inserted():
    res = run_bench("--sizes", "150", "400", "--participants", "5", "--repeats", "5", "--vectors", "random")
    assert "bypassed" in res["vectors_note"]
    assert [r["size"] for r in res["sizes"]][-1] == 400
    assert len(res["sizes"]) == 2
    for r in res["sizes"]:
        written = r["build"]["written"]
        # what Chroma holds, per collection, equals what the benchmark wrote through the store
        assert r["indexed"]["activities"] == r["inserted"]["activities"] == sum(written["activities"].values())
        assert r["indexed"]["entities"] == r["inserted"]["entities"] == sum(written["entities"].values())
        assert r["indexed"]["total"] == r["size"] == r["build"]["items"]
        assert r["inserted"]["entities"] > 0 and r["inserted"]["activities"] > r["inserted"]["entities"]
        for q in r["vector_queries"]:
            # every latency row names the collection's and the participant's indexed vectors
            assert q["indexed_collection"] == r["indexed"][q["collection"]]
            assert q["indexed_participant"] == written[q["collection"]].get(q["participant"], 0)
            assert q["n"] == 5 and 0 < q["p50_ms"] <= q["p95_ms"]
    assert {q["filter"] for q in res["sizes"][-1]["vector_queries"]} == {"participant", "video+window", "span"}
    assert res["sizes"][0]["size"] in (150, 151)  # measured on the way to 400 (a segment may add 2 items)


def test_bad_arguments_are_one_line_and_nonzero():
    out = subprocess.run([sys.executable, str(BENCH / "store_bench.py"), "--sizes", "1"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1


@pytest.mark.timeout(240)
def test_shared_chroma_server_one_writer_two_readers(tmp_path):
    spec = SharedSpec(items=200, write_items=150, readers=2, seconds=2.0, vectors="hashing", participants=4,
                      flush_every=8)
    res = run_shared(tmp_path, spec)
    assert res["errors"] == {}
    assert res["inserted"] == 350 and res["indexed_end"] == 350  # nothing the writer wrote is missing
    assert 200 <= res["indexed_start"] <= 201 and res["indexed_main_activities_start"] > 0  # asked of the server
    assert set(res["per_kind"]) == {"participant", "video+window", "span"}
    assert res["writer"]["items"] == 150
    assert len(res["per_reader"]) == 2 and all(r["n"] > 0 for r in res["per_reader"])
    assert res["queries"] == sum(r["n"] for r in res["per_reader"]) and res["p95_ms"] >= res["p50_ms"] > 0
