"""Array-level operations of the GPU backend interface (see :mod:`gconn.backends.cpu`).

Compaction numbers components 0..k-1 by their smallest vertex (scipy's order)
for any roots: a per-root minimum by atomic min (skipped when ``min_rooted``),
a flag on each component's minimum, a scan of the flags."""
from __future__ import annotations

import numpy as np

from gconn.graph.ids import check_pair
from gconn.backends.gpu import memory, replay
from gconn.backends.gpu._compat import SIM, WARP_INTRINSICS, cuda, view, xp
from gconn.backends.gpu.launch import BLOCK, FULL_MASK, WARP, bind, dtypes_key, dummy, get, kernel, launch
from gconn.backends.gpu.graph import device_id_range, fitted
from gconn.backends.gpu.staging import put
from gconn.backends.gpu.primitives import atomic_min, load4, peek, store4
from gconn.backends.gpu.unionfind import roots_together


def to_backend(graph):
    """The graph where the kernels read it (on the host under the simulator)."""
    return graph.to_host() if SIM else graph.to_device()


@kernel("root_min", lambda t: (t.id, t.I64, t.id), offsets=False)
def make_root_min():
    """mins[r] = the smallest vertex whose root is r (reading first skips most atomics)."""

    def root_min(roots, n, mins):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            r = roots[v]
            if v < peek(mins, r):
                atomic_min(mins, r, v)

    return root_min


def _root_mins(roots):
    n = roots.size
    mins = xp.full(n, n, roots.dtype)
    dts = dtypes_key(roots.dtype, roots.dtype, roots.dtype)
    launch(get("root_min", (), dts), n, view(roots), n, view(mins), persistent=True)
    return mins


#: vertices a thread of the compaction flags (a block's tile is BLOCK times as many)
COMPACT_ITEMS = 2 if SIM else 8
TILE = BLOCK * COMPACT_ITEMS
#: threads of the one block that scans the tile sums, and the sums each holds at a time
SCAN_BLOCK = BLOCK if SIM else 1024
SCAN_ITEMS = 8


def _tile_flags(min_rooted: bool, clamped: bool):
    """A device function: the bits of a thread's items that are minima, their roots into ``p``."""
    items = COMPACT_ITEMS

    @cuda.jit(device=True)
    def flags(roots, mins, p, first, step, last):
        bits = 0
        for j in range(items):
            v = first + j * step
            r = roots[min(v, last)] if clamped else roots[v]
            p[j] = r
            if not min_rooted:
                r = mins[r]
            if r == v:
                bits |= 1 << j
        return bits

    return flags


