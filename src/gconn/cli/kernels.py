"""Loading a command's kernels apart from its timing: numba's compilations
watched (and announced once), kernels run on a tiny graph, ``gconn warmup``."""
from __future__ import annotations

import contextlib
import os
import sys
import time

import numpy as np

from gconn.bench.harness import progress, resolve_backend
from gconn.graph import Graph


def gpu_status() -> tuple[bool, str]:
    """(found, why not) for a real CUDA GPU."""
    from gconn.backends import gpu
    return gpu.available(simulator_ok=False)


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


#: ``gconn warmup``'s runs (problem, algorithm, incremental mode): every automatic choice on the CPU.
WARMUP_RUNS = (*((problem, f"{sampling}+union-async+find-halve", "phased")
                 for problem in ("cc", "forest") for sampling in ("none", "kout", "hb")),
               *(("incremental", "auto", mode) for mode in ("phased", "sequential", "concurrent")))


def warmup(show: bool = True, notice: bool = True) -> dict:
    """Compile (or load) the CPU kernels of the common commands: graph construction, readers and
    writers, chunked files, GPU transfers' host side, generators and every automatic choice.
    Returns ``{"seconds": s, "compiled": count}``.

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
            streamed.warm(streamed.plan_of("auto", "cc", {}))
            staging.warm()
            feed.warm()
            bar.update()
        compiled += watch.count
        for problem, algorithm, mode in WARMUP_RUNS:
            r = prepare_kernels(problem, "cpu", algorithm, mode=mode, notice=notice)
            compiled += r["compiled"]
            bar.update()
    return {"seconds": time.perf_counter() - t0, "compiled": compiled}


def warmup_gpu(show: bool = True) -> dict:
    """Compile (or load) the GPU kernels of the common calls into :mod:`gconn.backends.gpu.kernel_cache`
    (host arrays, a file, a CSR matrix, :data:`gconn.design.AUTO_GPU_VARIANTS`, incremental
    batches).  Returns ``{"seconds", "compiled", "loaded", "directory"}``."""
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
            run = api.connected_components if problem == "cc" else api.spanning_forest
            for name in names:
                run(g, algorithm=name, backend="gpu")
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
