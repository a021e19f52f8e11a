"""Files, streamed: components and spanning forests of a graph file (or an
iterator of edge chunks) in O(n + chunk) memory, parsing and uniting chunk
by chunk: the dispatcher's ``chunked`` route on the CPU (:mod:`gconn.api.dispatch`).

Union-find without sampling needs nothing but the edges, in any order,
duplicates and self loops included: no CSR, no sort, no dedupe.  So a file
is read by :func:`gconn.io.chunks.of_file` and every chunk is united into a
parent array that grows with the largest id (:mod:`gconn.chunked.cpu_union`);
neither the edges nor the graph are ever held whole, and a file larger
than memory works.  Sparse ids (``relabel=True``, or ``"auto"`` once the
ids' range outgrows what the edges can hold) are numbered as they arrive,
so memory follows the distinct ids, not the largest one.

>>> import gconn, tempfile, os
>>> from gconn.io import identify
>>> from gconn.io.chunks import of_file
>>> path = os.path.join(tempfile.mkdtemp(), "g.el")
>>> with open(path, "w") as f:
...     _ = f.write("0 1\\n3 2\\n1 4\\n")
>>> run = Run(of_file(identify(path)), Plan.of(Variant.parse("none+union-async")))
>>> run.n, run.m, run.components(compact=True)[0]
(5, 3, 2)
"""
from __future__ import annotations

import os
import time

import numpy as np

from gconn import design
from gconn.design import Plan, Variant
from gconn.errors import VertexRangeError
from gconn.graph.relabel import AUTO_MIN_RANGE, AUTO_RATIO
from gconn.pipeline.stats import Stats


def plan_of(algorithm, problem: str, params: dict) -> Plan | None:
    """The plan a streamed run would use, or None when the variant needs the
    graph (sampling, or a finish that is not union-find)."""
    design.check_param_names(params)
    auto = algorithm is None or (isinstance(algorithm, str) and algorithm == "auto")
    if auto:
        if any(params.get(key) is not None for key in ("k", "kout", "hb_n", "bfs_sample", "bfs_levels")):
            return None     # sampling asked for: the automatic choice on the graph decides
        v = Variant.parse(design.default_name("incremental"), problem)
    else:
        v = Variant.parse(algorithm, problem)
    if v.sampling != "none" or not v.is_union_find:
        return None
    design.check_params_apply(v, params, auto)
    return Plan.of(v.with_params(**params))


class Run:
    """One streamed pass over a file: parent array, counts, times.

    ``relabel`` as :func:`gconn.connected_components` takes it; a file that
    declares its vertex count (``chunks.n``) keeps its ids as they are."""

    def __init__(self, chunks, plan: Plan, forest: bool = False, relabel=False, stats: Stats | None = None):
        from gconn.chunked.cpu_union import ChunkedUnion
        self.plan = plan
        self.declared = getattr(chunks, "n", None)
        if self.declared is not None and relabel == "auto":
            relabel = False
        self.union = ChunkedUnion(plan, forest=forest, relabel=relabel)
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
        self.ids = self.union.ids()
        if self.ids is not None:
            # numbered as they arrived: renumber in increasing id order, so
            # that the labels are numbered as SciPy's are over sorted ids
            order = np.argsort(self.ids, kind="stable")
            rank = np.empty(order.size, self.roots.dtype)
            rank[order] = np.arange(order.size, dtype=self.roots.dtype)
            self.roots = rank[self.roots[order]]
            self.ids = self.ids[order]
        elif relabel == "auto" and self.n >= AUTO_MIN_RANGE:
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
        from gconn.backends.cpu import compact as compacted, min_representatives
        t0 = time.perf_counter()
        if self.ids is not None and self.union.ids() is not None:
            # the vertices are exactly the ids that occur
            k, labels = compacted(self.roots)
            if not compact:
                labels = self.roots if self.plan.variant.min_rooted else min_representatives(self.roots)
        else:
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
                if self.ids is None:
                    labels = mins
                else:
                    # smallest input id of each component, as a position among the occurring ids
                    labels = np.searchsorted(self.ids, mins[self.ids])
        if self.stats is not None:
            self.stats.phase_times["labels"] = time.perf_counter() - t0
        return k, labels


def run(src, call):
    """``(result, input ids, stats)`` of a call on the dispatcher's
    ``chunked`` route (:mod:`gconn.api.dispatch`), or None when its variant needs the graph (sampling, or a finish
    that is not union-find) or its file the graph's loading (a vertex id
    too large for memory: the resident route names its place)."""
    plan = plan_of(call.algorithm, call.problem, call.params)
    if plan is None:
        return None
    stats = Stats(variant=plan.name, backend="cpu") if call.stats else None
    forest = call.problem == "forest"
    try:
        if src.kind == "file":
            r = stream(src.file, plan, forest=forest, relabel=call.relabel, stats=stats)
        else:
            r = Run(src.obj, plan, forest, call.relabel, stats)
    except VertexRangeError as e:
        if src.kind != "file" or src.format != "edgelist" or e.vertex_id is None:
            raise
        from gconn.io.chunks import line_of_id
        raise e.at(f"{src.file.name}, line {line_of_id(src.file, e.vertex_id)}", e.vertex_id) from None
    if forest:
        fa, fb = r.union.forest()
        if r.ids is not None:
            fa, fb = np.searchsorted(r.ids, fa), np.searchsorted(r.ids, fb)
        return (fa, fb), r.ids, stats
    k, labels = r.components(call.numbered)
    nodes = r.ids
    if nodes is None and call.relabel == "auto":
        nodes = np.arange(r.n, dtype=np.int64)
    return (k, labels), nodes, stats


def stream(file, plan: Plan, *, forest: bool = False, relabel=False, chunk_edges: int | None = None,
           stats: Stats | None = None, **options) -> Run:
    """A :class:`Run` over a file: its :class:`~gconn.io.FileInfo`, or a
    path identified with ``options`` (``format``, ``header``, ``source``,
    ``target``, ``names``); ValueError where its edges are not read in
    chunks (names, quoted fields, other formats).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> with open(path, "w") as f:
    ...     _ = f.write("0 5\\n5 9\\n")
    >>> stream(path, Plan.of(Variant.parse("none+union-async")), relabel=True).ids.tolist()
    [0, 5, 9]
    """
    from gconn.io import identify
    from gconn.io.chunks import DEFAULT_CHUNK_EDGES, of_file
    info = file if not isinstance(file, (str, os.PathLike)) else identify(file, **options)
    chunks = of_file(info, chunk_edges or DEFAULT_CHUNK_EDGES)
    if isinstance(chunks, str):
        raise ValueError(chunks)
    return Run(chunks, plan, forest, relabel, stats)


def warm(plan: Plan) -> None:
    """Load (or compile) the kernels of a streamed run: a tiny file parsed
    into int32 chunks and united."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="gconn-") as folder:
        path = os.path.join(folder, "warm.el")
        with open(path, "w") as f:
            f.write("0 1\n2 2\n")
        for forest in (False, True):  # a cc's serial small chunks, a forest's recorded links
            stream(path, plan, forest=forest, relabel="auto").components(compact=True)
