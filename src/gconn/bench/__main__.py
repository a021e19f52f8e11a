"""``python -m gconn.bench [options]``: the same as ``gconn bench``."""
import argparse
import sys

from gconn.bench.harness import add_arguments, run_from_args


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gconn.bench", description="gconn's benchmark harness")
    add_arguments(parser)
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.gpu is not None:
        from gconn.bench.gpu import main as gpu_main     # CuPy's: loaded only here
        return gpu_main(args.gpu)
    return run_from_args(args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
