"""The union-find finish on the CPU (paper Sec. 3.4): initialization,
compression, the finish over the gathered active vertices (CSR) or over
all edges (COO), and the incremental batches."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.backends.core.unionfind import FIND_HALVE, FIND_NAIVE, UNION_ASYNC
from gconn.backends.cpu.atomics import prefetch
from gconn.backends.cpu.primitives import UF, find_any, parent_of, record_edge, same_set_any, set_parent, union_any

# UnionAsync, the automatic choice, is called in the loops themselves: behind
# union_any's dispatch it is a call per edge that LLVM does not inline.
UnionAsync = UF.UnionAsync


@njit(inline="always")
def unite(P, H, u, v, fin, fopt, sopt):
    """Union u and v by the plan's codes: UnionAsync in the caller's loop, with
    FindHalve (the automatic choice) as a constant, so LLVM inlines both, and
    any other rule through union_any."""
    if fin == UNION_ASYNC:
        if fopt == FIND_HALVE:
            return UnionAsync(P, u, v, FIND_HALVE)
        return UnionAsync(P, u, v, fopt)
    return union_any(P, H, u, v, fin, fopt, sopt)


@njit(parallel=True, cache=True)
def init_parents(P):
    for vi in prange(P.size):
        v = np.int64(vi)
        P[v] = v


@njit(parallel=True, cache=True)
def compress_all(P, fin):
    """Point every vertex at its root (no unions run concurrently)."""
    for vi in prange(P.size):
        v = np.int64(vi)
        r = find_any(P, v, fin, FIND_NAIVE)
        if r != v:
            set_parent(P, v, r, fin)


@njit(parallel=True, cache=True)
def roots_of(P, fin, out):
    for vi in prange(P.size):
        v = np.int64(vi)
        out[v] = parent_of(P, v, fin)


@njit(parallel=True, cache=True)
def finish_csr(P, H, indptr, indices, active, fin, fopt, sopt, fa, fb):
    """Union every edge of the gathered active vertices (those not in L_max)."""
    for t in prange(active.size):
        v = active[t]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            r = unite(P, H, v, w, fin, fopt, sopt)
            record_edge(fa, fb, r, v, w)


#: Edges ahead of the current one whose parents :func:`finish_coo`
#: prefetches (the first find's load is a cache miss otherwise).
PREFETCH_AHEAD = 16

#: Chunks of the edge list per parallel loop: each thread walks whole
#: chunks, so its prefetches stay within what it will read.
EDGE_CHUNKS = 256


@njit(parallel=True, cache=True)
def finish_coo(P, H, src, dst, fin, fopt, sopt, fa, fb):
    """The edge-centric finish without sampling over an edge list in any
    order and orientation (the input's, duplicates and self loops
    included, or the canonical COO)."""
    m = src.size
    size = (m + EDGE_CHUNKS - 1) // EDGE_CHUNKS
    for c in prange(EDGE_CHUNKS):
        hi = min(m, (c + 1) * size)
        for i in range(c * size, hi):
            j = i + PREFETCH_AHEAD
            if j < hi:
                prefetch(P, src[j])
                prefetch(P, dst[j])
            u = src[i]
            v = dst[i]
            r = unite(P, H, u, v, fin, fopt, sopt)
            record_edge(fa, fb, r, u, v)


@njit(parallel=True, cache=True)
def mixed_batch(P, H, kinds, src, dst, fin, fopt, sopt, out):
    """Inserts (kind 0) and queries (kind 1) of one batch, concurrently.
    ``out[i]`` is the answer of op i for queries."""
    for i in prange(kinds.size):
        if kinds[i] == 0:
            union_any(P, H, src[i], dst[i], fin, fopt, sopt)
        else:
            out[i] = same_set_any(P, src[i], dst[i], fin, fopt)


@njit(parallel=True, cache=True)
def insert_batch(P, H, src, dst, fin, fopt, sopt):
    for i in prange(src.size):
        union_any(P, H, src[i], dst[i], fin, fopt, sopt)


@njit(parallel=True, cache=True)
def query_batch(P, src, dst, fin, fopt, out):
    for i in prange(src.size):
        out[i] = same_set_any(P, src[i], dst[i], fin, fopt)


# One-thread twins of the batch kernels for batches below SERIAL_BELOW ops: a
# parallel launch costs microseconds, far more when other processes keep the
# cores busy, and a serial loop over a few hundred unions takes less.

#: Batches with fewer operations than this run on the calling thread.
SERIAL_BELOW = 1000


@njit(cache=True)
def mixed_serial(P, H, kinds, src, dst, fin, fopt, sopt, out):
    for i in range(kinds.size):
        if kinds[i] == 0:
            union_any(P, H, src[i], dst[i], fin, fopt, sopt)
        else:
            out[i] = same_set_any(P, src[i], dst[i], fin, fopt)


@njit(cache=True)
def insert_serial(P, H, src, dst, fin, fopt, sopt):
    for i in range(src.size):
        union_any(P, H, src[i], dst[i], fin, fopt, sopt)


@njit(cache=True)
def query_serial(P, src, dst, fin, fopt, out):
    for i in range(src.size):
        out[i] = same_set_any(P, src[i], dst[i], fin, fopt)


# The small-batch path of gconn.IncrementalConnectivity: one compiled call
# checks a batch's ids and runs it, in place of the checked path's ten
# NumPy calls per call (conversions, six reductions, casts), which on a few
# ids cost more than the unions (`python -m gconn.bench.small_batches` times
# both against a pure-Python union-find).  Each returns -1, having changed
# nothing, when the batch needs the checked path: lengths that differ, an
# operation kind other than 0/1, a negative id, or one at or beyond
# ``limit`` = min(capacity, ``idmax``) (the state must grow, or the id
# does not fit its width); else 1 + the largest id (0 when empty).  Ids of
# any integer width are cast to the state's (``like.dtype``) as the
# checked path does, so the unions are those of the serial kernels.  The
# state's arrays and codes come last, in one order for all three, so the
# caller passes them as one tuple.

@njit(cache=True)
def _ids_end(src, dst, limit):
    """1 + the largest id, or -1 (see above)."""
    if src.size != dst.size:
        return -1
    end = 0
    for i in range(src.size):
        a = src[i]
        b = dst[i]
        if a < 0 or b < 0 or a >= limit or b >= limit:
            return -1
        if a >= end:
            end = a + 1
        if b >= end:
            end = b + 1
    return end


@njit(cache=True)
def small_insert(src, dst, P, H, like, idmax, fin, fopt, sopt):
    end = _ids_end(src, dst, min(P.size, idmax))
    if end > 0:
        insert_serial(P, H, src.astype(like.dtype), dst.astype(like.dtype), fin, fopt, sopt)
    return end


@njit(cache=True)
def small_query(src, dst, out, P, H, like, idmax, fin, fopt, sopt):
    end = _ids_end(src, dst, min(P.size, idmax))
    if end > 0:
        query_serial(P, src.astype(like.dtype), dst.astype(like.dtype), fin, fopt, out)
    return end


@njit(cache=True)
def small_process(kinds, src, dst, phased, out, P, H, like, idmax, fin, fopt, sopt):
    """(end, number of answers): the batch's inserts then its queries when
    ``phased``, else its operations in order; answers in ``out[:count]``."""
    if kinds.size != src.size:
        return -1, 0
    for i in range(kinds.size):
        if kinds[i] != 0 and kinds[i] != 1:
            return -1, 0
    end = _ids_end(src, dst, min(P.size, idmax))
    if end <= 0:
        return end, 0
    s = src.astype(like.dtype)
    d = dst.astype(like.dtype)
    q = 0
    for i in range(kinds.size):
        if kinds[i] == 0:
            union_any(P, H, s[i], d[i], fin, fopt, sopt)
        elif not phased:
            out[q] = same_set_any(P, s[i], d[i], fin, fopt)
            q += 1
    if phased:
        for i in range(kinds.size):
            if kinds[i] == 1:
                out[q] = same_set_any(P, s[i], d[i], fin, fopt)
                q += 1
    return end, q
