"""What the subcommands share: the input options and their reading (every
guess made reading a file is a ``gconn: note:`` line on stderr), the
variant options, timing and printing."""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from gconn.bench.harness import (busy, generate, human_size, non_negative_int, positive_int, progress,
                                  progress_enabled, resolve_backend, time_calls)
from gconn.graph import Graph

#: The built-in example graph of ``gconn demo`` and ``--example``.
EXAMPLE_SPEC = "rmat:scale=18,ef=16"


def common_options(top: bool) -> argparse.ArgumentParser:
    # Accepted before and after the command; after it, SUPPRESS keeps the
    # subcommand's default from overwriting a value given before it.
    default = False if top else argparse.SUPPRESS
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-q", "--quiet", action="store_true", default=default, help="no progress bars")
    p.add_argument("--debug", action="store_true", default=default,
                   help="show tracebacks instead of one-line errors")
    return p


def input_options() -> argparse.ArgumentParser:
    """The input options of every subcommand that reads a graph."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("input (one of FILE, --generate, --example)")
    g.add_argument("file", nargs="?", metavar="FILE",
                   help="a graph file: .mtx, .el/.txt/.csv/.tsv/.edges, .graph (METIS), .gr/.col (DIMACS), .npy, .npz, "
                        ".gcb, .parquet, .feather, text maybe compressed (.gz .bz2 .xz); '-': standard input, its format "
                        "read from its content")
    g.add_argument("--generate", metavar="SPEC", help="a generated graph, e.g. rmat:scale=16 or grid:1024")
    g.add_argument("--example", action="store_true", help=f"the built-in example graph ({EXAMPLE_SPEC})")
    f = p.add_argument_group("reading FILE")
    f.add_argument("--format", choices=("mtx", "edgelist", "metis", "dimacs", "npy", "npz", "gcb", "parquet",
                                        "feather"),
                   help="the file's format, where its name does not say it (checked against the content)")
    f.add_argument("--n", type=non_negative(int, "a vertex count (an integer >= 0)"), metavar="N",
                   help="the vertex count: ids below N, any past the largest id (or declared size) isolated")
    f.add_argument("--relabel", action=argparse.BooleanOptionalAction, default=None,
                   help="number only the vertex ids that occur (--no-relabel: ids as they are); default: "
                        "only when the ids are sparse and the file declares no vertex count")
    f.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether an edge list's first line names its columns; default: only where it cannot "
                        "be data (words above integer ids), else a reported guess")
    f.add_argument("--names", action=argparse.BooleanOptionalAction, default=None,
                   help="whether an edge list's ids are names; default: if the first data line holds a word")
    f.add_argument("--source", metavar="COLUMN",
                   help="the source column of an edge list or Parquet table (default: the first column)")
    f.add_argument("--target", metavar="COLUMN", help="the target column, as --source (default: the second)")
    return p


def algorithm_options(problem: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-a", "--algorithm", default="auto", metavar="VARIANT",
                   help=f"a variant name (see 'gconn variants --problem {problem}') or auto (default)")
    p.add_argument("-b", "--backend", default="auto", choices=("auto", "cpu", "gpu"),
                   help="auto (default): a CUDA GPU if one is found, else (and for text edge lists) the CPU")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    if problem == "incremental":
        return p
    p.add_argument("-p", "--param", type=param, action="append", default=[], metavar="KEY=VALUE",
                   help="a variant option, repeatable: k=3 (k-out edges), kout=paper, hb_n=4, "
                        "bfs_sample=1024, bfs_levels=256, max_rounds=...; one the variant ignores: an error")
    p.add_argument("--devices", type=device_ids, metavar="IDS",
                   help="GPUs that share the host edges, each sending its part in chunks: e.g. 0,1, or all")
    p.add_argument("--repeat", type=positive_int, default=1, metavar="R",
                   help="timed runs; the median and min are reported (default 1)")
    p.add_argument("--warmup", type=non_negative_int, default=0, metavar="W",
                   help="untimed runs first (default 0: kernels load on a tiny graph, timed as 'kernels')")
    return p


def device_ids(text: str):
    """``--devices``: ``all`` or a comma list of GPU ids.

    >>> device_ids("0,1"), device_ids("all")
    ([0, 1], 'all')
    """
    if text.strip().lower() == "all":
        return "all"
    try:
        ids = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected GPU ids such as 0,1 or all, got {text!r}") from None
    if any(d < 0 for d in ids):
        raise argparse.ArgumentTypeError(f"GPU ids are >= 0, got {text!r}")
    return ids


def param(text: str) -> tuple:
    """A ``-p KEY=VALUE`` variant option, typed as the option takes it."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    from gconn.design import PARAM_CHOICES, PARAMS
    kind = PARAM_CHOICES.get(key, int) if key in PARAMS else None
    if kind is int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{key} takes a positive integer, got {value!r}") from None
        if number < 1:
            raise argparse.ArgumentTypeError(f"{key} takes a positive integer, got {number}")
        return key, number
    if kind is not None and value not in kind:
        raise argparse.ArgumentTypeError(f"{key} takes one of {', '.join(kind)}, got {value!r}")
    return key, int(value) if value.lstrip("-").isdigit() else value