@cuda.jit(device=True)
def _rank_by_ballots(bits, first, local, sums, counts, ballots):
    """local[v] = the minima before v in the tile, sums[block] = the tile's, by warp ballots."""
    t = cuda.threadIdx.x
    lane = cuda.laneid
    w = t // WARP
    own = 0
    for j in range(COMPACT_ITEMS):
        ballot = cuda.ballot_sync(FULL_MASK, (bits >> j) & 1 == 1)
        ballots[j] = ballot
        own += cuda.popc(ballot)
    if lane == 0:
        counts[w] = own
    cuda.syncthreads()
    if own:
        run = 0
        for i in range(w):
            run += counts[i]
        below = cuda.lanemask_lt()
        for j in range(COMPACT_ITEMS):
            ballot = ballots[j]
            if (bits >> j) & 1 == 1:
                local[first + j * WARP] = run + cuda.popc(ballot & below)
            run += cuda.popc(ballot)
    if t == 0:
        total = 0
        for i in range(max(BLOCK // WARP, 1)):
            total += counts[i]
        sums[cuda.blockIdx.x] = total


@cuda.jit(device=True)
def _rank_in_shared(bits, base, local, sums, counts):
    """:func:`_rank_by_ballots` in shared memory (the simulator)."""
    t = cuda.threadIdx.x
    running = 0
    for j in range(COMPACT_ITEMS):
        counts[t] = (bits >> j) & 1
        cuda.syncthreads()
        before = 0
        step = 0
        for i in range(BLOCK):
            c = counts[i]
            if i < t:
                before += c
            step += c
        if (bits >> j) & 1 == 1:
            local[base + j * BLOCK + t] = running + before
        running += step
        cuda.syncthreads()
    if t == 0:
        sums[cuda.blockIdx.x] = running


@kernel("compact_local", lambda t: (t.id, t.I64, t.id, t.id, t.id),
        keys=((False, False), (True, False), (True, True)), offsets=False,
        registers=lambda dtypes: 40 if dtypes[0] == "int32" else None)
def make_compact_local(min_rooted, find):
    """Per TILE vertices: local[v] = the minima before minimum v in the tile, sums[tile] = the
    tile's.  ``find``: the vertices also pointed at their roots (the finalize's compression)."""
    warp = WARP_INTRINSICS
    warps = max(BLOCK // WARP, 1)
    items = COMPACT_ITEMS
    span = WARP * items
    stride = WARP if warp else BLOCK
    whole, part = _tile_flags(min_rooted, False), _tile_flags(min_rooted, True)
    chase = roots_together(False, items)

    def compact_local(roots, n, mins, local, sums):
        t = cuda.threadIdx.x
        base = cuda.blockIdx.x * TILE
        first = base + (t // WARP) * span + cuda.laneid if warp else base + t
        p = cuda.local.array(items, roots.dtype)
        if warp and base + TILE <= n:
            bits = whole(roots, mins, p, first, stride, n - 1)     # fixed offsets: few registers
        else:
            bits = part(roots, mins, p, first, stride, n - 1)
        if warp:
            _rank_by_ballots(bits, first, local, sums, cuda.shared.array(warps, np.int64),
                             cuda.local.array(items, np.uint32))
        else:
            _rank_in_shared(bits, base, local, sums, cuda.shared.array(BLOCK, np.int64))
        if find:
            todo = 0
            for j in range(items):
                if first + j * stride < n and (bits >> j) & 1 == 0:
                    todo |= 1 << j
            chase(roots, p, todo, first, stride)

    return compact_local


@cuda.jit(device=True)
def warp_scan(x, lane):
    """The inclusive sum of ``x`` over the warp's lanes up to ``lane``."""
    d = 1
    while d < WARP:
        y = cuda.shfl_up_sync(FULL_MASK, x, d)
        if lane >= d:
            x += y
        d *= 2
    return x


@cuda.jit(device=True)
def _scan_by_warps(sums, tiles, totals, held):
    """The inclusive scan of ``sums[:tiles]`` by one block, each thread's sums loaded first."""
    t = cuda.threadIdx.x
    lane = cuda.laneid
    w = t // WARP
    warps = max(SCAN_BLOCK // WARP, 1)
    carry = 0
    for start in range(0, tiles, SCAN_BLOCK * SCAN_ITEMS):
        first = start + t * SCAN_ITEMS
        for j in range(SCAN_ITEMS):
            i = first + j
            held[j] = sums[i] if i < tiles else 0
        own = 0
        for j in range(SCAN_ITEMS):
            own += held[j]
        x = warp_scan(own, lane)
        if lane == WARP - 1:
            totals[w] = x
        cuda.syncthreads()
        if w == 0:
            z = warp_scan(totals[lane] if lane < warps else 0, lane)
            if lane < warps:
                totals[lane] = z
        cuda.syncthreads()
        run = carry + x - own + (totals[w - 1] if w > 0 else 0)
        for j in range(SCAN_ITEMS):
            run += held[j]
            i = first + j
            if i < tiles:
                sums[i] = run
        carry += totals[warps - 1]
        cuda.syncthreads()      # totals are rewritten by the next round


@cuda.jit(device=True)
def _scan_in_shared(sums, tiles, acc):
    """:func:`_scan_by_warps` in shared memory (the simulator)."""
    t = cuda.threadIdx.x
    per = (tiles + SCAN_BLOCK - 1) // SCAN_BLOCK
    lo = min(t * per, tiles)
    hi = min(lo + per, tiles)
    own = 0
    for i in range(lo, hi):
        own += sums[i]
    acc[t] = own
    cuda.syncthreads()
    d = 1
    while d < SCAN_BLOCK:
        x = acc[t - d] if t >= d else 0
        cuda.syncthreads()
        acc[t] += x
        cuda.syncthreads()
        d *= 2
    run = acc[t] - own
    for i in range(lo, hi):
        run += sums[i]
        sums[i] = run


@kernel("compact_tiles", lambda t: (t.id, t.I64, t.i64), keys=((False,), (True,)), offsets=False)
def make_compact_tiles(checked):
    """The inclusive scan of the tile sums, by one block; ``checked``: k is
    :func:`~gconn.backends.gpu.graph.fitted`."""
    warp = WARP_INTRINSICS
    warps = max(SCAN_BLOCK // WARP, 1)

    def compact_tiles(sums, tiles, flags):
        if warp:
            _scan_by_warps(sums, tiles, cuda.shared.array(warps, np.int64),
                           cuda.local.array(SCAN_ITEMS, np.int64))
        else:
            _scan_in_shared(sums, tiles, cuda.shared.array(SCAN_BLOCK, np.int64))
        if checked:
            cuda.syncthreads()          # the last sum is written
            if cuda.threadIdx.x == 0:
                sums[tiles - 1] = fitted(sums[tiles - 1], flags)

    return compact_tiles


#: labels a thread of the last compaction kernel writes: two runs of four
#: consecutive vertices, a block's runs apart
LABEL_ITEMS = 8


@kernel("compact_labels", lambda t: (t.id, t.I64, t.id, t.id, t.id, t.id),
        keys=((False, False), (False, True), (True, False), (True, True)), offsets=False)
def make_compact_labels(min_rooted, vectors):
    """labels[v] = the rank of v's component minimum; a thread's loads, then ranks, then
    stores, in 16-byte accesses where ``vectors``, blocks from the last vertices (still in L2)."""
    span = 4 * BLOCK

    @cuda.jit(device=True)
    def rank(p, mins, local, scanned):
        if not min_rooted:
            p = mins[p]
        tile = p // TILE
        return local[p] + (scanned[tile - 1] if tile > 0 else 0)

    @cuda.jit(device=True)
    def ranks(a, mins, local, scanned):
        return (rank(a[0], mins, local, scanned), rank(a[1], mins, local, scanned),
                rank(a[2], mins, local, scanned), rank(a[3], mins, local, scanned))

    @cuda.jit(device=True)
    def run_of(a, v):
        if vectors:
            return load4(a, v)
        return a[v], a[v + 1], a[v + 2], a[v + 3]

    @cuda.jit(device=True)
    def put_run(a, v, x):
        if vectors:
            store4(a, v, x[0], x[1], x[2], x[3])
        else:
            a[v] = x[0]
            a[v + 1] = x[1]
            a[v + 2] = x[2]
            a[v + 3] = x[3]

    @cuda.jit(device=True)
    def put_tail(roots, v, n, one, mins, local, scanned, labels):
        for u in range(v, min(v + 4, n)):
            labels[u] = 0 if one else rank(roots[u], mins, local, scanned)

    def compact_labels(roots, n, mins, local, scanned, labels):
        v0 = (cuda.gridDim.x - 1 - cuda.blockIdx.x) * (BLOCK * LABEL_ITEMS) + 4 * cuda.threadIdx.x
        v1 = v0 + span
        whole = v1 + 4 <= n
        if scanned[(n - 1) // TILE] == 1:
            if whole:
                put_run(labels, v0, (0, 0, 0, 0))
                put_run(labels, v1, (0, 0, 0, 0))
            else:
                put_tail(roots, v0, n, True, mins, local, scanned, labels)
                put_tail(roots, v1, n, True, mins, local, scanned, labels)
            return
        if whole:
            a = run_of(roots, v0)
            b = run_of(roots, v1)
            a = ranks(a, mins, local, scanned)
            b = ranks(b, mins, local, scanned)
            put_run(labels, v0, a)
            put_run(labels, v1, b)
        else:
            put_tail(roots, v0, n, False, mins, local, scanned, labels)
            put_tail(roots, v1, n, False, mins, local, scanned, labels)

    return compact_labels


def compact(roots, min_rooted: bool = False, flat: bool = True, flags=None):
    """(k, labels 0..k-1 in scipy's order) from any roots, k on the device (0-d); labels
    :class:`~gconn.backends.gpu.replay.Deferred` for :func:`~gconn.backends.gpu.replay.replayed`.
    ``flat=False`` (min-rooted only): ``roots`` a parent array not yet compressed.  ``flags``:
    :func:`~gconn.backends.gpu.graph.track_ids`'s; then k is -1 unless the ids fit."""
    n = roots.size
    if not (flat or min_rooted):
        raise ValueError("compact(flat=False) needs min-rooted trees: the minima pass reads flat roots")
    if n == 0:
        return 0, roots.copy()
    with memory.guard(f"compacting {n} labels"):
        dts = dtypes_key(roots.dtype, roots.dtype, roots.dtype)
        tiles = (n + TILE - 1) // TILE
        local = xp.empty(n, roots.dtype)
        sums = xp.empty(tiles, roots.dtype)
        rv, lv, sv = view(roots), view(local), view(sums)
        mv = dummy(roots.dtype) if min_rooted else view(_root_mins(roots))
        launch(get("compact_local", (min_rooted, not flat), dts), tiles * BLOCK, rv, n, mv, lv, sv)
        launch(get("compact_tiles", (flags is not None,), dts), SCAN_BLOCK, sv, tiles,
               dummy(np.int64) if flags is None else view(flags), block=SCAN_BLOCK)
        # fresh label arrays are aligned; roots may be a view
        kern = get("compact_labels", (min_rooted, _address(roots) % 16 == 0), dts)
        threads = (n + LABEL_ITEMS - 1) // LABEL_ITEMS
        if replay.deferring():
            return sums[-1], replay.Deferred(_labels, bind(kern, threads, rv, n, mv, lv, sv), n, roots.dtype)
        labels = xp.empty(n, roots.dtype)
        launch(kern, threads, rv, n, mv, lv, sv, view(labels))     # not bound: that costs more
        return sums[-1], labels


def _address(a) -> int:
    return a.ctypes.data if SIM else a.data.ptr


def _labels(last, n, dtype):
    """The last step of :func:`compact`, into a fresh array (after a replay)."""
    with memory.guard(f"compacting {n} labels"):
        labels = xp.empty(n, dtype)
    last(labels)
    return labels


def min_representatives(roots):
    """Replace each root by the smallest vertex of its component."""
    return roots.copy() if roots.size == 0 else _root_mins(roots)[roots]


def count_roots(roots):
    """The number of roots, left on the device (0-d; ``int()`` reads it)."""
    return xp.count_nonzero(roots == xp.arange(roots.size, dtype=roots.dtype))


def collect_forest(fa, fb):
    """The recorded spanning-forest edges (slots that hold one)."""
    keep = xp.flatnonzero(fa >= 0)     # one scan and one read of its size, where two masks take two
    return fa[keep], fb[keep]


def asarray(x, dtype=None):
    """``x`` as a contiguous device array (host arrays through :func:`~gconn.backends.gpu.staging.put`)."""
    if not SIM and not isinstance(x, xp.ndarray):
        x = put(np.asarray(x))
    return xp.ascontiguousarray(xp.asarray(x), dtype=dtype)


def concatenate(parts):
    return xp.concatenate(parts)


def validate_device_ids(src, dst):
    """Check a CuPy batch: 1-D integer arrays of equal length, ids >= 0; returns (src, dst, the
    largest id or -1), the bound found by the check's one pass."""
    if SIM:
        raise TypeError("the CUDA simulator takes NumPy arrays, not CuPy arrays")
    for a, what in ((src, "src"), (dst, "dst")):
        if not isinstance(a, xp.ndarray):
            raise TypeError(f"{what} must be a CuPy array when the other one is")
    check_pair(src, dst)
    return src, dst, (device_id_range(src, dst) if src.size else -1)
