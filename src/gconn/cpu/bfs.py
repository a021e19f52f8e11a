"""Direction-optimizing BFS (Beamer et al.) for BFS sampling and BFS-CC."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import atomics

#: Beamer's switching parameters: go bottom-up when the frontier's edges
#: exceed the unexplored edges / ALPHA; back to top-down when the frontier
#: shrinks below n / BETA.
ALPHA = 15
BETA = 18


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
def _frontier_edges(indptr, frontier):
    s = 0
    for t in prange(frontier.size):
        v = frontier[t]
        s += indptr[v + 1] - indptr[v]
    return s


def bfs(indptr: np.ndarray, indices: np.ndarray, source: int, max_levels: int | None = None):
    """Levels (-1 unreached) and BFS-tree parents (-1 at the source and
    unreached) from ``source``, stopping after ``max_levels`` levels when
    given; also the number of edges inspected."""
    n = indptr.size - 1
    level = np.full(n, -1, np.int32)
    parent = np.full(n, -1, indices.dtype)
    level[source] = 0
    frontier = np.array([source], np.int64)
    nxt = np.empty(n, np.int64)
    counter = np.zeros(1, np.int64)
    m2 = int(indptr[-1])
    explored_edges = int(indptr[source + 1] - indptr[source])
    inspected = 0
    depth = 0
    bottom_up = False
    nf = 1
    fe = explored_edges
    limit = n if max_levels is None else max_levels
    while nf > 0 and depth < limit:
        depth += 1
        if not bottom_up and fe > (m2 - explored_edges) / ALPHA:
            bottom_up = True
        elif bottom_up and nf < n / BETA:
            bottom_up = False
            frontier = _frontier_of(level, depth - 1)
        if bottom_up:
            nf, fe, scanned = _bottom_up(indptr, indices, level, parent, depth)
            nf = int(nf)
            fe = int(fe)
            inspected += int(scanned)
        else:
            inspected += int(_frontier_edges(indptr, frontier))
            counter[0] = 0
            _top_down(indptr, indices, frontier, level, parent, depth, nxt, counter)
            nf = int(counter[0])
            frontier = nxt[:nf].copy()
            fe = int(_frontier_edges(indptr, frontier))
        explored_edges += fe
    return level, parent, inspected


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
    # Depths run on across the searches, so ``level == depth`` always means
    # the current search; isolated vertices (a BFS that visits only its
    # source) get level 0 without a search.
    level = np.full(n, -1, np.int32 if 2 * n + 2 <= np.iinfo(np.int32).max else np.int64)
    deg = np.diff(indptr)
    level[deg == 0] = 0
    nxt = np.empty(n, np.int64)
    counter = np.zeros(1, np.int64)
    unexplored = int(indptr[-1])
    inspected = 0
    levels = 0
    depth = 0
    s = _next_unvisited(level, 0)
    while s < n:
        depth += 1
        level[s] = depth
        frontier = np.array([s], np.int64)
        nf = 1
        fe = int(deg[s])
        unexplored -= fe
        bottom_up = False
        while nf > 0:
            depth += 1
            levels += 1
            # Beamer's switch, plus: never go bottom-up for a frontier that
            # would switch straight back -- a bottom-up step scans all n
            # vertices, which late, small components must not pay.
            if not bottom_up and fe > unexplored / ALPHA and nf >= n / BETA:
                bottom_up = True
            elif bottom_up and nf < n / BETA:
                bottom_up = False
                frontier = _frontier_of(level, depth - 1)
            if bottom_up:
                nf, fe, scanned = _bottom_up(indptr, indices, level, P, depth)
                nf = int(nf)
                fe = int(fe)
                inspected += int(scanned)
            else:
                inspected += fe
                counter[0] = 0
                _top_down(indptr, indices, frontier, level, P, depth, nxt, counter)
                nf = int(counter[0])
                frontier = nxt[:nf].copy()
                fe = int(_frontier_edges(indptr, frontier))
            unexplored -= fe
        s = _next_unvisited(level, s + 1)
    return inspected, levels


@njit(parallel=True, cache=True)
def relabel_visited(P, level, mn):
    """Point every visited vertex at the visited set's minimum id, keeping
    parent <= child for the finishes that rely on it."""
    for vi in prange(P.size):
        v = np.int64(vi)
        if level[v] >= 0:
            P[v] = mn


def pick_source(indptr: np.ndarray, sample: int, seed: int) -> int:
    """The highest-degree vertex of a random sample (Slota et al.)."""
    n = indptr.size - 1
    rng = np.random.default_rng(seed)
    cand = rng.integers(0, n, size=min(sample, n)) if n > sample else np.arange(n)
    deg = indptr[cand + 1] - indptr[cand]
    return int(cand[int(np.argmax(deg))])
