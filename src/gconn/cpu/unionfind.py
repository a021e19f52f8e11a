"""The union-find finish on the CPU (paper Sec. 3.4): initialization,
compression, the finish over the gathered active vertices (CSR) or over
all edges (COO), and the incremental batches.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..core.unionfind import FIND_NAIVE
from .primitives import find_any, parent_of, record_edge, same_set_any, set_parent, union_any


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
            r = union_any(P, H, v, w, fin, fopt, sopt)
            record_edge(fa, fb, r, v, w)


@njit(parallel=True, cache=True)
def finish_coo(P, H, src, dst, fin, fopt, sopt, fa, fb):
    """The edge-centric finish without sampling: each undirected edge once."""
    for i in prange(src.size):
        u = src[i]
        v = dst[i]
        r = union_any(P, H, u, v, fin, fopt, sopt)
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


# One-thread twins of the batch kernels for batches below SERIAL_BELOW ops:
# a parallel launch costs ~3 us on a quiet machine and, when other processes
# keep the cores busy, waits for descheduled workers (50 us mean per call,
# ms at worst).  A serial loop over a few hundred unions takes less than that
# (BENCHMARKS.md, "Startup and small batches").

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
