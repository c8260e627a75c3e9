"""`python -m memora_core.report RUN_DIR`: (re)write RUN_DIR/report.html from what a demo run left
(summary.json, plans.json, memory/, demos/, execution/). Bad input: one line on stderr, exit 2."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import ValidationError

from memora_core.report import write_demo_report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m memora_core.report", description=__doc__)
    ap.add_argument("run_dir", type=Path)
    args = ap.parse_args(argv)
    path = args.run_dir / "summary.json"
    try:
        summary = json.loads(path.read_text())
    except FileNotFoundError:
        print(f"{path}: no summary.json (run `make demo` first)", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"{path}:{exc.lineno}: not JSON ({exc.msg})", file=sys.stderr)
        return 2
    try:
        print(write_demo_report(args.run_dir, summary))
    except ValidationError as exc:  # plans.json: each entry's plan must be a Plan
        err = exc.errors()[0]
        print(f"{args.run_dir / 'plans.json'}:{'.'.join(map(str, err['loc']))}: {err['msg']}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
