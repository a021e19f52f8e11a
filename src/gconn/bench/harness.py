"""The benchmark harness (``gconn bench``): gconn variants x graphs beside SciPy, NetworkX, NetworKit and igraph,
each timed on the same loaded graph and checked against scipy's partition; writes ``results.csv``,
``results.md`` and ``results.png`` (with matplotlib) to ``--out``.  Also the timing loops, tables and
helpers the other benchmarks share.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gconn import design
from gconn.errors import GPUUnavailableError
from gconn.graph import Graph
from gconn.bench.suites import SUITES, Suite


def resolve_backend(backend: str) -> str:
    """'cpu' or 'gpu': 'auto' takes a real CUDA device when usable; 'gpu' raises
    :class:`gconn.GPUUnavailableError` up front when it is not.

    >>> resolve_backend("cpu")
    'cpu'
    """
    if backend not in ("auto", "cpu", "gpu"):
        raise ValueError(f"unknown backend {backend!r}; one of auto, cpu, gpu")
    if backend == "cpu":
        return "cpu"
    from gconn.backends import gpu
    if backend == "auto":
        return "gpu" if gpu.available(simulator_ok=False)[0] else "cpu"
    ok, why = gpu.available(simulator_ok=True)
    if not ok:
        raise GPUUnavailableError(f"--backend gpu is not usable here: {why}")
    return "gpu"


def progress_enabled(quiet: bool = False) -> bool:
    """Progress bars go to stderr, and only when a person is watching it."""
    return not quiet and sys.stderr.isatty()


def progress(enabled: bool, **kwargs):
    """A tqdm bar on stderr (a no-op bar when not ``enabled``).

    >>> with progress(False, total=3) as bar:
    ...     bar.update(3)
    """
    from tqdm import tqdm
    return tqdm(file=sys.stderr, disable=not enabled, dynamic_ncols=True, leave=False, **kwargs)


@contextlib.contextmanager
def busy(desc: str, enabled: bool, delay: float = 0.5):
    """Show ``desc`` and the elapsed time on stderr while a step without progress of its own
    runs longer than ``delay``.

    >>> with busy("loading", enabled=False):
    ...     pass
    """
    if not enabled:
        yield
        return
    stop = threading.Event()

    def tick():
        if stop.wait(delay):
            return
        with progress(True, desc=desc, bar_format="{desc} {elapsed}") as bar:
            while not stop.wait(0.2):
                bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def human_size(nbytes: int) -> str:
    """'1.5 GB' style sizes.

    >>> human_size(1536)
    '1.5 kB'
    """
    size = float(nbytes)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


def generate(spec: str, *, show: bool = False) -> tuple[Graph, dict]:
    """A generated graph and its timing: ``(graph, {"generate": s, "build": s})``.

    >>> g, times = generate("path:10")
    >>> g.n, g.m
    (10, 9)
    """
    from gconn.graph import generators
    with busy(f"generating {spec}", show):
        t0 = time.perf_counter()
        src, dst, n = generators.edges_from_spec(spec)
        t1 = time.perf_counter()
        g = Graph.from_edges(src, dst, n)
        t2 = time.perf_counter()
    return g, {"generate": t1 - t0, "build": t2 - t1}


def graph_source(source: str, *, show: bool = False) -> tuple[Graph, dict]:
    """A graph from an existing file path, else from a generator spec.

    >>> graph_source("path:5")[0].m
    4
    """
    if os.path.exists(source):
        from gconn import io
        path = Path(source)
        if path.is_dir():
            raise IsADirectoryError(f"{path}: is a directory, not a graph file")
        t0 = time.perf_counter()
        with busy(f"loading {path.name} ({human_size(path.stat().st_size)})", show):
            g = io.load(path, relabel=False)
        return g, {"load": time.perf_counter() - t0}
    from gconn.graph import generators
    from gconn.io import FORMATS
    name = source.lower().removesuffix(".gz")
    if os.sep in source or any(name.endswith(ext) for exts in FORMATS.values() for ext in exts):
        raise FileNotFoundError(f"{source}: no such file")
    try:
        generators.parse_spec(source)
    except ValueError as e:
        first = str(e).splitlines()[0]
        raise ValueError(f"{source!r} is neither an existing file nor a generator spec ({first})") from None
    return generate(source, show=show)


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label arrays split the vertices the same way, whatever the numbering.

    >>> same_partition(np.array([0, 0, 1]), np.array([5, 5, 2]))
    True
    """
    if a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    # A bijection between the labels: as many distinct pairs as labels on each side.
    pairs = np.unique(a * (int(b.max()) + 1) + b).size
    return pairs == np.unique(a).size == np.unique(b).size


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


