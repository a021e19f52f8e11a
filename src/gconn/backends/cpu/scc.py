"""Strongly connected components on the CPU: Tarjan's algorithm with an
explicit stack.  Components are numbered as they complete, the search
started at 0, 1, 2, ... and successors taken last to first: SciPy's order
(``connection='strong'``), so the labels equal SciPy's.

>>> import numpy as np
>>> from gconn.backends.cpu.scc import tarjan
>>> tarjan(np.array([0, 1, 2, 2]), np.array([1, 0]), 3)   # 0 <-> 1, 2 alone
(2, array([0, 0, 1], dtype=int32))
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _tarjan(indptr, indices, n):
    dt = indptr.dtype
    # order[v]: discovery number, -1 before, n once v has its component (it never lowers low[])
    order = np.full(n, -1, dt)
    low = np.empty(n, dt)
    labels = np.empty(n, np.int32)
    cursor = np.empty(n, dt)       # v's next arc to look at, counting down
    path = np.empty(n, dt)         # the DFS path
    pending = np.empty(n, dt)      # Tarjan's stack: visited, no component yet
    top = 0
    discovered = 0
    k = 0
    for s in range(n):
        if order[s] >= 0:
            continue
        order[s] = discovered
        low[s] = discovered
        discovered += 1
        cursor[s] = indptr[s + 1]
        path[0] = s
        depth = 1
        pending[top] = s
        top += 1
        while depth > 0:
            v = path[depth - 1]
            e = cursor[v]
            first = indptr[v]
            lv = low[v]
            while e > first:
                e -= 1
                w = indices[e]
                ow = order[w]
                if ow < 0:
                    break
                if ow < lv:
                    lv = ow
            else:
                e = -1
            low[v] = lv
            if e >= 0:
                cursor[v] = e
                order[w] = discovered
                low[w] = discovered
                discovered += 1
                cursor[w] = indptr[w + 1]
                path[depth] = w
                depth += 1
                pending[top] = w
                top += 1
                continue
            depth -= 1
            if lv == order[v]:
                while True:
                    top -= 1
                    w = pending[top]
                    labels[w] = k
                    order[w] = n
                    if w == v:
                        break
                k += 1
            if depth > 0:
                u = path[depth - 1]
                if lv < low[u]:
                    low[u] = lv
    return k, labels


def tarjan(indptr, indices, n: int):
    """``(k, int32 labels)`` of the strongly connected components of a CSR digraph."""
    dt = np.promote_types(indptr.dtype, indices.dtype)
    k, labels = _tarjan(np.ascontiguousarray(indptr, dt), np.ascontiguousarray(indices, dt), int(n))
    return int(k), labels


@njit(cache=True)
def smallest_members(labels, k):
    """The smallest vertex of each of the ``k`` components."""
    first = np.full(k, labels.size, labels.dtype)
    for v in range(labels.size - 1, -1, -1):
        first[labels[v]] = v
    return first
