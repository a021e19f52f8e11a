"""Host-side graph construction: counting sorts (O(m + n) plus small per-row sorts) to CSR and COO."""
from __future__ import annotations

from types import FunctionType

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

from gconn.graph.ids import offset_dtype


@intrinsic
def prefetch(typingctx, arr, i):
    """Hint the CPU to fetch ``arr[i]`` into cache; a hint never faults, so no bounds check."""
    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        byte_ptr = ir.IntType(8).as_pointer()
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), byte_ptr)
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]))
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])  # read, keep in all cache levels, data cache
        return context.get_dummy_value()
    return types.none(arr, i), codegen


def min_first_row(indptr, indices, v):
    """Swap the smallest neighbour of ``v`` to the front of its row (jitted here and for the GPU)."""
    b = indptr[v]
    e = indptr[v + 1]
    j = b
    for k in range(b + 1, e):
        if indices[k] < indices[j]:
            j = k
    if j != b:
        w = indices[j]
        indices[j] = indices[b]
        indices[b] = w


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
    """Sorted CSR of the simple graph with each edge once as (u, v), u < v."""
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
    # rows in increasing u place each v's smaller neighbours in order: no sort needed
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


def serial_twin(kernel):
    """A one-thread twin of a ``prange`` kernel (its prange runs as range), cached apart."""
    f = kernel.py_func
    g = FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    g.__qualname__ = f.__qualname__ + "_serial"
    return njit(cache=True)(g)


#: Host passes (copies, id bounds) over fewer elements run on the calling thread: a parallel
#: loop must first wake threads that slept since the last one (a GPU batch of 1,000 updates
#: took 0.8 ms instead of 1.0-1.8 with two such loops on the H200 machine: BENCHMARKS.md,
#: "Dynamic connectivity", "On the GPU").
PASS_SERIAL_BELOW = 1 << 15

#: Edges ahead whose random accesses the counting sort prefetches.
PREFETCH_AHEAD = 16


@njit(parallel=True, cache=True)
def _bounds(src, dst, nchunks):
    m = src.size
    size = (m + nchunks - 1) // nchunks
    lo = np.full(2 * nchunks, src[0], np.int64)
    hi = np.full(2 * nchunks, src[0], np.int64)
    for t in prange(2 * nchunks):
        b = (t >> 1) * size
        e = min(m, b + size)
        # the two arrays may differ in dtype: one branch each, no unification
        if b < m and t & 1 == 0:
            lo[t] = src[b:e].min()
            hi[t] = src[b:e].max()
        elif b < m:
            lo[t] = dst[b:e].min()
            hi[t] = dst[b:e].max()
    return lo.min(), hi.max()


_bounds_serial = serial_twin(_bounds)


def id_bounds(src: np.ndarray, dst: np.ndarray) -> tuple[int, int]:
    """(smallest, largest) id of non-empty id arrays of one length, in one pass (parallel from
    :data:`PASS_SERIAL_BELOW` ids)."""
    if src.dtype == np.uint64 or dst.dtype == np.uint64:
        # int64 accumulators cannot hold every uint64
        return min(int(src.min()), int(dst.min())), max(int(src.max()), int(dst.max()))
    if src.size < PASS_SERIAL_BELOW:
        lo, hi = _bounds_serial(src, dst, 1)
    else:
        lo, hi = _bounds(src, dst, max(1, min(256, src.size // 65536)))
    return int(lo), int(hi)


@njit(parallel=True, cache=True)
def _adj_count(src, dst, hist):
    nchunks = hist.shape[0]
    m = src.size
    size = (m + nchunks - 1) // nchunks
    for c in prange(nchunks):
        h = hist[c]
        h[:] = 0
        hi = min(m, (c + 1) * size)
        for i in range(c * size, hi):
            j = i + PREFETCH_AHEAD
            if j < hi:
                prefetch(h, src[j])
                prefetch(h, dst[j])
            u = src[i]
            v = dst[i]
            if u != v:
                h[u] += 1
                h[v] += 1


@njit(parallel=True, cache=True)
def _adj_degrees(hist, indptr):
    nchunks, n = hist.shape
    for vi in prange(n):
        v = np.int64(vi)
        s = 0
        for c in range(nchunks):
            s += hist[c, v]
        indptr[v + 1] = s


@njit(parallel=True, cache=True)
def _adj_cursors(hist, indptr):
    nchunks, n = hist.shape
    for vi in prange(n):
        v = np.int64(vi)
        o = indptr[v]
        for c in range(nchunks):
            t = hist[c, v]
            hist[c, v] = o
            o += t


@njit(parallel=True, cache=True)
def _adj_scatter(src, dst, hist, indices):
    nchunks = hist.shape[0]
    m = src.size
    size = (m + nchunks - 1) // nchunks
    for c in prange(nchunks):
        h = hist[c]
        hi = min(m, (c + 1) * size)
        for i in range(c * size, hi):
            # the cursors two steps ahead, then the slots they point at
            j = i + 2 * PREFETCH_AHEAD
            if j < hi:
                prefetch(h, src[j])
                prefetch(h, dst[j])
            j = i + PREFETCH_AHEAD
            if j < hi:
                prefetch(indices, h[src[j]])
                prefetch(indices, h[dst[j]])
            u = src[i]
            v = dst[i]
            if u != v:
                indices[h[u]] = v
                h[u] += 1
                indices[h[v]] = u
                h[v] += 1


_min_first_row = njit(min_first_row)


@njit(parallel=True, cache=True)
def min_first(indptr, indices):
    """Swap each row's smallest neighbour to the front (HB reads it there)."""
    n = indptr.size - 1
    for v in prange(n):
        _min_first_row(indptr, indices, np.int64(v))


def adjacency_csr(src: np.ndarray, dst: np.ndarray, n: int, nchunks: int | None = None):
    """The symmetric adjacency of an edge list by a counting sort by source: duplicates kept,
    self loops dropped, each row's smallest neighbour first; one histogram row per chunk (no atomics)."""
    from numba import get_num_threads
    m = int(src.size)
    if nchunks is None:
        # fewer rows where n counters per thread would dominate the edges
        nchunks = max(1, min(get_num_threads(), 64, (2 * m) // max(n, 1)))
    ptr_dt = offset_dtype(m)
    hist = np.empty((nchunks, n), ptr_dt)
    _adj_count(src, dst, hist)
    indptr = np.zeros(n + 1, ptr_dt)
    _adj_degrees(hist, indptr)
    np.cumsum(indptr, out=indptr)
    _adj_cursors(hist, indptr)
    indices = np.empty(int(indptr[n]), src.dtype)
    _adj_scatter(src, dst, hist, indices)
    min_first(indptr, indices)
    return indptr, indices
