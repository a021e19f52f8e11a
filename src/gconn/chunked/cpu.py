"""The chunked route on the CPU: components and spanning forests of a graph
file (or an iterator of edge chunks) in O(n + chunk) memory, each chunk
united by union-find without sampling into a growing parent array.
``relabel=True`` numbers ids as they arrive; ``relabel="auto"`` switches to
that once the ids' range exceeds ``AUTO_RATIO`` times what the edges can hold.

>>> from gconn.design import Plan, Variant
>>> u = ChunkedUnion(Plan.of(Variant.parse("none+union-async")), forest=True)
>>> for s, d in [([0], [1]), ([5, 1], [4, 2])]:
...     u.add(np.array(s), np.array(d))
>>> u.n, u.m, u.roots().tolist()
(6, 3, [0, 0, 0, 3, 4, 4])
>>> [a.tolist() for a in u.forest()]
[[0, 1, 5], [1, 2, 4]]
>>> u = ChunkedUnion(Plan.of(Variant.parse("none+union-async")), relabel="auto")
>>> u.add(np.array([0]), np.array([200000000]))
>>> u.n, u.ids().tolist()
(2, [0, 200000000])
"""
from __future__ import annotations

import os
import time

import numpy as np
from numba import njit, prange

from gconn import design
from gconn.design import UNION_FIND, Plan, Variant
from gconn.errors import VertexRangeError
from gconn.graph.ids import INT32_MAX, check_pair
from gconn.graph.memory import check_vertices
from gconn.graph._relabel_kernels import IdTable
from gconn.graph.relabel import AUTO_MIN_RANGE, AUTO_RATIO
from gconn.io.edgelist import snap_notes
from gconn.pipeline.stats import Stats
from gconn.backends.cpu import unionfind as UF
from gconn.backends.cpu.backend import collect_forest, labels_view
from gconn.backends.cpu.incremental import IncrementalState


@njit(parallel=True, cache=True)
def id_bounds(src, dst):
    """(smallest id, largest id, self loops) of a chunk, in one pass."""
    lo = np.int64(np.iinfo(np.int64).max)
    hi = np.int64(-1)
    loops = 0
    for i in prange(src.size):
        u = np.int64(src[i])
        v = np.int64(dst[i])
        lo = min(lo, min(u, v))
        hi = max(hi, max(u, v))
        if u == v:
            loops += 1
    return lo, hi, loops