#: ``--variants fastest``: the paper's strongest points (Sec. 4) and one of each sampling.
FASTEST = (
    "kout+union-async+find-halve",
    "kout+union-async+find-naive",
    "kout+union-rem-cas+find-naive+split-one",
    "hb+union-async+find-halve",
    "bfs+union-async+find-halve",
    "none+union-async+find-halve",
)

#: NetworkX is pure Python: skipped beyond this many edges, and run at most NX_MAX_RUNS times.
NX_MAX_EDGES = 2_000_000
NX_MAX_RUNS = 3

DEFAULTS = {"variants": "auto", "backend": "auto", "repeat": 5, "warmup": 1, "out": "bench-out"}


@dataclass
class Row:
    """One method on one graph."""

    graph: str
    n: int
    m: int
    method: str            # "gconn", "scipy" or one of PEERS
    variant: str = ""      # the variant run (for gconn); "auto -> name" for the automatic choice
    backend: str = "cpu"
    times: list = field(default_factory=list)   # seconds, one per timed run
    phases: dict = field(default_factory=dict)  # median seconds per phase (gconn)
    components: int | None = None
    largest: int | None = None
    correct: bool | None = None                 # None: the reference itself, or not checked
    note: str = ""
    speedup: float | None = None                # scipy's median / this median

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None

    @property
    def best(self) -> float | None:
        return min(self.times) if self.times else None


def expand_variants(spec: str) -> list[str]:
    """The variant names of a ``--variants`` value: names and the keywords ``auto`` (the
    automatic choice), ``fastest`` (:data:`FASTEST`) and ``all``.

    >>> expand_variants("auto,kout+union-async+find-halve")
    ['auto', 'kout+union-async+find-halve']
    """
    out: list[str] = []
    for token in (t.strip() for t in spec.split(",")):
        if not token:
            continue
        if token == "all":
            names = design.variants("cc")
        elif token == "fastest":
            names = list(FASTEST)
        elif token == "auto":
            names = ["auto"]
        else:
            names = [design.Variant.parse(token, "cc").name]
        out.extend(x for x in names if x not in out)
    if not out:
        raise ValueError("--variants names no variant; use names, 'auto', 'fastest' or 'all'")
    return out


def _largest(labels: np.ndarray) -> int:
    return int(np.bincount(labels).max()) if labels.size else 0


def time_calls(fn, repeat: int, warmup: int = 0):
    """Yield (seconds, result) of ``repeat`` timed calls of ``fn`` after ``warmup`` untimed ones."""
    for _ in range(warmup):
        fn()
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        yield time.perf_counter() - t0, result


class Timing(float):
    """The median of timed samples, printed with its spread: formatted, it reads
    ``median (min-max)``, each in the format asked; arithmetic on it gives a plain float.

    >>> t = Timing([3.0, 1.0, 2.0])
    >>> f"{t:.1f} ms", t * 2, Timing([5.0]).samples
    ('2.0 (1.0-3.0) ms', 4.0, [5.0])
    """

    def __new__(cls, samples):
        samples = [float(x) for x in samples]
        self = super().__new__(cls, statistics.median(samples))
        self.samples = samples
        return self

    def __format__(self, spec: str) -> str:
        if len(self.samples) < 2:
            return format(float(self), spec)
        # the width pads the median alone, so that columns still line up
        bare = spec[spec.index("."):] if "." in spec else spec.lstrip("<>^=0123456789")
        return f"{float(self):{spec}} ({min(self.samples):{bare}}-{max(self.samples):{bare}})"

    def scaled(self, factor: float) -> "Timing":
        return Timing(x * factor for x in self.samples)


