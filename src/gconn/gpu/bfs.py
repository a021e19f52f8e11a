"""Direction-optimizing BFS (Beamer et al.) on the GPU: one search for BFS
sampling and BFS-CC.  Level-synchronous, so it reads each level's counters
back.

>>> from gconn.gpu import bfs
>>> from gconn.gpu.launch import REGISTRY
>>> "bfs_top_down" in REGISTRY
True
"""
from __future__ import annotations

import numpy as np

from ..core.bfs import next_direction
from ._compat import cuda, view, xp
from .launch import WARP, dtypes_key, get, kernel, launch
from .primitives import atomic_add, cas, load


@kernel("bfs_top_down", lambda t: (t.ptr, t.id, t.id, t.I64, t.lvl, t.id, t.I64, t.id, t.i64))
def make_bfs_top_down():
    """One top-down level: a warp per frontier vertex claims unvisited
    neighbours with a CAS on ``level`` and appends them to the next queue.
    counters[0] = queue length, counters[1] += the claimed vertices'
    degrees (the next frontier's edges, for the direction switch),
    counters[2] += edges inspected."""

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
    """One bottom-up level: each unvisited vertex looks for a neighbour on
    the previous level and stops at the first.  counters[0] += found,
    counters[1] += their degrees, counters[2] += edges scanned (per block)."""

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
    """The vertices on level ``depth`` as a queue (to go back top-down)."""

    def bfs_collect(level, n, depth, out, counters):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if level[v] == depth:
                out[atomic_add(counters, 0, 1)] = v

    return bfs_collect


class Search:
    """Direction-optimizing BFS over one device graph, run from one source
    or, for BFS-CC, from each not-yet-visited vertex in turn (as
    :class:`gconn.cpu.bfs.Search`).

    ``level`` (int32, -1 unvisited) and ``parent`` are device arrays;
    depths run on across the searches, so ``level == depth`` always means
    the current search.  ``inspected`` and ``levels`` add up over searches.
    """

    def __init__(self, graph, level, parent):
        n = graph.n
        self.n = n
        self.dts = dtypes_key(graph.id_dtype, graph.indptr.dtype, graph.id_dtype)
        self.indptr = graph.indptr
        self.ipv, self.ixv = view(graph.indptr), view(graph.indices)
        self.level, self.levelv, self.parentv = level, view(level), view(parent)
        self.frontier, self.nxt = xp.empty(max(n, 1), graph.id_dtype), xp.empty(max(n, 1), graph.id_dtype)
        self.counters = xp.zeros(3, np.int64)
        self.cv = view(self.counters)
        self.unexplored = int(graph.indptr[-1])
        self.depth = 0
        self.inspected = 0
        self.levels = 0

    def run(self, source: int, max_levels: int | None = None) -> None:
        """Visit the component of the unvisited ``source``, for at most
        ``max_levels`` levels."""
        n, dts, cv, counters = self.n, self.dts, self.cv, self.counters
        self.depth += 1
        self.level[source] = self.depth
        self.frontier[0] = source
        fv, nv = view(self.frontier), view(self.nxt)
        nf = 1
        fe = int(self.indptr[source + 1] - self.indptr[source])
        self.unexplored -= fe
        bottom_up = False
        limit = n if max_levels is None else max_levels
        done = 0
        while nf > 0 and done < limit:
            self.depth += 1
            done += 1
            depth = self.depth
            was_bottom_up = bottom_up
            bottom_up = next_direction(bottom_up, nf, fe, self.unexplored, n)
            if was_bottom_up and not bottom_up:
                counters.fill(0)
                launch(get("bfs_collect", (), dts), n, self.levelv, n, depth - 1, fv, cv, persistent=True)
                nf = int(counters[0])
            counters.fill(0)
            if bottom_up:
                launch(get("bfs_bottom_up", (), dts), n, self.ipv, self.ixv, n, self.levelv, self.parentv,
                       depth, cv)
            else:
                launch(get("bfs_top_down", (), dts), nf * WARP, self.ipv, self.ixv, fv, nf, self.levelv,
                       self.parentv, depth, nv, cv, persistent=True)
                self.frontier, self.nxt, fv, nv = self.nxt, self.frontier, nv, fv
            nf, fe, scanned = (int(x) for x in counters.tolist())
            self.inspected += scanned
            self.unexplored -= fe
        self.levels += done