class ChunkedUnion:
    """Parent array (and forest slots) over the chunks added so far; under ``relabel="auto"``
    self loops are recorded for :meth:`occurring`."""

    def __init__(self, plan: Plan, forest: bool = False, relabel=False, nodes: int | None = None):
        if plan.family != UNION_FIND or plan.sampling != "none":
            raise ValueError(f"chunks are united by a union-find finish without sampling, not {plan.name}")
        self.plan = plan
        self.state = IncrementalState(plan.variant, np.int32)
        self.n = 0
        self.m = 0
        self.forest_slots = forest
        self.fa = self.fb = np.zeros(0, np.int32)
        self.looped = np.zeros(0, np.bool_) if relabel == "auto" else None
        self.relabel = relabel
        self.table = IdTable() if relabel is True else None
        #: a file's count of its nodes: "auto" keeps ids below it as they are
        self.nodes = nodes

    def add(self, src, dst) -> None:
        """Unite the edges (src[i], dst[i]) of one chunk; larger ids grow the arrays."""
        src, dst = np.asarray(src), np.asarray(dst)
        check_pair(src, dst)
        if src.size == 0:
            return
        lo, hi, loops = id_bounds(src, dst)
        if lo < 0:
            raise ValueError(f"negative vertex id {lo} in a chunk; ids must be >= 0")
        if src.dtype.kind == "u" and hi < 0:  # uint64 beyond int64
            raise ValueError("a vertex id beyond int64 in a chunk")
        if self.table is None and self.relabel == "auto" and hi + 1 >= AUTO_MIN_RANGE \
                and hi + 1 > AUTO_RATIO * 2 * (self.m + src.size) and (self.nodes is None or hi >= self.nodes):
            self._to_table()
        if self.table is not None:
            src, dst = self.table.map(src, dst)
            hi = self.table.count - 1
        self.grow(int(hi) + 1)
        dt = self.state.id_dtype
        src, dst = src.astype(dt, copy=False), dst.astype(dt, copy=False)
        if self.looped is not None and loops:
            self.looped[src[src == dst]] = True
        c, s = self.plan, self.state
        if not self.forest_slots and src.size < UF.SERIAL_BELOW:
            UF.insert_serial(s.P, s.H, src, dst, c.fin, c.fopt, c.sopt)
        else:
            UF.finish_coo(s.P, s.H, src, dst, c.fin, c.fopt, c.sopt, self.fa, self.fb)
        self.m += src.size

    def grow(self, n: int) -> None:
        """Make the vertex count at least ``n``."""
        if n <= self.n:
            return
        s = self.state
        if n - 1 > INT32_MAX and s.id_dtype == np.int32:
            if self.plan.jtb:
                raise ValueError(f"vertex id {n - 1} is beyond the 32-bit parents of UnionJTB; use another "
                                 "union-find variant")
            s.widen()
            self.fa, self.fb = self.fa.astype(np.int64), self.fb.astype(np.int64)
        if n > s.P.size:
            cap = max(n, 2 * s.P.size, 1024)
            # checked against the run's peak: these arrays, the old ones while copying, roots and labels
            ids = s.id_dtype.itemsize
            per_vertex = s.P.itemsize + s.H.itemsize * (s.H.size > 1) + 2 * ids * self.forest_slots \
                + (self.looped is not None) + 3 * ids
            check_vertices(cap + s.P.size, f"vertex id {n - 1}", n - 1, per_vertex=per_vertex)
            s.reserve(cap)
            if self.forest_slots:
                self.fa, self.fb = _grown(self.fa, cap, -1), _grown(self.fb, cap, -1)
            if self.looped is not None:
                self.looped = _grown(self.looped, cap, False)
        self.n = n

    def roots(self) -> np.ndarray:
        """Each vertex's root (vertices 0..n-1), after full compression."""
        P = self.state.P[:self.n]
        UF.compress_all(P, self.plan.fin)
        return np.array(labels_view(P, self.plan, self.state.id_dtype), copy=True)

    def forest(self):
        """The spanning forest's (src, dst) in input ids."""
        fa, fb = collect_forest(self.fa[:self.n], self.fb[:self.n])
        if self.table is not None:
            ids = self.table.ids
            return ids[fa], ids[fb]
        return fa, fb

    def ids(self):
        """The input id of each vertex 0..n-1, None where the ids are used as they are."""
        return None if self.table is None else self.table.ids

    def _to_table(self) -> None:
        """Renumber the occurring vertices into an :class:`IdTable` in increasing id order."""
        roots = self.roots()
        ids = np.flatnonzero(self.occurring(roots)) if self.n else np.zeros(0, np.int64)
        table = IdTable()
        table.map(ids, ids[:0])
        dense = np.searchsorted(ids, roots[ids]) if ids.size else ids
        state = IncrementalState(self.plan.variant, np.int32 if ids.size <= INT32_MAX else np.int64)
        state.reserve(max(ids.size, 1))
        state.P[:ids.size] = dense
        if self.forest_slots:
            fa, fb = self.fa[ids], self.fb[ids]
            linked = fa >= 0
            fa[linked] = np.searchsorted(ids, fa[linked])
            fb[linked] = np.searchsorted(ids, fb[linked])
            self.fa, self.fb = _grown(fa, state.P.size, -1), _grown(fb, state.P.size, -1)
        self.looped = _grown(self.looped[ids], state.P.size, False)
        self.state, self.table, self.n = state, table, int(ids.size)

    def occurring(self, roots: np.ndarray) -> np.ndarray:
        """Whether each vertex occurs in an edge (under ``relabel="auto"``)."""
        sizes = np.bincount(roots, minlength=roots.size)
        return (sizes[roots] > 1) | self.looped[:self.n]


def _grown(a: np.ndarray, size: int, fill) -> np.ndarray:
    out = np.full(size, fill, a.dtype)
    out[:a.size] = a
    return out


def plan_of(algorithm, problem: str, params: dict) -> Plan | None:
    """The plan a chunked run would use, or None when the variant needs the graph."""
    design.check_param_names(params)
    auto = design.is_auto(algorithm)
    if auto:
        if any(params.get(key) is not None for key in ("k", "kout", "hb_n", "bfs_sample", "bfs_levels")):
            return None
        v = Variant.parse(design.default_name("incremental"), problem)
    else:
        v = Variant.parse(algorithm, problem)
    if v.sampling != "none" or not v.is_union_find:
        return None
    design.check_params_apply(v, params, auto)
    return Plan.of(v.with_params(**params))


