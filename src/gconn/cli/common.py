"""What the subcommands share: the input options and their reading, the
variant options, timing and printing.

Every subcommand that reads a graph takes the same input options
(:func:`input_options`) and reads them with :func:`read_input`: one of
FILE (or '-' for standard input), ``--generate SPEC`` or ``--example``;
a file is identified once (:func:`gconn.inputs.describe`), and every
guess made reading it (a header taken, a format read from the content)
is printed to stderr as a ``gconn: note:`` line.
"""
from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

#: The built-in example graph of ``gconn demo`` and ``--example``.
EXAMPLE_SPEC = "rmat:scale=18,ef=16"


# -- options --------------------------------------------------------------------------

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
                   help="a graph file: .mtx, .el/.txt/.csv/.tsv/.edges, .graph (METIS), .npy, .npz, .gcb, "
                        ".parquet; text formats may be gzipped; '-' reads standard input, whose format is "
                        "read from its content (a Matrix Market banner, a METIS header, else an edge list) "
                        "unless --format says it")
    g.add_argument("--generate", metavar="SPEC", help="a generated graph, e.g. rmat:scale=16 or grid:1024")
    g.add_argument("--example", action="store_true", help=f"the built-in example graph ({EXAMPLE_SPEC})")
    f = p.add_argument_group("reading FILE")
    f.add_argument("--format", choices=("mtx", "edgelist", "metis", "npy", "npz", "gcb", "parquet"),
                   help="the file's format, where its name does not say it (checked against the content)")
    f.add_argument("--n", type=vertex_count, metavar="N",
                   help="the vertex count: ids must be below N, and vertices past the largest id (or the "
                        "file's declared size) are isolated")
    f.add_argument("--relabel", action=argparse.BooleanOptionalAction, default=None,
                   help="number only the vertex ids that occur, so sparse ids such as 3000000000 cost "
                        "nothing (--no-relabel: ids as they are); default: only when the ids are sparse and "
                        "the file declares no vertex count")
    f.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether an edge list's first line names its columns; default: only where it cannot "
                        "be data (words above integer ids), and for files of names a guess that is reported")
    f.add_argument("--names", action=argparse.BooleanOptionalAction, default=None,
                   help="whether an edge list's ids are names (strings) rather than integers; default: names "
                        "when the first data line holds a word")
    f.add_argument("--source", metavar="COLUMN",
                   help="the source column of an edge list (named in its header) or a Parquet table "
                        "(default: the first column)")
    f.add_argument("--target", metavar="COLUMN", help="the target column, as --source (default: the second)")
    return p


def algorithm_options(problem: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-a", "--algorithm", default="auto", metavar="VARIANT",
                   help=f"a variant name (see 'gconn variants --problem {problem}') or auto (default)")
    p.add_argument("-b", "--backend", default="auto", choices=("auto", "cpu", "gpu"),
                   help="auto (default) uses a CUDA GPU when one is found, else the CPU (a text edge list: "
                        "the CPU, whose parse is the run either way)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return p


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


def param_options() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-p", "--param", type=param, action="append", default=[], metavar="KEY=VALUE",
                   help="a variant option, repeatable: k=3 (k-out edges), kout=paper, hb_n=4, "
                        "bfs_sample=1024, bfs_levels=256, max_rounds=...; an option the variant does not "
                        "use is an error")
    return p


def timing_options() -> argparse.ArgumentParser:
    from gconn.bench.harness import non_negative_int, positive_int
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--repeat", type=positive_int, default=1, metavar="R",
                   help="timed runs; the median and min are reported (default 1)")
    p.add_argument("--warmup", type=non_negative_int, default=0, metavar="W",
                   help="untimed runs first (default 0: the kernels are loaded on a tiny graph "
                        "before the input, and timed apart as 'kernels')")
    return p


def vertex_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a vertex count (an integer >= 0), got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a vertex count (an integer >= 0), got {value}")
    return value


def nonneg_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def relabel_of(args):
    """``--relabel``/``--no-relabel``/neither as the API's ``relabel``."""
    return {None: "auto", True: True, False: False}[args.relabel]


# -- input ----------------------------------------------------------------------------

class Input(NamedTuple):
    """What a subcommand reads: a described file (:class:`gconn.inputs.Source`)
    or a generated :class:`gconn.Graph`, its name for the output, and the
    seconds spent getting it (reading stdin, generating)."""

    obj: object
    name: str
    times: dict
    #: vertex ids in the output are 1-based (Matrix Market, METIS)
    one_based: bool

    @property
    def is_file(self) -> bool:
        from gconn.inputs import Source
        return isinstance(self.obj, Source)


