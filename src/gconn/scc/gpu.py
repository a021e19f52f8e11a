"""Strongly connected components on the GPU: coloring with trimming.

The method of ECL-SCC (Alabandi, Sands, Burtscher): every vertex starts
with its own id as two colours, and the largest colour is pushed forwards
(``vin``: the largest id that reaches the vertex) and backwards (``vout``:
the largest id it reaches) along the arcs until nothing changes.  A vertex
with ``vin == vout == x`` reaches x and is reached by it, so it belongs to
x's component; all of x's component has that colour pair, so the test
finds every member.  Arcs whose ends differ in a colour join different
components and are dropped; the rest start over with fresh colours.  Each
round settles at least the component of the largest id in every
remaining piece, usually far more.

Trimming first settles vertices with no remaining in-arcs or no remaining
out-arcs (singleton components: DAG-like parts of the graph) without any
propagation.

Labels come out numbered by each component's smallest vertex, not in
SciPy's order (that order is the completion order of a sequential
depth-first search); the partition is the same.

Under ``NUMBA_ENABLE_CUDASIM=1`` this runs in numba's simulator on NumPy
arrays (``xp`` is NumPy there), which is how CI tests it.

>>> import numpy as np
>>> strong_components(np.array([0, 1, 2, 2]), np.array([1, 0]), 3)  # doctest: +SKIP
(2, array([0, 0, 1], dtype=int32))
"""
from __future__ import annotations

import numpy as np

from ..gpu._compat import SIM, cuda, view, xp

#: threads per block; the simulator runs a thread per Python thread, so few
_THREADS = 32 if SIM else 256
#: blocks of the grid-stride launches
_MAX_BLOCKS = 2 if SIM else 4096

# Kernel bodies; :func:`_kernels` compiles them on first use (importing this
# module compiles nothing), tests/gpu/test_compile_scc.py to PTX without a GPU.

def _propagate(src, dst, vin, vout, changed):
    # push the largest reaching id forwards, the largest reached id backwards
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, src.size, stride):
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


def _degrees(src, dst, indeg, outdeg):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, src.size, stride):
        cuda.atomic.add(outdeg, src[i], 1)
        cuda.atomic.add(indeg, dst[i], 1)


def _smallest_member(rep, first):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for v in range(start, rep.size, stride):
        cuda.atomic.min(first, rep[v], v)


#: each kernel with its argument types (all arrays int32, 1-D, contiguous)
KERNELS = {"propagate": (_propagate, 5), "degrees": (_degrees, 4), "smallest_member": (_smallest_member, 2)}
_COMPILED: dict = {}


def _kernels():
    if not _COMPILED:
        _COMPILED.update({name: cuda.jit(fn) for name, (fn, _) in KERNELS.items()})
    return _COMPILED


def _launch(kernel, size: int, *args) -> None:
    blocks = max(1, min(_MAX_BLOCKS, (size + _THREADS - 1) // _THREADS))
    kernel[blocks, _THREADS](*(view(a) if hasattr(a, "dtype") else a for a in args))


def _arcs(indptr, indices, n: int):
    """The arcs of a CSR as int32 (src, dst) on the device, self loops dropped
    (they never join two vertices)."""
    indptr = xp.asarray(indptr)
    indices = xp.asarray(indices).astype(xp.int32, copy=False)
    slots = xp.arange(indices.size, dtype=indptr.dtype)
    src = (xp.searchsorted(indptr, slots, side="right") - 1).astype(xp.int32)
    keep = src != indices
    return src[keep], indices[keep]


def _trim(src, dst, comp, n: int):
    """Settle vertices with no in-arcs or no out-arcs left as singletons."""
    k = _kernels()
    indeg = xp.zeros(n, xp.int32)
    outdeg = xp.zeros(n, xp.int32)
    if src.size:
        _launch(k["degrees"], src.size, src, dst, indeg, outdeg)
    lone = (comp < 0) & ((indeg == 0) | (outdeg == 0))
    comp[lone] = xp.arange(n, dtype=xp.int32)[lone]


def strong_components(indptr, indices, n: int, compact: bool = True):
    """``(k, labels)`` of the digraph whose successors of ``v`` are
    ``indices[indptr[v]:indptr[v + 1]]`` (NumPy or CuPy arrays); labels on
    the device (``xp``), int32, numbered by smallest vertex, or with
    ``compact=False`` each the smallest vertex of its component."""
    if n > np.iinfo(np.int32).max:
        raise ValueError(f"GPU strong components take up to 2^31 - 1 vertices; got {n}")
    k = _kernels()
    ids = xp.arange(n, dtype=xp.int32)
    src, dst = _arcs(indptr, indices, n)
    comp = xp.full(n, -1, xp.int32)      # the largest id of each settled vertex's component
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
            _launch(k["propagate"], src.size, src, dst, vin, vout, changed)
            if not int(changed[0]):
                break
        settled = live & (vin == vout)
        comp[settled] = vin[settled]
        same = (vin[src] == vin[dst]) & (vout[src] == vout[dst]) & ~settled[src]
        src, dst = src[same], dst[same]
    first = xp.full(n, n, xp.int32)
    _launch(k["smallest_member"], n, comp, first)
    rep = first[comp]
    if not compact:
        return int(xp.count_nonzero(rep == ids)), rep
    rank = xp.cumsum(rep == ids, dtype=xp.int32)
    return int(rank[-1]), rank[rep] - 1