class Run:
    """One chunked pass over a file; a file that declares n keeps its ids as they are."""

    def __init__(self, chunks, plan: Plan, forest: bool = False, relabel=False, stats: Stats | None = None):
        self.plan = plan
        self.declared = getattr(chunks, "n", None)
        if self.declared is not None and relabel == "auto":
            relabel = False
        # a SNAP header's node count (gconn.io.edgelist.snap_count, the same for a whole file)
        snap = getattr(chunks, "snap", None) if relabel is not True else None
        self.union = ChunkedUnion(plan, forest=forest, relabel=relabel,
                                  nodes=snap.dialect.snap_nodes if snap is not None else None)
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
            self.union.grow(self.declared)
        self.notes, named = (), False
        if snap is not None:
            hashed = self.union.ids()       # past the nodes, "auto" may have hashed the ids on the way
            hi = int(hashed.max()) if hashed is not None and hashed.size else self.union.n - 1
            self.notes = snap_notes(snap, hi, relabel)
            if hi < snap.dialect.snap_nodes:
                self.union.grow(snap.dialect.snap_nodes)
                relabel = False     # as a declared n: every node counts, those without edges too
            else:
                named = True
        self.n, self.m = self.union.n, self.union.m
        t0 = time.perf_counter()
        self.roots = self.union.roots()
        self.ids = self.union.ids()
        if self.ids is not None:
            # renumber in increasing id order, so that labels are numbered as SciPy's
            order = np.argsort(self.ids, kind="stable")
            rank = np.empty(order.size, self.roots.dtype)
            rank[order] = np.arange(order.size, dtype=self.roots.dtype)
            self.roots = rank[self.roots[order]]
            self.ids = self.ids[order]
            if named:
                self.notes = snap_notes(snap, int(self.ids[-1]), relabel, self.ids.size)
        elif relabel == "auto" and (named or self.n >= AUTO_MIN_RANGE):
            seen = self.union.occurring(self.roots)
            if named or self.n > AUTO_RATIO * int(np.count_nonzero(seen)):
                self.ids = np.flatnonzero(seen)
            if named:
                self.notes = snap_notes(snap, self.n - 1, relabel, self.ids.size)
        if stats is not None:
            stats.n, stats.m = self.n if self.ids is None else self.ids.size, self.m
            stats.relabelled = self.ids is not None
            stats.phase_times.update({"read": parse, "finish": unite, "finalize": time.perf_counter() - t0})

    def components(self, compact: bool):
        """(k, labels): SciPy's numbering (``compact``) or each component's smallest vertex."""
        from gconn.backends.cpu import compact as compacted, min_representatives
        t0 = time.perf_counter()
        k, labels = compacted(self.roots)
        # ids that occur among ids used as they are (relabel="auto"): the others drop out
        sparse = self.ids is not None and self.union.ids() is None
        if sparse:
            labels = labels[self.ids]
            kept = np.zeros(k, labels.dtype)
            kept[labels] = 1
            k = int(kept.sum())
            labels = (np.cumsum(kept) - 1).astype(labels.dtype)[labels]
        if not compact:
            labels = self.roots if self.plan.variant.min_rooted else min_representatives(self.roots)
            if sparse:
                # smallest input id of each component, as a position among the occurring ids
                labels = np.searchsorted(self.ids, labels[self.ids])
        if self.stats is not None:
            self.stats.phase_times["labels"] = time.perf_counter() - t0
        return k, labels


def run(src, call):
    """``(result, input ids, stats)`` of a call on the ``chunked`` route, or None
    when its variant needs the graph."""
    plan = plan_of(call.algorithm, call.problem, call.params)
    if plan is None:
        return None
    stats = Stats(variant=plan.name, backend="cpu") if call.stats else None
    forest = call.problem == "forest"
    try:
        if src.kind == "file":
            r = run_file(src.file, plan, forest=forest, relabel=call.relabel, stats=stats)
        else:
            r = Run(src.obj, plan, forest, call.relabel, stats)
    except VertexRangeError as e:
        if src.kind != "file" or src.format != "edgelist" or e.vertex_id is None:
            raise
        from gconn.io.chunks import line_of_id
        raise e.at(f"{src.file.name}, line {line_of_id(src.file, e.vertex_id)}", e.vertex_id) from None
    if src.kind == "file":
        src.read_notes.extend(r.notes)
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


def run_file(file, plan: Plan, *, forest: bool = False, relabel=False, chunk_edges: int | None = None,
           stats: Stats | None = None) -> Run:
    """A :class:`Run` over a file (a FileInfo or a path); ValueError where its edges are not read in chunks.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> with open(path, "w") as f:
    ...     _ = f.write("0 5\\n5 9\\n3 4\\n")
    >>> r = run_file(path, Plan.of(Variant.parse("none+union-async")), relabel=True)
    >>> r.n, r.m, r.components(compact=True)[0], r.ids.tolist()
    (5, 3, 2, [0, 3, 4, 5, 9])
    """
    from gconn.io import identify
    from gconn.io.chunks import DEFAULT_CHUNK_EDGES, of_file
    info = file if not isinstance(file, (str, os.PathLike)) else identify(file)
    chunks = of_file(info, chunk_edges or DEFAULT_CHUNK_EDGES)
    if isinstance(chunks, str):
        raise ValueError(chunks)
    return Run(chunks, plan, forest, relabel, stats)


def warm(plan: Plan) -> None:
    """Load (or compile) the kernels of a chunked run on a tiny file."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="gconn-") as folder:
        path = os.path.join(folder, "warm.el")
        with open(path, "w") as f:
            f.write("0 1\n2 2\n")
        for forest in (False, True):  # a cc's serial small chunks, a forest's recorded links
            run_file(path, plan, forest=forest, relabel="auto").components(compact=True)