def non_negative(kind, what: str, most=None):
    """An argparse type: a ``kind`` number >= 0, and at most ``most`` unless None (``what`` names it
    in errors)."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not (value >= 0 and (most is None or value <= most)):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text}")
        return value
    return parse


def relabel_of(args):
    """``--relabel``/``--no-relabel``/neither as the API's ``relabel``."""
    return {None: "auto", True: True, False: False}[args.relabel]


class Input(NamedTuple):
    """A described file (``Source``) or generated graph, its name, its times, whether ids are 1-based."""

    obj: object
    name: str
    times: dict
    one_based: bool

    @property
    def is_file(self) -> bool:
        from gconn.inputs import Source
        return isinstance(self.obj, Source)


#: the options that apply to FILE only, and their ``args`` attributes
READING = (("--format", "format"), ("--n", "n"), ("--source", "source"), ("--target", "target"),
           ("--header/--no-header", "header"), ("--names/--no-names", "names"), ("--relabel/--no-relabel", "relabel"))


def check_input_options(args, parser, problem: str | None = None) -> tuple[str, str]:
    """Usage errors (the variant's too) before any read: ('file', path) or ('spec', spec)."""
    chosen = [x for x in (args.file, args.generate, EXAMPLE_SPEC if args.example else None) if x]
    if len(chosen) != 1:
        parser.error("give exactly one input: FILE, --generate SPEC or --example")
    for option, attr in READING:
        if getattr(args, attr) is not None and not args.file:
            parser.error(f"{option} applies to FILE input only")
    if args.relabel and args.n is not None:
        parser.error("--relabel and --n cannot be combined: a relabelled graph has one vertex per id that occurs")
    if problem and args.algorithm != "auto":
        from gconn.design import Variant
        Variant.parse(args.algorithm, problem)
    return ("file", args.file) if args.file else ("spec", chosen[0])


@contextlib.contextmanager
def read_input(args, parser):
    """The :class:`Input` of the command line (a context: stdin kept in a temporary file)."""
    from gconn.inputs import describe
    kind, name = check_input_options(args, parser)
    if kind == "spec":
        with watch_compiles(notice=not args.quiet) as watch:
            g, times = generate(name, show=show_progress(args))
        if watch.count:
            times["of which compiling kernels"] = watch.seconds
        yield Input(g, name, times, False)
        return
    with contextlib.ExitStack() as stack:
        times = {}
        path = name
        if name == "-":
            t0 = time.perf_counter()
            path = stdin_copy(stack)
            times["read stdin"] = time.perf_counter() - t0
        src = describe(path, format=args.format, header=args.header, source=args.source, target=args.target,
                       names=args.names)
        print_notes(src.notes)
        one_based = src.file.format in ("mtx", "metis", "dimacs") or bool(getattr(src.file.dialect, "base", 0))
        yield Input(src, "stdin" if name == "-" else name, times, one_based)


