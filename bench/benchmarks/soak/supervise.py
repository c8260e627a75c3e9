#!/usr/bin/env python
"""Run resolved process specs under memora_core's Supervisor in a process of its own (the supervisor
owns its main thread's signal handlers; the soak stops it with SIGINT like a user would).

    supervise.py SPECS.json --log-dir DIR [--report REPORT.json]

SPECS.json: {"specs": [ProcessSpec, ...], "supervisor": SupervisorConfig}.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from memora_core.runtime.config import SupervisorConfig  # noqa: E402
from memora_core.runtime.graph import ProcessSpec  # noqa: E402
from memora_core.runtime.supervisor import Supervisor  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", type=Path)
    ap.add_argument("--log-dir", type=Path, required=True)
    ap.add_argument("--report", type=Path, default=None)
    args = ap.parse_args(argv)
    data = json.loads(args.specs.read_text())
    specs = [ProcessSpec.model_validate(s) for s in data["specs"]]
    config = SupervisorConfig.model_validate(data.get("supervisor", {}))
    report = Supervisor(specs, config, log_dir=args.log_dir).run()
    if args.report:
        args.report.write_text(report.model_dump_json(indent=1))
    return report.exit_code


if __name__ == "__main__":
    sys.exit(main())
