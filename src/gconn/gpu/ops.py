"""Array-level operations of the GPU backend interface (see :mod:`gconn.cpu`).

Compaction numbers components 0..k-1 by their smallest vertex, which is
scipy's numbering, for any choice of root: a per-root minimum by atomic
min, a flag on each component's smallest vertex, an exclusive scan.  When
every root is already its tree's smallest vertex (``min_rooted``, true of
all but UnionJTB and sv-classic), the flags are the roots themselves and
the minimum pass is skipped.

>>> import numpy as np
>>> k, labels = compact(asarray(np.array([0, 0, 2, 0])))  # doctest: +SKIP
>>> k, labels.tolist()  # doctest: +SKIP
(2, [0, 0, 1, 0])
"""
from __future__ import annotations

import numpy as np

from ..ids import check_pair
from . import memory
from ._compat import SIM, cuda, view, xp
from .launch import dtypes_key, dummy, get, kernel, launch
from .graph import device_id_range
from .staging import put
from .primitives import atomic_min, load


def to_backend(graph):
    """The graph with its arrays where the kernels read them: on the GPU
    (CuPy), or on the host under the simulator."""
    if SIM:
        return graph.to_host()
    return graph.to_device()


@kernel("root_min", lambda t: (t.id, t.I64, t.id), offsets=False)
def make_root_min():
    """mins[r] = the smallest vertex whose root is r, for any root choice.
    Reading first skips the atomic for all but a few vertices of a large
    component (blocks run roughly in id order)."""

    def root_min(roots, n, mins):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            r = roots[v]
            if v < load(mins, r):
                atomic_min(mins, r, v)

    return root_min


def _root_mins(roots):
    n = roots.size
    mins = xp.full(n, n, roots.dtype)
    dts = dtypes_key(roots.dtype, roots.dtype, roots.dtype)
    launch(get("root_min", (), dts), n, view(roots), n, view(mins), persistent=True)
    return mins[roots]


@kernel("compact_first", lambda t: (t.id, t.I64, t.id, t.id), keys=((False,), (True,)), offsets=False)
def make_compact_first(min_rooted):
    """first[v] = 1 where v is the smallest vertex of its component (mins
    from root_min; for min-rooted roots, v is its own root), else 0."""

    def compact_first(roots, n, mins, first):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if min_rooted:
                first[v] = 1 if roots[v] == v else 0
            else:
                first[v] = 1 if mins[roots[v]] == v else 0

    return compact_first


@kernel("compact_labels", lambda t: (t.id, t.I64, t.id, t.id, t.id), keys=((False,), (True,)), offsets=False)
def make_compact_labels(min_rooted):
    """labels[v] = the rank of v's component minimum among the minima."""

    def compact_labels(roots, n, mins, rank, labels):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if min_rooted:
                labels[v] = rank[roots[v]] - 1
            else:
                labels[v] = rank[mins[roots[v]]] - 1

    return compact_labels


def compact(roots, min_rooted: bool = False):
    """(k, labels 0..k-1 in scipy's order) from any root array: three
    kernels and one scan, two and one for ``min_rooted`` roots (each CuPy
    operation costs about 10 us of host time, which on a 1M-edge graph is
    the size of the whole computation).  k stays on the device (a 0-d
    array; ``int(k)`` reads it), so that a captured run can end here."""
    n = roots.size
    if n == 0:
        return 0, roots.copy()
    with memory.guard(f"compacting {n} labels"):
        dts = dtypes_key(roots.dtype, roots.dtype, roots.dtype)
        rank = xp.empty(n, roots.dtype)
        labels = xp.empty(n, roots.dtype)
        rv, kv = view(roots), view(rank)
        if min_rooted:
            mv = dummy(roots.dtype)
        else:
            mins = xp.full(n, n, roots.dtype)
            mv = view(mins)
            launch(get("root_min", (), dts), n, rv, n, mv, persistent=True)
        launch(get("compact_first", (min_rooted,), dts), n, rv, n, mv, kv, persistent=True)
        xp.cumsum(rank, out=rank)
        launch(get("compact_labels", (min_rooted,), dts), n, rv, n, mv, kv, view(labels), persistent=True)
        return rank[-1], labels


def min_representatives(roots):
    """Replace each root by the smallest vertex of its component."""
    if roots.size == 0:
        return roots.copy()
    return _root_mins(roots)


def count_roots(roots):
    """The number of roots, left on the device (0-d; ``int()`` reads it)."""
    return xp.count_nonzero(roots == xp.arange(roots.size, dtype=roots.dtype))


def collect_forest(fa, fb):
    """The recorded spanning-forest edges (slots that hold one)."""
    keep = fa >= 0
    return fa[keep], fb[keep]


def asarray(x, dtype=None):
    """``x`` as a contiguous device array (host arrays are copied over,
    through :func:`gconn.gpu.staging.put`)."""
    if not SIM and not isinstance(x, xp.ndarray):
        x = put(np.asarray(x))
    return xp.ascontiguousarray(xp.asarray(x), dtype=dtype)


def concatenate(parts):
    return xp.concatenate(parts)


def validate_device_ids(src, dst):
    """Check a CuPy batch: 1-D integer arrays of equal length, ids >= 0."""
    if SIM:
        raise TypeError("the CUDA simulator takes NumPy arrays, not CuPy arrays")
    for a, what in ((src, "src"), (dst, "dst")):
        if not isinstance(a, xp.ndarray):
            raise TypeError(f"{what} must be a CuPy array when the other one is")
    check_pair(src, dst)
    if src.size:
        device_id_range(src, dst)
    return src, dst
