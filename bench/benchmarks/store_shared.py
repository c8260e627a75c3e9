"""Shared memory through a Chroma server: one writer process and several reader processes at once.

The parent starts `chroma run` on a free localhost port, then a writer process that loads `items`
items through MemoryStore (store.vectors.backend = chroma_http), flushes them, drops a ready file and
goes on writing `write_items` more, and `readers` reader processes (read-only MemoryStore on the same
SQLite file and server) that wait for the ready file and query for `seconds`. Each process is this
file run as a script (`writer` / `reader`), so they are truly separate processes.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from store_build import Build, build_store, open_store  # noqa: E402
from store_data import MAIN, Layout  # noqa: E402
from store_queries import KINDS, TOOL_K, percentile, query_text, summarise, where_for  # noqa: E402

from memora_core.store import MemoryStore  # noqa: E402


@dataclass
class SharedSpec:
    items: int = 20_000
    write_items: int = 5_000
    readers: int = 3
    seconds: float = 20.0
    vectors: str = "hashing"
    participants: int = 100
    main_share: float = 0.5
    flush_every: int = 256
    seed: int = 0


class ServerFailed(RuntimeError):
    """The Chroma server did not come up (or a benchmark process failed)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chroma_executable() -> str:
    beside = Path(sys.executable).parent / "chroma"
    found = str(beside) if beside.exists() else shutil.which("chroma")
    if not found:
        raise ServerFailed("no `chroma` executable next to this Python or on PATH (pip package chromadb)")
    return found