def json_timings(obj, back: bool = False):
    """``obj`` with each :class:`Timing` in a dict as its median plus ``<key>_range``: [min, max]
    (plain JSON for any reader); ``back=True`` turns those pairs into Timings again, which print
    as they did.

    >>> row = json_timings({"ms": Timing([1.0, 2.0, 4.0])})
    >>> row
    {'ms': 2.0, 'ms_range': [1.0, 4.0]}
    >>> f"{json_timings(row, back=True)['ms']:.1f}"
    '2.0 (1.0-4.0)'
    """
    if isinstance(obj, list):
        return [json_timings(x, back) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for k, v in obj.items():
        if back and k.endswith("_range") and k[:-6] in obj:
            continue
        if back and isinstance(obj.get(f"{k}_range"), list):
            lo, hi = obj[f"{k}_range"]
            out[k] = Timing([lo, v, hi])
        elif isinstance(v, Timing):
            out[k], out[f"{k}_range"] = float(v), [min(v.samples), max(v.samples)]
        else:
            out[k] = json_timings(v, back)
    return out


def turns(keys, fn, repeat: int, warmup: int = 1, alternate: bool = False) -> dict:
    """``{key: [fn(key, warm) of each of the last repeat rounds]}``: the keys take turns
    (A B A B ...) round by round, ``warm`` true in the first ``warmup`` rounds, so that a drift
    in the machine's load reaches all of them alike; ``alternate`` reverses every other round.

    >>> turns("ab", lambda k, warm: k * warm, 2, 1)
    {'a': ['', ''], 'b': ['', '']}
    """
    out = {k: [] for k in keys}
    for r in range(warmup + repeat):
        for k in list(out)[::-1] if alternate and (r - warmup) % 2 else out:
            result = fn(k, r < warmup)
            if r >= warmup:
                out[k].append(result)
    return out


def this_tree() -> str:
    """The source tree gconn is imported from here (``--tree``'s default)."""
    return str(Path(__file__).resolve().parents[2])


def child_json(tree: str, code: str, *args):
    """The last stdout line, as JSON, of ``python -c code args`` importing gconn from ``tree``."""
    r = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                       check=False, env=dict(os.environ, PYTHONPATH=os.path.abspath(tree)))
    if r.returncode:
        raise RuntimeError(f"{tree}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def md_table(columns, rows) -> str:
    """A Markdown table; a column named with a trailing ':' is right-aligned.

    >>> print(md_table(["graph", "ms:"], [["a", "1.0"]]))
    | graph | ms |
    |---|--:|
    | a | 1.0 |
    """
    head = [c.rstrip(":") for c in columns]
    rule = ["--:" if c.endswith(":") else "---" for c in columns]
    body = ["| " + " | ".join(map(str, r)) + " |" for r in (head, *rows)]
    return "\n".join([body[0], "|" + "|".join(rule) + "|", *body[1:]])


def _scipy(g: Graph):
    from scipy.sparse.csgraph import connected_components
    A = g.to_scipy()
    return (lambda: connected_components(A, directed=False)), lambda result: result[1]


def _networkx(g: Graph):
    import networkx as nx
    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    G.add_edges_from(zip(g.src.tolist(), g.dst.tolist()))

    def labels(comps):
        out = np.empty(g.n, np.int64)
        for i, c in enumerate(comps):
            out[list(c)] = i
        return out

    return lambda: list(nx.connected_components(G)), labels


def _networkit(g: Graph):
    import networkit as nk
    nk.engineering.setNumberOfThreads(os.cpu_count() or 1)
    G = nk.Graph(g.n)
    G.addEdges((g.src, g.dst))

    def call():
        cc = nk.components.ConnectedComponents(G)
        cc.run()
        return cc

    return call, lambda cc: np.asarray(cc.getPartition().getVector())


def _igraph(g: Graph):
    import igraph
    G = igraph.Graph(n=g.n, edges=np.column_stack([g.src, g.dst]))
    return G.connected_components, lambda c: np.asarray(c.membership)


def _time_library(row: Row, build, g: Graph, repeat: int, warmup: int) -> np.ndarray:
    """Time a library's call on its graph (built untimed) into ``row``; its labels.  ``build`` is a builder
    of :data:`PEERS`."""
    call, labels_of = build(g)
    for secs, result in time_calls(call, repeat, warmup):
        row.times.append(secs)
    labels = labels_of(result)
    row.components, row.largest = int(np.unique(labels).size), _largest(labels)
    return labels


#: the libraries timed beside gconn on the same graph (SciPy is the reference): name -> (module, builder);
#: a builder makes the library's graph, untimed, and returns the timed call and a reader of its labels
PEERS = {"networkx": ("networkx", _networkx), "networkit": ("networkit", _networkit),
         "igraph": ("igraph", _igraph)}


def _bench_peer(name: str, g: Graph, label: str, warmup: int, repeat: int, ref_labels, max_edges: int) -> Row:
    """A peer library's connected components, its labels checked against SciPy's partition."""
    import importlib.util
    module, build = PEERS[name]
    row = Row(label, g.n, g.m, name, "connected_components", "cpu")
    if importlib.util.find_spec(module) is None:
        row.note = f"skipped ({module} not installed: pip install 'gconn[bench]')"
        return row
    if name == "networkx":
        if g.m > max_edges:
            row.note = "skipped (too large)"
            return row
        repeat, warmup = min(repeat, NX_MAX_RUNS), 0
    row.correct = same_partition(_time_library(row, build, g, repeat, warmup), ref_labels)
    if not row.correct:
        row.note = "components differ from scipy's"
    return row


def _bench_gconn(g: Graph, gdev: Graph, label: str, name: str, backend: str, warmup: int,
                 repeat: int, ref_k: int, ref_labels: np.ndarray) -> Row:
    from gconn.api import connected_components
    row = Row(label, g.n, g.m, "gconn", name, backend)
    per_phase: dict[str, list] = {}
    chosen = None
    ok = True

    def call():
        return connected_components(gdev, algorithm=name, backend=backend, return_stats=True)

    try:
        for secs, (k, labels, stats) in time_calls(call, repeat, warmup):
            row.times.append(secs)
            chosen = stats.variant
            for phase, t in stats.phase_times.items():
                per_phase.setdefault(phase, []).append(t)
            labels = labels.get() if hasattr(labels, "get") else labels
            ok = ok and int(k) == ref_k and same_partition(labels, ref_labels)
            row.components = int(k)
        row.largest = _largest(labels)
        row.correct = ok
        if not ok:
            row.note = "components differ from scipy's"
    except Exception as e:  # noqa: BLE001 -- one failing variant must not end the run
        row.correct = False
        row.note = f"error: {type(e).__name__}: {e}".splitlines()[0]
    if name == "auto" and chosen:
        row.variant = f"auto -> {chosen}"
    row.phases = {p: statistics.median(ts) for p, ts in per_phase.items()}
    return row


def run(graphs, *, variants="auto", backend="auto", repeat=5, warmup=1,
        nx_max_edges=NX_MAX_EDGES, show_progress=False) -> list[Row]:
    """Benchmark ``variants`` on ``graphs`` (specs or file paths) beside SciPy and the :data:`PEERS`
    (NetworkX, NetworKit, igraph, where installed): one :class:`Row` per method and graph.

    >>> rows = run(["path:100"], repeat=1, warmup=0, backend="cpu")
    >>> [(r.method, r.components, r.correct) for r in rows][:3]
    [('scipy', 1, None), ('gconn', 1, True), ('networkx', 1, True)]
    """
    if repeat < 1 or warmup < 0:
        raise ValueError(f"need repeat >= 1 and warmup >= 0; got repeat={repeat}, warmup={warmup}")
    if not graphs:
        raise ValueError("no graphs to benchmark; pass --graphs or --suite")
    names = expand_variants(variants)
    backend = resolve_backend(backend)
    rows: list[Row] = []
    with progress(show_progress, total=len(graphs) * (len(names) + 1 + len(PEERS)), unit="job") as bar:
        for source in graphs:
            label = Path(source).name if os.path.exists(source) else source
            bar.set_description(f"{label}: loading")
            g, _ = graph_source(source)
            bar.set_description(f"{label}: scipy")
            ref = Row(label, g.n, g.m, "scipy", "connected_components", "cpu")
            ref_labels = _time_library(ref, _scipy, g, repeat, warmup)
            bar.update()
            graph_rows = [ref]
            gdev = g.to_device() if backend == "gpu" else g
            for name in names:
                bar.set_description(f"{label}: {name}")
                graph_rows.append(_bench_gconn(g, gdev, label, name, backend, warmup, repeat,
                                               ref.components, ref_labels))
                bar.update()
            del gdev  # frees a device copy before the next graph loads
            for peer in PEERS:
                bar.set_description(f"{label}: {peer}")
                graph_rows.append(_bench_peer(peer, g, label, warmup, repeat, ref_labels, nx_max_edges))
                bar.update()
            for r in graph_rows:
                if r.median and ref.median:
                    r.speedup = ref.median / r.median
            rows.extend(graph_rows)
    return rows


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return ""
    ms = seconds * 1e3
    return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}" if ms < 1000 else f"{ms:.0f}"


