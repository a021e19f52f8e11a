"""CUDA kernels of the static pipeline, incremental batches and compaction.

Every kernel is made by a factory that closes over the device functions of
:mod:`gconn.core.unionfind` and over the variant's integer codes (finish,
find, splice from :mod:`gconn.design`) as constants, so NVVM folds the
dispatch on the codes away and specializes each variant -- what C++
templates do in GConn.  Kernels compile on first use with an explicit
signature and are cached by ``(kind, codes, dtypes)``; :func:`signature`
gives the argument types, which the compile-only check
(``gconn.gpu.compile_check``) uses too.  Options that cost nothing measurable (recording a spanning forest,
lazy initialization, the k-out mode) are runtime arguments instead.

>>> from gconn.gpu import unionfind as kernels
>>> "coo_ops" in kernels.FACTORIES
True
"""
from __future__ import annotations

import warnings

import numpy as np
from numba import from_dtype, types

from ..core.unionfind import FIND_HALVE, FIND_TWO_TRY, UNION_ASYNC, UNION_JTB
from ._compat import SIM, WARP_INTRINSICS, cuda
from .primitives import UF, atomic_add, atomic_min, cas, device, load

# Launch geometry.  The simulator runs one Python thread per CUDA thread, so
# it gets small blocks, few persistent blocks and tiny chunks (which also
# makes tiny graphs exercise every load-balancing path).
BLOCK = 32 if SIM else 256
WARP = 32
#: edges per warp work unit of the load-balanced finish
CHUNK = 4 if SIM else 256
#: vertices sampled for L_max (one block) and for HB's coverage estimate
SAMPLE = 64 if SIM else 1024
FULL_MASK = 0xFFFFFFFF

KOUT_PAPER = 0      # first edge + k-1 random edges (paper Alg. k-out)
KOUT_AFFOREST = 1   # the first k edges (Afforest)
HB_ROOTS = 2        # HB step 2: the first N edges of vertices still roots

OP_UNION = 0        # coo_ops modes: every op a union (static finish, inserts),
OP_QUERY = 1        # every op a query,
OP_MIXED = 2        # kinds[i] says (0 union, 1 query)

U64 = np.uint64

# -- small device helpers ----------------------------------------------------


@device
def mix32(x):
    # A 32-bit integer hash (lowbias32 constants) on uint64 values below 2**32,
    # so the products never overflow (NumPy scalars in the simulator too).
    h = x & U64(0xFFFFFFFF)
    h ^= h >> U64(16)
    h = (h * U64(0x7FEB352D)) & U64(0xFFFFFFFF)
    h ^= h >> U64(15)
    h = (h * U64(0x846CA68B)) & U64(0xFFFFFFFF)
    h ^= h >> U64(16)
    return h


@device
def rand64(a, b):
    """A reproducible random uint64 for the pair of non-negative ints (a, b):
    stateless, so each (vertex, draw) gets its own number."""
    ua = U64(a)
    x1 = mix32((ua & U64(0xFFFFFFFF)) ^ mix32(U64(b) & U64(0xFFFFFFFF)))
    x2 = mix32(x1 ^ (ua >> U64(32)) ^ U64(0x5BD1E995))
    return (x1 << U64(32)) | x2


@device
def lazy_init(P, x):
    # Vertices first seen in an incremental batch hold the sentinel -1 until
    # an operation touches them; racing initializers agree on the value.
    if load(P, x) == -1:
        cas(P, x, -1, x)


def _arr(dt):
    return types.Array(from_dtype(np.dtype(dt)), 1, "C")


I64 = types.int64


# -- union kernels: specialized on (finish, find, splice) --------------------


