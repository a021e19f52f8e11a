"""The union-find finish on the GPU (paper Sec. 3.4): L_max, vertex gathering,
the load-balanced finish over the gathered CSR work, the COO operations (the
finish without sampling, incremental batches, the chunked route's chunks), compression.

>>> from gconn.backends.gpu import unionfind
>>> from gconn.backends.gpu.launch import REGISTRY
>>> "coo_ops" in REGISTRY and "finish_csr" in REGISTRY
True
"""
from __future__ import annotations

import numpy as np

from gconn.backends.core.unionfind import FIND_HALVE, PEEK_STEPS, UNION_ASYNC, UNION_JTB
from gconn.backends.gpu._compat import SIM, WARP_INTRINSICS, cuda, view, xp
from gconn.backends.gpu.launch import CHUNK, FULL_MASK, SAMPLE, WARP, dummy, kernel, launch
from gconn.backends.gpu.primitives import (RECORD_POSITION, U64, UF, atomic_add, device, load, rand64, record_edge,
                                          record_position)

OP_UNION = 0        # coo_ops modes: every op a union,
OP_QUERY = 1        # every op a query,
OP_MIXED = 2        # kinds[i] says (0 union, 1 query)
#: coo_ops's id checks: none,
TRACK_NONE = 0
#: the smallest and largest id folded into a bounds row (the chunked route's chunks),
TRACK_BOUNDS = 1
#: two flags, an id outside 0..cap-1 and an id cap-1 (a CuPy pair passed again)
TRACK_FIT = 2
I64_MAX = np.int64(np.iinfo(np.int64).max)


def jtb_fin(jtb):
    return UNION_JTB if jtb else UNION_ASYNC


@kernel("finish_csr",
        lambda t: (t.P, t.P, t.ptr, t.id, t.id, t.id, t.ptr, t.i64, t.I64, t.id, t.id), keys="union")
