"""Entry point of `memora`: discovers subcommands from the modules of this package.

A subcommand module defines `register(subparsers) -> None`, which adds a parser whose `func` default
takes the parsed args and returns an exit code. Adding a command therefore never edits this file.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys

import memora_core.cli as cli_pkg
from memora_core import __version__
from memora_core.errors import ExitCode, MemoraError

EXIT_OK, EXIT_ERROR, EXIT_USAGE = ExitCode.OK, ExitCode.ERROR, ExitCode.BAD_INPUT


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memora", description="memora: egocentric memory for a robot agent")
    parser.add_argument("--version", action="version", version=f"memora {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-v info, -vv debug)")
    parser.add_argument("--config", help="YAML config (default robot_configs/memora.yaml or $MEMORA_CONFIG)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(cli_pkg.__path__), key=lambda m: m.name):
        if info.name in ("main",) or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{cli_pkg.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or EXIT_OK)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except MemoraError as exc:  # typed failures: their class says the exit code
        return _fail(args, exc, exc.exit_code)
    except (FileNotFoundError, ValueError, PermissionError) as exc:
        return _fail(args, exc, EXIT_ERROR)
    except Exception as exc:  # anything else: still one line (the traceback with -v)
        return _fail(args, exc, EXIT_ERROR, kind=f"{type(exc).__name__}: ")


def _fail(args: argparse.Namespace, exc: BaseException, code: int, kind: str = "") -> int:
    """Report a failure as exactly one line on stderr (a traceback only when asked for with -v)."""
    if args.verbose:
        logging.getLogger("memora").error("%s failed", args.command, exc_info=exc)
    message = " ".join(str(exc).split()) or type(exc).__name__
    print(f"memora {args.command}: error: {kind}{message}", file=sys.stderr)
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