def _phase_names(rows) -> list[str]:
    names: list[str] = []
    for r in rows:
        names.extend(p for p in r.phases if p not in names)
    return names


def write_csv(rows, path) -> None:
    """All numbers, times in milliseconds, one phase per column."""
    phases = _phase_names(rows)
    header = ["graph", "n", "m", "method", "variant", "backend", "runs", "median_ms", "min_ms",
              "speedup_vs_scipy", "components", "largest", "correct", "note", "times_ms"]
    header += [f"phase_{p}_ms" for p in phases]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([r.graph, r.n, r.m, r.method, r.variant, r.backend, len(r.times),
                        _fmt(r.median, 1e3), _fmt(r.best, 1e3), _fmt(r.speedup, 1),
                        "" if r.components is None else r.components,
                        "" if r.largest is None else r.largest,
                        "" if r.correct is None else r.correct, r.note,
                        ";".join(f"{t * 1e3:.4f}" for t in r.times)]
                       + [_fmt(r.phases.get(p), 1e3) for p in phases])


def _fmt(x, scale) -> str:
    return "" if x is None else f"{x * scale:.4f}"


def markdown_table(rows) -> str:
    """The results as a GitHub Markdown table."""
    cells = []
    for r in rows:
        correct = {True: "yes", False: "**NO**", None: "ref" if r.method == "scipy" else ""}[r.correct]
        cells.append([r.graph, f"{r.n:,}", f"{r.m:,}", r.method, r.variant, r.backend, _ms(r.median), _ms(r.best),
                      len(r.times), "" if r.speedup is None else f"{r.speedup:.2f}x",
                      "" if r.components is None else f"{r.components:,}", f"{correct} {r.note}".strip(),
                      ", ".join(f"{p} {_ms(t)}" for p, t in r.phases.items())])
    return md_table(["graph", "n:", "m:", "method", "variant", "backend", "median ms:", "min ms:", "runs:",
                     "vs scipy:", "components:", "correct", "phases (median ms)"], cells)