def check_input_options(args, parser) -> tuple[str, str]:
    """Usage errors first: ('file', path) or ('spec', spec)."""
    chosen = [x for x in (args.file, args.generate, EXAMPLE_SPEC if args.example else None) if x]
    if len(chosen) != 1:
        parser.error("give exactly one input: FILE, --generate SPEC or --example")
    file_only = (("--format", args.format), ("--n", args.n), ("--source", args.source),
                 ("--target", args.target), ("--header/--no-header", args.header),
                 ("--names/--no-names", args.names), ("--relabel/--no-relabel", args.relabel))
    for option, value in file_only:
        if value is not None and not args.file:
            parser.error(f"{option} applies to FILE input only")
    if args.relabel and args.n is not None:
        parser.error("--relabel and --n cannot be combined: a relabelled graph has one vertex per id that occurs")
    return ("file", args.file) if args.file else ("spec", chosen[0])


@contextlib.contextmanager
def read_input(args, parser):
    """The :class:`Input` of the command line (a context: standard input is
    kept in a temporary file while the command runs)."""
    from gconn.bench.harness import generate
    from gconn.cli.kernels import watch_compiles
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
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="gconn-"))
            t0 = time.perf_counter()
            path = str(Path(folder) / "stdin")
            with open(path, "wb") as f:
                shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
            times["read stdin"] = time.perf_counter() - t0
        src = describe_file(path, args)
        for note in src.notes:
            print(f"gconn: note: {note}", file=sys.stderr)
        yield Input(src, "stdin" if name == "-" else name, times, src.file.format in ("mtx", "metis"))


def print_read_notes(inp) -> None:
    """The guesses the reading of a file made (see :attr:`gconn.inputs.Source.read_notes`)."""
    if inp.is_file:
        for note in inp.obj.read_notes:
            print(f"gconn: note: {note}", file=sys.stderr)


def describe_file(path: str, args):
    """The :class:`gconn.inputs.Source` of a FILE with the input options."""
    from gconn.inputs import describe
    return describe(path, format=args.format, header=args.header, source=args.source, target=args.target,
                    names=args.names)


def text_edge_list(inp: Input) -> bool:
    """Whether the input is a text edge list, whose automatic backend is the
    CPU even beside a GPU: the run is the parse, on the CPU whichever backend
    unions the edges, and a GPU run adds its start (CuPy, the CUDA context,
    NVRTC) to it.  H100 machine, a 1.1 GB edge list, fresh processes: the
    CPU backend 3.1-3.6 s and 340 MB at peak, the GPU backend 3.1-4.5 s and
    740-750 MB (BENCHMARKS.md, issue 11).  The GPU is not even looked for:
    that alone took the CPU run to 650 MB."""
    return inp.is_file and inp.obj.format == "edgelist"


def backend_for(args, inp: Input) -> str:
    from gconn.bench.harness import resolve_backend
    if args.backend == "auto" and text_edge_list(inp):
        return "cpu"
    return resolve_backend(args.backend)


def load_graph(inp: Input, args, relabel):
    """The whole graph of the input (a file read through its one reader),
    and the seconds it took, for runs timed apart from the input."""
    from gconn.inputs import to_graph
    from gconn.bench.harness import busy, human_size
    from gconn.cli.kernels import watch_compiles
    if not inp.is_file:
        return inp.obj, dict(inp.times)
    desc = f"loading {inp.name} ({human_size(inp.obj.file.size)})"
    t0 = time.perf_counter()
    with watch_compiles(notice=not args.quiet) as watch, busy(desc, show_progress(args)):
        g = to_graph(inp.obj, args.n, relabel)
    print_read_notes(inp)
    times = {**inp.times, "load": time.perf_counter() - t0}
    if watch.count:
        times["of which compiling kernels"] = watch.seconds
    return g, times


def check_algorithm(name: str, problem: str) -> None:
    # Before loading: a typo should not cost a large file's read time.
    if name != "auto":
        from gconn.design import Variant
        Variant.parse(name, problem)


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


# -- kernels ----------------------------------------------------------------------------

def prepare(problem: str, args, backend: str, g=None, **kw) -> dict:
    """Load the kernels of the run ahead of it (``g`` None: graph
    construction's), timed apart from the input and the run."""
    from gconn.cli.kernels import prepare_kernels, resolve_algorithm
    if g is None:
        return prepare_kernels("build", backend, notice=not args.quiet)
    algorithm = resolve_algorithm(g, problem, backend, args.algorithm)
    return prepare_kernels(problem, backend, algorithm, dict(getattr(args, "param", [])),
                           id_dtype=g.id_dtype, notice=not args.quiet, **kw)