def stdin_copy(stack: contextlib.ExitStack) -> str:
    """Standard input copied into a temporary file of ``stack``'s (the readers seek): its path."""
    path = str(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gconn-"))) / "stdin")
    with open(path, "wb") as f:
        shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
    return path


def print_notes(notes) -> None:
    for note in notes:
        print(f"gconn: note: {note}", file=sys.stderr)


def backend_for(args, inp: Input) -> str:
    # A text edge list's run is its parse, on the CPU either way; a GPU adds its start-up and
    # memory (797e30a:BENCHMARKS.md, issue 11), so auto does not even look for one.
    if args.backend == "auto" and getattr(args, "devices", None) is not None:
        return resolve_backend("gpu")
    if args.backend == "auto" and inp.is_file and inp.obj.format == "edgelist":
        return "cpu"
    return resolve_backend(args.backend)


def load_graph(inp: Input, args, relabel):
    """The input's whole graph, and the seconds it took."""
    from gconn.inputs import to_graph
    if not inp.is_file:
        return inp.obj, dict(inp.times)
    desc = f"loading {inp.name} ({human_size(inp.obj.file.size)})"
    t0 = time.perf_counter()
    with watch_compiles(notice=not args.quiet) as watch, busy(desc, show_progress(args)):
        g = to_graph(inp.obj, args.n, relabel)
    print_notes(inp.obj.read_notes)
    times = {**inp.times, "load": time.perf_counter() - t0}
    if watch.count:
        times["of which compiling kernels"] = watch.seconds
    return g, times


def check_output_folder(path: str) -> None:
    folder = Path(path).parent
    if not folder.is_dir():
        raise FileNotFoundError(f"{path}: the folder {folder} does not exist")


def check_graph_path(path: str) -> None:
    """Fail before the work, not after, on an unsupported output name."""
    from gconn.io import FORMATS
    from gconn.io.identify import split_name
    check_output_folder(path)
    suffix = split_name(Path(path))[0]
    if not any(suffix in exts for exts in FORMATS.values()):
        known = ", ".join(e for exts in FORMATS.values() for e in exts)
        raise ValueError(f"{path}: unsupported output extension {suffix or '(none)'!r}; use one of {known}")


def prepare(problem: str, args, backend: str, g=None, **kw) -> dict:
    """Load the run's kernels ahead of it (``g`` None: graph construction's)."""
    if g is None:
        return prepare_kernels("build", backend, notice=not args.quiet)
    from gconn import design
    from gconn.backends.cpu.sampling import hb_coverage
    # the host graph's HB estimate also for the GPU: the graph is not on the device yet
    algorithm = args.algorithm if args.algorithm != "auto" else \
        design.choose(g, problem, backend=backend, hb_coverage=hb_coverage).name
    return prepare_kernels(problem, backend, algorithm, dict(getattr(args, "param", [])),
                           id_dtype=g.id_dtype, notice=not args.quiet, **kw)


def kernels_field(*parts) -> tuple:
    k = kernels_json(*parts)
    how = (f"compiled {k['kernels_compiled']} once; later runs load them from numba's cache"
           if k["kernels_compiled"] else "loaded from numba's cache")
    return ("kernels", f"{fmt_s(k['kernels_s'])} ({how})")


def kernels_json(*parts) -> dict:
    return {"kernels_s": sum(p["kernels"] for p in parts), "kernels_compiled": sum(p["compiled"] for p in parts)}


def show_progress(args) -> bool:
    return progress_enabled(args.quiet)


def fmt_s(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.01 else f"{seconds * 1e3:.1f} ms"


def print_fields(fields) -> None:
    fields = [f for f in fields if f is not None]
    width = max(len(k) for k, _ in fields)
    for key, value in fields:
        print(f"{key:<{width}}  {value}")


def report(args, out: dict, fields) -> None:
    """``out`` as one JSON object with ``--json``, else ``fields`` as aligned lines."""
    if args.json:
        print(json.dumps(out))
    else:
        print_fields(fields)


def edges_of(inp, m: int) -> int:
    """The input's edge count from the ``m`` edges a run read: a METIS file lists each edge twice (its
    reader checked the header's m)."""
    return m // 2 if inp.is_file and inp.obj.file.format == "metis" else m


def input_line(name: str, times: dict) -> str:
    if not times:
        return name
    return f"{name} ({', '.join(f'{k} {fmt_s(v)}' for k, v in times.items())})"


class Runs(NamedTuple):
    """The runs' outcomes and wall times, the input's times, :func:`prepare`'s figures, the graph."""

    results: list
    walls: list
    input_times: dict
    kernels: list
    graph: object


def timed_runs(problem: str, args, inp: Input, backend: str, relabel, load: bool = False) -> Runs:
    """The runs of ``problem``: a file the dispatcher reads itself is read by each run unless
    ``load``; otherwise the graph is loaded once, its kernels ahead, and the runs timed apart."""
    from gconn.api import dispatch
    from gconn.inputs import describe
    devices = getattr(args, "devices", None)
    call = dispatch.Call(problem, backend, args.algorithm, dict(args.param), relabel, stats=True, n=args.n,
                         devices=devices)
    way = "resident" if not inp.is_file or load else "devices" if devices is not None else \
        dispatch.route(inp.obj, call, backend)
    if way != "resident":
        chunked_cpu = way == "chunked" and backend == "cpu" and problem == "cc"
        kernels = [warm_chunked(args) if chunked_cpu else {"kernels": 0.0, "compiled": 0}]
        source, input_times, g = inp.obj, inp.times, None
    else:
        kernels = [prepare(problem, args, backend)]
        g, input_times = load_graph(inp, args, relabel if inp.is_file else False)
        kernels.append(prepare(problem, args, backend, g))
        source, call = describe(g), dataclasses.replace(call, relabel=False, n=None)
    walls, results, runs = [], [], args.warmup + args.repeat
    with progress(show_progress(args) and runs > 1, total=runs, desc=problem, unit="run") as bar:
        for i, (seconds, result) in enumerate(time_calls(lambda: dispatch.run(source, call), runs)):
            if i >= args.warmup:
                walls.append(seconds)
                results.append(result)
            bar.update()
    if g is None and inp.is_file:
        print_notes(inp.obj.read_notes)
    return Runs(results, walls, input_times, kernels, g)


def warm_chunked(args) -> dict:
    """Load the CPU's chunked route's kernels ahead of its timed runs."""
    import gconn
    from gconn.chunked.cpu import plan_of, warm
    # Parallel parsing and union alternate with serial reading: spinning OpenMP workers would take
    # the cores from the reader (797e30a:BENCHMARKS.md).  Set before the runtime starts; a user's setting wins.
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "passive"
        if os.environ.get("GOMP_SPINCOUNT") == gconn.OMP_SPIN:     # gconn's own, which would override it
            del os.environ["GOMP_SPINCOUNT"]
    with watch_compiles(notice=not args.quiet) as watch:
        t0 = time.perf_counter()
        warm(plan_of(args.algorithm, "cc", dict(args.param)))
        return {"kernels": time.perf_counter() - t0, "compiled": watch.count}


def runs_json(args, runs: Runs) -> dict:
    """The JSON fields of the timed runs: times, median phase times, kernels."""
    stats = [r.stats for r in runs.results if r.stats is not None]
    names = list(dict.fromkeys(p for s in stats for p in s.phase_times))
    return {"input_times_s": runs.input_times, "warmup": args.warmup, "times_s": runs.walls,
            "median_s": statistics.median(runs.walls), "min_s": min(runs.walls),
            "phases_s": {p: statistics.median(s.phase_times.get(p, 0.0) for s in stats) for p in names},
            **kernels_json(*runs.kernels)}


def timing_fields(walls, phases) -> list:
    med = statistics.median(walls)
    how = f"median of {len(walls)}, min {fmt_s(min(walls))}" if len(walls) > 1 else "1 run"
    fields = [("time", f"{fmt_s(med)} ({how})")]
    for p, t in phases.items():
        fields.append((f"  {p}", fmt_s(t)))
    other = med - sum(phases.values())
    if other > 0.01 * med:
        fields.append(("  other", f"{fmt_s(other)} (variant choice, transfers, checks)"))
    return fields


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def backend_note(backend: str, algorithm: str) -> str:
    chosen = "automatic choice, " if algorithm == "auto" else ""
    if backend == "cpu":
        import numba
        return f"{chosen}cpu backend, {numba.get_num_threads()} threads"
    return f"{chosen}{backend} backend"


def ids_field(nodes, relabel, one_based: bool):
    """The 'ids' line of a relabelled run (None when the ids were kept)."""
    if nodes is None:
        return None
    nodes = np.asarray(nodes)
    if nodes.dtype.kind in "OSU":
        return ("ids", f"names: {nodes.size:,} distinct, numbered in sorted order")
    how = "--relabel" if relabel is True else "automatically: the ids are sparse; --no-relabel keeps them"
    largest = int(nodes[-1]) + one_based if nodes.size else 0
    return ("ids", f"relabelled ({how}): {nodes.size:,} distinct ids, largest {largest}")


def rate(x: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return f"{x / scale:.2f} {suffix}"
    return f"{x:.0f}"


COMPILE_NOTICE = "gconn: compiling kernels (once; later runs load them from numba's cache)..."
_COMPILE_NOTICE_SHOWN = False


class _CompileWatch:
    """Counts numba compilations (cache misses) and their seconds; COMPILE_NOTICE at the first."""

    def __init__(self, notice: bool):
        self.notice = notice
        self.count = 0
        self.seconds = 0.0
        self._depth = 0
        self._t0 = 0.0

    def on_start(self, event):
        global _COMPILE_NOTICE_SHOWN
        # compiling a kernel may compile the functions it calls: count the outermost only
        self._depth += 1
        if self._depth > 1:
            return
        if self.notice and not _COMPILE_NOTICE_SHOWN:
            _COMPILE_NOTICE_SHOWN = True
            print(COMPILE_NOTICE, file=sys.stderr, flush=True)
        self.count += 1
        self._t0 = time.perf_counter()

    def on_end(self, event):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._t0


@contextlib.contextmanager
def watch_compiles(notice: bool = True):
    """Within the block, numba compilations are counted (``.count``, ``.seconds``); with ``notice``
    the process's first prints :data:`COMPILE_NOTICE` on stderr."""
    from numba.core import event
    watch = type("Watch", (_CompileWatch, event.Listener), {})(notice)
    event.register("numba:compile", watch)
    try:
        yield watch
    finally:
        event.unregister("numba:compile", watch)


def prepare_kernels(problem: str, backend: str, algorithm: str = "auto", params=None, *,
                    id_dtype=np.int32, mode: str = "phased", notice: bool = True) -> dict:
    """Load (or compile) a run's kernels on a tiny graph (``problem`` 'build', 'cc', 'forest' or
    'incremental'; 'auto' resolved for the real graph): ``{"kernels": seconds, "compiled": count}``."""
    from gconn import api
    params = dict(params or {})
    t0 = time.perf_counter()
    with watch_compiles(notice) as watch:
        src = np.array([0, 1, 2, 3, 4, 4, 4, 5, 5, 6], id_dtype)
        dst = np.array([1, 2, 3, 4, 5, 6, 7, 6, 7, 7], id_dtype)
        g = Graph.from_edges(src, dst)
        if problem == "incremental":
            from gconn.backends.cpu.unionfind import SERIAL_BELOW
            ic = api.IncrementalConnectivity(g.n, algorithm=algorithm, backend=backend, mode=mode)
            for size in (3, SERIAL_BELOW):  # the one-thread and the parallel batch kernels
                kinds = np.arange(size, dtype=np.int8) % 2
                ic.process(kinds, np.resize(src, size), np.resize(dst, size))
            ic.labels()
        elif problem != "build":
            run = api.spanning_forest if problem == "forest" else api.connected_components
            run(g, algorithm=algorithm, backend=backend, return_stats=True, **params)
    return {"kernels": time.perf_counter() - t0, "compiled": watch.count}
