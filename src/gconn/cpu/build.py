"""Host-side graph construction kernels: canonical edge lists and symmetric CSR.

Counting sorts rather than a global sort: O(m + n) passes plus small per-row
sorts, which is several times faster than ``np.unique`` on 10^7+ edges.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _upper_counts(src, dst, n):
    deg = np.zeros(n + 1, np.int64)
    for i in range(src.size):
        if src[i] != dst[i]:
            deg[min(src[i], dst[i]) + 1] += 1
    for i in range(n):
        deg[i + 1] += deg[i]
    return deg


@njit(cache=True)
def _upper_scatter(src, dst, ptr, col):
    pos = ptr[:-1].copy()
    for i in range(src.size):
        if src[i] != dst[i]:
            a = min(src[i], dst[i])
            col[pos[a]] = max(src[i], dst[i])
            pos[a] += 1


@njit(parallel=True, cache=True)
def _sort_unique_rows(ptr, col, newdeg):
    n = ptr.size - 1
    for r in prange(n):
        seg = col[ptr[r]:ptr[r + 1]]
        seg.sort()
        k = 0
        for j in range(seg.size):
            if j == 0 or seg[j] != seg[j - 1]:
                seg[k] = seg[j]
                k += 1
        newdeg[r + 1] = k


@njit(parallel=True, cache=True)
def _compact_rows(ptr, col, newptr, out):
    n = ptr.size - 1
    for r in prange(n):
        b = ptr[r]
        o = newptr[r]
        for j in range(newptr[r + 1] - o):
            out[o + j] = col[b + j]


def upper_csr(src: np.ndarray, dst: np.ndarray, n: int, id_dtype) -> tuple[np.ndarray, np.ndarray]:
    """CSR of the simple undirected graph with each edge once as (u, v), u < v.

    Self loops and duplicates (in either direction) are dropped; rows are
    sorted.
    """
    ptr = _upper_counts(src, dst, n)
    col = np.empty(int(ptr[n]), id_dtype)
    _upper_scatter(src, dst, ptr, col)
    newdeg = np.zeros(n + 1, np.int64)
    _sort_unique_rows(ptr, col, newdeg)
    newptr = np.cumsum(newdeg)
    if newptr[n] == col.size:
        return newptr, col
    out = np.empty(int(newptr[n]), id_dtype)
    _compact_rows(ptr, col, newptr, out)
    return newptr, out


@njit(cache=True)
def _sym_counts(uptr, ucol, deg):
    n = uptr.size - 1
    for u in range(n):
        deg[u + 1] += uptr[u + 1] - uptr[u]
        for j in range(uptr[u], uptr[u + 1]):
            deg[ucol[j] + 1] += 1
    for i in range(n):
        deg[i + 1] += deg[i]


@njit(cache=True)
def _sym_fill_lower(uptr, ucol, sptr, sidx, pos):
    # Scanning rows in increasing u places each v's smaller neighbours in
    # increasing order, so rows come out sorted without a sort.
    n = uptr.size - 1
    for u in range(n):
        for j in range(uptr[u], uptr[u + 1]):
            v = ucol[j]
            sidx[pos[v]] = u
            pos[v] += 1


@njit(parallel=True, cache=True)
def _sym_fill_upper(uptr, ucol, sidx, pos):
    n = uptr.size - 1
    for u in prange(n):
        p = pos[u]
        for j in range(uptr[u], uptr[u + 1]):
            sidx[p] = ucol[j]
            p += 1


def symmetric_csr(uptr: np.ndarray, ucol: np.ndarray, indptr_dtype) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (both directions, sorted rows) from an upper-triangle CSR."""
    n = uptr.size - 1
    sptr = np.zeros(n + 1, np.int64)
    _sym_counts(uptr, ucol, sptr)
    sidx = np.empty(int(sptr[n]), ucol.dtype)
    pos = sptr[:-1].copy()
    _sym_fill_lower(uptr, ucol, sptr, sidx, pos)
    _sym_fill_upper(uptr, ucol, sidx, pos)
    return sptr.astype(indptr_dtype, copy=False), sidx


@njit(parallel=True, cache=True)
def _expand_rows(ptr, out):
    n = ptr.size - 1
    for r in prange(n):
        for j in range(ptr[r], ptr[r + 1]):
            out[j] = r


def rows_of(ptr: np.ndarray, id_dtype) -> np.ndarray:
    """The row id of every CSR entry (the COO source array)."""
    out = np.empty(int(ptr[-1]), id_dtype)
    _expand_rows(ptr, out)
    return out