def kernels_field(*parts) -> tuple:
    seconds = sum(p["kernels"] for p in parts)
    compiled = sum(p["compiled"] for p in parts)
    how = (f"compiled {compiled} once; later runs load them from numba's cache" if compiled
           else "loaded from numba's cache")
    return ("kernels", f"{fmt_s(seconds)} ({how})")


def kernels_json(*parts) -> dict:
    return {"kernels_s": sum(p["kernels"] for p in parts), "kernels_compiled": sum(p["compiled"] for p in parts)}


# -- timing and printing ------------------------------------------------------------------

def show_progress(args) -> bool:
    from gconn.bench.harness import progress_enabled
    return progress_enabled(args.quiet)


def fmt_s(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.01 else f"{seconds * 1e3:.1f} ms"


def print_fields(fields) -> None:
    width = max(len(k) for k, _ in fields)
    for key, value in fields:
        print(f"{key:<{width}}  {value}")


def input_line(name: str, times: dict) -> str:
    if not times:
        return name
    return f"{name} ({', '.join(f'{k} {fmt_s(v)}' for k, v in times.items())})"


def timed_calls(fn, warmup: int, repeat: int, show: bool, what: str):
    """``fn()`` warmup + repeat times; the wall times and results of the timed ones."""
    from gconn.bench.harness import progress, time_calls
    walls, results = [], []
    with progress(show and warmup + repeat > 1, total=warmup + repeat, desc=what, unit="run") as bar:
        for i, (seconds, result) in enumerate(time_calls(fn, warmup + repeat)):
            if i >= warmup:
                walls.append(seconds)
                results.append(result)
            bar.update()
    return walls, results


class Runs(NamedTuple):
    """The timed runs of a subcommand (:func:`timed_runs`)."""

    #: the dispatcher's outcomes of the timed runs, and their wall times
    results: list
    walls: list
    #: the seconds spent getting the input (reading stdin, loading, generating)
    input_times: dict
    #: :func:`prepare`'s figures of the kernels loaded ahead
    kernels: list
    #: the loaded graph; None where the route read the file itself
    graph: object


NO_KERNELS = {"kernels": 0.0, "compiled": 0}


def timed_runs(problem: str, args, inp: Input, backend: str, relabel, load: bool = False) -> Runs:
    """The runs of ``problem`` on the input.  A file that the API's
    dispatcher reads itself (the compiled and chunked routes) is
    read by each run, timed whole, unless ``load``; otherwise the graph is
    loaded once, its kernels ahead, and the runs on it are timed apart."""
    from gconn.api import dispatch
    from gconn.inputs import describe
    call = dispatch.Call(problem, backend, args.algorithm, dict(args.param), relabel, True, True, 0, None, False,
                         args.n)
    way = dispatch.route(inp.obj, call, backend) if inp.is_file and not load else "resident"
    if way != "resident":
        kernels = [warm_chunked(args) if way == "chunked" and backend == "cpu" and problem == "cc" else NO_KERNELS]
        source, input_times, g = inp.obj, inp.times, None
    else:
        kernels = [prepare(problem, args, backend)]
        g, input_times = load_graph(inp, args, relabel if inp.is_file else False)
        kernels.append(prepare(problem, args, backend, g))
        source, call = describe(g), dispatch.Call(problem, backend, args.algorithm, dict(args.param), False, True, True)
    walls, results = timed_calls(lambda: dispatch.run(source, call), args.warmup, args.repeat, show_progress(args),
                                 problem)
    if g is None:
        print_read_notes(inp)
    return Runs(results, walls, input_times, kernels, g)


def warm_chunked(args) -> dict:
    """Load the CPU's chunked route's kernels ahead of its timed runs."""
    import os
    from gconn.chunked.cpu import plan_of, warm
    from gconn.cli.kernels import watch_compiles
    # Parallel parsing and union alternate with serial reading: OpenMP
    # workers that spin between them took the cores from the reader (2
    # shared cores, 1.1 GB edge list: 3.4-4.1 s spinning, 2.3-2.4 s
    # passive; BENCHMARKS.md).  Set before the first parallel kernel
    # starts the runtime; a user's own setting wins.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    with watch_compiles(notice=not args.quiet) as watch:
        t0 = time.perf_counter()
        warm(plan_of(args.algorithm, "cc", dict(args.param)))
        return {"kernels": time.perf_counter() - t0, "compiled": watch.count}


def phase_medians(stats_list) -> dict:
    stats_list = [s for s in stats_list if s is not None]
    names = list(dict.fromkeys(p for s in stats_list for p in s.phase_times))
    return {p: statistics.median(s.phase_times.get(p, 0.0) for s in stats_list) for p in names}


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
