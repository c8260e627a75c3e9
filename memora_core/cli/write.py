"""`memora write`: ingest a video or an EPIC narration CSV for one participant into a store (resumable)."""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from memora_core.config import load_config
from memora_core.errors import ExitCode

log = logging.getLogger(__name__)


def _limit_threads(n: int) -> None:
    """Embedding a few short documents per segment gains nothing from threads, and on a shared
    machine torch's default thread pool oversubscribes the cores (measured 5x slower)."""
    if n <= 0:
        return
    os.environ.setdefault("OMP_NUM_THREADS", str(n))
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(n)


def _write(args: argparse.Namespace) -> int:
    from memora_core.editing import MemoryWriter, load_editor_config, make_decider
    from memora_core.ingest.narration import group_narrations, load_narrations, load_video_durations
    from memora_core.ingest.video import probe_video
    from memora_core.perception import load_perception_config, make_perception
    from memora_core.store import MemoryStore

    if bool(args.narrations) == bool(args.video):
        print("memora write: give exactly one of --narrations or --video", file=sys.stderr)
        return ExitCode.BAD_INPUT
    config = load_config(args.config)
    if args.embedding:
        config.store.embedding.backend = args.embedding
    if args.vectors:
        config.store.vectors.backend = args.vectors
    pcfg = load_perception_config(args.perception_config,
                                  backend=args.perception or ("narration" if args.narrations else None))
    if args.video and pcfg.backend == "narration":
        print("memora write: narration perception cannot watch a video; use --perception vlm (or sim)",
              file=sys.stderr)
        return ExitCode.BAD_INPUT
    if pcfg.data_dir is None:
        pcfg.data_dir = str(config.data_path())
    ecfg = load_editor_config(args.editor_config, decider=args.decider)
    # Every input is validated before the store is opened, so bad input never leaves a partial write.
    segments, durations = None, {}
    if args.narrations:
        info = config.data_path() / "epic100" / "EPIC_100_video_info.csv"
        durations = load_video_durations(info) if info.exists() else {}
        rows = load_narrations(args.narrations, args.participant, durations=durations)
        if not rows:
            print(f"memora write: no rows for participant {args.participant} in {args.narrations}", file=sys.stderr)
            return ExitCode.BAD_INPUT
        segments = group_narrations(rows, config.segmenting, durations)
    else:
        if args.video_id and len(args.video) > 1:
            print("memora write: --video-id names one video; give it with one --video only", file=sys.stderr)
            return ExitCode.BAD_INPUT
        for video in args.video:  # every video is checked before anything is written
            probe_video(video)
    _limit_threads(args.threads)
    store = MemoryStore.open_writer(args.store, config)  # the one writer: StoreLockedError if another runs
    _limit_threads(args.threads)  # again, in case opening the store imported torch just now
    try:
        writer = MemoryWriter(store, make_perception(pcfg), make_decider(ecfg), config=ecfg)
        if segments is not None:
            summaries = [writer.write_narrations(segments, progress=not args.quiet, durations=durations)]
        else:
            transcriber = None
            if args.transcribe:
                from memora_core.ingest.audio import WhisperTranscriber

                transcriber = WhisperTranscriber()
            # one writer, so one perception backend, watches the videos in the order given, as the memory writer
            # node does: what a backend learns of the kitchen in one video (the camera's products) serves the next
            summaries = [writer.write_video(video, args.participant, config.segmenting, video_id=args.video_id,
                                            transcriber=transcriber, progress=not args.quiet)
                         for video in args.video]
    finally:
        store.close()
    damaged = False
    for summary in summaries:
        out = summary.as_dict()
        print(json.dumps(out) if args.json else
              f"processed {out['processed']} segments, skipped {out['skipped']} already committed, "
              f"{out['wall_s']:.1f}s ({out['x_real_time']}x real time)")
        for where in out["damaged"]:
            print(f"memora write: {where}", file=sys.stderr)
        damaged |= bool(out["damaged"])
    return ExitCode.DAMAGED if damaged else ExitCode.OK


EXIT_CODES_HELP = (
    "exit codes: 0 written; 1 any other failure; 2 bad input, nothing written (usage, a CSV row - named "
    "file:line: column -, a video that cannot be decoded, a store path that is a file or not writable); "
    "3 a damaged video was written up to the damage; 4 the store is locked by another writer (its pid and "
    "host are named; readers - plan, ask, stats - need no lock)."
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("write", help="ingest a video or EPIC narration CSV into a memory store (resumable)",
                       description="Form memory from one participant's experience. Segments already in the "
                                   "store are skipped, so rerunning after a crash completes the same memory. "
                                   "One writer per store: the writer holds <store>/writer.lock until it exits.",
                       epilog=EXIT_CODES_HELP)
    p.add_argument("--participant", required=True, help="participant id, e.g. P06")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--narrations", type=Path, help="EPIC narration CSV")
    src.add_argument("--video", type=Path, nargs="+",
                     help="video file(s) (mp4/webm/mkv), written in the order given by one perception backend "
                          "(one summary line each)")
    p.add_argument("--video-id", help="video id, with one --video (default: the file name without suffix)")
    p.add_argument("--store", required=True, type=Path, help="store directory")
    p.add_argument("--perception", help="perception backend (default: narration for --narrations, else config)")
    p.add_argument("--decider", choices=["deterministic", "llm"], help="editor decider (default: editor.yaml)")
    p.add_argument("--perception-config", type=Path, help="perception YAML (default robot_configs/perception.yaml)")
    p.add_argument("--editor-config", type=Path, help="editor YAML (default robot_configs/editor.yaml)")
    p.add_argument("--embedding", choices=["minilm", "hashing"], help="override store.embedding.backend")
    p.add_argument("--vectors", choices=["chroma", "chroma_http", "none"], help="override store.vectors.backend")
    p.add_argument("--transcribe", action="store_true", help="add a faster-whisper transcript per segment")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads for embedding (default 1; 0 leaves torch's default)")
    p.add_argument("--json", action="store_true", help="print the run summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_write)