def machine() -> str:
    """One line describing this machine and the library versions."""
    import numba
    import scipy
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{cpu}, {os.cpu_count()} logical cores, numba {numba.__version__} with "
            f"{numba.get_num_threads()} threads, numpy {np.__version__}, scipy {scipy.__version__}, "
            f"Python {platform.python_version()}, {platform.system()} {platform.release()}")


def stamp(prog: str, argv=None) -> str:
    """The lines every benchmark prints first: its command as run, this machine and versions, the date.

    >>> stamp("python -m gconn.bench.e2e", ["--repeat", "3"]).splitlines()[0]
    'Command: `python -m gconn.bench.e2e --repeat 3`'
    """
    args = sys.argv[1:] if argv is None else argv
    return "\n".join([f"Command: `{' '.join([prog, *map(shlex.quote, map(str, args))])}`", f"Machine: {machine()}",
                      f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"])


def spread(xs, scale: float = 1.0, digits: int = 2) -> str:
    """``median (min-max)`` of ``xs`` times ``scale``.

    >>> spread([3.0, 1.0, 2.0])
    '2.00 (1.00-3.00)'
    """
    return format(Timing(xs).scaled(scale), f".{digits}f")


def write_markdown(rows, path, *, command: str, title: str, notes=()) -> str:
    table = markdown_table(rows)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    parts = [f"# {title}", "", f"Command: `{command}`  ", f"Machine: {machine()}  ", f"Date: {stamp}", "",
             table, ""]
    parts += [f"* {note}" for note in notes]
    with open(path, "w") as f:
        f.write("\n".join(parts).rstrip() + "\n")
    return table


def write_plot(rows, path) -> str | None:
    """A bar chart of median times per graph; a note instead when matplotlib is missing."""
    try:
        # without pyplot: the caller's backend stays alone
        from matplotlib.figure import Figure
    except ImportError:
        return "plot skipped: matplotlib is not installed (pip install 'gconn[plot]')"
    timed = [r for r in rows if r.median is not None]
    graphs = list(dict.fromkeys(r.graph for r in timed))
    methods = list(dict.fromkeys(_method_label(r) for r in timed))
    width = 0.8 / max(len(methods), 1)
    fig = Figure(figsize=(max(6.0, 0.25 * len(graphs) * len(methods) + 2), 4.5))
    ax = fig.subplots()
    for i, method in enumerate(methods):
        mine = [r for r in timed if _method_label(r) == method]
        ax.bar([graphs.index(r.graph) + i * width for r in mine], [r.median * 1e3 for r in mine], width,
               label=method)
    ax.set_xticks([j + (len(methods) - 1) * width / 2 for j in range(len(graphs))], graphs,
                  rotation=20, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("median time (ms)")
    if methods:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return None


def _method_label(r: Row) -> str:
    # The automatic choice is one series, whatever it picked per graph.
    if r.method != "gconn":
        return r.method
    return "gconn auto" if r.variant.startswith("auto") else f"gconn {r.variant}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark options, shared by ``gconn bench`` and ``python -m gconn.bench``."""
    parser.add_argument("--suite", choices=sorted(SUITES),
                        help="a predefined benchmark; other options override its settings. "
                             + "; ".join(f"{k}: {s.description}" for k, s in sorted(SUITES.items())))
    parser.add_argument("--graphs", nargs="+", metavar="GRAPH",
                        help="generator specs (e.g. rmat:scale=16) and/or graph files")
    parser.add_argument("--variants", metavar="LIST",
                        help="comma-separated variant names and/or 'auto' (the automatic choice), "
                             "'fastest' (a curated handful), 'all' (default: auto)")
    parser.add_argument("--backend", choices=("auto", "cpu", "gpu"), help="default: auto")
    parser.add_argument("--repeat", type=positive_int, metavar="R", help="timed runs per method (default 5)")
    parser.add_argument("--warmup", type=non_negative_int, metavar="W",
                        help="untimed runs first (default 1: the first call loads compiled kernels)")
    parser.add_argument("--out", metavar="DIR", help="output folder (default ./bench-out)")
    parser.add_argument("--gpu", nargs=argparse.REMAINDER, metavar="OPTION",
                        help="run the GPU evaluation instead (gconn.bench.gpu: the paper's tables and "
                             "incremental plots); the rest of the line are its options (--help lists them)")
    parser.add_argument("--nx-max-edges", type=non_negative_int, default=NX_MAX_EDGES, metavar="M",
                        help=f"run NetworkX only up to this many edges (default {NX_MAX_EDGES:,})")


def run_from_args(args: argparse.Namespace, argv_for_record=None) -> int:
    """Run the benchmark the parsed options describe and write the reports (``--gpu`` is the
    caller's: it runs :mod:`gconn.bench.gpu` instead)."""
    suite: Suite | None = SUITES[args.suite] if args.suite else None
    settings = {**DEFAULTS, **(suite.settings() if suite else {})}
    settings.update({key: getattr(args, key) for key in ("variants", "backend", "repeat", "warmup", "out")
                     if getattr(args, key) is not None})
    expand_variants(settings["variants"])       # a bad name fails before any graph loads
    cpu_before = cpu_snapshot()
    rows = run(args.graphs or (suite.graphs() if suite else None), variants=settings["variants"],
               backend=settings["backend"], repeat=settings["repeat"], warmup=settings["warmup"],
               nx_max_edges=args.nx_max_edges, show_progress=progress_enabled(getattr(args, "quiet", False)))
    notes = ([f"suite {args.suite}: {suite.description}"] if suite else []) + [
        f"median and min of {settings['repeat']} timed runs after {settings['warmup']} warm-up "
        f"run(s); NetworkX: at most {NX_MAX_RUNS} runs, no warm-up",
        "correct: component count and partition equal scipy's"]
    notes += [n for n in [load_note(cpu_before)] if n] + _speedup_notes(rows)
    out = Path(settings["out"])
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / "results.csv")
    plot_note = write_plot(rows, out / "results.png")
    command = "gconn bench " + " ".join(shlex.quote(a) for a in (argv_for_record or []))
    table = write_markdown(rows, out / "results.md", command=command.strip(),
                           title=f"gconn benchmark{f' ({args.suite})' if args.suite else ''}", notes=notes)
    written = ["results.csv", "results.md"] + ([] if plot_note else ["results.png"])
    print("\n".join(notes + ([plot_note] if plot_note else [])))
    print(f"wrote {', '.join(str(out / w) for w in written)}\n\n{table}")
    return 0 if all(r.correct is not False for r in rows) else 1


def cpu_snapshot():
    """(machine busy CPU s, this process's CPU s, wall clock), or None off Linux."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
        hz = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    busy = sum(ticks) - ticks[3] - ticks[4]  # not idle nor iowait
    own = os.times()
    return busy / hz, own.user + own.system, time.perf_counter()


def load_note(before) -> str | None:
    """How much of the CPUs other processes used since ``before`` (a :func:`cpu_snapshot`)."""
    after = cpu_snapshot()
    if before is None or after is None or after[2] <= before[2]:
        return None
    others = max(0.0, (after[0] - before[0]) - (after[1] - before[1]))
    share = others / ((after[2] - before[2]) * (os.cpu_count() or 1))
    return f"other processes used {100 * share:.0f}% of the {os.cpu_count()} CPUs during the run"


def _speedup_notes(rows) -> list[str]:
    """Per graph, the fastest correct gconn variant against scipy."""
    notes = []
    for graph in dict.fromkeys(r.graph for r in rows):
        timed = [r for r in rows if r.graph == graph and r.method == "gconn" and r.correct and r.speedup]
        if timed:
            r = min(timed, key=lambda r: r.median)
            notes.append(f"{graph}: gconn {r.variant} ({r.backend}) {_ms(r.median)} ms vs scipy "
                         f"{_ms(r.median * r.speedup)} ms: speedup {r.speedup:.2f}x")
    failures = [r for r in rows if r.correct is False]
    if failures:
        notes.append("FAILED: " + "; ".join(f"{r.graph} {r.variant} {r.note}".strip() for r in failures))
    return notes
