"""Direction-optimizing BFS on the GPU, for BFS sampling and BFS-CC; each
level's counters are read back.

>>> from gconn.backends.gpu import bfs
>>> from gconn.backends.gpu.launch import REGISTRY
>>> "bfs_top_down" in REGISTRY
True
"""
from __future__ import annotations

import numpy as np

from gconn.backends.core.bfs import LevelSearch
from gconn.backends.gpu._compat import cuda, view, xp
from gconn.backends.gpu.launch import WARP, dtypes_key, get, kernel, launch
from gconn.backends.gpu.primitives import atomic_add, cas, load


@kernel("bfs_top_down", lambda t: (t.ptr, t.id, t.id, t.I64, t.lvl, t.id, t.I64, t.id, t.i64))
def make_bfs_top_down():
    """One top-down level, a warp per frontier vertex; counters += (queued, degrees, inspected)."""

    def bfs_top_down(indptr, indices, frontier, nf, level, parent, depth, nxt, counters):
        tid = cuda.grid(1)
        lane = tid % WARP
        for t in range(tid // WARP, nf, cuda.gridsize(1) // WARP):
            v = frontier[t]
            s = indptr[v]
            e = indptr[v + 1]
            if lane == 0:
                atomic_add(counters, 2, e - s)
            for j in range(s + lane, e, WARP):
                w = indices[j]
                if load(level, w) < 0 and cas(level, w, -1, depth) == -1:
                    parent[w] = v
                    nxt[atomic_add(counters, 0, 1)] = w
                    atomic_add(counters, 1, indptr[w + 1] - indptr[w])

    return bfs_top_down


@kernel("bfs_bottom_up", lambda t: (t.ptr, t.id, t.I64, t.lvl, t.id, t.I64, t.i64))
def make_bfs_bottom_up():
    """One bottom-up level; counters += (found, their degrees, edges scanned)."""

    def bfs_bottom_up(indptr, indices, n, level, parent, depth, counters):
        acc = cuda.shared.array(3, np.int64)
        t = cuda.threadIdx.x
        v = cuda.grid(1)
        if t == 0:
            acc[0] = 0
            acc[1] = 0
            acc[2] = 0
        cuda.syncthreads()
        if v < n and level[v] < 0:
            b = indptr[v]
            e = indptr[v + 1]
            j = b
            while j < e:
                w = indices[j]
                j += 1
                if level[w] == depth - 1:
                    level[v] = depth
                    parent[v] = w
                    atomic_add(acc, 0, 1)
                    atomic_add(acc, 1, e - b)
                    break
            atomic_add(acc, 2, j - b)
        cuda.syncthreads()
        if t == 0:
            for c in range(3):
                atomic_add(counters, c, acc[c])

    return bfs_bottom_up


@kernel("bfs_collect", lambda t: (t.lvl, t.I64, t.I64, t.id, t.i64), offsets=False)
def make_bfs_collect():
    def bfs_collect(level, n, depth, out, counters):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if level[v] == depth:
                out[atomic_add(counters, 0, 1)] = v

    return bfs_collect


class Search(LevelSearch):
    """The GPU steps of :class:`gconn.backends.core.bfs.LevelSearch` over a run state's adjacency."""

    def __init__(self, graph, level, parent):
        super().__init__(graph.n, int(graph.indptr[-1]))
        n = graph.n
        self.dts = dtypes_key(graph.id_dtype, graph.indptr.dtype, graph.id_dtype)
        self.indptr = graph.indptr
        self.ipv, self.ixv = view(graph.indptr), view(graph.indices)
        self.level, self.levelv, self.parentv = level, view(level), view(parent)
        self.frontier, self.nxt = xp.empty(max(n, 1), graph.id_dtype), xp.empty(max(n, 1), graph.id_dtype)
        self.fv, self.nv = view(self.frontier), view(self.nxt)
        self.counters = xp.zeros(3, np.int64)
        self.cv = view(self.counters)

    def begin(self, source: int, depth: int) -> int:
        self.level[source] = depth
        self.frontier[0] = source
        return int(self.indptr[source + 1] - self.indptr[source])

    def _read(self):
        return tuple(int(x) for x in self.counters.tolist())

    def top_down(self, depth: int, nf: int):
        self.counters.fill(0)
        launch(get("bfs_top_down", (), self.dts), nf * WARP, self.ipv, self.ixv, self.fv, nf, self.levelv,
               self.parentv, depth, self.nv, self.cv, persistent=True)
        self.frontier, self.nxt, self.fv, self.nv = self.nxt, self.frontier, self.nv, self.fv
        return self._read()

    def bottom_up(self, depth: int):
        self.counters.fill(0)
        launch(get("bfs_bottom_up", (), self.dts), self.n, self.ipv, self.ixv, self.n, self.levelv,
               self.parentv, depth, self.cv)
        return self._read()

    def queue(self, depth: int) -> None:
        self.counters.fill(0)
        launch(get("bfs_collect", (), self.dts), self.n, self.levelv, self.n, depth, self.fv, self.cv,
               persistent=True)
