"""Files, streamed: components and spanning forests of a graph file in
O(n + chunk) memory, parsing and uniting chunk by chunk.

Union-find without sampling needs nothing but the edges, in any order,
duplicates and self loops included: no CSR, no sort, no dedupe.  So a file
is read by :func:`gconn.io.edge_chunks` and every chunk is united into a
parent array that grows with the largest id (:mod:`gconn.cpu.chunked`);
neither the edges nor the graph are ever held whole, and a file larger
than memory works.  :func:`gconn.connected_components`,
:func:`gconn.spanning_forest` and ``gconn cc`` take this path for a file
when the variant is union-find without sampling (the automatic choice for
a file) on the CPU, with integer ids and ``relabel`` False or "auto".
Otherwise the file is loaded whole, as before.

>>> import gconn, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "g.el")
>>> with open(path, "w") as f:
...     _ = f.write("0 1\\n3 2\\n1 4\\n")
>>> run = stream(path, Plan.of(Variant.parse("none+union-async")))
>>> run.n, run.m, run.components(compact=True)[0]
(5, 3, 2)
"""
from __future__ import annotations

import time

import numpy as np

from . import design
from .design import Plan, Variant
from .errors import VertexRangeError
from .io.chunks import DEFAULT_CHUNK_EDGES, streamable
from .relabel import AUTO_MIN_RANGE, AUTO_RATIO
from .stats import Stats


def plan_of(algorithm, problem: str, params: dict) -> Plan | None:
    """The plan a streamed run would use, or None when the variant needs the
    graph (sampling, or a finish that is not union-find)."""
    design.check_param_names(params)
    if algorithm is None or (isinstance(algorithm, str) and algorithm == "auto"):
        v = Variant.parse(design.default_name("incremental"), problem)
    else:
        v = Variant.parse(algorithm, problem)
    if v.sampling != "none" or not v.is_union_find:
        return None
    return Plan.of(v.with_params(**params))


class Run:
    """One streamed pass over a file: parent array, counts, times."""

    def __init__(self, chunks, plan: Plan, forest: bool, relabel, stats: Stats | None):
        from .cpu.chunked import ChunkedUnion
        self.plan = plan
        self.declared = getattr(chunks, "n", None)
        mark = relabel == "auto" and self.declared is None
        self.union = ChunkedUnion(plan, forest=forest, mark_loops=mark)
        self.stats = stats
        parse = unite = 0.0
        it = iter(chunks)
        while True:
            t0 = time.perf_counter()
            chunk = next(it, None)
            t1 = time.perf_counter()
            parse += t1 - t0
            if chunk is None:
                break
            self.union.add(*chunk)
            unite += time.perf_counter() - t1
        if self.declared is not None:
            self.union.resize(self.declared)
        self.n, self.m = self.union.n, self.union.m
        t0 = time.perf_counter()
        self.roots = self.union.roots()
        self.ids = None
        if mark and self.n >= AUTO_MIN_RANGE:
            seen = self.union.occurring(self.roots)
            if self.n > AUTO_RATIO * int(np.count_nonzero(seen)):
                self.ids = np.flatnonzero(seen)
        if stats is not None:
            stats.n, stats.m = self.n if self.ids is None else self.ids.size, self.m
            stats.relabelled = self.ids is not None
            stats.phase_times.update({"read": parse, "finish": unite, "finalize": time.perf_counter() - t0})

    def components(self, compact: bool):
        """(k, labels): labels numbered as SciPy numbers them (``compact``)
        or each component's smallest vertex; over the occurring ids only
        when they were relabelled."""
        from .cpu import compact as compacted, min_representatives
        t0 = time.perf_counter()
        k, labels = compacted(self.roots)
        if self.ids is not None:
            # Isolated ids that never occur drop out; the order of the
            # others' components (by smallest vertex) is kept.
            labels = labels[self.ids]
            kept = np.zeros(k, labels.dtype)
            kept[labels] = 1
            k = int(kept.sum())
            labels = (np.cumsum(kept) - 1).astype(labels.dtype)[labels]
        if not compact:
            mins = self.roots if self.plan.variant.min_rooted else min_representatives(self.roots)
            labels = mins if self.ids is None else mins[self.ids]
        if self.stats is not None:
            self.stats.phase_times["labels"] = time.perf_counter() - t0
        return k, labels


def stream(path, plan: Plan, *, forest: bool = False, relabel=False, source=None, target=None,
           header=None, format=None, chunk_edges: int = DEFAULT_CHUNK_EDGES, stats: Stats | None = None):
    """A :class:`Run` over the file, or None when the file's edges cannot be
    streamed (names as ids, columns chosen by name, other formats)."""
    chunks = streamable(path, chunk_edges, format, header, source, target)
    if isinstance(chunks, str):
        return None
    try:
        return Run(chunks, plan, forest, relabel, stats)
    except VertexRangeError:
        # An id too large for memory: loading whole names its line, or
        # relabels the ids when "auto" finds them sparse.
        return None


def warm(plan: Plan) -> None:
    """Load (or compile) the kernels of a streamed run: a tiny file parsed
    into int32 chunks and united."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory(prefix="gconn-") as folder:
        path = os.path.join(folder, "warm.el")
        with open(path, "w") as f:
            f.write("0 1\n2 2\n")
        for forest in (False, True):  # a cc's serial small chunks, a forest's recorded links
            Run(streamable(path), plan, forest, "auto", None).components(compact=True)


def _served(path, algorithm, problem: str, params: dict, relabel, source, target, return_stats: bool):
    """(run, stats) of a call the streamed path serves, else None."""
    plan = plan_of(algorithm, problem, params)
    if plan is None or relabel is True:
        return None
    stats = Stats(variant=plan.name, backend="cpu") if return_stats else None
    # A forest's edges are input ids either way: only components look for sparse ids.
    forest = problem == "forest"
    run = stream(path, plan, forest=forest, relabel=False if forest else relabel, source=source, target=target,
                 stats=stats)
    return None if run is None else (run, stats)


def connected_components(path, algorithm, params: dict, relabel, source, target, compact: bool,
                         return_labels: bool, return_stats: bool):
    """:func:`gconn.connected_components` of a file, streamed; None when the
    call is not one the streamed path serves."""
    served = _served(path, algorithm, "cc", params, relabel, source, target, return_stats)
    if served is None:
        return None
    run, stats = served
    k, labels = run.components(compact)
    result = (k, labels) if return_labels else (k,)
    if relabel == "auto" and return_labels:
        result += (run.ids if run.ids is not None else np.arange(run.n, dtype=np.int64),)
    if return_stats:
        result += (stats,)
    return result if len(result) > 1 else result[0]


def spanning_forest(path, algorithm, params: dict, relabel, source, target, return_stats: bool):
    """:func:`gconn.spanning_forest` of a file, streamed (edges in input ids); None
    when the call is not one the streamed path serves."""
    served = _served(path, algorithm, "forest", params, relabel, source, target, return_stats)
    if served is None:
        return None
    run, stats = served
    src, dst = run.union.forest()
    return (src, dst, stats) if return_stats else (src, dst)
