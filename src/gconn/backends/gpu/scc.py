"""Strongly connected components on the GPU: coloring with trimming.

ECL-SCC's method: each vertex's id is pushed forwards as ``vin`` (the largest
id reaching it) and backwards as ``vout`` (the largest it reaches) until
nothing changes; ``vin == vout == x`` puts a vertex in x's component.  Arcs
whose ends differ in a colour are dropped and the rest start over.  Trimming
first settles vertices with no in-arcs or no out-arcs left.  Labels are
numbered by each component's smallest vertex (not SciPy's order).

>>> import numpy as np
>>> strong_components(np.array([0, 1, 2, 2]), np.array([1, 0]), 3)  # doctest: +SKIP
(2, array([0, 0, 1], dtype=int32))
"""
from __future__ import annotations

import numpy as np

from gconn.backends.gpu._compat import cuda, view, xp
from gconn.backends.gpu.launch import dtypes_key, get, kernel, launch

#: every array of these kernels is int32
_DTYPES = dtypes_key(np.int32, np.int32, np.int32)


@kernel("scc_propagate", lambda t: (t.id, t.id, t.id, t.id, t.id), offsets=False)
def make_scc_propagate():
    """Push ``vin`` forwards and ``vout`` backwards along every arc."""

    def scc_propagate(src, dst, vin, vout, changed):
        for i in range(cuda.grid(1), src.size, cuda.gridsize(1)):
            u = src[i]
            v = dst[i]
            a = vin[u]
            if a > vin[v]:
                cuda.atomic.max(vin, v, a)
                changed[0] = 1
            b = vout[v]
            if b > vout[u]:
                cuda.atomic.max(vout, u, b)
                changed[0] = 1

    return scc_propagate


@kernel("scc_degrees", lambda t: (t.id, t.id, t.id, t.id), offsets=False)
def make_scc_degrees():
    def scc_degrees(src, dst, indeg, outdeg):
        for i in range(cuda.grid(1), src.size, cuda.gridsize(1)):
            cuda.atomic.add(outdeg, src[i], 1)
            cuda.atomic.add(indeg, dst[i], 1)

    return scc_degrees


@kernel("scc_smallest_member", lambda t: (t.id, t.id), offsets=False)
def make_scc_smallest_member():
    def scc_smallest_member(rep, first):
        for v in range(cuda.grid(1), rep.size, cuda.gridsize(1)):
            cuda.atomic.min(first, rep[v], v)

    return scc_smallest_member


def _launch(kind: str, size: int, *arrays) -> None:
    launch(get(kind, (), _DTYPES), size, *(view(a) for a in arrays), persistent=True)


def _arcs(indptr, indices, n: int):
    indptr = xp.asarray(indptr)
    indices = xp.asarray(indices).astype(xp.int32, copy=False)
    slots = xp.arange(indices.size, dtype=indptr.dtype)
    src = (xp.searchsorted(indptr, slots, side="right") - 1).astype(xp.int32)
    keep = src != indices
    return src[keep], indices[keep]


def _trim(src, dst, comp, n: int):
    """Settle vertices with no in-arcs or no out-arcs left as singletons."""
    indeg = xp.zeros(n, xp.int32)
    outdeg = xp.zeros(n, xp.int32)
    if src.size:
        _launch("scc_degrees", src.size, src, dst, indeg, outdeg)
    lone = (comp < 0) & ((indeg == 0) | (outdeg == 0))
    comp[lone] = xp.arange(n, dtype=xp.int32)[lone]


def strong_components(indptr, indices, n: int, compact: bool = True):
    """``(k, labels)`` of the digraph of a CSR; int32 labels on the device, numbered by smallest
    vertex, or (``compact=False``) each that vertex."""
    if n > np.iinfo(np.int32).max:
        raise ValueError(f"GPU strong components take up to 2^31 - 1 vertices; got {n}")
    ids = xp.arange(n, dtype=xp.int32)
    src, dst = _arcs(indptr, indices, n)
    comp = xp.full(n, -1, xp.int32)      # a settled vertex's component's largest id
    changed = xp.zeros(1, xp.int32)
    while True:
        _trim(src, dst, comp, n)
        live = comp < 0
        if not bool(live.any()):
            break
        vin = ids.copy()
        vout = ids.copy()
        live_arcs = live[src] & live[dst]
        src, dst = src[live_arcs], dst[live_arcs]
        while src.size:
            changed[0] = 0
            _launch("scc_propagate", src.size, src, dst, vin, vout, changed)
            if not int(changed[0]):
                break
        settled = live & (vin == vout)
        comp[settled] = vin[settled]
        same = (vin[src] == vin[dst]) & (vout[src] == vout[dst]) & ~settled[src]
        src, dst = src[same], dst[same]
    first = xp.full(n, n, xp.int32)
    _launch("scc_smallest_member", n, comp, first)
    rep = first[comp]
    if not compact:
        return int(xp.count_nonzero(rep == ids)), rep
    rank = xp.cumsum(rep == ids, dtype=xp.int32)
    return int(rank[-1]), rank[rep] - 1