def make_finish_csr(fin, fopt, sopt):
    """The finish over the gathered vertices: a thread per small one, a warp per CHUNK edges."""
    union_any = UF.union_any

    def finish_csr(P, H, indptr, indices, small, uv, us, counts, record, fa, fb):
        tid = cuda.grid(1)
        nth = cuda.gridsize(1)
        for t in range(tid, counts[0], nth):
            v = small[t]
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                r = union_any(P, H, v, w, fin, fopt, sopt)
                record_edge(record, fa, fb, r, v, w)
        lane = tid % WARP
        for u in range(tid // WARP, counts[1], nth // WARP):
            v = uv[u]
            e = min(us[u] + CHUNK, indptr[v + 1])
            for j in range(us[u] + lane, e, WARP):
                w = indices[j]
                r = union_any(P, H, v, w, fin, fopt, sopt)
                record_edge(record, fa, fb, r, v, w)

    return finish_csr


@device
def _open_bounds(acc):
    """A block's (min, max) in shared ``acc``, empty."""
    if cuda.threadIdx.x == 0:
        acc[0] = I64_MAX
        acc[1] = -1
    cuda.syncthreads()


@device
def _close_bounds(acc, lo, hi, bounds, row):
    """Fold a thread's (lo, hi) into its block's ``acc``, then into ``bounds`` row ``row``."""
    if WARP_INTRINSICS:
        for d in (16, 8, 4, 2, 1):
            lo = min(lo, cuda.shfl_down_sync(FULL_MASK, lo, d))
            hi = max(hi, cuda.shfl_down_sync(FULL_MASK, hi, d))
    if not WARP_INTRINSICS or cuda.grid(1) % WARP == 0:
        cuda.atomic.min(acc, 0, lo)
        cuda.atomic.max(acc, 1, hi)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0 and row >= 0:     # row -1: ids checked on the host
        cuda.atomic.min(bounds, 2 * row, acc[0])
        cuda.atomic.max(bounds, 2 * row + 1, acc[1])


@device
def _fits(u, v, cap, flags):
    """Whether u and v are in 0..cap-1 (else flags[0] = 1; flags[1] = 1 where one is cap - 1)."""
    if u < 0 or v < 0 or u >= cap or v >= cap:
        flags[0] = 1
        return False
    if u == cap - 1 or v == cap - 1:
        flags[1] = 1
    return True


@kernel("coo_ops",
        lambda t: (t.P, t.P, t.id, t.id, t.i8, t.I64, t.I64, t.I64, t.id, t.id, t.b, t.I64, t.i64, t.I64, t.I64),
        keys="union", offsets=False)
def make_coo_ops(fin, fopt, sopt, track=TRACK_NONE):
    """Unions, queries or both over COO pairs, each warp walking its own segment in 32-pair
    chunks ``step`` apart (sorted input links nearly in order); a forest recorded by position (one
    pass, ``step`` 32) fills slots cap + i.  ``track``: ids outside
    ``0..cap-1`` skipped, bounds folded (``TRACK_BOUNDS``) or flagged (``TRACK_FIT``)."""
    union_any, same_set_any = UF.union_any, UF.same_set_any
    bounded = track == TRACK_BOUNDS
    fit = track == TRACK_FIT

    def coo_ops(P, H, src, dst, kinds, m, mode, record, fa, fb, out, cap, bounds, row, step):
        acc = cuda.shared.array(2, np.int64)
        if bounded:
            _open_bounds(acc)
        lo = I64_MAX
        hi = np.int64(-1)
        tid = cuda.grid(1)
        nwarps = cuda.gridsize(1) // WARP
        chunks = (m + step - 1) // step
        per = (chunks + nwarps - 1) // nwarps
        first = (tid // WARP) * per
        for c in range(first, min(first + per, chunks)):
            i = c * step + tid % WARP
            if i >= m:
                break
            u = src[i]
            v = dst[i]
            ok = True
            if bounded:
                a = min(u, v)
                b = max(u, v)
                lo = min(lo, np.int64(a))
                hi = max(hi, np.int64(b))
                ok = a >= 0 and b < cap
            if fit and ok:
                ok = _fits(u, v, cap, bounds)
            r = -1
            if ok:
                op = kinds[i] if mode == OP_MIXED else mode
                if op == OP_UNION:
                    r = union_any(P, H, u, v, fin, fopt, sopt)
                    if record != RECORD_POSITION:
                        record_edge(record, fa, fb, r, u, v)
                else:
                    out[i] = same_set_any(P, u, v, fin, fopt)
            if record == RECORD_POSITION:
                record_position(fa, fb, cap + i, r, u, v)
        if bounded:
            _close_bounds(acc, lo, hi, bounds, row)

    return coo_ops


@kernel("init_parents", lambda t: (t.P, t.I64), offsets=False)
def make_init_parents():
    """P[v] = v (UnionJTB: rank 0, parent v)."""

    def init_parents(P, n):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            P[v] = v

    return init_parents


def roots_together(jtb: bool, items: int):
    """A device function ``chase(P, p, todo, base, step)``: the items' parents followed to their
    roots together, each vertex pointed at the ancestors found (no unions running)."""
    fin = jtb_fin(jtb)
    set_parent, parent_of = UF.set_parent, UF.parent_of

    @device
    def chase(P, p, todo, base, step):
        steps = 0
        while todo:
            for j in range(items):
                if (todo >> j) & 1:
                    q = p[j]
                    g = parent_of(P, q, fin) if jtb or steps < PEEK_STEPS else load(P, q)
                    if g == q:
                        todo &= ~(1 << j)
                    else:
                        p[j] = g
                        set_parent(P, base + j * step, g, fin)
            steps += 1

    return chase


#: vertices a thread of ``compress`` owns
COMPRESS_ITEMS = 1 if SIM else 4


@kernel("compress", lambda t: (t.P, t.I64, t.id, t.I64), keys="jtb", offsets=False)
def make_compress(jtb):
    """Point every vertex at its root (no unions running), a thread on COMPRESS_ITEMS vertices;
    not persistent, so blocks finish roughly in id order."""
    parent_of = UF.parent_of
    fin = jtb_fin(jtb)
    items = COMPRESS_ITEMS
    chase = roots_together(jtb, items)

    def compress(P, n, out, write_out):
        base = cuda.blockIdx.x * (cuda.blockDim.x * items) + cuda.threadIdx.x
        step = cuda.blockDim.x
        p = cuda.local.array(items, np.int64)
        todo = 0
        for j in range(items):
            v = base + j * step
            if v < n:
                p[j] = parent_of(P, v, fin)
                todo |= 1 << j
        chase(P, p, todo, base, step)
        if write_out:
            for j in range(items):
                v = base + j * step
                if v < n:
                    out[v] = p[j]

    return compress


def compress(kern, n: int, Pv, out, write_out: int) -> None:
    launch(kern, (n + COMPRESS_ITEMS - 1) // COMPRESS_ITEMS, Pv, n, out, write_out)


def flat_roots(kern, n: int, P, Pv, jtb: bool, id_dtype):
    """The roots of the first ``n`` vertices after ``kern``: ``P[:n]``, or (UnionJTB) a new array."""
    if not jtb:
        compress(kern, n, Pv, dummy(id_dtype), 0)
        return P if P.size == n else P[:n]
    roots = xp.empty(n, id_dtype)
    compress(kern, n, Pv, view(roots) if n else dummy(id_dtype), 1)
    return roots


#: slots of block_mode's shared hash table (a power of two)
TABLE = 2 * SAMPLE


@device
def block_mode(vals, t, best, keys, counts):
    """``best[0]`` = (count << 20 | index) of a most frequent of the block's ``vals``."""
    keys[t] = -1
    keys[t + SAMPLE] = -1
    counts[t] = 0
    counts[t + SAMPLE] = 0
    if t == 0:
        best[0] = 0
    cuda.syncthreads()
    x = vals[t]
    h = 0
    if x >= 0:
        h = (x ^ (x >> 11) ^ (x >> 23)) & (TABLE - 1)
        while True:
            seen = cuda.atomic.cas(keys, h, -1, x)
            if seen == -1 or seen == x:
                cuda.atomic.add(counts, h, 1)
                break
            h = (h + 1) & (TABLE - 1)
    cuda.syncthreads()
    if x >= 0:
        cuda.atomic.max(best, 0, (np.int64(counts[h]) << 20) | t)
    cuda.syncthreads()


@kernel("lmax", lambda t: (t.P, t.I64, t.I64, t.i64, t.i64), keys="jtb", offsets=False)
def make_lmax(jtb):
    """L_max of SAMPLE random vertices (one block) and its count; zeroes the gather counters."""
    fin = jtb_fin(jtb)
    find_any = UF.find_any

    def lmax(P, n, seed, out, counts):
        vals = cuda.shared.array(SAMPLE, np.int64)
        best = cuda.shared.array(1, np.int64)
        keys = cuda.shared.array(TABLE, np.int64)
        tally = cuda.shared.array(TABLE, np.int32)
        t = cuda.threadIdx.x
        x = np.int64(rand64(t, seed) % U64(n))
        vals[t] = find_any(P, x, fin, FIND_HALVE)
        if t == 0:
            counts[0] = 0
            counts[1] = 0
        block_mode(vals, t, best, keys, tally)
        if t == 0:
            out[0] = vals[best[0] & 0xFFFFF]
            out[1] = best[0] >> 20

    return lmax


@kernel("gather", lambda t: (t.P, t.ptr, t.I64, t.i64, t.I64, t.id, t.id, t.ptr, t.i64), keys="jtb")
def make_gather(jtb):
    """The active vertices into the small list or CHUNK-edge warp units; an atomic per block."""
    fin = jtb_fin(jtb)
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


@kernel("active_stats", lambda t: (t.P, t.ptr, t.id, t.I64, t.i64, t.i64), keys="jtb")
def make_active_stats(jtb):
    """For Stats: out += (edges outside L_max, those joining sampled components)."""
    fin = jtb_fin(jtb)
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
