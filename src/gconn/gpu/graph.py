"""Graph arrays on the GPU: copies of host graphs, and graphs built on the
device from CuPy edge arrays or CuPy sparse matrices (no host round trip:
CuPy's sort and unique do the canonicalization).  Each function returns
the arrays ``(n, indptr, indices, src, dst)`` of a :class:`gconn.Graph`,
which wraps them (this module does not import it: imports run one way).

>>> import cupy as cp  # doctest: +SKIP
>>> n, indptr, indices, src, dst = device_graph_from_edges(cp.array([0, 1, 1]), cp.array([1, 0, 2]))  # doctest: +SKIP
>>> int(src.size)  # doctest: +SKIP
2
"""
from __future__ import annotations

import numpy as np

from ..ids import check_n, check_pair, id_dtype, id_range, offset_dtype
from . import memory
from ._compat import SIM, xp


def _require_device(what: str):
    if SIM or xp is None:
        from ..errors import GPUUnavailableError
        from . import available
        raise GPUUnavailableError(f"{what} needs a CUDA GPU with CuPy: {available()[1]}")


def device_csr_coo(graph):
    """Copy a host graph's CSR to the GPU and derive its COO there: the copy
    is bound by the host link, so this halves the bytes that cross it."""
    _require_device("moving a graph to the GPU")
    nbytes = sum(a.nbytes for a in (graph.indptr, graph.indices, graph.src, graph.dst))
    nbytes += 9 * min(COO_CHUNK, graph.indices.size)
    memory.check(nbytes, f"a graph with n={graph.n}, m={graph.m}")
    with memory.guard(f"copying a graph with n={graph.n}, m={graph.m} to the GPU"):
        indptr, indices = xp.asarray(graph.indptr), xp.asarray(graph.indices)
        src, dst = coo_from_csr(indptr, indices)
    return graph.n, indptr, indices, src, dst


#: CSR slots per step of :func:`coo_from_csr` (bounds its scratch memory)
COO_CHUNK = 1 << 24


def coo_from_csr(indptr, indices):
    """Each undirected edge once as (src < dst), in CSR order (sorted by
    src, then dst), from a symmetric CSR with sorted neighbour lists: the
    COO every Graph carries.  Runs on ``xp`` arrays.

    >>> coo_from_csr(xp.asarray([0, 1, 3, 4]), xp.asarray([1, 0, 2, 1]))  # doctest: +SKIP
    (array([0, 1]), array([1, 2]))
    """
    srcs, dsts = [], []
    for lo in range(0, int(indices.size), COO_CHUNK):
        slots = xp.arange(lo, min(lo + COO_CHUNK, int(indices.size)), dtype=indptr.dtype)
        rows = (xp.searchsorted(indptr, slots, side="right") - 1).astype(indices.dtype)
        cols = indices[lo:lo + slots.size]
        upper = cols > rows
        srcs.append(rows[upper])
        dsts.append(cols[upper])
    if not srcs:
        return xp.empty(0, indices.dtype), xp.empty(0, indices.dtype)
    if len(srcs) == 1:
        return srcs[0], dsts[0]
    return xp.concatenate(srcs), xp.concatenate(dsts)


def device_graph_from_edges(src, dst, n=None):
    """Build a graph on the GPU from CuPy ``src``/``dst`` id arrays: drop self
    loops, put each edge as (min, max), deduplicate, symmetric sorted CSR."""
    _require_device("building a graph from CuPy arrays")
    src = xp.asarray(src)
    dst = xp.asarray(dst)
    check_pair(src, dst)
    check_n(n)
    if src.size:
        hi = id_range(src, dst)
        if n is None:
            n = hi + 1
        elif hi >= n:
            raise ValueError(f"vertex id {hi} is out of range for n={n}")
    n = int(n or 0)
    dt = id_dtype(n)
    # keys (u, v) sort and deduplicate; 16 bytes per input edge at the peak
    memory.check(40 * int(src.size) + 8 * n, f"building a graph with n={n} from {src.size} edges")
    with memory.guard(f"building a graph with n={n} from {src.size} edges"):
        u = xp.minimum(src, dst).astype(np.int64)
        v = xp.maximum(src, dst).astype(np.int64)
        keep = u != v
        u, v = u[keep], v[keep]
        if n <= 3037000499:                     # n * n fits in an int64 key
            key = xp.unique(u * n + v)
            u, v = key // n, key % n
        else:
            order = xp.lexsort(xp.stack([v, u]))
            u, v = u[order], v[order]
            new = xp.ones(u.size, bool)
            new[1:] = (u[1:] != u[:-1]) | (v[1:] != v[:-1])
            u, v = u[new], v[new]
        m = int(u.size)
        ptr_dt = offset_dtype(m)
        rows = xp.concatenate([u, v])
        cols = xp.concatenate([v, u])
        if n <= 3037000499:
            sym = xp.sort(rows * n + cols)
            rows, cols = sym // n, sym % n
        else:
            order = xp.lexsort(xp.stack([cols, rows]))
            rows, cols = rows[order], cols[order]
        indptr = xp.searchsorted(rows, xp.arange(n + 1, dtype=np.int64)).astype(ptr_dt)
        return n, indptr, cols.astype(dt), u.astype(dt), v.astype(dt)


def device_graph_from_sparse(A):
    """From a cupyx.scipy.sparse matrix; stored entries are edges, direction
    ignored (weak connectivity), as in scipy.sparse.csgraph."""
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"the adjacency matrix must be square; got shape {A.shape}")
    coo = A.tocoo()
    return device_graph_from_edges(coo.row, coo.col, int(A.shape[0]))
