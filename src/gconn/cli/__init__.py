"""The ``gconn`` command (docs/cli.rst): cc.py ``cc`` and ``forest``, stream.py ``stream``, tools.py the others.
Results go to stdout, progress bars to stderr; bad input ends with one ``gconn: error: ...`` line
and a non-zero exit status (``--debug``: the traceback)."""
from __future__ import annotations

import argparse
import os
import sys
import warnings

from gconn.cli import common as C
from gconn.cli.stream import stream_ops  # noqa: F401 -- the replay `gconn stream` runs, for tests

def build_parser() -> argparse.ArgumentParser:
    """The ``gconn`` argument parser (for ``--help`` and the docs)."""
    from gconn import __version__
    from gconn.cli import cc, stream, tools
    common = C.common_options(top=False)
    parser = argparse.ArgumentParser(
        prog="gconn", parents=[C.common_options(top=True)],
        description="Graph connectivity on GPUs and CPUs: the GConn design space.",
        epilog="Start with 'gconn demo'. 'gconn COMMAND -h' describes each command.")
    parser.add_argument("--version", action="version", version=f"gconn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name, func, help_text, parents=()):
        p = sub.add_parser(name, parents=[common, *parents], help=help_text, description=help_text)
        p.set_defaults(func=func, command_parser=p)
        return p

    cc.add_parser(add)
    cc.add_forest_parser(add)
    stream.add_parser(add)
    tools.add_parsers(add)
    return parser


def _one_line(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        text = f"{error.filename}: {error.strerror}"
    elif isinstance(error, MemoryError):
        text = f"out of memory{': ' + str(error) if str(error) else ''}; try a smaller graph"
    else:
        # the first line says what is wrong; some messages append a listing (e.g. of generator specs)
        text = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return " ".join(text.split())


def main(argv=None) -> int:
    """Run ``gconn`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    from gconn.errors import ConvergenceError, GPUUnavailableError, InputNote
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help, --version (0) and usage errors (2)
        return e.code if isinstance(e.code, int) else 2
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "bench":
        args.bench_argv = argv[argv.index("bench") + 1:]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InputNote)     # the commands print the notes themselves
            return args.func(args, args.command_parser)
    except BrokenPipeError:
        # The reader went away (`gconn variants | head`): stop quietly, and
        # keep Python's exit-time flush from raising again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except SystemExit as e:  # parser.error() inside a command
        return e.code if isinstance(e.code, int) else 2
    except (KeyboardInterrupt, Exception) as e:  # noqa: BLE001 -- a bug too is one line unless --debug
        if args.debug:
            raise
        if isinstance(e, KeyboardInterrupt):
            print("gconn: interrupted", file=sys.stderr)
            return 130
        if isinstance(e, (ValueError, TypeError, OSError, MemoryError, GPUUnavailableError,
                          ConvergenceError)):
            print(f"gconn: error: {_one_line(e)}", file=sys.stderr)
        else:
            print(f"gconn: internal error: {type(e).__name__}: {_one_line(e)} (rerun with --debug for the "
                  "traceback, and please report it)", file=sys.stderr)
        return 1