def make_sample_csr(fin, fopt, sopt):
    """k-out and HB's second step over the CSR (paper Alg. k-out, HB).

    CSR coalescing: thread ``g`` handles edge ``g % k`` of vertex ``g // k``,
    so adjacent threads read a vertex's adjacent first edges.  With ``er``
    (edge reorganization, needs warp shuffles, k = 2, Afforest mode) a pair
    of lanes reads the two first edges of two vertices in two coalesced
    rounds, then swaps halves so that each lane unions its vertex's two
    edges in sequence: no two lanes of a pair CAS the same root.
    """
    union_any, parent_of = UF.union_any, UF.parent_of
    warp = WARP_INTRINSICS

    def sample_csr(P, H, indptr, indices, n, k, mode, seed, er, record, fa, fb):
        g = cuda.grid(1)
        if warp and er:
            lane = g & 1
            v0 = g - lane
            v1 = v0 + 1
            a = -1
            b = -1
            if v0 < n and indptr[v0] + lane < indptr[v0 + 1]:
                a = indices[indptr[v0] + lane]
            if v1 < n and indptr[v1] + lane < indptr[v1 + 1]:
                b = indices[indptr[v1] + lane]
            send = b if lane == 0 else a
            got = cuda.shfl_xor_sync(FULL_MASK, send, 1)
            v = v0 if lane == 0 else v1
            e0 = a if lane == 0 else got
            e1 = got if lane == 0 else b
            if v < n:
                if e0 >= 0:
                    r = union_any(P, H, v, e0, fin, fopt, sopt)
                    if record and r >= 0:
                        fa[r] = v
                        fb[r] = e0
                if e1 >= 0:
                    r = union_any(P, H, v, e1, fin, fopt, sopt)
                    if record and r >= 0:
                        fa[r] = v
                        fb[r] = e1
            return
        v = g // k
        i = g - v * k
        if v >= n:
            return
        s = indptr[v]
        d = indptr[v + 1] - s
        if i >= d:
            return
        if mode == HB_ROOTS:
            if parent_of(P, v, fin) != v:
                return
            j = s + i
        elif mode == KOUT_AFFOREST or i == 0:
            j = s + i
        else:
            j = s + 1 + np.int64(rand64(v, i * 0x10000 + seed) % U64(d - 1))
        w = indices[j]
        r = union_any(P, H, v, w, fin, fopt, sopt)
        if record and r >= 0:
            fa[r] = v
            fb[r] = w

    return sample_csr


