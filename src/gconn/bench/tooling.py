"""Helpers shared by the benchmark harness and the ``gconn`` command:
choosing the backend, getting a graph from a file or a generator spec,
progress bars on stderr, argparse types and partition equality.  Neither
``cli`` nor ``bench`` is imported here, so imports run one way.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

from gconn.errors import GPUUnavailableError
from gconn.graph import Graph


def resolve_backend(backend: str) -> str:
    """The backend ``backend`` means here: 'cpu' or 'gpu'.

    'auto' picks the GPU when a real CUDA device is usable (as the API does);
    'gpu' raises :class:`gconn.GPUUnavailableError` up front, before any
    graph is loaded, when it is not.

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


def gpu_status() -> tuple[bool, str]:
    """(found, why not) for a real CUDA GPU."""
    from gconn.backends import gpu
    return gpu.available(simulator_ok=False)


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
    """Show ``desc`` and the elapsed time on stderr while the block runs.

    For steps that report no progress of their own (reading a file,
    generating a graph); nothing is shown when they end within ``delay``.

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
            # A numba kernel holds the GIL, so ticks may pause; the clock
            # catches up at the next one.
            while not stop.wait(0.2):
                bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


#: What the user sees on stderr when numba compiles (cache misses only).
COMPILE_NOTICE = "gconn: compiling kernels (once; later runs load them from numba's cache)..."


class _CompileWatch:
    """Counts numba compilations (cache misses; loads from the cache do not
    count) and their seconds, and prints COMPILE_NOTICE at the first one."""

    def __init__(self, notice: bool):
        self.notice = notice
        self.count = 0
        self.seconds = 0.0
        self._depth = 0
        self._t0 = 0.0

    def on_start(self, event):
        # Compiling a kernel may compile the functions it calls: count the
        # outermost compilation only.
        self._depth += 1
        if self._depth > 1:
            return
        if self.count == 0 and self.notice and not _COMPILE_NOTICE_SHOWN:
            _show_compile_notice()
        self.count += 1
        self._t0 = time.perf_counter()

    def on_end(self, event):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._t0


_COMPILE_NOTICE_SHOWN = False


def _show_compile_notice() -> None:
    global _COMPILE_NOTICE_SHOWN
    _COMPILE_NOTICE_SHOWN = True
    print(COMPILE_NOTICE, file=sys.stderr, flush=True)


@contextlib.contextmanager
def watch_compiles(notice: bool = True):
    """Within the block, numba compilations are counted (``.count``,
    ``.seconds``) and, with ``notice``, the first one prints
    :data:`COMPILE_NOTICE` on stderr (once per process).

    >>> with watch_compiles(notice=False) as w:
    ...     pass
    >>> w.count
    0
    """
    from numba.core import event
    watch = _CompileWatch(notice)
    listener = _listener(watch)
    event.register("numba:compile", listener)
    try:
        yield watch
    finally:
        event.unregister("numba:compile", listener)


def _listener(watch):
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            watch.on_start(ev)

        def on_end(self, ev):
            watch.on_end(ev)

    return Listener()


def resolve_algorithm(graph, problem: str, backend: str, algorithm: str = "auto") -> str:
    """The variant name ``algorithm`` means for ``graph``: the automatic
    choice when 'auto'.

    >>> resolve_algorithm(Graph.from_edges([0], [1]), "cc", "cpu")
    'none+union-async+find-halve'
    """
    if algorithm != "auto":
        return algorithm
    from gconn import design
    from gconn.backends.cpu.sampling import hb_coverage
    # The host graph's estimate, also for the GPU: the graph is not on the
    # device yet (and the estimate is the same sampled quantity).
    return design.choose(graph, problem, backend=backend, hb_coverage=hb_coverage).name


def prepare_kernels(problem: str, backend: str, algorithm: str = "auto", params=None, *,
                    id_dtype=np.int32, mode: str = "phased", notice: bool = True) -> dict:
    """Load (or, on a cache miss, compile) the kernels that a run will use by
    running it on a tiny graph, so that neither a file's load time nor the
    first timed run is charged for them.  ``problem``: 'build' (graph
    construction only), 'cc', 'forest' or 'incremental'.  Returns
    ``{"kernels": seconds, "compiled": count, "compile_s": seconds}``.

    Kernels of paths a tiny graph does not take (e.g. bottom-up BFS steps)
    still load at their first use; an 'auto' algorithm is resolved on the
    tiny graph, so pass the real graph's choice (:func:`resolve_algorithm`).

    >>> prepare_kernels("cc", "cpu", notice=False)["kernels"] >= 0
    True
    """
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
        elif problem == "forest":
            api.spanning_forest(g, algorithm=algorithm, backend=backend, return_stats=True, **params)
        elif problem == "cc":
            api.connected_components(g, algorithm=algorithm, backend=backend, return_stats=True, **params)
        elif problem != "build":
            raise ValueError(f"unknown problem {problem!r}")
    return {"kernels": time.perf_counter() - t0, "compiled": watch.count, "compile_s": watch.seconds}


#: What ``gconn warmup`` compiles: the CPU kernels of the README's commands
#: and of every automatic choice (problem, algorithm, incremental mode).
WARMUP_RUNS = (
    ("cc", "none+union-async+find-halve", None), ("cc", "kout+union-async+find-halve", None),
    ("cc", "hb+union-async+find-halve", None), ("forest", "none+union-async+find-halve", None),
    ("forest", "kout+union-async+find-halve", None), ("forest", "hb+union-async+find-halve", None),
    ("incremental", "auto", "phased"), ("incremental", "auto", "sequential"),
    ("incremental", "auto", "concurrent"),
)


def warmup(show: bool = True, notice: bool = True) -> dict:
    """Compile (or load) the CPU kernels the README's commands use: graph
    construction, the readers and writers, a file streamed in chunks, the
    host copies of GPU transfers, the generators of the examples, and every automatic choice for cc, forest and incremental.  ``show``: a
    progress bar; ``notice``: :data:`COMPILE_NOTICE` at the first
    compilation.  Returns ``{"seconds": s, "compiled": count}``.

    >>> warmup(show=False, notice=False)["compiled"] >= 0
    True
    """
    import tempfile
    from gconn.graph import generators
    from gconn import io
    from gconn.chunked import cpu as streamed
    from gconn.chunked import gpu_feed as feed
    from gconn.backends.gpu import staging
    t0 = time.perf_counter()
    compiled = 0
    with progress(show, total=len(WARMUP_RUNS) + 2, desc="kernels", unit="step") as bar:
        with watch_compiles(notice=notice) as watch:
            for spec in ("rmat:scale=5,ef=4", "ba:n=40,m=2"):
                Graph.from_edges(*generators.edges_from_spec(spec)[:2])
            bar.update()
            with tempfile.TemporaryDirectory() as tmp:
                g = Graph.from_edges([0, 1, 3], [1, 2, 4])
                for ext in (".mtx", ".el", ".graph", ".npy", ".gcb"):
                    io.save(g, os.path.join(tmp, "g" + ext))
                    io.load(os.path.join(tmp, "g" + ext))
            # a file streamed in chunks (gconn cc on a large edge list)
            streamed.warm(streamed.plan_of("auto", "cc", {}))
            # the host side of the GPU's transfers (CPU kernels: no GPU needed)
            staging.warm()
            feed.warm()
            bar.update()
        compiled += watch.count
        for problem, algorithm, mode in WARMUP_RUNS:
            r = prepare_kernels(problem, "cpu", algorithm, mode=mode or "phased", notice=notice)
            compiled += r["compiled"]
            bar.update()
    return {"seconds": time.perf_counter() - t0, "compiled": compiled}


def warmup_gpu(show: bool = True) -> dict:
    """Compile (or load) the GPU kernels of the common calls into the disk
    cache of :mod:`gconn.backends.gpu.kernel_cache`, so that later processes load
    them: host arrays (int32 and int64) and a text file for cc and a
    forest, a SciPy CSR matrix for cc, every automatic variant on a resident graph
    (:data:`gconn.design.AUTO_GPU_VARIANTS`), and incremental batches.  Returns ``{"seconds", "compiled", "loaded", "directory"}``;
    raises :class:`gconn.GPUUnavailableError` without a GPU."""
    import tempfile

    import scipy.sparse as sp

    from gconn import api, io
    from gconn.design import AUTO_GPU_VARIANTS
    from gconn.backends.gpu import kernel_cache, replay
    resolve_backend("gpu")
    import cupy as cp
    before = dict(kernel_cache.COUNTS)
    t0 = time.perf_counter()
    src = np.array([0, 1, 2, 3, 4, 4, 4, 5, 5, 6, 8], np.int64)
    dst = np.array([1, 2, 3, 4, 5, 6, 7, 6, 7, 7, 9], np.int64)
    steps = 2 + sum(len(v) for v in AUTO_GPU_VARIANTS.values())
    with progress(show, total=steps, desc="GPU kernels", unit="step") as bar:
        for dt in (np.int32, np.int64):
            api.connected_components((src.astype(dt), dst.astype(dt)), backend="gpu")
            api.spanning_forest((src.astype(dt), dst.astype(dt)), backend="gpu")
        n = int(max(src.max(), dst.max())) + 1
        api.connected_components(sp.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(n, n)),
                                 backend="gpu")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "g.el")
            io.save(Graph.from_edges(src, dst), path)
            api.connected_components(path, backend="gpu")
        bar.update()
        g = Graph.from_edges(cp.asarray(src.astype(np.int32)), cp.asarray(dst.astype(np.int32)))
        for problem, names in AUTO_GPU_VARIANTS.items():
            for name in names:
                if problem == "cc":
                    api.connected_components(g, algorithm=name, backend="gpu")
                else:
                    api.spanning_forest(g, algorithm=name, backend="gpu")
                bar.update()
        ic = api.IncrementalConnectivity(int(src.max()) + 2, backend="gpu")
        ic.process(np.arange(src.size, dtype=np.int8) % 2, src, dst)
        ic.insert(dst, src)
        ic.connected(src, dst)
        ic.labels()
        replay._scalar_out()        # a resident call's capture launches it
        bar.update()
    return {"seconds": time.perf_counter() - t0, "directory": kernel_cache.directory(),
            "compiled": kernel_cache.COUNTS["compiled"] - before["compiled"],
            "loaded": kernel_cache.COUNTS["loaded"] - before["loaded"]}


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


def load_file(path, *, show: bool = False, format: str | None = None, n: int | None = None,
              relabel=False, **columns) -> tuple[Graph, dict]:
    """``gconn.load(path, format=format, n=n, relabel=relabel, **columns)``
    and its timing: ``(graph, {"load": s})``; ``columns``: ``source``,
    ``target``, ``header``."""
    from gconn import io
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a directory, not a graph file")
    desc = f"loading {path.name} ({human_size(path.stat().st_size)})"
    t0 = time.perf_counter()
    with busy(desc, show):
        g = io.load(path, format=format, n=n, relabel=relabel, **columns)
    return g, {"load": time.perf_counter() - t0}


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
        return load_file(source, show=show)
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
    """Whether two label arrays split the vertices the same way, whatever
    the numbering.

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