def start_server(path: Path, port: int, log: Path, timeout_s: float = 60.0) -> subprocess.Popen:
    import chromadb
    from chromadb.config import Settings

    path.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([chroma_executable(), "run", "--path", str(path), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerFailed(f"chroma run exited with {proc.returncode}; see {log}")
        try:
            chromadb.HttpClient(host="127.0.0.1", port=port, settings=Settings(anonymized_telemetry=False)).heartbeat()
            return proc
        except Exception:  # not listening yet
            time.sleep(0.2)
    proc.terminate()
    raise ServerFailed(f"chroma run did not answer on port {port} within {timeout_s:.0f} s; see {log}")


def _spec_args(spec: SharedSpec) -> list[str]:
    return ["--spec", json.dumps(asdict(spec))]


def run_writer(root: Path, port: int, spec: SharedSpec, ready: Path, out: Path) -> None:
    layout = Layout(items=spec.items + spec.write_items, participants=spec.participants,
                    main_share=spec.main_share, seed=spec.seed)
    at_ready: list[float] = []
    indexed: dict[str, int] = {}

    def mark(store: MemoryStore, so_far: Build) -> None:
        at_ready.append(time.perf_counter())
        assert store.vectors is not None
        indexed.update(total=store.vectors.count("activities") + store.vectors.count("entities"),
                       main_activities=store.vectors.count("activities", MAIN))
        ready.write_text("ready")

    build = build_store(root, layout, spec.vectors, spec.flush_every, port=port, progress=False,
                        checkpoints={spec.items: mark})
    concurrent_s = time.perf_counter() - at_ready[0] if at_ready else 0.0
    out.write_text(json.dumps({"written": build.written, "items": build.items, "build_s": build.build_s,
                               "concurrent_s": concurrent_s, "indexed_at_ready": indexed}))


def run_reader(root: Path, port: int, spec: SharedSpec, ready: Path, out: Path, index: int) -> None:
    while not ready.exists():
        time.sleep(0.05)
    store = open_store(root, spec.vectors, spec.flush_every, port=port, readonly=True)
    rng = random.Random(spec.seed * 1000 + index)
    segments = store.next_seq(MAIN)
    samples: list[float] = []
    by_kind: dict[str, list[float]] = {kind: [] for kind in KINDS}
    errors: dict[str, int] = {}
    hits = 0
    deadline = time.perf_counter() + spec.seconds
    while time.perf_counter() < deadline:
        kind = KINDS[len(samples) % len(KINDS)]
        t = time.perf_counter()
        try:
            res = store.semantic_search("activities", query_text(rng), participant_id=MAIN, k=TOOL_K,
                                        where=where_for(kind, MAIN, segments, rng))
            hits += len(res)
        except Exception as exc:  # counted by type and reported; a reader must not stop the benchmark
            errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
            continue
        samples.append((time.perf_counter() - t) * 1000)
        by_kind[kind].append(samples[-1])
    store.close()
    out.write_text(json.dumps({"samples_ms": samples, "by_kind_ms": by_kind, "errors": errors, "hits": hits}))


def run_shared(work: Path, spec: SharedSpec) -> dict[str, Any]:
    """Run server, writer and readers; return throughput, latency and the indexed counts."""
    import chromadb
    from chromadb.config import Settings

    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = start_server(work / "chroma", port, work / "chroma.log")
    procs: list[subprocess.Popen] = []
    try:
        ready, root = work / "ready", work / "mem"
        me = [sys.executable, str(Path(__file__).resolve())]
        common = ["--root", str(root), "--port", str(port), "--ready", str(ready), *_spec_args(spec)]
        writer_out = work / "writer.json"
        procs.append(subprocess.Popen([*me, "writer", *common, "--out", str(writer_out)]))
        reader_outs = [work / f"reader{i}.json" for i in range(spec.readers)]
        procs += [subprocess.Popen([*me, "reader", *common, "--out", str(o), "--index", str(i)])
                  for i, o in enumerate(reader_outs)]
        failed = [p.args[2] for p in procs if p.wait() != 0]
        if failed:
            raise ServerFailed(f"benchmark processes failed: {failed}")
        client = chromadb.HttpClient(host="127.0.0.1", port=port, settings=Settings(anonymized_telemetry=False))
        indexed_end = sum(c.count() for c in client.list_collections() if c.name.startswith("memora_"))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    writer = json.loads(writer_out.read_text())
    readers = [json.loads(o.read_text()) for o in reader_outs]
    all_ms = [x for r in readers for x in r["samples_ms"]]
    errors: dict[str, int] = {}
    for r in readers:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v
    written_after = writer["items"] - spec.items
    during = writer["concurrent_s"]
    return {"readers": spec.readers, "seconds": spec.seconds, "vectors": spec.vectors,
            "indexed_start": writer["indexed_at_ready"]["total"], "indexed_end": indexed_end,
            "indexed_main_activities_start": writer["indexed_at_ready"]["main_activities"],
            "inserted": writer["items"],
            "writer": {"items": written_after, "concurrent_s": round(during, 2),
                       "items_per_s": round(written_after / during, 1) if during else 0.0},
            "queries": len(all_ms), "qps": round(len(all_ms) / spec.seconds, 1), "errors": errors,
            "p50_ms": round(percentile(all_ms, 0.5), 2) if all_ms else None,
            "p95_ms": round(percentile(all_ms, 0.95), 2) if all_ms else None,
            "per_kind": {kind: summarise(ms) for kind in KINDS
                         if (ms := [x for r in readers for x in r["by_kind_ms"][kind]])},
            "per_reader": [summarise(r["samples_ms"]) if r["samples_ms"] else {"n": 0} for r in readers]}


def main() -> int:
    ap = argparse.ArgumentParser(description="one process of the shared-store benchmark")
    ap.add_argument("role", choices=["writer", "reader"])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ready", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--index", type=int, default=0)
    args = ap.parse_args()
    spec = SharedSpec(**json.loads(args.spec))
    if args.role == "writer":
        run_writer(args.root, args.port, spec, args.ready, args.out)
    else:
        run_reader(args.root, args.port, spec, args.ready, args.out, args.index)
    return 0


if __name__ == "__main__":
    sys.exit(main())
