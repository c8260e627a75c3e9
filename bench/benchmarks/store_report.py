"""The store benchmark's table: every latency next to the number of vectors indexed."""
from __future__ import annotations

from typing import Any


def _build_line(r: dict[str, Any]) -> str:
    b = r["build"]
    how = "reused build of" if b["reused"] else "built"
    return (f"{how} {b['items']:,} items ({b['written']['segments']:,} segments, "
            f"{b['written']['entity_observations']:,} entity observations) in {b['build_s']:.0f} s = "
            f"{b['items_per_s']:,.0f} items/s (of which index flushes {b['flush_s']:.0f} s, "
            f"flush every {b['flush_every']} segments)")


def print_report(results: dict[str, Any]) -> None:
    print(f"store benchmark - vectors: {results['vectors_note']}")
    m = results.get("machine")
    if m:
        print(f"machine: {m['cpus']} CPUs, 1-min load average {m['loadavg_1m_start']:.1f} at start, "
              f"{m.get('loadavg_1m_last', 0.0):.1f} at the last figure")
    head = f"{'collection':<11} {'participant':<11} {'filter':<13} {'k':>3} {'indexed (all)':>14} " \
           f"{'indexed (pid)':>14} {'p50 ms':>8} {'p95 ms':>8}"
    for r in results["sizes"]:
        ix, ins = r["indexed"], r["inserted"]
        print(f"\n== inserted {ins['total']:,} items (activities {ins['activities']:,}, entities "
              f"{ins['entities']:,}); indexed in Chroma: {ix['total']:,} (activities {ix['activities']:,}, "
              f"entities {ix['entities']:,})")
        print(_build_line(r))
        print(head)
        for q in r["vector_queries"]:
            print(f"{q['collection']:<11} {q['participant']:<11} {q['filter']:<13} {q['k']:>3} "
                  f"{q['indexed_collection']:>14,} {q['indexed_participant']:>14,} "
                  f"{q['p50_ms']:>8.2f} {q['p95_ms']:>8.2f}")
        s = r["sql_query"]
        print(f"sql: {s['query']}: p50 {s['p50_ms']:.2f} ms, p95 {s['p95_ms']:.2f} ms")
    sh = results.get("shared")
    if sh:
        print(f"\n== shared: Chroma server, 1 writer + {sh['readers']} reader processes; "
              f"indexed when readers start {sh['indexed_start']:,} (P000 activities "
              f"{sh['indexed_main_activities_start']:,}), at end {sh['indexed_end']:,} "
              f"(writer added {sh['writer']['items']:,} at {sh['writer']['items_per_s']:,.0f} items/s)")
        print(f"readers: {sh['queries']:,} queries in {sh['seconds']:.1f} s = {sh['qps']:,.1f} queries/s; "
              f"p50 {sh['p50_ms']:.2f} ms, p95 {sh['p95_ms']:.2f} ms "
              f"(activities of P000, k=15, the tool filters in turn)")
        for kind, q in sh.get("per_kind", {}).items():
            print(f"  {kind:<13} {q['n']:>6,} queries, p50 {q['p50_ms']:.2f} ms, p95 {q['p95_ms']:.2f} ms")
        for i, rd in enumerate(sh["per_reader"]):
            print(f"  reader {i}: {rd['n']:,} queries, p50 {rd['p50_ms']:.2f} ms, p95 {rd['p95_ms']:.2f} ms")
