"""Array-level operations of the GPU backend interface (see :mod:`gconn.backends.cpu`).

Compaction numbers components 0..k-1 by their smallest vertex, which is
scipy's numbering, for any choice of root: a per-root minimum by atomic
min, a flag on each component's smallest vertex, a scan of the flags.  When
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

from gconn.graph.ids import check_pair
from gconn.backends.gpu import memory, replay
from gconn.backends.gpu._compat import SIM, WARP_INTRINSICS, cuda, view, xp
from gconn.backends.gpu.launch import BLOCK, FULL_MASK, WARP, bind, dtypes_key, dummy, get, kernel, launch
from gconn.backends.gpu.graph import device_id_range, fitted
from gconn.backends.gpu.staging import put
from gconn.backends.gpu.primitives import atomic_min, load4, peek, store4
from gconn.backends.gpu.unionfind import roots_together


def to_backend(graph):
    """The graph with its arrays where the kernels read them: on the GPU
    (CuPy), or on the host under the simulator."""
    if SIM:
        return graph.to_host()
    return graph.to_device()


@kernel("root_min", lambda t: (t.id, t.I64, t.id), offsets=False)
def make_root_min():
    """mins[r] = the smallest vertex whose root is r, for any root choice. Reading
    first skips the atomic for all but a few vertices of a large component
    (blocks run roughly in id order). The read may be stale; a stale value only
    lets an atomic through that finds nothing to lower."""

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
    return mins[roots]


#: Vertices a thread of the compaction flags (a block's tile is BLOCK times
#: as many): 8 on a GPU, so that one block's scan over the tile sums reads
#: few of them (2048-vertex tiles: 8192 sums on a 16.7M-vertex graph).
COMPACT_ITEMS = 2 if SIM else 8
TILE = BLOCK * COMPACT_ITEMS
#: threads of the one block that scans the tile sums, and the sums each
#: holds at a time on a GPU
SCAN_BLOCK = BLOCK if SIM else 1024
SCAN_ITEMS = 8


@kernel("compact_local", lambda t: (t.id, t.I64, t.id, t.id, t.id),
        keys=((False, False), (True, False), (True, True)), offsets=False,
        registers=lambda dtypes: 40 if dtypes[0] == "int32" else None)
def make_compact_local(min_rooted, find):
    """For each TILE vertices (a block): local[v] = how many component
    minima precede minimum v in its tile, sums[tile] = the tile's minima.
    v is a minimum where mins[roots[v]] == v (roots[v] == v when min-rooted).

    On a GPU each warp loads WARP * COMPACT_ITEMS consecutive vertices first
    and ranks its flags by ballots, so the block needs one barrier; the
    simulator counts in shared memory.

    ``find`` (min-rooted only): ``roots`` may be deeper than one (no unions
    running); after the flags each thread points its vertices at their roots
    (:func:`gconn.backends.gpu.unionfind.roots_together`), so that this kernel
    is also the finalize's compression.  int32 ids are capped at 40 registers
    (six blocks an SM instead of five, no spills)."""
    warp = WARP_INTRINSICS
    warps = max(BLOCK // WARP, 1)
    items = COMPACT_ITEMS
    span = WARP * items
    chase = roots_together(False, items)

    def compact_local(roots, n, mins, local, sums):
        t = cuda.threadIdx.x
        base = cuda.blockIdx.x * TILE
        last = n - 1
        # a thread's items: a warp's consecutive span on a GPU, strided by the block in the simulator
        first = base + (t // WARP) * span + cuda.laneid if warp else base + t
        stride = WARP if warp else BLOCK
        p = cuda.local.array(items, roots.dtype)
        bits = 0
        if warp and base + TILE <= n:
            # a whole tile: loads at fixed offsets from one address (few registers)
            for j in range(items):
                r = roots[first + j * WARP]
                p[j] = r
                if not min_rooted:
                    r = mins[r]
                if r == first + j * WARP:
                    bits |= 1 << j
        else:
            for j in range(items):
                v = first + j * stride
                # an unconditional (clamped) load, so that all are in flight at once
                r = roots[min(v, last)]
                p[j] = r
                if not min_rooted:
                    r = mins[r]
                if r == v:
                    bits |= 1 << j
        if warp:
            counts = cuda.shared.array(warps, np.int64)
            lane = cuda.laneid
            w = t // WARP
            own = 0
            ballots = cuda.local.array(items, np.uint32)
            for j in range(items):
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
                for j in range(items):
                    ballot = ballots[j]
                    if (bits >> j) & 1 == 1:
                        local[first + j * WARP] = run + cuda.popc(ballot & below)
                    run += cuda.popc(ballot)
            if t == 0:
                total = 0
                for i in range(warps):
                    total += counts[i]
                sums[cuda.blockIdx.x] = total
        else:
            counts = cuda.shared.array(BLOCK, np.int64)
            running = 0
            for j in range(items):
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
        if find:
            todo = 0
            for j in range(items):
                if first + j * stride < n and (bits >> j) & 1 == 0:
                    todo |= 1 << j
            chase(roots, p, todo, first, stride)

    return compact_local


@cuda.jit(device=True)
def warp_scan(x, lane):
    """The inclusive sum of ``x`` over the warp's lanes up to ``lane``
    (every lane taking part; warp shuffles, so not in the simulator)."""
    d = 1
    while d < WARP:
        y = cuda.shfl_up_sync(FULL_MASK, x, d)
        if lane >= d:
            x += y
        d *= 2
    return x


@kernel("compact_tiles", lambda t: (t.id, t.I64, t.i64), keys=((False,), (True,)), offsets=False)
def make_compact_tiles(checked):
    """The inclusive scan of ``sums[:tiles]`` in place, by one block; its last sum
    is k. ``checked``: the run's ids were not checked before it
    (:func:`gconn.backends.gpu.graph.track_ids`), and k becomes -1 unless its
    union kernels' ``flags`` show no id outside 0..n-1 and the id n-1, the
    flags cleared for the next run (:func:`gconn.backends.gpu.graph.fitted`).
    Doing this here, not in ``ids_fit``, saves a node in a pair's capture.
    On a GPU each thread loads SCAN_ITEMS sums into registers before using
    any (the stores may alias them) and scans with warp shuffles; the
    simulator, which has no shuffles, scans in shared memory."""
    warp = WARP_INTRINSICS
    items = SCAN_ITEMS
    warps = max(SCAN_BLOCK // WARP, 1)

    def compact_tiles(sums, tiles, flags):
        scan(sums, tiles)
        if checked:
            cuda.syncthreads()          # the last sum is written
            if cuda.threadIdx.x == 0:
                sums[tiles - 1] = fitted(sums[tiles - 1], flags)

    @cuda.jit(device=True)
    def scan(sums, tiles):
        t = cuda.threadIdx.x
        if warp:
            totals = cuda.shared.array(warps, np.int64)
            lane = cuda.laneid
            w = t // WARP
            held = cuda.local.array(items, np.int64)
            carry = 0
            for start in range(0, tiles, SCAN_BLOCK * items):
                first = start + t * items
                for j in range(items):
                    i = first + j
                    held[j] = sums[i] if i < tiles else 0
                own = 0
                for j in range(items):
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
                for j in range(items):
                    run += held[j]
                    i = first + j
                    if i < tiles:
                        sums[i] = run
                carry += totals[warps - 1]
                cuda.syncthreads()      # totals are rewritten by the next round
            return
        acc = cuda.shared.array(SCAN_BLOCK, np.int64)
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

    return compact_tiles


#: labels a thread of the last compaction kernel writes: two runs of four
#: consecutive vertices, a block's runs apart (all loads first)
LABEL_ITEMS = 8


@kernel("compact_labels", lambda t: (t.id, t.I64, t.id, t.id, t.id, t.id),
        keys=((False, False), (False, True), (True, False), (True, True)), offsets=False)
def make_compact_labels(min_rooted, vectors):
    """labels[v] = the rank of v's component minimum p among the minima:
    the minima of the tiles before p's (``scanned``, inclusive) plus
    ``local[p]``.  A thread reads its roots, then their minima's ranks,
    then writes: the loads of one step are in flight together (the stores
    may alias them, so loads after a store would wait for it).

    A thread owns two runs of four consecutive vertices, a block's runs apart;
    with ``vectors`` (``roots`` 16-byte aligned) each run is read and written
    in 16-byte accesses (:func:`gconn.backends.gpu.primitives.load4`).  When
    k == 1 every label is 0 and the roots are not read.  The blocks run from
    the last vertices to the first: ``compact_local`` has just read the roots
    from the first to the last, so the L2 cache still holds the last ones."""
    span = 4 * BLOCK

    @cuda.jit(device=True)
    def rank(p, mins, local, scanned):
        if not min_rooted:
            p = mins[p]
        tile = p // TILE
        return local[p] + (scanned[tile - 1] if tile > 0 else 0)

    @cuda.jit(device=True)
    def run_of(a, v):
        if vectors:
            return load4(a, v)
        return a[v], a[v + 1], a[v + 2], a[v + 3]

    @cuda.jit(device=True)
    def put_run(a, v, x0, x1, x2, x3):
        if vectors:
            store4(a, v, x0, x1, x2, x3)
        else:
            a[v] = x0
            a[v + 1] = x1
            a[v + 2] = x2
            a[v + 3] = x3

    def compact_labels(roots, n, mins, local, scanned, labels):
        # blocks from the last vertices (see above)
        v0 = (cuda.gridDim.x - 1 - cuda.blockIdx.x) * (BLOCK * LABEL_ITEMS) + 4 * cuda.threadIdx.x
        v1 = v0 + span
        whole = v1 + 4 <= n
        if scanned[(n - 1) // TILE] == 1:
            if whole:
                put_run(labels, v0, 0, 0, 0, 0)
                put_run(labels, v1, 0, 0, 0, 0)
            else:
                for v in range(v0, min(v0 + 4, n)):
                    labels[v] = 0
                for v in range(v1, min(v1 + 4, n)):
                    labels[v] = 0
            return
        if whole:
            a0, a1, a2, a3 = run_of(roots, v0)
            b0, b1, b2, b3 = run_of(roots, v1)
            a0 = rank(a0, mins, local, scanned)
            a1 = rank(a1, mins, local, scanned)
            a2 = rank(a2, mins, local, scanned)
            a3 = rank(a3, mins, local, scanned)
            b0 = rank(b0, mins, local, scanned)
            b1 = rank(b1, mins, local, scanned)
            b2 = rank(b2, mins, local, scanned)
            b3 = rank(b3, mins, local, scanned)
            put_run(labels, v0, a0, a1, a2, a3)
            put_run(labels, v1, b0, b1, b2, b3)
        else:
            for v in range(v0, min(v0 + 4, n)):
                labels[v] = rank(roots[v], mins, local, scanned)
            for v in range(v1, min(v1 + 4, n)):
                labels[v] = rank(roots[v], mins, local, scanned)

    return compact_labels


def compact(roots, min_rooted: bool = False, flat: bool = True, flags=None):
    """(k, labels 0..k-1 in scipy's order) from any root array: three kernels
    (five when not ``min_rooted``), no CuPy scan.  k stays on the device
    (a 0-d array; ``int(k)`` reads it), so that a captured run can end here;
    for :func:`gconn.backends.gpu.replay.replayed` the labels are a
    :class:`~gconn.backends.gpu.replay.Deferred`, made after the replay.

    ``flat=False`` (only with ``min_rooted``): ``roots`` is a parent array
    not yet compressed, whose roots are the v with roots[v] == v; the first
    kernel also compresses it, after reading the flags.

    ``flags``: those of a run whose ids were not checked before it
    (:func:`gconn.backends.gpu.graph.track_ids`); then k is -1 unless every id was
    in 0..n-1 and n-1 among them (see ``compact_tiles``)."""
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
        rv = view(roots)
        if min_rooted:
            mv = dummy(roots.dtype)
        else:
            mins = xp.full(n, n, roots.dtype)
            mv = view(mins)
            launch(get("root_min", (), dts), n, rv, n, mv, persistent=True)
        lv, sv = view(local), view(sums)
        launch(get("compact_local", (min_rooted, not flat), dts), tiles * BLOCK, rv, n, mv, lv, sv)
        launch(get("compact_tiles", (flags is not None,), dts), SCAN_BLOCK, sv, tiles,
               dummy(np.int64) if flags is None else view(flags), block=SCAN_BLOCK)
        # fresh label arrays are aligned; roots may be a view
        vectors = _address(roots) % 16 == 0
        kern = get("compact_labels", (min_rooted, vectors), dts)
        threads = (n + LABEL_ITEMS - 1) // LABEL_ITEMS
        if replay.deferring():
            return sums[-1], replay.Deferred(_labels, bind(kern, threads, rv, n, mv, lv, sv), n, roots.dtype)
        # launched as it is, not bound: a bound launch's setup costs more host time
        labels = xp.empty(n, roots.dtype)
        launch(kern, threads, rv, n, mv, lv, sv, view(labels))
        return sums[-1], labels


def _address(a) -> int:
    """Where a CuPy array's (or, in the simulator, a NumPy array's) data starts."""
    return a.ctypes.data if SIM else a.data.ptr


def _labels(last, n, dtype):
    """The last step of :func:`compact`, into a fresh array: after a
    replay it runs outside the capture, instead of a copy of the labels."""
    with memory.guard(f"compacting {n} labels"):
        labels = xp.empty(n, dtype)
    last(labels)
    return labels


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
    through :func:`gconn.backends.gpu.staging.put`)."""
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
