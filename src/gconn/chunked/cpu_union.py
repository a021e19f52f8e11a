"""Union-find over a stream of edge chunks on the CPU: the consumer of the
streamed path (:mod:`gconn.chunked.cpu_route`).

Each chunk is united in parallel into the parent array of an
:class:`~gconn.backends.cpu.incremental.IncrementalState`, which doubles as larger
ids arrive: the vertex count need not be known in advance, and memory is
O(n + chunk) whatever the number of edges.  The union is the static COO
finish (:func:`gconn.backends.cpu.unionfind.finish_coo`), so each link records the
edge that made it and the spanning forest comes from the same pass.

>>> from gconn.design import Plan, Variant
>>> u = ChunkedUnion(Plan.of(Variant.parse("none+union-async")), forest=True)
>>> for s, d in [([0], [1]), ([5, 1], [4, 2])]:
...     u.add(np.array(s), np.array(d))
>>> u.n, u.m, u.roots().tolist()
(6, 3, [0, 0, 0, 3, 4, 4])
>>> [a.tolist() for a in u.forest()]
[[0, 1, 5], [1, 2, 4]]

With ``relabel=True`` the ids are numbered as they first arrive
(:class:`gconn.graph._relabel_kernels.IdTable`), so memory follows the distinct
ids, not their range; ``relabel="auto"`` switches to that numbering as soon
as the ids' range exceeds :data:`gconn.graph.relabel.AUTO_RATIO` times any
number of distinct ids the edges so far can hold.  :meth:`ids` then gives
each vertex's input id.

>>> u = ChunkedUnion(Plan.of(Variant.parse("none+union-async")), relabel="auto")
>>> u.add(np.array([0]), np.array([200000000]))
>>> u.n, u.ids().tolist()
(2, [0, 200000000])
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.design import UNION_FIND, Plan
from gconn.graph.ids import INT32_MAX, check_pair
from gconn.graph.memory import check_vertices
from gconn.graph._relabel_kernels import IdTable
from gconn.graph.relabel import AUTO_MIN_RANGE, AUTO_RATIO
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
    """Parent array (and forest slots) over the chunks added so far.

    ``mark_loops`` keeps which vertices have a self loop, so that
    :meth:`occurring` can tell which ids occur in an edge at all (it is on
    whenever ``relabel`` is "auto").
    """

    def __init__(self, plan: Plan, forest: bool = False, mark_loops: bool = False, relabel=False):
        if plan.family != UNION_FIND or plan.sampling != "none":
            raise ValueError(f"chunks are united by a union-find finish without sampling, not {plan.name}")
        self.plan = plan
        self.state = IncrementalState(plan.variant, np.int32)
        self.n = 0
        self.m = 0
        self.forest_slots = forest
        self.fa = self.fb = np.zeros(0, np.int32)
        self.looped = np.zeros(0, np.bool_) if mark_loops or relabel == "auto" else None
        self.relabel = relabel
        self.table = IdTable() if relabel is True else None

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
                and hi + 1 > AUTO_RATIO * 2 * (self.m + src.size):
            self._to_table()
        if self.table is not None:
            src, dst = self.table.map(src, dst)
            hi = self.table.count - 1
        self._grow(int(hi) + 1)
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

    def _grow(self, n: int) -> None:
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
            # Checked against the run's peak: these arrays, the old ones while
            # copying, and the roots and labels the run ends with.
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

    def resize(self, n: int) -> None:
        """Make the vertex count at least ``n`` (isolated vertices a file declares)."""
        self._grow(n)

    def roots(self) -> np.ndarray:
        """Each vertex's root (vertices 0..n-1), after full compression."""
        P = self.state.P[:self.n]
        UF.compress_all(P, self.plan.fin)
        return np.array(labels_view(P, self.plan, self.state.id_dtype), copy=True)

    def forest(self):
        """The spanning forest's (src, dst): one recorded edge per link, in
        input ids."""
        fa, fb = collect_forest(self.fa[:self.n], self.fb[:self.n])
        if self.table is not None:
            ids = self.table.ids
            return ids[fa], ids[fb]
        return fa, fb

    def ids(self):
        """The input id of each vertex 0..n-1, None where the ids are used as
        they are."""
        return None if self.table is None else self.table.ids

    def _to_table(self) -> None:
        """Renumber the vertices seen so far into an :class:`IdTable` (the
        ids turned out sparse): each occurring id in increasing order, its
        component and recorded forest edge carried over."""
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
        """Whether each vertex occurs in an edge: its component has another
        vertex, or it has a self loop (needs ``mark_loops``)."""
        sizes = np.bincount(roots, minlength=roots.size)
        return (sizes[roots] > 1) | self.looped[:self.n]


def _grown(a: np.ndarray, size: int, fill) -> np.ndarray:
    out = np.full(size, fill, a.dtype)
    out[:a.size] = a
    return out