def make_finish_csr(fin, fopt, sopt):
    """The finish over the gathered active vertices, load-balanced: a thread
    per low-degree vertex, a warp per work unit of up to CHUNK edges of a
    higher-degree vertex (one unit per CHUNK edges, so a vertex of degree
    10**6 spreads over ~4000 warps).  A persistent grid reads the list
    lengths from ``counts`` on the device: no host round trip."""
    union_any = UF.union_any

    def finish_csr(P, H, indptr, indices, small, uv, us, counts, record, fa, fb):
        tid = cuda.grid(1)
        nth = cuda.gridsize(1)
        for t in range(tid, counts[0], nth):
            v = small[t]
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                r = union_any(P, H, v, w, fin, fopt, sopt)
                if record and r >= 0:
                    fa[r] = v
                    fb[r] = w
        lane = tid % WARP
        for u in range(tid // WARP, counts[1], nth // WARP):
            v = uv[u]
            e = min(us[u] + CHUNK, indptr[v + 1])
            for j in range(us[u] + lane, e, WARP):
                w = indices[j]
                r = union_any(P, H, v, w, fin, fopt, sopt)
                if record and r >= 0:
                    fa[r] = v
                    fb[r] = w

    return finish_csr


def make_coo_ops(fin, fopt, sopt):
    """Operations over COO pairs, one thread per pair: the edge-centric
    finish without sampling (each undirected edge once, src < dst),
    incremental inserts, queries and mixed batches.  ``lazy`` initializes
    endpoints that hold the -1 sentinel first.

    Each warp owns a contiguous segment of the pairs and walks it in
    32-pair chunks (coalesced).  Sorted input links nearly in order within a
    segment; one thread per pair in id order would instead link a whole
    window of a path, (i, i+1) for ~10**5 consecutive i, before any find
    could compress it, and later finds walk that chain (measured: 226 ms for
    a 4M-vertex path)."""
    union_any, same_set_any = UF.union_any, UF.same_set_any

    def coo_ops(P, H, src, dst, kinds, m, mode, lazy, record, fa, fb, out):
        tid = cuda.grid(1)
        nwarps = cuda.gridsize(1) // WARP
        chunks = (m + WARP - 1) // WARP
        per = (chunks + nwarps - 1) // nwarps
        first = (tid // WARP) * per
        for c in range(first, min(first + per, chunks)):
            i = c * WARP + tid % WARP
            if i >= m:
                break
            u = src[i]
            v = dst[i]
            if lazy:
                lazy_init(P, u)
                lazy_init(P, v)
            op = mode
            if mode == OP_MIXED:
                op = kinds[i]
            if op == OP_UNION:
                r = union_any(P, H, u, v, fin, fopt, sopt)
                if record and r >= 0:
                    fa[r] = u
                    fb[r] = v
            else:
                out[i] = same_set_any(P, u, v, fin, fopt)

    return coo_ops


# -- kernels that only know whether records are UnionJTB's -------------------


def _fin(jtb):
    return UNION_JTB if jtb else UNION_ASYNC


def make_hb_hook(jtb):
    """HB step 1: v points at its smallest neighbour w when w < v (the CSR
    is sorted, so that is the first).  Each vertex writes only its own slot:
    no contention, no atomics."""
    fin = _fin(jtb)
    set_parent = UF.set_parent

    def hb_hook(P, indptr, indices, n, record, fa, fb):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if indptr[v + 1] > indptr[v]:
                w = indices[indptr[v]]
                if w < v:
                    set_parent(P, v, w, fin)
                    if record:
                        fa[v] = v
                        fb[v] = w

    return hb_hook


def make_compress(jtb):
    """Point every vertex at its root with no unions running (after
    sampling, finalization, incremental roots()).  All threads jump pointers
    at once (path halving; two-try splitting on JTB records), which is
    parallel list ranking: a 4M-vertex chain takes O(log n) rounds, where
    walking naively to the root would be quadratic.  A -1 sentinel (never
    touched by an incremental batch) becomes a singleton.  ``write_out``
    also writes the roots to ``out`` (UnionJTB: the parent field)."""
    fin = _fin(jtb)
    fopt = FIND_TWO_TRY if jtb else FIND_HALVE
    find_any, set_parent, parent_of = UF.find_any, UF.set_parent, UF.parent_of

    def compress(P, n, out, write_out):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if load(P, v) == -1:
                P[v] = v
                r = v
            else:
                r = find_any(P, v, fin, fopt)
                if parent_of(P, v, fin) != r:
                    set_parent(P, v, r, fin)
            if write_out:
                out[v] = r

    return compress


@device
def block_mode(vals, t, best):
    """Thread ``t`` of a SAMPLE-thread block holds ``vals[t]`` in shared
    memory; afterwards ``best[0]`` packs (count << 20 | index) of a most
    frequent value (entries < 0 do not count).  O(SAMPLE) per thread."""
    c = 0
    x = vals[t]
    if x >= 0:
        for j in range(SAMPLE):
            if vals[j] == x:
                c += 1
    cuda.atomic.max(best, 0, (c << 20) | t)
    cuda.syncthreads()


def make_lmax(jtb):
    """L_max: the most frequent root among SAMPLE random vertices (one
    block, shared memory), written to ``out[0]`` with its count in
    ``out[1]``.  Also zeroes the gather counters, saving a launch."""
    fin = _fin(jtb)
    find_any = UF.find_any

    def lmax(P, n, seed, out, counts):
        vals = cuda.shared.array(SAMPLE, np.int64)
        best = cuda.shared.array(1, np.int64)
        t = cuda.threadIdx.x
        x = np.int64(rand64(t, seed) % U64(n))
        vals[t] = find_any(P, x, fin, FIND_HALVE)
        if t == 0:
            best[0] = 0
            counts[0] = 0
            counts[1] = 0
        cuda.syncthreads()
        block_mode(vals, t, best)
        if t == 0:
            out[0] = vals[best[0] & 0xFFFFF]
            out[1] = best[0] >> 20

    return lmax


def make_gather(jtb):
    """Vertex gathering after the compression that follows sampling: the
    vertices with degree > 0 outside L_max are appended to the small list
    (degree <= small_max) or split into CHUNK-edge warp units (uv, us =
    vertex, first edge).  Appends are aggregated per warp (ballot) or per
    block (shared atomics), so the global counters see one atomic per
    block."""
    fin = _fin(jtb)
    parent_of = UF.parent_of
    warp = WARP_INTRINSICS

    def gather(P, indptr, n, lm, small_max, small, uv, us, counts):
        loc = cuda.shared.array(2, np.int64)
        base = cuda.shared.array(2, np.int64)
        t = cuda.threadIdx.x
        v = cuda.grid(1)
        if t == 0:
            loc[0] = 0
            loc[1] = 0
        cuda.syncthreads()
        cls = 0
        cnt = 0
        if v < n:
            d = indptr[v + 1] - indptr[v]
            if d > 0 and parent_of(P, v, fin) != lm[0]:
                if d <= small_max:
                    cls = 1
                else:
                    cls = 2
                    cnt = (d + CHUNK - 1) // CHUNK
        pos = 0
        if warp:
            ballot = cuda.ballot_sync(FULL_MASK, cls == 1)
            leader = cuda.ffs(ballot) - 1
            wbase = 0
            if ballot != 0 and cuda.laneid == leader:
                wbase = cuda.atomic.add(loc, 0, cuda.popc(ballot))
            wbase = cuda.shfl_sync(FULL_MASK, wbase, max(leader, 0))
            if cls == 1:
                pos = wbase + cuda.popc(ballot & cuda.lanemask_lt())
        elif cls == 1:
            pos = atomic_add(loc, 0, 1)
        if cls == 2:
            pos = atomic_add(loc, 1, cnt)
        cuda.syncthreads()
        if t == 0:
            base[0] = atomic_add(counts, 0, loc[0])
            base[1] = atomic_add(counts, 1, loc[1])
        cuda.syncthreads()
        if cls == 1:
            small[base[0] + pos] = v
        elif cls == 2:
            o = base[1] + pos
            for c in range(cnt):
                uv[o + c] = v
                us[o + c] = indptr[v] + c * CHUNK

    return gather


def make_active_stats(jtb):
    """For Stats only: out[0] += edges of vertices outside L_max, out[1] +=
    those joining different sampled components (the paper's IC)."""
    fin = _fin(jtb)
    parent_of = UF.parent_of

    def active_stats(P, indptr, indices, n, lm, out):
        acc = cuda.shared.array(2, np.int64)
        t = cuda.threadIdx.x
        v = cuda.grid(1)
        if t == 0:
            acc[0] = 0
            acc[1] = 0
        cuda.syncthreads()
        if v < n:
            lv = parent_of(P, v, fin)
            if lv != lm[0]:
                cross = 0
                for j in range(indptr[v], indptr[v + 1]):
                    if parent_of(P, indices[j], fin) != lv:
                        cross += 1
                atomic_add(acc, 0, indptr[v + 1] - indptr[v])
                atomic_add(acc, 1, cross)
        cuda.syncthreads()
        if t == 0:
            atomic_add(out, 0, acc[0])
            atomic_add(out, 1, acc[1])

    return active_stats


def make_hb_follow():
    """HB coverage estimate (the decision tree's Cov): SAMPLE random starts
    follow smallest-neighbour pointers (HB's first step) while they lead to
    a smaller id; out[0] = how many end at the most common end."""

    def hb_follow(indptr, indices, n, seed, max_steps, out):
        vals = cuda.shared.array(SAMPLE, np.int64)
        best = cuda.shared.array(1, np.int64)
        t = cuda.threadIdx.x
        v = np.int64(rand64(t, seed) % U64(n))
        steps = 0
        while steps < max_steps and indptr[v + 1] > indptr[v]:
            w = indices[indptr[v]]
            if w >= v:
                break
            v = w
            steps += 1
        vals[t] = v if steps < max_steps else -1
        if t == 0:
            best[0] = 0
        cuda.syncthreads()
        block_mode(vals, t, best)
        if t == 0:
            out[0] = best[0] >> 20

    return hb_follow


# -- BFS sampling (direction-optimizing, level-synchronous) ------------------


def make_bfs_top_down():
    """One top-down level: a warp per frontier vertex claims unvisited
    neighbours with a CAS on ``level`` and appends them to the next queue.
    counters[0] = queue length, counters[2] += edges inspected."""

    def bfs_top_down(indptr, indices, frontier, nf, level, parent, depth, nxt, counters):
        tid = cuda.grid(1)
        lane = tid % WARP
        for t in range(tid // WARP, nf, cuda.gridsize(1) // WARP):
            v = frontier[t]
            s = indptr[v]
            e = indptr[v + 1]
            if lane == 0:
                atomic_add(counters, 2, e - s)
            for j in range(s + lane, e, WARP):
                w = indices[j]
                if load(level, w) < 0 and cas(level, w, -1, depth) == -1:
                    parent[w] = v
                    nxt[atomic_add(counters, 0, 1)] = w

    return bfs_top_down


def make_bfs_bottom_up():
    """One bottom-up level: each unvisited vertex looks for a neighbour on
    the previous level and stops at the first.  counters[0] += found,
    counters[1] += their degrees, counters[2] += edges scanned (per block)."""

    def bfs_bottom_up(indptr, indices, n, level, parent, depth, counters):
        acc = cuda.shared.array(3, np.int64)
        t = cuda.threadIdx.x
        v = cuda.grid(1)
        if t == 0:
            acc[0] = 0
            acc[1] = 0
            acc[2] = 0
        cuda.syncthreads()
        if v < n and level[v] < 0:
            b = indptr[v]
            e = indptr[v + 1]
            j = b
            while j < e:
                w = indices[j]
                j += 1
                if level[w] == depth - 1:
                    level[v] = depth
                    parent[v] = w
                    atomic_add(acc, 0, 1)
                    atomic_add(acc, 1, e - b)
                    break
            atomic_add(acc, 2, j - b)
        cuda.syncthreads()
        if t == 0:
            for c in range(3):
                atomic_add(counters, c, acc[c])

    return bfs_bottom_up


def make_bfs_collect():
    """The vertices on level ``depth`` as a queue (to go back top-down)."""

    def bfs_collect(level, n, depth, out, counters):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if level[v] == depth:
                out[atomic_add(counters, 0, 1)] = v

    return bfs_collect


def make_bfs_relabel(jtb):
    """Point every visited vertex at the visited set's minimum id, which
    keeps parent <= child for the finishes that rely on it."""
    fin = _fin(jtb)
    set_parent = UF.set_parent

    def bfs_relabel(P, level, n, mn):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if level[v] >= 0:
                set_parent(P, v, mn, fin)

    return bfs_relabel


# -- compaction --------------------------------------------------------------


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


# -- the registry --------------------------------------------------------------

#: kind -> factory(*key) -> the kernel's Python function
FACTORIES = {
    "sample_csr": make_sample_csr,
    "finish_csr": make_finish_csr,
    "coo_ops": make_coo_ops,
    "hb_hook": make_hb_hook,
    "compress": make_compress,
    "lmax": make_lmax,
    "gather": make_gather,
    "active_stats": make_active_stats,
    "hb_follow": make_hb_follow,
    "bfs_top_down": make_bfs_top_down,
    "bfs_bottom_up": make_bfs_bottom_up,
    "bfs_collect": make_bfs_collect,
    "bfs_relabel": make_bfs_relabel,
    "root_min": make_root_min,
}

#: kinds specialized on (finish, find, splice) codes; the others on ``jtb``
#: (True/False) or on nothing.
UNION_KINDS = ("sample_csr", "finish_csr", "coo_ops")
JTB_KINDS = ("hb_hook", "compress", "lmax", "gather", "active_stats", "bfs_relabel")
#: kinds that take no CSR offsets: their cache key ignores the offset dtype
NO_OFFSETS = ("coo_ops", "compress", "lmax", "bfs_collect", "bfs_relabel", "root_min")


def signature(kind: str, dtypes: tuple):
    """Argument types of kernel ``kind`` for ``dtypes = (ids, offsets,
    parents)`` (parents is int64 for UnionJTB's records)."""
    idt, ptr, pdt = (_arr(d) for d in dtypes)
    i64 = _arr(np.int64)
    lvl = _arr(np.int32)
    sigs = {
        "sample_csr": (pdt, pdt, ptr, idt) + (I64,) * 6 + (idt, idt),
        "finish_csr": (pdt, pdt, ptr, idt, idt, idt, ptr, i64, I64, idt, idt),
        "coo_ops": (pdt, pdt, idt, idt, _arr(np.int8), I64, I64, I64, I64, idt, idt, _arr(np.bool_)),
        "hb_hook": (pdt, ptr, idt, I64, I64, idt, idt),
        "compress": (pdt, I64, idt, I64),
        "lmax": (pdt, I64, I64, i64, i64),
        "gather": (pdt, ptr, I64, i64, I64, idt, idt, ptr, i64),
        "active_stats": (pdt, ptr, idt, I64, i64, i64),
        "hb_follow": (ptr, idt, I64, I64, I64, i64),
        "bfs_top_down": (ptr, idt, idt, I64, lvl, idt, I64, idt, i64),
        "bfs_bottom_up": (ptr, idt, I64, lvl, idt, I64, i64),
        "bfs_collect": (lvl, I64, I64, idt, i64),
        "bfs_relabel": (pdt, lvl, I64, I64),
        "root_min": (idt, I64, idt),
    }
    return types.void(*sigs[kind])


def dtypes_key(id_dtype, ptr_dtype, p_dtype) -> tuple:
    return tuple(np.dtype(d).name for d in (id_dtype, ptr_dtype, p_dtype))


_CACHE: dict = {}


def get(kind: str, key: tuple, dtypes: tuple):
    """The kernel ``kind`` specialized to ``key`` (codes, a jtb flag or ())
    for ``dtypes``, compiled on first use.

    >>> k = get("root_min", (), dtypes_key("int32", "int32", "int32"))
    """
    if kind in NO_OFFSETS:
        dtypes = (dtypes[0], dtypes[0], dtypes[2])
    return compiled(_CACHE, FACTORIES, signature, kind, key, dtypes)


def compiled(cache: dict, factories: dict, signature, kind: str, key: tuple, dtypes: tuple):
    """``factories[kind](*key)`` compiled for ``signature(kind, dtypes)``
    on first use and kept in ``cache`` (the simulator takes no signature)."""
    ck = (kind, key, dtypes)
    kern = cache.get(ck)
    if kern is None:
        pyfunc = factories[kind](*key)
        kern = cuda.jit(pyfunc) if SIM else cuda.jit(signature(kind, dtypes))(pyfunc)
        cache[ck] = kern
    return kern


_SMS: list = []


def _sm_count() -> int:
    if not _SMS:
        _SMS.append(1 if SIM else cuda.get_current_device().MULTIPROCESSOR_COUNT)
    return _SMS[0]


_CONFIGS: dict = {}


def launch(kern, nthreads: int, *args, persistent: bool = False, block: int = BLOCK) -> None:
    """Launch ``kern`` with enough blocks of ``block`` threads for
    ``nthreads`` (capped at a few waves for the grid-stride kernels when
    ``persistent``); nothing when there is no work.  Launch configurations
    are kept: making one costs as much as a small kernel, and numba's
    low-occupancy warning is noise for the one-block kernels (L_max).

    >>> launch(get("root_min", (), dtypes_key("int32", "int32", "int32")), 0)
    """
    if nthreads <= 0:
        return
    grid = (nthreads + block - 1) // block
    if persistent:
        grid = min(grid, (2 if SIM else 8) * _sm_count())
    if SIM:                     # the simulator's configuration is the kernel itself
        kern[grid, block](*args)
        return
    cfg = _CONFIGS.get((kern, grid, block))
    if cfg is None:
        if len(_CONFIGS) > 4096:
            _CONFIGS.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = _CONFIGS[(kern, grid, block)] = kern[grid, block]
    cfg(*args)
