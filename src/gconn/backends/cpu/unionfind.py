"""Union-find on the CPU (paper Sec. 3.4): :mod:`gconn.backends.core`'s bodies built with the
CPU's primitives, on runtime codes; initialization, compression, the finish over active vertices
(CSR) or all edges (COO), the incremental batches.  A ``prange`` index is uint64 (with int32 ids
it would unify to float64), so loops rebind it as a signed ``v``.

>>> callable(UF.union_any)
True
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.backends.core.primitives import Primitives
from gconn.backends.core.unionfind import FIND_HALVE, FIND_NAIVE, UNION_ASYNC, build
from gconn.backends.cpu import atomics
from gconn.backends.cpu.atomics import prefetch
from gconn.graph.build import serial_twin

CPU = Primitives(jit=njit, load=atomics.load, store=atomics.store, cas=atomics.cas,
                 atomic_min=atomics.atomic_min, atomic_add=atomics.atomic_add,
                 fence=atomics.fence)
UF = build(CPU)


@njit(inline="always")
def record_edge(fa, fb, r, u, v):
    """Spanning forest (``fa`` of length n, or 0 for none): root r was linked by edge (u, v)."""
    if r >= 0 and fa.size > 0:
        fa[r] = u
        fb[r] = v

@njit(inline="always")
def unite(P, H, u, v, fin, fopt, sopt):
    """Union by the plan's codes; UnionAsync + FindHalve as constants, which LLVM inlines (behind
    union_any's dispatch it does not)."""
    if fin == UNION_ASYNC:
        if fopt == FIND_HALVE:
            return UF.UnionAsync(P, u, v, FIND_HALVE)
        return UF.UnionAsync(P, u, v, fopt)
    return UF.union_any(P, H, u, v, fin, fopt, sopt)


@njit(parallel=True, cache=True)
def init_parents(P):
    for vi in prange(P.size):
        v = np.int64(vi)
        P[v] = v


@njit(parallel=True, cache=True)
def compress_all(P, fin):
    for vi in prange(P.size):
        v = np.int64(vi)
        r = UF.find_any(P, v, fin, FIND_NAIVE)
        if r != v:
            UF.set_parent(P, v, r, fin)


@njit(parallel=True, cache=True)
def roots_of(P, fin, out):
    for vi in prange(P.size):
        v = np.int64(vi)
        out[v] = UF.parent_of(P, v, fin)


@njit(parallel=True, cache=True)
def finish_csr(P, H, indptr, indices, active, fin, fopt, sopt, fa, fb):
    for t in prange(active.size):
        v = active[t]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            r = unite(P, H, v, w, fin, fopt, sopt)
            record_edge(fa, fb, r, v, w)


#: Edges ahead whose parents :func:`finish_coo` prefetches (the first find's load misses otherwise).
PREFETCH_AHEAD = 16

#: Chunks of the edge list: a thread walks whole chunks, so its prefetches stay within what it reads.
EDGE_CHUNKS = 256


@njit(parallel=True, cache=True)
def finish_coo(P, H, src, dst, fin, fopt, sopt, fa, fb):
    """The finish without sampling over an edge list in any order and orientation."""
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
    """Inserts (kind 0) and queries (kind 1) of one batch at once; answers in ``out[i]``."""
    for i in prange(kinds.size):
        if kinds[i] == 0:
            UF.union_any(P, H, src[i], dst[i], fin, fopt, sopt)
        else:
            out[i] = UF.same_set_any(P, src[i], dst[i], fin, fopt)


@njit(parallel=True, cache=True)
def insert_batch(P, H, src, dst, fin, fopt, sopt):
    for i in prange(src.size):
        UF.union_any(P, H, src[i], dst[i], fin, fopt, sopt)


@njit(parallel=True, cache=True)
def query_batch(P, src, dst, fin, fopt, out):
    for i in prange(src.size):
        out[i] = UF.same_set_any(P, src[i], dst[i], fin, fopt)


#: Batches of fewer operations run on the calling thread (serial twins): a parallel launch
#: costs microseconds, far more on busy cores, more than a few hundred unions.
SERIAL_BELOW = 1000


mixed_serial = serial_twin(mixed_batch)
insert_serial = serial_twin(insert_batch)
query_serial = serial_twin(query_batch)


# IncrementalConnectivity's small batches: one compiled call checks the ids and runs the batch.
# Each returns -1, having changed nothing, where the checked path must take it (lengths that differ,
# a kind not 0/1, an id < 0 or >= min(capacity, ``idmax``)); else 1 + the largest id.  Ids are cast
# to ``like.dtype``.

@njit(cache=True)
def _ids_end(src, dst, limit):
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
            UF.union_any(P, H, s[i], d[i], fin, fopt, sopt)
        elif not phased:
            out[q] = UF.same_set_any(P, s[i], d[i], fin, fopt)
            q += 1
    if phased:
        for i in range(kinds.size):
            if kinds[i] == 1:
                out[q] = UF.same_set_any(P, s[i], d[i], fin, fopt)
                q += 1
    return end, q
