"""Direction-optimizing BFS (Beamer et al.): one search for BFS sampling
and BFS-CC."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..core.bfs import next_direction
from . import atomics


@njit(parallel=True, cache=True)
def _top_down(indptr, indices, frontier, level, parent, depth, nxt, counter):
    for t in prange(frontier.size):
        v = frontier[t]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if atomics.load(level, w) < 0 and atomics.cas(level, w, -1, depth) == -1:
                parent[w] = v
                nxt[atomics.atomic_add(counter, 0, 1)] = w


@njit(parallel=True, cache=True)
def _bottom_up(indptr, indices, level, parent, depth):
    # Each unvisited vertex looks for any neighbour on the previous level and
    # stops at the first: the saving on low-diameter graphs.
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
def _frontier_of(level, depth):
    n = level.size
    cnt = 0
    for vi in prange(n):
        v = np.int64(vi)
        if level[v] == depth:
            cnt += 1
    out = np.empty(cnt, np.int64)
    k = 0
    for v in range(n):
        if level[v] == depth:
            out[k] = v
            k += 1
    return out


@njit(parallel=True, cache=True)
def degree_sum(indptr, verts):
    """The edges of ``verts``: a frontier's, or the active vertices' after
    sampling."""
    s = 0
    for t in prange(verts.size):
        v = verts[t]
        s += indptr[v + 1] - indptr[v]
    return s


class Search:
    """Direction-optimizing BFS over one graph, run from one source or, for
    BFS-CC, from each not-yet-visited vertex in turn.

    ``level`` holds -1 for unvisited vertices; depths run on across the
    searches, so ``level == depth`` always means the current search.
    ``parent`` receives the BFS tree.  ``inspected`` and ``levels`` add up
    over the searches.
    """

    def __init__(self, indptr, indices, level, parent):
        self.indptr, self.indices = indptr, indices
        self.level, self.parent = level, parent
        self.n = indptr.size - 1
        self.nxt = np.empty(self.n, np.int64)
        self.counter = np.zeros(1, np.int64)
        self.unexplored = int(indptr[-1])
        self.depth = 0
        self.inspected = 0
        self.levels = 0

    def run(self, source: int, max_levels: int | None = None) -> None:
        """Visit the component of the unvisited ``source``, for at most
        ``max_levels`` levels."""
        indptr, indices, level, parent = self.indptr, self.indices, self.level, self.parent
        n = self.n
        self.depth += 1
        level[source] = self.depth
        frontier = np.array([source], np.int64)
        nf = 1
        fe = int(indptr[source + 1] - indptr[source])
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
                frontier = _frontier_of(level, depth - 1)
            if bottom_up:
                nf, fe, scanned = _bottom_up(indptr, indices, level, parent, depth)
                nf, fe = int(nf), int(fe)
                self.inspected += int(scanned)
            else:
                self.inspected += fe
                self.counter[0] = 0
                _top_down(indptr, indices, frontier, level, parent, depth, self.nxt, self.counter)
                nf = int(self.counter[0])
                frontier = self.nxt[:nf].copy()
                fe = int(degree_sum(indptr, frontier))
            self.unexplored -= fe
        self.levels += done


@njit(cache=True)
def _next_unvisited(level, start):
    for v in range(start, level.size):
        if level[v] < 0:
            return v
    return level.size


def components(indptr: np.ndarray, indices: np.ndarray, P: np.ndarray):
    """BFS-CC, the paper's baseline: a direction-optimizing BFS from each
    not-yet-visited vertex in id order.

    Writes the BFS forest into ``P`` (which must hold ``arange(n)``): every
    source -- the smallest id of its component -- stays a root.  Returns
    (edges inspected, BFS levels over all searches).

    >>> indptr = np.array([0, 1, 2, 2]); indices = np.array([1, 0], np.int32)
    >>> P = np.arange(3, dtype=np.int32)
    >>> inspected, levels = components(indptr, indices, P)
    >>> P.tolist()
    [0, 0, 2]
    """
    n = indptr.size - 1
    # Isolated vertices (a BFS that visits only its source) get level 0
    # without a search.
    level = np.full(n, -1, np.int32 if 2 * n + 2 <= np.iinfo(np.int32).max else np.int64)
    level[np.diff(indptr) == 0] = 0
    search = Search(indptr, indices, level, P)
    s = _next_unvisited(level, 0)
    while s < n:
        search.run(s)
        s = _next_unvisited(level, s + 1)
    return search.inspected, search.levels
