"""The ``gconn`` command.

    gconn warmup                                 # compile the kernels once, after installing
    gconn demo                                   # a built-in example, GPU if there is one
    gconn cc graph.mtx -o labels.npy             # connected components
    gconn cc - < edges.el                        # ... of an edge list on stdin
    gconn cc --generate rmat:scale=16 --compare  # ... timed against scipy
    gconn forest graph.el -o forest.el           # a spanning forest
    gconn stream --generate er:n=100000,d=8 --batch-size 100000 --query-ratio 0.5
    gconn generate kron:16 -o kron16.gcb
    gconn info                                   # versions, threads, GPU
    gconn cache                                  # the compiled GPU kernels kept on disk
    gconn variants --problem forest              # valid variant names
    gconn bench --suite cpu-target               # gconn vs scipy, tables in ./bench-out

Results go to stdout, progress bars to stderr (only on a terminal).  Bad
input ends with one ``gconn: error: ...`` line and a non-zero exit status;
``--debug`` shows the traceback instead.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

#: The built-in example graph of ``gconn demo`` and ``--example``.
EXAMPLE_SPEC = "rmat:scale=18,ef=16"

#: ``-o`` suffixes for component labels.
LABEL_SUFFIXES = (".npy", ".txt", ".csv", ".parquet")


# -- shared pieces ---------------------------------------------------------------

def _common(top: bool) -> argparse.ArgumentParser:
    # Accepted before and after the command; after it, SUPPRESS keeps the
    # subcommand's default from overwriting a value given before it.
    default = False if top else argparse.SUPPRESS
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-q", "--quiet", action="store_true", default=default, help="no progress bars")
    p.add_argument("--debug", action="store_true", default=default,
                   help="show tracebacks instead of one-line errors")
    return p


def _source() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("input (one of)")
    g.add_argument("file", nargs="?", metavar="FILE",
                   help="a graph file: .mtx, .el/.txt/.csv/.tsv/.edges, .graph (METIS), .npy, .npz, "
                        ".gcb; text formats may be gzipped; '-' reads standard input (an edge list "
                        "unless --format says otherwise)")
    g.add_argument("--generate", metavar="SPEC", help="a generated graph, e.g. rmat:scale=16 or grid:1024")
    g.add_argument("--example", action="store_true", help=f"the built-in example graph ({EXAMPLE_SPEC})")
    g.add_argument("--format", help="the file's format when its name does not say "
                                    "(mtx, edgelist, metis, npy, npz, gcb, parquet)")
    g.add_argument("--n", type=_vertex_count, metavar="N",
                   help="the vertex count of a FILE: ids must be below N, and vertices past the "
                        "largest id (or the declared size) are isolated")
    g.add_argument("--source", metavar="COLUMN",
                   help="the source column of a CSV/TSV edge list (named in its header) or a Parquet "
                        "table (default: the first column)")
    g.add_argument("--target", metavar="COLUMN", help="the target column, as --source (default: the second)")
    g.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether an edge list's first line names its columns (default: detected, a "
                        "header when its first two fields are not integers)")
    return p


def _algo(problem: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-a", "--algorithm", default="auto", metavar="VARIANT",
                   help=f"a variant name (see 'gconn variants --problem {problem}') or auto (default)")
    p.add_argument("-b", "--backend", default="auto", choices=("auto", "cpu", "gpu"),
                   help="auto (default) uses a CUDA GPU when one is found, else the CPU (gconn cc on a "
                        "text edge list: the CPU, whose parse is the run either way)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return p


#: The type each known variant option takes: int, or the allowed words.
#: Keys not listed here go to the API as text, which names the valid ones.
def _param(text: str) -> tuple:
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    from ..design import PARAM_CHOICES, PARAMS
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


def _vertex_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a vertex count (an integer >= 0), got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a vertex count (an integer >= 0), got {value}")
    return value


def _nonneg_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def _show(args) -> bool:
    from ..tooling import progress_enabled
    return progress_enabled(args.quiet)


def _check_algorithm(name: str, problem: str) -> None:
    # Before loading: a typo should not cost a large file's read time.
    if name != "auto":
        from ..design import Variant
        Variant.parse(name, problem)


def _check_output_folder(path: str) -> None:
    folder = Path(path).parent
    if not folder.is_dir():
        raise FileNotFoundError(f"{path}: the folder {folder} does not exist")


def _check_graph_path(path: str) -> None:
    """Fail before the work, not after, on an unsupported output name."""
    from ..io import FORMATS
    _check_output_folder(path)
    name = Path(path).name.lower()
    suffix = Path(name[:-3] if name.endswith(".gz") else name).suffix
    if not any(suffix in exts for exts in FORMATS.values()):
        known = ", ".join(e for exts in FORMATS.values() for e in exts)
        raise ValueError(f"{path}: unsupported output extension {suffix or '(none)'!r}; use one of {known}")


def _input_source(args, parser) -> tuple[str, str]:
    """Check the input options (usage errors come first): ('file', path) or ('spec', spec)."""
    chosen = [x for x in (args.file, args.generate, EXAMPLE_SPEC if args.example else None) if x]
    if len(chosen) != 1:
        parser.error("give exactly one input: FILE, --generate SPEC or --example")
    if args.format and not args.file:
        parser.error("--format applies to FILE input only")
    if args.n is not None and not args.file:
        parser.error("--n applies to FILE input only")
    for option, value in (("--source", args.source), ("--target", args.target),
                          ("--header/--no-header", args.header)):
        if value is not None and not args.file:
            parser.error(f"{option} applies to FILE input only")
    if getattr(args, "relabel", None) and not args.file:
        parser.error("--relabel applies to FILE input only")
    if getattr(args, "relabel", None) and args.n is not None:
        parser.error("--relabel and --n cannot be combined: a relabelled graph has one vertex per "
                     "id that occurs")
    return ("file", args.file) if args.file else ("spec", chosen[0])


def _load_input(source: tuple[str, str], args, relabel=False):
    """The graph and its load timings; compiling a kernel on the way (a
    reader's or a generator's, first run only) is timed on its own."""
    from ..tooling import generate, load_file, watch_compiles
    kind, name = source
    with watch_compiles(notice=not args.quiet) as watch:
        if kind == "file" and name == "-":
            g, times = _load_stdin(args, relabel)
        elif kind == "file":
            g, times = load_file(name, show=_show(args), format=args.format, n=args.n, relabel=relabel,
                                 **_columns(args))
        else:
            g, times = generate(name, show=_show(args))
    if watch.count:
        times["of which compiling kernels"] = watch.seconds
    return g, times


def _prepare(problem: str, args, backend: str, g=None, **kw) -> dict:
    """Load the kernels of the run ahead of it (``g`` None: graph
    construction's), timed apart from the input and the run."""
    from ..tooling import prepare_kernels, resolve_algorithm
    if g is None:
        return prepare_kernels("build", backend, notice=not args.quiet)
    algorithm = resolve_algorithm(g, problem, backend, args.algorithm)
    return prepare_kernels(problem, backend, algorithm, dict(getattr(args, "param", [])),
                           id_dtype=g.id_dtype, notice=not args.quiet, **kw)


def _kernels_field(*parts) -> tuple:
    seconds = sum(p["kernels"] for p in parts)
    compiled = sum(p["compiled"] for p in parts)
    how = (f"compiled {compiled} once; later runs load them from numba's cache" if compiled
           else "loaded from numba's cache")
    return ("kernels", f"{_fmt_s(seconds)} ({how})")


def _kernels_json(*parts) -> dict:
    return {"kernels_s": sum(p["kernels"] for p in parts), "kernels_compiled": sum(p["compiled"] for p in parts)}


def _columns(args) -> dict:
    """The edge-column options for ``gconn.load``: only those given, so a
    format without columns still loads when they are left out."""
    given = {"source": args.source, "target": args.target, "header": args.header}
    return {k: v for k, v in given.items() if v is not None}


def _load_stdin(args, relabel):
    """Read standard input into a temporary file and load that: the readers
    take a path, and gzip is recognised by content."""
    import shutil
    import tempfile
    from ..tooling import load_file
    fmt = args.format or "edgelist"
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gconn-") as folder:
        path = Path(folder) / "stdin"
        with open(path, "wb") as f:
            shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
        read = time.perf_counter() - t0
        g, times = load_file(path, show=_show(args), format=fmt, n=args.n, relabel=relabel,
                             **_columns(args))
    return g, {"read stdin": read, **times}


def _one_based(source: tuple[str, str], args) -> bool:
    """Whether the input numbers vertices from 1 (Matrix Market, METIS)."""
    if source[0] != "file":
        return False
    if args.format:
        return args.format in ("mtx", "metis")
    name = source[1].lower().removesuffix(".gz")
    return name.endswith((".mtx", ".graph"))


def _fmt_s(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.01 else f"{seconds * 1e3:.1f} ms"


def _print_fields(fields) -> None:
    width = max(len(k) for k, _ in fields)
    for key, value in fields:
        print(f"{key:<{width}}  {value}")


def _input_line(name: str, times: dict) -> str:
    return f"{name} ({', '.join(f'{k} {_fmt_s(v)}' for k, v in times.items())})"


def _timed_calls(fn, warmup: int, repeat: int, show: bool, what: str):
    """``fn()`` warmup + repeat times; the wall times and results of the timed ones."""
    from ..tooling import progress
    walls, results = [], []
    with progress(show and warmup + repeat > 1, total=warmup + repeat, desc=what, unit="run") as bar:
        for i in range(warmup + repeat):
            t0 = time.perf_counter()
            result = fn()
            if i >= warmup:
                walls.append(time.perf_counter() - t0)
                results.append(result)
            bar.update()
    return walls, results


def _phase_medians(stats_list) -> dict:
    names = list(dict.fromkeys(p for s in stats_list for p in s.phase_times))
    return {p: statistics.median(s.phase_times.get(p, 0.0) for s in stats_list) for p in names}


def _timing_fields(walls, phases) -> list:
    med = statistics.median(walls)
    how = f"median of {len(walls)}, min {_fmt_s(min(walls))}" if len(walls) > 1 else "1 run"
    fields = [("time", f"{_fmt_s(med)} ({how})")]
    for p, t in phases.items():
        fields.append((f"  {p}", _fmt_s(t)))
    other = med - sum(phases.values())
    if other > 0.01 * med:
        fields.append(("  other", f"{_fmt_s(other)} (variant choice, transfers, checks)"))
    return fields


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


# -- gconn cc ----------------------------------------------------------------------

def _write_labels(labels: np.ndarray, ids, path: str, style: str, one_based: bool) -> None:
    """Write component labels.  ``pairs``: one 'vertex label' row per
    vertex (an (n, 2) array in .npy; a '# vertex label' comment or a
    'vertex,label' header row in text), vertices in the input's own ids;
    ``plain``: the labels alone, the i-th for vertex i."""
    suffix = Path(path).suffix.lower()
    named = ids is not None and np.asarray(ids).dtype.kind in "OSU"
    if suffix == ".parquet" or named:
        _write_label_table(labels, ids, path, suffix, style, one_based)
        return
    if style == "plain":
        if suffix == ".npy":
            with open(path, "wb") as f:
                np.save(f, labels)
            return
        with open(path, "w") as f:
            if labels.size:
                f.write("\n".join(map(str, labels.tolist())))
                f.write("\n")
        return
    vertex = np.arange(labels.size, dtype=np.int64) if ids is None else np.asarray(ids, np.int64)
    if one_based:
        vertex = vertex + 1
    if suffix == ".npy":
        with open(path, "wb") as f:
            np.save(f, np.column_stack([vertex, labels.astype(np.int64, copy=False)]))
        return
    from ..io.edgelist import write_pairs
    sep = "," if suffix == ".csv" else " "
    base = "1-based, as in the input file" if one_based else "0-based, as in the input"
    header = "vertex,label\n" if suffix == ".csv" else f"# vertex label (vertex ids {base})\n"
    with open(path, "wb") as f:
        f.write(header.encode())
        write_pairs(f, vertex, labels.astype(np.int64, copy=False), 0, sep)


def _write_label_table(labels: np.ndarray, ids, path: str, suffix: str, style: str, one_based: bool) -> None:
    """Labels through pyarrow: Parquet (columns vertex, label; label alone
    for ``plain``), and text files whose vertices are names."""
    import pyarrow as pa
    if suffix == ".npy":
        raise ValueError(f"{path}: the vertices are names, which .npy cannot store; use .parquet or .csv")
    columns = {"label": labels.astype(np.int64, copy=False)}
    if style == "pairs":
        vertex = np.arange(labels.size, dtype=np.int64) if ids is None else np.asarray(ids)
        if vertex.dtype.kind in "iu" and one_based:
            vertex = vertex + 1
        columns = {"vertex": vertex, **columns}
    table = pa.table(columns)
    if suffix == ".parquet":
        import pyarrow.parquet as pq
        pq.write_table(table, path)
    else:
        from pyarrow import csv
        csv.write_csv(table, path, csv.WriteOptions(delimiter="," if suffix == ".csv" else " ",
                                                    quoting_style="needed"))


def _plain_relabelled(path: str):
    raise ValueError(f"{path}: the ids are relabelled, so plain labels (one per line, the i-th for "
                     "vertex i) cannot say which vertex each is; use --labels-format pairs or --no-relabel")


def _text_edge_list(source, args) -> bool:
    """Whether ``gconn cc`` reads a text edge list, whose automatic backend
    is the CPU even beside a GPU: the run is the parse, on the CPU whichever
    backend unions the edges, and a GPU run adds its start (CuPy, the CUDA
    context, NVRTC) to it.  H100 machine, a 1.1 GB edge list, fresh
    processes: the CPU backend 3.1-3.6 s and 340 MB at peak, the GPU
    backend 3.1-4.5 s and 740-750 MB (BENCHMARKS.md, issue 11).  The
    GPU is not even looked for: that alone took the CPU run to 650 MB."""
    if source[0] != "file" or source[1] == "-":
        return False
    from ..io import _as_path, _format_named
    try:
        fmt = _format_named(_as_path(source[1]), args.format)
    except ValueError:
        return False            # the loading path names the problem
    return fmt == "edgelist"


def cmd_cc(args, parser) -> int:
    from .. import api
    from ..tooling import resolve_backend
    source = _input_source(args, parser)
    _check_algorithm(args.algorithm, "cc")
    relabel = {None: "auto", True: True, False: False}[args.relabel]
    plain = args.output and args.labels_format == "plain"
    if args.output:
        if Path(args.output).suffix.lower() not in LABEL_SUFFIXES:
            raise ValueError(f"{args.output}: labels are written as {', '.join(LABEL_SUFFIXES)}")
        _check_output_folder(args.output)
        if plain and relabel is True:
            _plain_relabelled(args.output)
    # decided before looking for a GPU, which starts CuPy and a CUDA context (~1 s, ~320 MB)
    backend = "cpu" if args.backend == "auto" and _text_edge_list(source, args) else resolve_backend(args.backend)
    # --source/--target/--header are read by the loading path only
    columns = args.source is not None or args.target is not None or args.header is not None
    if backend == "cpu" and source[0] == "file" and source[1] != "-" and not columns:
        code = _cc_compiled(args, source, relabel)
        if code is not None:
            return code
    if source[0] == "file" and source[1] != "-" and backend == "cpu" and not args.compare and args.n is None \
            and relabel is not True and not columns:
        done = _cc_streamed(args, source[1], relabel)
        if done is not None:
            return done
    if source[0] == "file" and source[1] != "-" and backend == "gpu" and not args.compare and args.n is None \
            and relabel is not True and not columns:
        done = _gpu_streamed(args, source[1], "cc", relabel)
        if done is not None:
            return done
    kernels = [_prepare("cc", args, backend)]
    g, load_times = _load_input(source, args, relabel=relabel if source[0] == "file" else False)
    kernels.append(_prepare("cc", args, backend, g))
    relabelled = g.nodes is not None
    if plain and relabelled:
        _plain_relabelled(args.output)
    name = "stdin" if source == ("file", "-") else source[1]

    def call():
        return api.connected_components(g, algorithm=args.algorithm, backend=backend, return_stats=True,
                                        **dict(args.param))

    walls, results = _timed_calls(call, args.warmup, args.repeat, _show(args), "cc")
    k, labels, stats = results[-1]
    labels = _host(labels)
    largest = int(np.bincount(labels).max()) if labels.size else 0
    phases = _phase_medians([r[2] for r in results])
    out = {"input": name, "n": g.n, "m": g.m, "components": int(k), "largest": largest,
           "relabelled": relabelled, "relabel": {True: "yes", False: "no"}.get(relabel, "auto"),
           "variant": stats.variant, "backend": stats.backend, "input_times_s": load_times,
           "warmup": args.warmup, "times_s": walls, "median_s": statistics.median(walls),
           "min_s": min(walls), "phases_s": phases, **_kernels_json(*kernels)}
    if args.compare:
        out.update(_compare_scipy(g, labels, out["median_s"], args.repeat))
    one_based = _one_based(source, args)
    if args.output:
        _write_labels(labels, g.nodes, args.output, args.labels_format, one_based)
        out["output"] = args.output
        out["labels_format"] = args.labels_format
        out["vertex_ids"] = "1-based" if one_based else "0-based"
    if args.json:
        print(json.dumps(out))
    else:
        share = f" ({100.0 * largest / g.n:.1f}% of the vertices)" if g.n else ""
        fields = [("input", _input_line(name, load_times)), ("n", f"{g.n:,}"), ("m", f"{g.m:,}")]
        if relabelled and g.nodes.dtype.kind in "OSU":
            fields.append(("ids", f"names: {g.n:,} distinct, numbered in sorted order"))
        elif relabelled:
            how = "--relabel" if relabel is True else "automatically: the ids are sparse; --no-relabel keeps them"
            fields.append(("ids", f"relabelled ({how}): {g.n:,} distinct ids, largest "
                                  f"{int(g.nodes[-1]) + one_based if g.n else 0}"))
        fields += [("components", f"{int(k):,}"), ("largest", f"{largest:,}{share}"),
                  ("variant", f"{stats.variant} ({_backend_note(stats.backend, args.algorithm)})"),
                  _kernels_field(*kernels)]
        fields += _timing_fields(walls, phases)
        if args.compare:
            fields += [("scipy", f"{_fmt_s(out['scipy_median_s'])} "
                                 f"(scipy.sparse.csgraph.connected_components, median of {args.repeat})"),
                       ("speedup", f"{out['speedup']:.2f}x vs scipy"),
                       ("check", "ok: same components as scipy" if out["matches_scipy"] else
                        "MISMATCH: the components differ from scipy's")]
        if args.output:
            what = "labels" if args.labels_format == "plain" else \
                f"(vertex, label) rows, vertex ids {'1' if one_based else '0'}-based as in the input,"
            fields.append(("wrote", f"{what} of {g.n:,} vertices to {args.output}"))
        _print_fields(fields)
    return 0 if out.get("matches_scipy", True) else 1


def _cc_compiled(args, source, relabel) -> int | None:
    """``gconn cc FILE`` on gconn's ahead-of-time compiled kernels, without
    loading numba (see :mod:`gconn.aot`), for the plain runs they cover;
    None for the others.  n and m are the file's: its edges as read, before
    duplicates and self loops are dropped."""
    from .. import aot
    if (args.algorithm != "auto" or args.param or args.compare or aot.module() is None
            or not aot.numba_free() or not aot.small_file(source[1])):
        return None
    t0 = time.perf_counter()
    from ..io.edges import read_edges
    edges = read_edges(source[1], args.format, args.n, relabel)
    load_times = {"load": time.perf_counter() - t0}
    if edges is None or not aot.chosen(edges.src.size):
        return None
    walls, results = _timed_calls(lambda: aot.components_of(edges), args.warmup, args.repeat, _show(args), "cc")
    k, labels = results[-1]
    n, m = edges.n, int(edges.src.size)
    largest = int(np.bincount(labels).max()) if labels.size else 0
    note = "automatic choice, compiled ahead of time, serial: numba not loaded"
    out = {"input": source[1], "n": n, "m": m, "m_counts": "edges as read", "components": k, "largest": largest,
           "relabelled": False, "relabel": {True: "yes", False: "no"}.get(relabel, "auto"),
           "variant": aot.VARIANT, "backend": "cpu", "input_times_s": load_times, "warmup": args.warmup,
           "times_s": walls, "median_s": statistics.median(walls), "min_s": min(walls), "phases_s": {},
           "kernels_s": 0.0, "kernels_compiled": 0}
    one_based = _one_based(source, args)
    if args.output:
        _write_labels(labels, None, args.output, args.labels_format, one_based)
        out.update(output=args.output, labels_format=args.labels_format,
                   vertex_ids="1-based" if one_based else "0-based")
    if args.json:
        print(json.dumps(out))
        return 0
    share = f" ({100.0 * largest / n:.1f}% of the vertices)" if n else ""
    fields = [("input", _input_line(source[1], load_times)), ("n", f"{n:,}"),
              ("m", f"{m:,} (edges as read: duplicates and self loops not removed)"),
              ("components", f"{k:,}"), ("largest", f"{largest:,}{share}"),
              ("variant", f"{aot.VARIANT} ({note})"), ("kernels", "none to load (compiled at install time)")]
    fields += _timing_fields(walls, {"union-find, labels": statistics.median(walls)})
    if args.output:
        what = "labels" if args.labels_format == "plain" else \
            f"(vertex, label) rows, vertex ids {'1' if one_based else '0'}-based as in the input,"
        fields.append(("wrote", f"{what} of {n:,} vertices to {args.output}"))
    _print_fields(fields)
    return 0


def _cc_streamed(args, path: str, relabel):
    """``gconn cc FILE`` without loading the graph: the file is parsed and
    united chunk by chunk (:mod:`gconn.streamed`), each timed run reading it
    again.  None when the variant or the file needs the graph loaded."""
    from .. import streamed
    from ..io.chunks import DEFAULT_CHUNK_EDGES, streamable
    from ..stats import Stats
    from ..tooling import watch_compiles
    plan = streamed.plan_of(args.algorithm, "cc", dict(args.param))
    # A missing file or a folder: the loading path says so as it always has.
    if plan is None or not Path(path).is_file() or isinstance(streamable(path, format=args.format), str):
        return None
    # Parallel parsing and union alternate with serial reading: OpenMP workers
    # that spin between them took the cores from the reader (2 shared cores,
    # 1.1 GB edge list: 3.4-4.1 s spinning, 2.3-2.4 s passive; BENCHMARKS.md).
    # Set before the first parallel kernel starts the runtime; a user's own
    # setting wins.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    with watch_compiles(notice=not args.quiet) as watch:
        t0 = time.perf_counter()
        streamed.warm(plan)
        kernels = {"kernels": time.perf_counter() - t0, "compiled": watch.count}

    def call():
        stats = Stats(variant=plan.name, backend="cpu")
        run = streamed.stream(path, plan, relabel=relabel, format=args.format, stats=stats)
        return None if run is None else (run, *run.components(compact=True), stats)

    walls, results = _timed_calls(call, args.warmup, args.repeat, _show(args), "cc")
    if results[-1] is None:  # ids too large for memory: loading names the line, or relabels
        return None
    run, k, labels, stats = results[-1]
    n, ids = labels.size, run.ids
    largest = int(np.bincount(labels).max()) if n else 0
    phases = _phase_medians([r[3] for r in results])
    out = {"input": path, "n": n, "m": run.m, "components": k, "largest": largest, "relabelled": ids is not None,
           "relabel": {False: "no"}.get(relabel, "auto"), "variant": plan.name, "backend": "cpu",
           "streamed": True, "chunk_edges": DEFAULT_CHUNK_EDGES, "input_times_s": {}, "warmup": args.warmup,
           "times_s": walls, "median_s": statistics.median(walls), "min_s": min(walls), "phases_s": phases,
           "kernels_s": kernels["kernels"], "kernels_compiled": kernels["compiled"]}
    if args.output:
        if ids is not None and args.labels_format == "plain":
            _plain_relabelled(args.output)
        _write_labels(labels, ids, args.output, args.labels_format, False)
        out.update(output=args.output, labels_format=args.labels_format, vertex_ids="0-based")
    if args.json:
        print(json.dumps(out))
        return 0
    fields = [("input", f"{path} (streamed: parsed and united in chunks of {DEFAULT_CHUNK_EDGES:,} edges; "
                        "m counts the edges read, duplicates and self loops as in the file)"),
              ("n", f"{n:,}"), ("m", f"{run.m:,}")]
    if ids is not None:
        fields.append(("ids", f"relabelled (automatically: the ids are sparse; --no-relabel keeps them): "
                              f"{n:,} distinct ids, largest {int(ids[-1]) if n else 0}"))
    share = f" ({100.0 * largest / n:.1f}% of the vertices)" if n else ""
    fields += [("components", f"{k:,}"), ("largest", f"{largest:,}{share}"),
               ("variant", f"{plan.name} ({_backend_note('cpu', args.algorithm)})"),
               _kernels_field(kernels)]
    fields += _timing_fields(walls, phases)
    if args.output:
        fields.append(("wrote", f"{'labels' if args.labels_format == 'plain' else '(vertex, label) rows'} "
                                f"of {n:,} vertices to {args.output}"))
    _print_fields(fields)
    return 0


def _gpu_streamed(args, path: str, problem: str, relabel):
    """``gconn cc|forest --backend gpu FILE`` without loading the graph: the
    API streams the file to the GPU (:mod:`gconn.streaming`).  None when
    the file or the variant needs the graph loaded, or (``relabel``
    "auto") the ids may be sparse enough for loading to relabel them."""
    from .. import api, streaming
    from ..errors import VertexRangeError
    from ..graph import Graph
    from ..relabel import AUTO_MIN_RANGE, AUTO_RATIO
    params = dict(args.param)
    if args.format is not None or not streaming.file_streams(path, args.algorithm, problem, params):
        return None
    run = api.connected_components if problem == "cc" else api.spanning_forest
    try:
        walls, results = _timed_calls(lambda: run(path, algorithm=args.algorithm, backend="gpu", return_stats=True,
                                                  **params), args.warmup, args.repeat, _show(args), problem)
    except VertexRangeError:  # ids too large for memory: loading names the line, or relabels
        return None
    *result, stats = results[-1]
    n, phases = stats.n, _phase_medians([r[-1] for r in results])
    out = {"input": path, "n": n, "m": stats.m, "variant": stats.variant, "backend": "gpu", "streamed": True,
           "chunk_edges": stats.chunk_edges, "input_times_s": {}, "warmup": args.warmup, "times_s": walls,
           "median_s": statistics.median(walls), "min_s": min(walls), "phases_s": phases}
    fields = [("input", f"{path} (streamed to the GPU in chunks of up to {stats.chunk_edges:,} edges; "
                        "m counts the edges read, duplicates and self loops as in the file)"),
              ("n", f"{n:,}"), ("m", f"{stats.m:,}")]
    if problem == "cc":
        k, labels = result
        sizes = np.bincount(labels, minlength=1)
        # Loading relabels sparse ids under "auto": keep only runs where it
        # cannot (the vertices in components of 2 or more are a lower bound
        # on the ids that occur).
        if relabel == "auto" and n >= AUTO_MIN_RANGE and n > AUTO_RATIO * int(sizes[sizes > 1].sum()):
            return None
        largest = int(sizes.max())
        out.update(components=k, largest=largest, relabelled=False, relabel={False: "no"}.get(relabel, "auto"))
        share = f" ({100.0 * largest / n:.1f}% of the vertices)" if n else ""
        fields += [("components", f"{k:,}"), ("largest", f"{largest:,}{share}")]
        if args.output:
            _write_labels(labels, None, args.output, args.labels_format, False)
            out.update(output=args.output, labels_format=args.labels_format, vertex_ids="0-based")
            wrote = f"{'labels' if args.labels_format == 'plain' else '(vertex, label) rows'} of {n:,} vertices"
    else:
        src, dst = result
        out.update(forest_edges=int(src.size), components=n - int(src.size))
        fields.append(("forest", f"{src.size:,} edges (n - k, k = {n - src.size:,} components)"))
        if args.output:
            from ..io import save
            save(Graph.from_edges(src, dst, n), args.output)
            out["output"] = args.output
            wrote = f"{src.size:,} edges"
    if args.json:
        print(json.dumps(out))
        return 0
    fields.append(("variant", f"{stats.variant} ({_backend_note('gpu', args.algorithm)})"))
    fields += _timing_fields(walls, phases)
    if args.output:
        fields.append(("wrote", f"{wrote} to {args.output}"))
    _print_fields(fields)
    return 0


def _compare_scipy(g, labels, median, repeat) -> dict:
    from scipy.sparse.csgraph import connected_components
    from ..tooling import same_partition
    A = g.to_scipy()
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        k, ref = connected_components(A, directed=False)
        walls.append(time.perf_counter() - t0)
    scipy_median = statistics.median(walls)
    return {"scipy_median_s": scipy_median, "speedup": scipy_median / median,
            "matches_scipy": bool(int(k) == int(labels.max(initial=-1)) + 1 and same_partition(labels, ref))}


def _backend_note(backend: str, algorithm: str) -> str:
    chosen = "automatic choice, " if algorithm == "auto" else ""
    if backend == "cpu":
        import numba
        return f"{chosen}cpu backend, {numba.get_num_threads()} threads"
    return f"{chosen}{backend} backend"


# -- gconn forest ----------------------------------------------------------------------

def cmd_forest(args, parser) -> int:
    from .. import api
    from ..tooling import resolve_backend
    from ..graph import Graph
    source = _input_source(args, parser)
    _check_algorithm(args.algorithm, "forest")
    if args.output:
        _check_graph_path(args.output)
    backend = resolve_backend(args.backend)
    if source[0] == "file" and source[1] != "-" and backend == "gpu" and args.n is None and not _columns(args):
        done = _gpu_streamed(args, source[1], "forest", False)
        if done is not None:
            return done
    kernels = [_prepare("forest", args, backend)]
    g, load_times = _load_input(source, args)
    kernels.append(_prepare("forest", args, backend, g))
    name = source[1]

    def call():
        return api.spanning_forest(g, algorithm=args.algorithm, backend=backend, return_stats=True,
                                   **dict(args.param))

    walls, results = _timed_calls(call, args.warmup, args.repeat, _show(args), "forest")
    src, dst, stats = results[-1]
    src, dst = _host(src), _host(dst)
    phases = _phase_medians([r[2] for r in results])
    out = {"input": name, "n": g.n, "m": g.m, "forest_edges": int(src.size),
           "components": g.n - int(src.size), "variant": stats.variant, "backend": stats.backend,
           "input_times_s": load_times, "warmup": args.warmup, "times_s": walls,
           "median_s": statistics.median(walls), "min_s": min(walls), "phases_s": phases,
           **_kernels_json(*kernels)}
    if args.output:
        from ..io import save
        # As a graph on the same n, every format gconn writes is available.
        save(Graph.from_edges(src, dst, g.n), args.output)
        out["output"] = args.output
    if args.json:
        print(json.dumps(out))
    else:
        fields = [("input", _input_line(name, load_times)), ("n", f"{g.n:,}"), ("m", f"{g.m:,}"),
                  ("forest", f"{src.size:,} edges (n - k, k = {g.n - src.size:,} components)"),
                  ("variant", f"{stats.variant} ({_backend_note(stats.backend, args.algorithm)})"),
                  _kernels_field(*kernels)]
        fields += _timing_fields(walls, phases)
        if args.output:
            fields.append(("wrote", f"{src.size:,} edges to {args.output}"))
        _print_fields(fields)
    return 0


# -- gconn stream ----------------------------------------------------------------------

def stream_ops(g, query_ratio: float, seed: int):
    """The replay of ``g``: its edges shuffled, with random-pair queries at
    random places, ``query_ratio`` per insert on average.

    Returns ``(kinds, src, dst)`` with kinds 0 = insert, 1 = query.

    >>> from gconn import Graph
    >>> kinds, s, d = stream_ops(Graph.from_edges([0, 1], [1, 2]), 0.5, seed=0)
    >>> int((kinds == 0).sum()), int((kinds == 1).sum())
    (2, 1)
    """
    rng = np.random.default_rng(seed)
    m = g.m
    q = int(round(query_ratio * m)) if g.n else 0
    kinds = np.zeros(m + q, np.int8)
    kinds[m:] = 1
    rng.shuffle(kinds)
    order = rng.permutation(m)
    src = np.empty(m + q, g.id_dtype)
    dst = np.empty(m + q, g.id_dtype)
    ins = kinds == 0
    src[ins] = g.src[order]
    dst[ins] = g.dst[order]
    src[~ins] = rng.integers(0, max(g.n, 1), q, dtype=g.id_dtype)
    dst[~ins] = rng.integers(0, max(g.n, 1), q, dtype=g.id_dtype)
    return kinds, src, dst


def cmd_stream(args, parser) -> int:
    from .. import api
    from ..tooling import progress, resolve_backend
    source = _input_source(args, parser)
    _check_algorithm(args.algorithm, "incremental")
    backend = resolve_backend(args.backend)
    kernels = [_prepare("incremental", args, backend)]
    g, load_times = _load_input(source, args)
    name = source[1]
    kinds, src, dst = stream_ops(g, args.query_ratio, args.seed)
    total = kinds.size
    n_batches = -(-total // args.batch_size)
    # The batches' kernels and the static check's, so neither the first
    # batch nor the check is charged for loading them.
    kernels.append(_prepare("incremental", args, backend, g, mode=args.mode))
    kernels.append(_prepare("cc", argparse.Namespace(algorithm="auto", quiet=args.quiet), backend, g))
    ic = api.IncrementalConnectivity(g.n, algorithm=args.algorithm, backend=backend, mode=args.mode)
    elapsed = 0.0
    answers = 0
    with progress(_show(args), total=total, desc="stream", unit="op", unit_scale=True) as bar:
        for start in range(0, total, args.batch_size):
            stop = min(start + args.batch_size, total)
            t0 = time.perf_counter()
            res = ic.process(kinds[start:stop], src[start:stop], dst[start:stop])
            elapsed += time.perf_counter() - t0
            answers += int(res.sum())
            bar.update(stop - start)
    k_stream = ic.n_components
    k_static, static_labels = api.connected_components(g, backend=backend)
    ok = k_stream == int(k_static) and np.array_equal(_host(ic.labels()), _host(static_labels))
    q = int(total - g.m)

    def rate(count: int) -> float:
        return count / elapsed if elapsed > 0 else 0.0

    out = {"input": name, "n": g.n, "m": g.m, "inserts": g.m, "queries": q, "batches": n_batches,
           "batch_size": args.batch_size, "mode": args.mode, "variant": ic.variant.name, "backend": backend,
           "input_times_s": load_times, "time_s": elapsed, "edges_per_s": rate(g.m), "ops_per_s": rate(total),
           "queries_true": answers, "components": k_stream, "static_components": int(k_static), "ok": ok,
           **_kernels_json(*kernels)}
    if args.json:
        print(json.dumps(out))
    else:
        _print_fields([
            ("input", _input_line(name, load_times)), ("n", f"{g.n:,}"), ("m", f"{g.m:,}"),
            ("operations", f"{g.m:,} inserts + {q:,} queries (ratio {args.query_ratio:g}, seed {args.seed})"),
            ("batches", f"{n_batches:,} of up to {args.batch_size:,} operations, {args.mode} mode"),
            ("variant", f"{ic.variant.name} ({_backend_note(backend, args.algorithm)})"),
            _kernels_field(*kernels),
            ("time", f"{_fmt_s(elapsed)} in process()"),
            ("throughput", f"{_rate(rate(g.m))} edges/s, {_rate(rate(total))} ops/s"),
            ("queries", f"{answers:,} of {q:,} answered connected"),
            ("components", f"{k_stream:,} (static: {int(k_static):,}) {'ok' if ok else 'MISMATCH'}"),
        ])
    return 0 if ok else 1


def _rate(x: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= scale:
            return f"{x / scale:.2f} {suffix}"
    return f"{x:.0f}"


# -- gconn generate ----------------------------------------------------------------------

def cmd_generate(args, parser) -> int:
    from ..tooling import generate
    from ..io import save
    _check_graph_path(args.output)
    g, times = generate(args.spec, show=_show(args))
    t0 = time.perf_counter()
    save(g, args.output)
    times["save"] = time.perf_counter() - t0
    _print_fields([("graph", args.spec), ("n", f"{g.n:,}"), ("m", f"{g.m:,}"),
                   ("time", ", ".join(f"{k} {_fmt_s(v)}" for k, v in times.items())),
                   ("wrote", args.output)])
    return 0


# -- gconn info / variants ----------------------------------------------------------------

def _version_of(module: str, dist: str | None = None) -> str | None:
    """The version of an importable module, or None when it does not import."""
    import importlib
    import importlib.metadata
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001 -- a broken optional install reads as absent
        return None
    try:
        return importlib.metadata.version(dist or module)
    except importlib.metadata.PackageNotFoundError:
        return getattr(mod, "__version__", "unknown version")


def gpu_device() -> dict | None:
    """Name and memory of CUDA device 0 through CuPy, or None."""
    try:
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
    except Exception:  # noqa: BLE001 -- no CuPy, no driver or no device: all mean none
        return None
    name = props["name"]
    return {"name": name.decode() if isinstance(name, bytes) else str(name),
            "memory_gib": round(props["totalGlobalMem"] / 2**30, 1)}


def cmd_info(args, parser) -> int:
    import numba
    import scipy
    from .. import __version__
    from ..tooling import gpu_status
    from ..design import PROBLEMS, variants
    from ..gpu import staging
    found, why = gpu_status()
    device = gpu_device() if found else None
    info = {
        "gconn": __version__, "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "numpy": np.__version__, "scipy": scipy.__version__, "numba": numba.__version__,
        "numba_threads": numba.get_num_threads(), "numba_threading_layer": staging.threading_layer(),
        "numba_cuda": _version_of("numba_cuda", "numba-cuda"), "cupy": _version_of("cupy"),
        "gpu": device if found else None, "gpu_unavailable_reason": None if found else why,
        "variants": {p: len(variants(p)) for p in PROBLEMS},
    }
    if args.json:
        print(json.dumps(info))
        return 0
    gpu_line = (f"{device['name']}, {device['memory_gib']} GiB" if device else "found") if found \
        else f"none ({why})"
    _print_fields([
        ("gconn", info["gconn"]), ("python", info["python"]), ("numpy", info["numpy"]),
        ("scipy", info["scipy"]),
        ("numba", f"{info['numba']} ({info['numba_threads']} threads, {info['numba_threading_layer']} layer)"),
        ("numba-cuda", info["numba_cuda"] or "not importable"), ("cupy", info["cupy"] or "not importable"),
        ("CUDA GPU", gpu_line),
        ("variants", ", ".join(f"{p} {k}" for p, k in info["variants"].items())),
    ])
    if info["numba_threading_layer"] == staging.SLOW_LAYER:
        print(f"warning: {staging.SLOW_LAYER_HINT}")
    return 0


def cmd_variants(args, parser) -> int:
    from ..design import variants
    for name in variants(args.problem):
        print(name)
    return 0


# -- gconn demo ----------------------------------------------------------------------

def cmd_demo(args, parser) -> int:
    from ..tooling import gpu_status, resolve_backend
    if args.backend == "auto":
        found, why = gpu_status()
        where = "a CUDA GPU" if found else f"the CPU ({why})"
    else:
        # Fails here, before the banner, when -b gpu has no GPU to run on.
        where = "a CUDA GPU" if resolve_backend(args.backend) == "gpu" else "the CPU"
    print(f"gconn demo: connected components of a generated R-MAT graph ({EXAMPLE_SPEC}) on {where},"
          " checked against scipy")
    cc = build_parser().parse_args(["cc", "--example", "--compare", "--repeat", "3", "--backend", args.backend])
    cc.quiet, cc.debug = args.quiet, args.debug
    return cmd_cc(cc, cc.command_parser)


# -- gconn warmup ---------------------------------------------------------------------

def cmd_warmup(args, parser) -> int:
    from ..tooling import gpu_status, warmup, warmup_gpu
    if args.backend != "gpu":
        result = warmup(show=_show(args), notice=not args.quiet)
        if result["compiled"]:
            print(f"gconn warmup: compiled {result['compiled']} CPU kernels into numba's cache in "
                  f"{_fmt_s(result['seconds'])}; later runs load them from there")
        else:
            print(f"gconn warmup: every CPU kernel was already in numba's cache "
                  f"(checked in {_fmt_s(result['seconds'])})")
    if args.backend == "cpu":
        return 0
    found, why = gpu_status()
    if not found and args.backend == "auto":
        print(f"gconn warmup: no GPU kernels ({why})")
        return 0
    result = warmup_gpu(show=_show(args))
    where = result["directory"]
    if where is None:
        print(f"gconn warmup: compiled {result['compiled']} GPU kernels in {_fmt_s(result['seconds'])}, but "
              "GCONN_KERNEL_CACHE=off keeps none for later processes")
    elif result["compiled"]:
        print(f"gconn warmup: compiled {result['compiled']} GPU kernels into {where} in "
              f"{_fmt_s(result['seconds'])} ({result['loaded']} were there already)")
    else:
        print(f"gconn warmup: every GPU kernel was already in {where} ({result['loaded']} loaded in "
              f"{_fmt_s(result['seconds'])})")
    return 0


def cmd_cache(args, parser) -> int:
    from ..gpu import kernel_cache
    from ..tooling import human_size
    where = kernel_cache.directory()
    if where is None:
        print("GPU kernel cache: off (GCONN_KERNEL_CACHE)")
        return 0
    if args.clear:
        print(f"GPU kernel cache: removed {kernel_cache.clear()} files from {where}")
        return 0
    found = kernel_cache.files()
    size = sum(p.stat().st_size for p in found)
    print(f"GPU kernel cache: {where}, {len(found)} kernels, {human_size(size)}")
    return 0


# -- gconn bench ----------------------------------------------------------------------

def cmd_bench(args, parser) -> int:
    from ..bench.harness import run_from_args
    return run_from_args(args, args.bench_argv)


# -- the parser -----------------------------------------------------------------------

_SPECS_EPILOG = "generator specs:"


class _SpecsHelp(argparse.RawDescriptionHelpFormatter):
    """Lists the generator specs in ``gconn generate -h`` only: the
    generators import numba, which other commands may not need."""

    def add_text(self, text):
        if text is _SPECS_EPILOG:
            from ..generators import spec_help
            text = f"{text}\n{spec_help()}"
        super().add_text(text)


def build_parser() -> argparse.ArgumentParser:
    """The ``gconn`` argument parser (for ``--help`` and the docs)."""
    from .. import __version__
    from ..bench.harness import add_arguments as bench_arguments
    from ..tooling import non_negative_int, positive_int
    common = _common(top=False)
    parser = argparse.ArgumentParser(
        prog="gconn", parents=[_common(top=True)],
        description="Graph connectivity on GPUs and CPUs: the GConn design space.",
        epilog="Start with 'gconn demo'. 'gconn COMMAND -h' describes each command.")
    parser.add_argument("--version", action="version", version=f"gconn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name, func, help_text, parents=()):
        p = sub.add_parser(name, parents=[common, *parents], help=help_text, description=help_text)
        p.set_defaults(func=func, command_parser=p)
        return p

    inputs = _source()
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("-p", "--param", type=_param, action="append", default=[], metavar="KEY=VALUE",
                         help="a variant option, repeatable: k=3 (k-out edges), kout=paper, hb_n=4, "
                              "bfs_sample=1024, bfs_levels=256, max_rounds=...")
    timing = argparse.ArgumentParser(add_help=False)
    timing.add_argument("--repeat", type=positive_int, default=1, metavar="R",
                        help="timed runs; the median and min are reported (default 1)")
    timing.add_argument("--warmup", type=non_negative_int, default=0, metavar="W",
                        help="untimed runs first (default 0: the kernels are loaded on a tiny graph "
                             "before the input, and timed apart as 'kernels')")

    p = add("cc", cmd_cc, "connected components: counts, sizes and time per phase",
            [inputs, _algo("cc"), options, timing])
    p.add_argument("-o", "--output", metavar="LABELS",
                   help="write the labels (.npy, .txt, .csv or .parquet): a (vertex, label) row per vertex, "
                        "vertex ids (or names) as in the input (1-based for .mtx and METIS)")
    p.add_argument("--labels-format", choices=("pairs", "plain"), default="pairs",
                   help="pairs (default): vertex and label per row; plain: the labels alone, the i-th for "
                        "vertex i (0-based), as gconn wrote before")
    p.add_argument("--relabel", action=argparse.BooleanOptionalAction, default=None,
                   help="number only the vertex ids that occur (sparse ids such as 3000000000 then cost "
                        "nothing); default: automatically when a file's ids are sparse and it declares "
                        "no vertex count")
    p.add_argument("--compare", action="store_true", help="also time scipy and check the result against it")

    p = add("forest", cmd_forest, "a spanning forest (n - k edges of the input)",
            [inputs, _algo("forest"), options, timing])
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the forest's edges, in any format 'gconn generate' writes (e.g. .el, .npy)")

    p = add("stream", cmd_stream, "replay a graph's edges as batches of inserts and queries",
            [inputs, _algo("incremental")])
    p.add_argument("--batch-size", type=positive_int, required=True, metavar="B", help="operations per batch")
    p.add_argument("--query-ratio", type=_nonneg_float, default=0.0, metavar="R",
                   help="queries per insert on average (0.5: one query per two inserts; default 0)")
    p.add_argument("--mode", choices=("phased", "sequential", "concurrent"), default="phased",
                   help="what a query in a batch sees (see gconn.IncrementalConnectivity; default phased)")
    p.add_argument("--seed", type=int, default=0, help="shuffles the edges and draws the queries (default 0)")

    p = add("generate", cmd_generate, "generate a graph and write it to a file")
    p.formatter_class = _SpecsHelp
    p.epilog = _SPECS_EPILOG
    p.add_argument("spec", metavar="SPEC", help="e.g. rmat:scale=20,ef=16, kron:22, ba:n=1000000,m=16, "
                                               "er:n=1000000,d=16, grid:4096,keep=0.7, mesh:1024, path:1000")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the file; its extension picks the format (.mtx, .el, .graph, .npy, .npz, .gcb, +.gz)")

    p = add("info", cmd_info, "versions, threads and whether a CUDA GPU is usable")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = add("variants", cmd_variants, "list the valid variant names")
    p.add_argument("--problem", choices=("cc", "forest", "incremental"), default="cc",
                   help="cc (default), forest or incremental")

    p = add("demo", cmd_demo, f"run connected components on a built-in example ({EXAMPLE_SPEC}), "
                              "on the GPU if there is one, checked against scipy")
    p.add_argument("-b", "--backend", default="auto", choices=("auto", "cpu", "gpu"))

    p = add("warmup", cmd_warmup, "compile the kernels of the common commands once, the CPU's into numba's "
                                  "cache and the GPU's into gconn's (run it after installing; otherwise the "
                                  "first run of each compiles them)")
    p.add_argument("-b", "--backend", default="auto", choices=("auto", "cpu", "gpu"),
                   help="auto (default): the CPU's, and the GPU's when one is usable")

    p = add("cache", cmd_cache, "where the compiled GPU kernels are kept (GCONN_KERNEL_CACHE), how many, "
                                "how large; --clear removes them")
    p.add_argument("--clear", action="store_true", help="remove the cached kernels")

    p = add("bench", cmd_bench, "benchmark variants x graphs against scipy and NetworkX")
    bench_arguments(p)
    return parser


def _one_line(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        text = f"{error.filename}: {error.strerror}"
    elif isinstance(error, MemoryError):
        text = f"out of memory{': ' + str(error) if str(error) else ''}; try a smaller graph"
    else:
        # Some messages append a multi-line listing (e.g. of generator
        # specs); the first line says what is wrong.
        text = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return " ".join(text.split())


def main(argv=None) -> int:
    """Run the ``gconn`` command with ``argv`` (default: ``sys.argv[1:]``);
    returns the exit status.

    >>> main(["variants", "--problem", "incremental"]) == 0  # doctest: +ELLIPSIS
    none+union-async+find-naive
    ...
    True
    """
    from ..errors import GPUUnavailableError
    from ..errors import ConvergenceError
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
        return args.func(args, args.command_parser)
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("gconn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`gconn variants | head`): stop quietly, and
        # keep Python's exit-time flush from raising again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except SystemExit as e:  # parser.error() inside a command
        return e.code if isinstance(e.code, int) else 2
    except (ValueError, TypeError, OSError, MemoryError, GPUUnavailableError, ConvergenceError) as e:
        if args.debug:
            raise
        print(f"gconn: error: {_one_line(e)}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 -- a bug, but still one line unless --debug
        if args.debug:
            raise
        print(f"gconn: internal error: {type(e).__name__}: {_one_line(e)} (rerun with --debug for the "
              "traceback, and please report it)", file=sys.stderr)
        return 1
