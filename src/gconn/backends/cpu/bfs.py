"""Direction-optimizing BFS (Beamer et al.): one search for BFS sampling
and BFS-CC."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.backends.core.bfs import LevelSearch
from gconn.backends.cpu import atomics


@njit(parallel=True, cache=True)
def _top_down(indptr, indices, frontier, level, parent, depth, nxt, counter):
    """One top-down level; returns the edges scanned and the new frontier's edges."""
    scanned = 0
    found_deg = 0
    for t in prange(frontier.size):
        v = frontier[t]
        scanned += indptr[v + 1] - indptr[v]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if atomics.load(level, w) < 0 and atomics.cas(level, w, -1, depth) == -1:
                parent[w] = v
                nxt[atomics.atomic_add(counter, 0, 1)] = w
                found_deg += indptr[w + 1] - indptr[w]
    return scanned, found_deg


@njit(parallel=True, cache=True)
def _bottom_up(indptr, indices, level, parent, depth):
    n = indptr.size - 1
    found = 0
    found_deg = 0
    scanned = 0
    for vi in prange(n):
        v = np.int64(vi)
        if level[v] < 0:
            b = indptr[v]
            e = indptr[v + 1]
            j = b
            while j < e:
                if level[indices[j]] == depth - 1:
                    level[v] = depth
                    parent[v] = indices[j]
                    found += 1
                    found_deg += e - b
                    j += 1
                    break
                j += 1
            scanned += j - b
    return found, found_deg, scanned


@njit(parallel=True, cache=True)
def degree_sum(indptr, verts):
    """The edges of ``verts``."""
    s = 0
    for t in prange(verts.size):
        v = verts[t]
        s += indptr[v + 1] - indptr[v]
    return s


class Search(LevelSearch):
    """The CPU steps of :class:`gconn.backends.core.bfs.LevelSearch` (``level`` -1: unvisited)."""

    def __init__(self, indptr, indices, level, parent):
        super().__init__(indptr.size - 1, int(indptr[-1]))
        self.indptr, self.indices = indptr, indices
        self.level, self.parent = level, parent
        self.nxt = np.empty(self.n, np.int64)
        self.counter = np.zeros(1, np.int64)
        self.frontier = self.nxt[:0]

    def begin(self, source: int, depth: int) -> int:
        self.level[source] = depth
        self.frontier = np.array([source], np.int64)
        return int(self.indptr[source + 1] - self.indptr[source])

    def top_down(self, depth: int, nf: int):
        self.counter[0] = 0
        scanned, fe = _top_down(self.indptr, self.indices, self.frontier, self.level, self.parent, depth,
                                self.nxt, self.counter)
        nf = int(self.counter[0])
        self.frontier = self.nxt[:nf].copy()
        return nf, int(fe), int(scanned)

    def bottom_up(self, depth: int):
        nf, fe, scanned = _bottom_up(self.indptr, self.indices, self.level, self.parent, depth)
        return int(nf), int(fe), int(scanned)

    def queue(self, depth: int) -> None:
        self.frontier = np.flatnonzero(self.level == depth)


@njit(cache=True)
def _next_unvisited(level, start):
    for v in range(start, level.size):
        if level[v] < 0:
            return v
    return level.size


def components(indptr: np.ndarray, indices: np.ndarray, P: np.ndarray):
    """BFS-CC, the paper's baseline: a BFS from each unvisited vertex in id
    order, its forest written into ``P`` (holding ``arange(n)``); returns
    (edges inspected, BFS levels over all searches).

    >>> indptr = np.array([0, 1, 2, 2]); indices = np.array([1, 0], np.int32)
    >>> P = np.arange(3, dtype=np.int32)
    >>> inspected, levels = components(indptr, indices, P)
    >>> P.tolist()
    [0, 0, 2]
    """
    n = indptr.size - 1
    # isolated vertices get level 0 without a search
    level = np.full(n, -1, np.int32 if 2 * n + 2 <= np.iinfo(np.int32).max else np.int64)
    level[np.diff(indptr) == 0] = 0
    search = Search(indptr, indices, level, P)
    s = _next_unvisited(level, 0)
    while s < n:
        search.run(s)
        s = _next_unvisited(level, s + 1)
    return search.inspected, search.levels
