"""Fully dynamic connectivity on the GPU: a batch-parallel spanning forest
(the design and its costs: docs/dynamic.rst).

On the device: a label per vertex (a vertex of its component; ``label[r] == r``
at the component's representative r); the edges by id (ends, multiplicity,
whether in the forest) and a hash table from a pair to its id; the forest's
edge ids; an adjacency of every edge id given before its last build (when the
ids are renumbered in the order of their pairs), the ids given since then a
log beside it (with lists of the log's forest edges at their ends).

A batch runs in phases: the updates between two runs of queries form one phase
(the graph after them depends only on each pair's net count), and the queries
then compare labels.  A phase:

1. nets each pair's inserts and deletes: pairs whose count falls to 0 leave,
   pairs whose count rises from 0 arrive;
2. when forest edges left, their components fall into *pieces*, the trees of
   the forest without them.  A warp a cut walks the forest from both ends: a
   non-tree edge between the two walks *heals* the cut (it joins the forest, the
   component stays whole), else the walk goes on until one side runs out: that
   side is a piece, found without the rest of its tree (a cut whose piece another
   cut found walks again from the far ends of the two).  Where a walk gives up,
   one UnionAsync pass over the affected trees' edges gives every piece (on a
   sparse graph, or where the small pieces hold many vertices, one pass over
   every edge builds the forest and the labels again, and the phase ends).  Each
   component keeps one piece unsearched (its representative's); the edges at
   the other, *small*, pieces' vertices (read from the adjacency) and the log's
   are the candidates to reconnect them: every edge between two pieces has an
   end in a small one;
3. the candidates and the arriving edges are linked by UnionAsync over the
   piece (or component) ids; an edge whose union links two roots joins the
   forest;
4. every vertex takes its set's root, as a vertex, as its label.

A phase without forest deletions costs O(batch) plus one pass over the
labels; one with them adds the small sides of its cuts (or the trees of the
affected components) and the edges at their small pieces.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.backends.core.unionfind import FIND_HALVE, FIND_NAIVE, UNION_ASYNC
from gconn.backends.gpu._compat import SIM, cuda, view, xp
from gconn.backends.gpu.launch import FULL_MASK, WARP, Launcher, dtypes_key, dummy, get, kernel
from gconn.backends.gpu.primitives import UF, device
from gconn.backends.gpu.unionfind import compress
from gconn.graph.build import PASS_SERIAL_BELOW, serial_twin

INSERT, QUERY, DELETE = 0, 1, 2
EMPTY = -1
#: the hash kernel's modes: find (-1 when absent), add absent keys with new ids, put given ids
FIND, ADD, PUT = 0, 1, 2
#: slots of ``meta``: edge ids given (the hash's counter), forest edge ids listed in TL (with some
#: that left), a wrong deletion seen by the check, forest edges that left since TL was listed;
#: then a phase's: arrived pairs, forest edges gone, small vertices, links made, whether the local
#: search failed (the pass over the forest decides), cuts healed, whether a component's label was
#: hooked (every label is then written again), cuts searched again
NE, TLN, FLAG, DROPPED, ARRIVED, LEFT, SMALL, HOOKS, FAIL, HEALS, WIDE, RETRY = range(12)
#: the log may grow to this share of the adjacency's edges (and at least LOG_MIN) before a rebuild
LOG_SHARE, LOG_MIN = 16, 4 if SIM else 1 << 16
#: the local search: vertices a side may queue, rounds before it gives up, cuts searched locally (a
#: phase with more forest deletions takes the pass over the forest), warps searching (each with
#: its queues)
SIDE_CAP, ROUNDS, MAX_CUTS, SEARCH_WARPS = (6, 8, 4, 2) if SIM else (512, 512, 1 << 16, 4096)
#: the most cuts a phase searches is learned, between MIN_SEARCH and MAX_CUTS: set to half the cuts
#: of the second search in a row that failed, doubled by one that succeeded with at least half as
#: many, and grown by a sixteenth by each phase that skips the search (a failed search costs its
#: longest walk, up to ROUNDS steps: 1.6 ms on kron:scale=22 with 400 cuts, where nearly every
#: phase of 400 fails; on grid:4096 phases of 5,000 cuts mostly fail, of 500 mostly heal, and one
#: failure alone sent the next phases of 500 to the pass over the forest)
MIN_SEARCH = 2 if SIM else 128
HALF = 16
#: when the search failed: graphs of at most REBUILD_DENSITY edge ids a vertex, and those whose small
#: vertices are past 1/FLAT_SHARE of the edge ids, build the forest again by one pass over every edge
#: (on grid:4096 the pass over the forest and every edge id's link cost 2.6 + 3.1 ms, the small
#: vertices' rows 11 ms)
REBUILD_DENSITY, FLAT_SHARE = 4, 64
#: the largest piece of a component is chosen by a sample of about 2^SAMPLE_BITS vertices
SAMPLE_BITS = 14
_LOW = (1 << 32) - 1
_I32 = np.dtype(np.int32)
_DT = dtypes_key(_I32, _I32, _I32)


_MIX = 0x9E3779B97F4A7C15

if SIM:     # Python integers: numpy warns of the multiplication's (intended) wrap-around
    @device
    def _slot(key, mask):
        return np.int64((((int(key) * _MIX) & 0xFFFFFFFFFFFFFFFF) >> 32) & int(mask))
else:
    @device
    def _slot(key, mask):
        h = np.uint64(key) * np.uint64(_MIX)
        return np.int64((h >> np.uint64(32)) & np.uint64(mask))


# a warp's votes and exchanges; the simulator (a block is one warp there) takes them through
# shared memory between barriers
if SIM:
    @device
    def _swap(value):
        """Every lane's ``value`` (read before any lane writes again)."""
        sh = cuda.shared.array(WARP, np.int64)
        sh[cuda.threadIdx.x % WARP] = value
        cuda.syncthreads()
        got = sh.copy()
        cuda.syncthreads()
        return got

    @device
    def _ballot(pred):
        return sum(int(x != 0) << i for i, x in enumerate(_swap(1 if pred else 0)))

    @device
    def _shfl(value, src):
        return _swap(value)[src]

    @device
    def _syncwarp():
        cuda.syncthreads()
else:
    @device
    def _ballot(pred):
        return cuda.ballot_sync(FULL_MASK, pred)

    @device
    def _shfl(value, src):
        return cuda.shfl_sync(FULL_MASK, value, src)

    @device
    def _syncwarp():
        cuda.syncwarp()


@device
def _pair_key(u, v):
    a = min(u, v)
    b = max(u, v)
    return (np.int64(a) << np.int64(31)) | np.int64(b)


@kernel("dyn_hash", lambda t: (t.i64, t.id, t.lvl, t.id, t.id, t.id, t.id, t.id, t.i64, t.I64, t.I64, t.I64),
        offsets=False)
def make_dyn_hash():
    """Each pair's edge id in the open-addressing table (HK keys, HV ids, -1 empty).  ``mode``
    FIND: -1 when absent; ADD: absent pairs get new ids ``counter[0]...`` and their ends in EU, EV
    (a pair repeated in the launch waits for its id); PUT: ``ids[i]`` stored (distinct, absent).
    Queries (``kinds``) are skipped."""

    def dyn_hash(HK, HV, kinds, src, dst, ids, EU, EV, counter, m, mask, mode):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            if kinds[i] == QUERY:
                ids[i] = -1
                continue
            u = src[i]
            v = dst[i]
            key = _pair_key(u, v)
            s = _slot(key, mask)
            while True:
                k = HK[s]
                if k == EMPTY and mode != FIND:
                    k = cuda.atomic.cas(HK, s, EMPTY, key)
                    if k == EMPTY:
                        e = ids[i]
                        if mode == ADD:
                            e = cuda.atomic.add(counter, 0, 1)
                            EU[e] = min(u, v)
                            EV[e] = max(u, v)
                            ids[i] = e
                        cuda.atomic.exch(HV, s, e)
                        break
                if k == key:
                    e = HV[s]
                    while e < 0:        # its id is being written by the thread that added it
                        e = cuda.atomic.max(HV, s, -1)
                    ids[i] = e
                    break
                if k == EMPTY:
                    ids[i] = -1
                    break
                s = (s + 1) & mask

    return dyn_hash



@kernel("dyn_tally", lambda t: (t.id, t.lvl, t.I64, t.i64, t.i64, t.I64), offsets=False)
def make_dyn_tally():
    """Each update counted at its pair's id in D: 2^32 an insert, 1 a delete.  Thread 0 clears the
    phase's slots of ``meta`` (and FLAG when ``first``)."""

    def dyn_tally(ids, kinds, m, D, meta, first):
        i0 = cuda.grid(1)
        if i0 == 0:
            for j in range(ARRIVED, RETRY + 1):
                meta[j] = 0
            if first:
                meta[FLAG] = 0
        for i in range(i0, m, cuda.gridsize(1)):
            k = kinds[i]
            if k != QUERY:
                cuda.atomic.add(D, ids[i], np.int64(1) << np.int64(32) if k == INSERT else np.int64(1))

    return dyn_tally


@kernel("dyn_apply", lambda t: (t.id, t.lvl, t.I64, t.i64, t.id, t.i8, t.id, t.id, t.i64, t.I64), offsets=False)
def make_dyn_apply():
    """``check`` 1: ``meta[FLAG]`` set when a pair is deleted more often than present or both
    inserted and deleted (the exact pass then decides).  ``check`` 0: unless FLAG, each pair's net
    change (taken once, D left 0) applied to CNT: pairs from 0 arrive in ``arr``, forest edges
    falling to 0 leave the forest into ``gone``."""

    def dyn_apply(ids, kinds, m, D, CNT, TREE, arr, gone, meta, check):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            k = kinds[i]
            if k == QUERY:
                continue
            e = ids[i]
            if check:
                if k == DELETE:
                    t = D[e]
                    if (t >> 32) != 0 or (t & _LOW) > CNT[e]:
                        meta[FLAG] = 1
                continue
            t = cuda.atomic.exch(D, e, 0)
            if t == 0 or meta[FLAG] != 0:
                continue
            old = CNT[e]
            new = old + np.int32((t >> 32) - (t & _LOW))
            CNT[e] = new
            if old == 0 and new > 0:
                arr[cuda.atomic.add(meta, ARRIVED, 1)] = e
            elif old > 0 and new == 0 and TREE[e] == 1:
                TREE[e] = 0
                gone[cuda.atomic.add(meta, LEFT, 1)] = e
                cuda.atomic.add(meta, DROPPED, 1)

    return dyn_apply


@kernel("dyn_clear", lambda t: (t.id, t.I64, t.i64), offsets=False)
def make_dyn_clear():
    """D[ids[i]] = 0 (ids >= 0)."""

    def dyn_clear(ids, m, D):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            if ids[i] >= 0:
                D[ids[i]] = 0

    return dyn_clear


@kernel("dyn_head", lambda t: (t.lvl, t.id, t.id, t.I64, t.i64, t.lvl, t.I64), offsets=False)
def make_dyn_head():
    """A batch in device arrays read once: ``head`` (preset to 3, -1, 2^63 - 1, -1, 0, 0, 0, 0)
    gets the least and greatest kind and id, how many positions start a run of queries or of
    updates (kept in ``starts``, up to ``room``), whether the batch opens with queries, and its
    inserts and deletes."""

    def dyn_head(kinds, src, dst, m, head, starts, room):
        i0 = cuda.grid(1)
        lane = i0 % WARP
        kmin, kmax, lo, hi = np.int64(3), np.int64(-1), np.int64(0x7FFFFFFFFFFFFFFF), np.int64(-1)
        ins, dels = np.int64(0), np.int64(0)
        for i in range(i0, m, cuda.gridsize(1)):
            k = np.int64(kinds[i])
            kmin, kmax = min(kmin, k), max(kmax, k)
            ins += k == INSERT
            dels += k == DELETE
            u, v = np.int64(src[i]), np.int64(dst[i])
            lo, hi = min(lo, min(u, v)), max(hi, max(u, v))
            if i > 0 and (k == QUERY) != (kinds[i - 1] == QUERY):
                p = cuda.atomic.add(head, 4, 1)
                if p < room:
                    starts[p] = i
        if i0 == 0 and m > 0 and kinds[0] == QUERY:
            head[5] = 1
        for sh in (16, 8, 4, 2, 1):     # a warp's, then one atomic a warp
            kmin = min(kmin, _shfl(kmin, lane ^ sh))
            kmax = max(kmax, _shfl(kmax, lane ^ sh))
            lo = min(lo, _shfl(lo, lane ^ sh))
            hi = max(hi, _shfl(hi, lane ^ sh))
            ins += _shfl(ins, lane ^ sh)
            dels += _shfl(dels, lane ^ sh)
        if lane == 0:
            cuda.atomic.min(head, 0, kmin)
            cuda.atomic.max(head, 1, kmax)
            cuda.atomic.min(head, 2, lo)
            cuda.atomic.max(head, 3, hi)
            cuda.atomic.add(head, 6, ins)
            cuda.atomic.add(head, 7, dels)

    return dyn_head


@device
def _cur(label, P, PST, stamp, v):
    """v's id in the phase's sets: its piece's (P) when stamped in this phase, else its label."""
    return P[v] if PST[v] == stamp else label[v]


@kernel("dyn_search", lambda t: (t.id, t.id, t.i8, t.id, t.id, t.i8, t.id, t.i64, t.I64, t.i64, t.id, t.I64, t.id,
                                 t.id, t.id, t.id, t.id, t.I64, t.id, t.id, t.id, t.id, t.id, t.I64, t.id, t.id,
                                 t.I64, t.I64, t.id, t.id, t.I64, t.id, t.id, t.i64), offsets=False)
def make_dyn_search():
    """Each forest edge that left (``meta[LEFT]`` of them; its component's label kept in ``gl``)
    searched without touching the rest of its tree: a warp a cut, a half-warp a side, each walking
    its side of the forest (the tree edges of the adjacency rows, 16 at a time, and of the log's
    lists) from one end of the cut, breadth first and in step with the other.

    A walk stamps its vertices (WS: the phase, the cut, the side), and a present non-tree edge of
    a row read whose other end bears the other side's stamp *heals* the cut: it joins the forest
    (TREE 2 until dyn_healed; the walks follow TREE 1 only, so each replacement joins exactly the
    two pieces its cut parted, and the replacements and the cuts left form a forest) and the
    component keeps its vertices and label.  Otherwise the walk goes on until one side has no
    vertex left to walk and does not hold the component's representative (the label of the other
    pieces): that side is a whole piece, its vertices take piece id ``nb + c`` (P, stamped in
    PST) and join ``small``; ANC[c] is a vertex of it.  A cut not healed marks its component.

    A component must keep exactly one piece unsearched: a cut that finds a piece another cut
    found (OWN, by its least vertex), or whose heal meets one (dyn_healed), is listed (RTL, and
    the other cut in RTO) and searched ``again``: walks from the far ends of the two cuts, which
    heal or find one piece more.  The search fails (``meta[FAIL]``, and the pass over the forest
    decides) when a side outgrows ``cap`` vertices, the walk ``rounds`` steps, or a cut searched
    again meets another piece.  Each warp has its queues (QV, QE: ``2 cap`` a warp)."""

    def dyn_search(gone, gl, mark, EU, EV, TREE, CNT, WS, ncuts, ROW, ADJ, rows, thead, tnext, label, P, PST, stamp,
                   small, ANC, OWN, OWNK, Q, nb, QV, QE, cap, rounds, heals, HC, again, RTL, RTO, meta):
        lane = cuda.grid(1) % WARP
        wid = cuda.grid(1) // WARP
        half = lane // HALF
        hl = lane % HALF
        below = (np.uint32(1) << np.uint32(hl)) - np.uint32(1)
        first = (np.uint32(1) << np.uint32(lane)) - np.uint32(1)
        for ci in range(wid, meta[RETRY] if again else meta[LEFT], cuda.gridsize(1) // WARP):
            _syncwarp()     # the warp's queues are the last cut's until every lane has read them
            if again:
                # cut c lost its piece to cut o: walk from the far ends of the two cuts instead
                c = RTL[ci]
                e = gone[c]
                g = gone[RTO[ci]]
                pid = nb + RTO[ci]
                u = EU[e] if PST[EU[e]] != stamp or P[EU[e]] != pid else EV[e]
                x = EU[g] if PST[EU[g]] != stamp or P[EU[g]] != pid else EV[g]
                x = x if half == 0 else u
                lv = label[u]
            else:
                c = ci
                e = gone[c]
                x = EU[e] if half == 0 else EV[e]
                lv = label[x]
                if lane == 0:
                    gl[c] = lv
                    if c < OWNK.size:
                        OWNK[c] = -1
                if c >= ncuts:
                    if lane == 0:
                        mark[lv] = 1
                        meta[FAIL] = 1
                    continue
            b = (2 * wid + half) * cap
            mine = (np.int64(stamp) << np.int64(32)) | np.int64(2 * (c + again * ncuts) + half)
            theirs = mine ^ np.int64(1)
            if hl == 0:
                QV[b] = x
                QE[b] = e
                WS[x] = mine
            _syncwarp()
            at, ln, j, jend, came = 0, 1, 0, 0, e
            fail = False
            healed = False
            whole = True
            seen = hl == 0 and x == lv
            done = -1
            r = 0
            while True:
                need = j == jend
                ex = _ballot(need and at == ln)
                if ex != 0:
                    # a side walked whole is the piece, unless it holds the representative (the
                    # label of the rest): that side then waits while the other walks on
                    rs = _ballot(seen)
                    if ex & 0xFFFF and not rs & 0xFFFF:
                        done = 0
                        break
                    if ex >> 16 and not rs >> 16:
                        done = 1
                        break
                r += 1
                if r > rounds or meta[FAIL] != 0:
                    fail = True
                    break
                if need and at < ln:
                    x = QV[b + at]
                    came = QE[b + at]
                    at += 1
                    j, jend = (ROW[x], ROW[x + 1]) if x < rows else (np.int64(0), np.int64(0))
                    # heals are looked for in rows read at once: a hub's row is read for its
                    # tree edges only (the lookups cost a kron:scale=22 phase of 40 cuts 0.4 ms)
                    whole = jend - j <= HALF
                    if hl == 0:
                        s = thead[x]
                        while s >= 0:
                            f = s >> 1
                            if f != came and TREE[f] == 1:
                                o = EV[f] if EU[f] == x else EU[f]
                                if ln < cap:
                                    QV[b + ln] = o
                                    QE[b + ln] = f
                                    WS[o] = mine
                                ln += 1
                                seen = seen or o == lv
                            s = tnext[s]
                ln = _shfl(ln, half * HALF)
                t = j + hl
                take = False
                hit = False
                f = 0
                o = 0
                if t < jend:
                    f = ADJ[t]
                    if f != came:
                        tr = TREE[f]
                        take = tr == 1
                        if take or (whole and tr == 0 and CNT[f] > 0):
                            o = EV[f] if EU[f] == x else EU[f]
                            hit = not take and WS[o] == theirs
                hits = np.uint32(_ballot(hit))
                if hits != 0:
                    if hit and (hits & first) == 0:
                        TREE[f] = 2
                        k = cuda.atomic.add(meta, HEALS, 1)
                        heals[k] = f
                        HC[k] = c
                    healed = True
                    break
                got = np.uint32(_ballot(take)) >> np.uint32(half * HALF) & np.uint32(0xFFFF)
                if take:
                    pos = ln + cuda.popc(got & below)
                    if pos < cap:
                        QV[b + pos] = o
                        QE[b + pos] = f
                        WS[o] = mine
                    seen = seen or o == lv
                ln += cuda.popc(got)
                j = min(j + HALF, jend)
                _syncwarp()
                if _ballot(ln > cap) != 0:
                    fail = True
                    break
            if healed:
                continue
            if lane == 0:
                mark[lv] = 1
            if fail:
                if lane == 0:
                    meta[FAIL] = 1
                continue
            # the piece: lanes of the exhausted half hold its length
            ln = _shfl(ln, done * HALF)
            b = (2 * wid + done) * cap
            low = np.int32(0x7FFFFFFF)
            for i in range(lane, ln, WARP):
                low = min(low, QV[b + i])
            for sh in (16, 8, 4, 2, 1):
                low = min(low, _shfl(low, lane ^ sh))
            own = 0
            if lane == 0:
                own = cuda.atomic.cas(OWN, low, -1, c)
                if own == -1:
                    OWNK[c] = low
                elif again:
                    meta[FAIL] = 1
                else:
                    k = cuda.atomic.add(meta, RETRY, 1)
                    RTL[k] = c
                    RTO[k] = own
            if _shfl(own, 0) != -1:
                continue
            at = 0
            if lane == 0:
                at = cuda.atomic.add(meta, SMALL, ln)
                ANC[c] = QV[b]
                Q[nb + c] = nb + c
            at = _shfl(at, 0)
            for i in range(lane, ln, WARP):
                v = QV[b + i]
                P[v] = nb + c
                PST[v] = stamp
                small[at + i] = v

    return dyn_search


@kernel("dyn_healed", lambda t: (t.id, t.id, t.I64, t.I64, t.id, t.id, t.i8, t.id, t.id, t.I64, t.I64, t.id,
                                 t.i8, t.id, t.id, t.id, t.i64), offsets=False)
def make_dyn_healed():
    """The replacements found by dyn_search (``meta[HEALS]`` of them from ``h0``) join the forest
    (TREE 1, listed in TL).  One with an end in a piece found by another cut (that piece is then
    no whole piece of the new forest) stays out and marks its component: its cut (HC) is searched
    again (RTL, RTO) as after losing its piece to that cut, or, ``again`` or both ends in pieces,
    the search fails."""

    def dyn_healed(heals, HC, h0, again, EU, EV, TREE, P, PST, stamp, nb, label, mark, TL, RTL, RTO, meta):
        for i in range(h0 + cuda.grid(1), meta[HEALS], cuda.gridsize(1)):
            f = heals[i]
            u = EU[f]
            v = EV[f]
            pu = PST[u] == stamp
            pv = PST[v] == stamp
            if not pu and not pv:
                TREE[f] = 1
                TL[cuda.atomic.add(meta, TLN, 1)] = f
                continue
            TREE[f] = 0
            mark[label[u]] = 1
            if again or (pu and pv):
                meta[FAIL] = 1
            else:
                k = cuda.atomic.add(meta, RETRY, 1)
                RTL[k] = HC[i]
                RTO[k] = P[u if pu else v] - nb

    return dyn_healed


@kernel("dyn_slow", lambda t: (t.I64, t.id, t.i8, t.id, t.i64), offsets=False)
def make_dyn_slow():
    """When the local search failed: every vertex its own piece (P; compress then reads every
    vertex), the small list emptied."""

    def dyn_slow(n, label, mark, P, meta):
        if meta[FAIL] == 0:
            return
        i0 = cuda.grid(1)
        if i0 == 0:
            meta[SMALL] = 0
        for v in range(i0, n, cuda.gridsize(1)):
            P[v] = v

    return dyn_slow


@kernel("dyn_forest", lambda t: (t.id, t.i64, t.id, t.id, t.i8, t.id, t.i8, t.id), offsets=False)
def make_dyn_forest():
    """When the local search failed, the pieces: UnionAsync in P over the forest edges (TL,
    ``meta[TLN]`` of them) of the marked components."""
    UnionAsync = UF.UnionAsync

    def dyn_forest(TL, meta, EU, EV, TREE, label, mark, P):
        if meta[FAIL] == 0:
            return
        for i in range(cuda.grid(1), meta[TLN], cuda.gridsize(1)):
            e = TL[i]
            if TREE[e] == 1:
                u = EU[e]
                if mark[label[u]]:
                    UnionAsync(P, u, EV[e], FIND_HALVE)

    return dyn_forest


@kernel("dyn_sizes", lambda t: (t.I64, t.I64, t.id, t.i8, t.id, t.id, t.i64, t.i64), offsets=False)
def make_dyn_sizes():
    """When the local search failed (P compressed): each marked component's largest piece, by a
    sample (every ``step``-th vertex): BEST[label] the most vertices of the sample in one piece
    (high 32 bits) and that piece's root.  The component's other pieces are then the small ones:
    keeping its representative's piece instead read 2.3 of 4.2 million vertices' rows on
    kron:scale=22 whenever the representative was cut off in a small piece."""

    def dyn_sizes(n, step, label, mark, P, SIZE, BEST, meta):
        if meta[FAIL] == 0:
            return
        for i in range(cuda.grid(1), (n + step - 1) // step, cuda.gridsize(1)):
            v = i * step
            lv = label[v]
            if mark[lv]:
                p = P[v]
                c = cuda.atomic.add(SIZE, p, 1) + 1
                cuda.atomic.max(BEST, lv, (np.int64(c) << np.int64(32)) | np.int64(p))

    return dyn_sizes


@device
def _home(label, P, PST, stamp, BEST, v):
    """The id of the piece of v's component left unsearched: its largest (BEST) after the pass
    over the forest, else its representative's."""
    lv = label[v]
    b = BEST[lv]
    return np.int32(b & _LOW) if b != 0 else _cur(label, P, PST, stamp, lv)


@kernel("dyn_small", lambda t: (t.I64, t.I64, t.id, t.i8, t.id, t.id, t.I64, t.id, t.id, t.i64, t.i64),
        offsets=False)
def make_dyn_small():
    """When the local search failed (P compressed, the sizes sampled): each vertex of a marked
    component is stamped (its piece's root in P), and those outside its largest piece are small;
    the sample's counts are cleared."""

    def dyn_small(n, step, label, mark, P, PST, stamp, small, SIZE, BEST, meta):
        if meta[FAIL] == 0:
            return
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            lv = label[v]
            if mark[lv]:
                PST[v] = stamp
                if v % step == 0:
                    SIZE[P[v]] = 0
                b = BEST[lv]
                if P[v] != (np.int32(b & _LOW) if b != 0 else P[lv]):
                    small[cuda.atomic.add(meta, SMALL, 1)] = v

    return dyn_small


@device
def _link_edge(e, EU, EV, CNT, TREE, label, P, PST, stamp, Q, TL, HOOK, base, thead, tnext, INL, meta):
    """Edge e (present) between two pieces or components: UnionAsync of their ids in Q; when it
    links, e joins the forest (TREE, TL; the lists of its ends when it is in the log) and the
    hooked id is kept (HOOK) to be reset."""
    if CNT[e] > 0:
        u = EU[e]
        v = EV[e]
        a = _cur(label, P, PST, stamp, u)
        b = _cur(label, P, PST, stamp, v)
        if a != b:
            h = UF.UnionAsync(Q, a, b, FIND_HALVE)
            if h >= 0:
                TREE[e] = 1
                TL[cuda.atomic.add(meta, TLN, 1)] = e
                HOOK[cuda.atomic.add(meta, HOOKS, 1)] = h
                if h < label.size:      # a component's label, not a piece's id, hooked
                    meta[WIDE] = 1
                if e >= base and INL[e] == 0:
                    INL[e] = 1
                    tnext[2 * e] = cuda.atomic.exch(thead, u, 2 * e)
                    tnext[2 * e + 1] = cuda.atomic.exch(thead, v, 2 * e + 1)


@kernel("dyn_link_edges",
        lambda t: (t.id, t.I64, t.I64, t.id, t.id, t.id, t.i8, t.id, t.id, t.id, t.I64, t.id, t.id, t.id,
                   t.I64, t.id, t.id, t.i8, t.i64), offsets=False)
def make_dyn_link_edges():
    """_link_edge over the edge ids ``es`` (``meta[ARRIVED]`` of them; ``first`` < 0), or, when
    forest edges left, over the log's ids ``first``..``meta[NE]``-1 with an end in a piece
    searched (stamped)."""

    def dyn_link_edges(es, cnt_slot, first, EU, EV, CNT, TREE, label, P, PST, stamp, Q, TL, HOOK, base,
                       thead, tnext, INL, meta):
        if first < 0:
            k = meta[cnt_slot]
        elif meta[LEFT] == 0:
            return
        else:
            k = meta[NE] - first
        for i in range(cuda.grid(1), k, cuda.gridsize(1)):
            if first < 0:
                e = es[i]
            else:
                e = first + i
                if PST[EU[e]] != stamp and PST[EV[e]] != stamp:
                    continue
            _link_edge(e, EU, EV, CNT, TREE, label, P, PST, stamp, Q, TL, HOOK, base, thead, tnext, INL, meta)

    return dyn_link_edges


@kernel("dyn_scan", lambda t: (t.id, t.I64, t.i64, t.id, t.i64, t.id, t.id, t.id, t.i8, t.id, t.id, t.id,
                               t.I64, t.id, t.id, t.id, t.I64, t.id, t.id, t.i8, t.i64), offsets=False)
def make_dyn_scan():
    """_link_edge over the adjacency rows of the small vertices (``meta[SMALL]`` of them; those
    below ``rows`` have rows), a warp a vertex, 32 edges at a time until the vertex's piece is in
    one set with the piece its component keeps unsearched (a hub's row is read no further once
    its piece is joined).
    Exact: a piece never joined to it has read every edge of its vertices, and the log is read
    whole."""
    find_any = UF.find_any

    def dyn_scan(small, rows, ROW, ADJ, BEST, EU, EV, CNT, TREE, label, P, PST, stamp, Q, TL, HOOK, base,
                 thead, tnext, INL, meta):
        lane = cuda.grid(1) % WARP
        for w in range(cuda.grid(1) // WARP, meta[SMALL], cuda.gridsize(1) // WARP):
            v = small[w]
            if v >= rows:
                continue
            mine = P[v]
            home = _home(label, P, PST, stamp, BEST, v)
            for j in range(ROW[v], ROW[v + 1], WARP):
                # after the first 32 (read-only finds: the sets only grow while they are read)
                if j > ROW[v] and find_any(Q, mine, UNION_ASYNC, FIND_NAIVE) == \
                        find_any(Q, home, UNION_ASYNC, FIND_NAIVE):
                    break
                if j + lane < ROW[v + 1]:
                    _link_edge(ADJ[j + lane], EU, EV, CNT, TREE, label, P, PST, stamp, Q, TL, HOOK, base, thead,
                               tnext, INL, meta)

    return dyn_scan


@kernel("dyn_rebuild", lambda t: (t.I64, t.id, t.id, t.id, t.i8, t.id, t.I64, t.id, t.id, t.i8), offsets=False)
def make_dyn_rebuild():
    """The forest built again (P the identity): UnionAsync in P over every present edge, those
    that link in the forest (TREE; the lists of their ends when in the log), the others out."""
    UnionAsync = UF.UnionAsync

    def dyn_rebuild(ne, EU, EV, CNT, TREE, P, base, thead, tnext, INL):
        for e in range(cuda.grid(1), ne, cuda.gridsize(1)):
            t = 0
            if CNT[e] > 0:
                u = EU[e]
                v = EV[e]
                if UnionAsync(P, u, v, FIND_HALVE) >= 0:
                    t = 1
                    if e >= base and INL[e] == 0:
                        INL[e] = 1
                        tnext[2 * e] = cuda.atomic.exch(thead, u, 2 * e)
                        tnext[2 * e + 1] = cuda.atomic.exch(thead, v, 2 * e + 1)
            TREE[e] = t

    return dyn_rebuild


@kernel("dyn_label", lambda t: (t.I64, t.id, t.id, t.id, t.I64, t.id, t.id, t.I64, t.id, t.i64), offsets=False)
def make_dyn_label():
    """Each vertex's label: the root in Q of its piece or component, as a vertex (a piece id
    ``nb + c`` is its vertex ANC[c]).  Only the small vertices' when the local search decided and
    no component's label was hooked (UnionAsync hooks the larger root: a piece's id under a label),
    none when no link was made and no piece found."""
    find_any = UF.find_any

    def dyn_label(n, label, P, PST, stamp, Q, ANC, nb, small, meta):
        if meta[HOOKS] == 0 and meta[SMALL] == 0 and meta[FAIL] == 0:
            return      # no set joined, no piece split off: the labels stand
        few = meta[FAIL] == 0 and meta[WIDE] == 0
        for i in range(cuda.grid(1), meta[SMALL] if few else n, cuda.gridsize(1)):
            v = small[i] if few else i
            r = find_any(Q, _cur(label, P, PST, stamp, v), UNION_ASYNC, FIND_NAIVE)
            label[v] = r if r < nb else ANC[r - nb]

    return dyn_label


@kernel("dyn_reset", lambda t: (t.id, t.id, t.id, t.i8, t.i64, t.id, t.id, t.i64), offsets=False)
def make_dyn_reset():
    """A phase's marks undone: the ids hooked in Q (their own sets again), the marked components,
    the pieces owned, the largest pieces chosen."""

    def dyn_reset(HOOK, Q, gl, mark, BEST, OWN, OWNK, meta):
        hooks = meta[HOOKS]
        left = meta[LEFT]
        for i in range(cuda.grid(1), max(hooks, left), cuda.gridsize(1)):
            if i < hooks:
                Q[HOOK[i]] = HOOK[i]
            if i < left:
                mark[gl[i]] = 0
                BEST[gl[i]] = 0
                if i < OWNK.size and OWNK[i] >= 0:
                    OWN[OWNK[i]] = -1

    return dyn_reset


@njit(parallel=True, cache=True)
def _stage(kinds, src, dst, pin):
    """A host batch into the page-locked buffer (kinds, src, dst as int32) in one parallel pass
    (in place of NumPy's copies and its count of queries; a million-update batch from host
    arrays took 1.4-2.0x less time on kron:scale=22, BENCHMARKS.md): the number of queries."""
    m = kinds.size
    queries = 0
    for i in prange(m):
        k = kinds[i]
        pin[i] = k
        pin[m + i] = src[i]
        pin[2 * m + i] = dst[i]
        queries += k == QUERY
    return queries


_stage_serial = serial_twin(_stage)


def _scatter_min(out, at, vals) -> None:
    if SIM:
        np.minimum.at(out, at, vals)
    else:
        import cupyx
        cupyx.scatter_min(out, at, vals)


def _keys(s, d):
    a, b = xp.minimum(s, d).astype(np.int64), xp.maximum(s, d).astype(np.int64)
    return (a << 31) | b


def _grown(a, cap: int, keep: int, fill=0):
    out = xp.full(cap, fill, a.dtype)
    out[:keep] = a[:keep]
    return out


KERNELS = ("dyn_head", "dyn_hash", "dyn_tally", "dyn_apply", "dyn_clear", "dyn_search", "dyn_slow", "dyn_forest",
           "dyn_sizes", "dyn_small", "dyn_scan", "dyn_link_edges", "dyn_rebuild", "dyn_label", "dyn_reset")


def warm() -> None:
    """Every kernel of the structure compiled or loaded (a kernel first needed by a later batch,
    the pass over the forest say, took 0.1-0.9 s there, in a fresh process on an H200)."""
    for kind in KERNELS:
        get(kind, (), _DT)
    get("dyn_head", (), dtypes_key(np.int64, np.int64, np.int64))
    get("compress", (False,), _DT)
    one = np.zeros(1, np.int32)
    for stage in (_stage, _stage_serial):
        stage(np.zeros(1, np.int8), one, one, np.zeros(3, np.int32))


class DynamicState:
    """The device arrays of the structure, grown by doubling (the interface of the CPU's)."""

    def __init__(self):
        warm()
        z = lambda dt: xp.zeros(0, dt)     # noqa: E731
        self.n = self.ncap = 0
        # a vertex: its label; in a phase, whether its label's component lost forest edges (mark),
        # its piece (P, valid where PST holds the phase's stamp); the small vertices; which cut
        # owns the piece whose least vertex it is (OWN, -1 between phases); the head of its list
        # of forest edges from the log (thead, through tnext of the half-edges 2e, 2e + 1)
        self.label, self.mark, self.P, self.PST, self.small, self.OWN, self.thead, self.SIZE, self.BEST, self.WS = (
            z(d) for d in (np.int32, np.int8, np.int32, np.int32, np.int32, np.int32, np.int32, np.int32, np.int64,
                           np.int64))
        self.stamp = 0
        self.ne = self.ecap = 0
        # an edge id: its ends, multiplicity, whether in the forest, a batch's count (0 between),
        # whether in its ends' lists, the lists' links
        self.EU, self.EV, self.CNT, self.TREE, self.D, self.INL = (
            z(d) for d in (np.int32, np.int32, np.int32, np.int8, np.int64, np.int8))
        self.tnext = z(np.int32)
        self.HK, self.HV = xp.full(16, EMPTY, np.int64), xp.full(16, -1, np.int32)
        self.meta = xp.zeros(12, np.int64)
        # the forest's edge ids, meta[TLN] of them (with some that left it, until listed again)
        self.TL = xp.zeros(16, np.int32)
        self.tl_bound = self.tl_left = 0
        self.base_ne = self.base_n = 0
        self.ROW, self.ADJ = xp.zeros(1, np.int64), z(np.int32)
        # the local search: cuts it has room for, their queues, anchors and owned pieces; the
        # union-find over ids (a vertex's label, or ncap + c for the piece of cut c), the
        # identity between phases
        self.ncuts = 0
        self.search_limit, self.failed = MAX_CUTS, 0
        self.QV = self.QE = self.ANC = self.OWNK = z(np.int32)
        self.Q = z(np.int32)
        self.bcap = 0
        # dyn_head's counts, and their start values (page-locked)
        self.hbuf = xp.zeros(8, np.int64)
        self.hinit = np.array([3, -1, (1 << 63) - 1, -1, 0, 0, 0, 0], np.int64)
        if not SIM:
            import cupyx
            pinned = cupyx.empty_pinned(8, np.int64)
            pinned[:] = self.hinit
            self.hinit = pinned
        # each kernel's launcher, its parameters kept between launches
        self._launchers = {}
        # a list: each launch's (kernel, start event, end event) (python -m gconn.bench.dynamic --kernels)
        self.events = None

    def _run(self, kind: str, nthreads: int, *args, key=_DT) -> None:
        run = self._launchers.get((kind, key))
        if run is None:
            run = self._launchers[kind, key] = Launcher(get(kind, (), key))
        if self.events is None:
            run(nthreads, *args)
            return
        start, end = xp.cuda.Event(), xp.cuda.Event()
        start.record()
        run(nthreads, *args)
        end.record()
        self.events.append((kind, start, end))

    @property
    def k(self) -> int:
        return int(xp.count_nonzero(self.label[: self.n] == xp.arange(self.n, dtype=np.int32)))

    def reserve(self, n: int, inserts: int) -> None:
        """Room for vertices below ``n`` and ``inserts`` more edge ids."""
        self._capacity(n, inserts, 0)
        self.n = max(self.n, n)

    def _capacity(self, n: int, ids: int, cuts: int) -> None:
        """Room for vertices below ``n``, ``ids`` more edge ids and ``cuts`` searched cuts."""
        if n > self.ncap:
            cap = max(n, 2 * self.ncap, 16)
            label = xp.arange(cap, dtype=np.int32)
            label[: self.n] = self.label[: self.n]
            self.label, self.ncap = label, cap
            self.mark = xp.zeros(cap, np.int8)
            self.SIZE, self.BEST = xp.zeros(cap, np.int32), xp.zeros(cap, np.int64)
            self.P, self.small = xp.empty(cap, np.int32), xp.empty(cap, np.int32)
            self.PST = xp.zeros(cap, np.int32)
            self.WS = xp.zeros(cap, np.int64)
            self.OWN = xp.full(cap, -1, np.int32)
            self.thead = _grown(self.thead, cap, self.thead.size, -1)
            self.Q = xp.zeros(0, np.int32)
        cuts = min(max(cuts, 1), MAX_CUTS)
        if cuts > self.ncuts:
            self.ncuts = max(cuts, 2 * self.ncuts)
            self.ANC, self.OWNK = xp.empty(self.ncuts, np.int32), xp.full(self.ncuts, -1, np.int32)
        if self.QV.size == 0:
            self.QV, self.QE = (xp.empty(2 * SEARCH_WARPS * SIDE_CAP, np.int32) for _ in range(2))
        if self.Q.size < self.ncap + self.ncuts:
            self.Q = xp.arange(self.ncap + self.ncuts, dtype=np.int32)
        if 2 * (self.ne + ids) > self.HK.size:
            self._compact(ids)
        if self.ne + ids > self.ecap:
            cap = max(self.ne + ids, 2 * self.ecap, 16)
            self.EU, self.EV, self.CNT, self.TREE, self.D, self.INL = (
                _grown(a, cap, self.ne) for a in (self.EU, self.EV, self.CNT, self.TREE, self.D, self.INL))
            self.tnext = _grown(self.tnext, 2 * cap, 2 * self.ne)
            self.ecap = cap

    def _compact(self, inserts: int) -> None:
        """Renumber the edges present 0..live-1 in the order of their pairs (a vertex's edges
        together: the pass that builds the forest again reads the labels of nearby vertices; on
        grid:4096 its batches took 13-37% less time, BENCHMARKS.md), in a table with room for
        ``inserts`` more ids."""
        alive = xp.flatnonzero(self.CNT[: self.ne] > 0).astype(np.int32)
        alive = alive[xp.argsort(_keys(self.EU[alive], self.EV[alive]))]
        live = int(alive.size)
        self.EU, self.EV, self.CNT, self.TREE = (a[alive] for a in (self.EU, self.EV, self.CNT, self.TREE))
        self.D, self.INL, self.tnext = xp.zeros(live, np.int64), xp.zeros(live, np.int8), xp.zeros(2 * live, np.int32)
        self.ne = self.ecap = live
        self._list_forest()
        # at most a third full after, compacted again past half full
        size = 1 << max(int(3 * (live + inserts) - 1).bit_length(), 4)
        self.HK, self.HV = xp.full(size, EMPTY, np.int64), xp.full(size, -1, np.int32)
        if live:
            self._hash(None, self.EU, self.EV, xp.arange(live, dtype=np.int32), PUT)
        self.meta[NE] = live
        # the ids changed: the adjacency (and the log's forest lists) again
        self._rows()

    def _list_forest(self, room: int = 0) -> None:
        tree = xp.flatnonzero(self.TREE[: self.ne] == 1).astype(np.int32)
        self.TL = _grown(tree, max(2 * tree.size, tree.size + room, 16), tree.size)
        self.meta[TLN] = self.tl_bound = int(tree.size)
        self.meta[DROPPED] = self.tl_left = 0

    def _adjacency(self, inserts: int) -> None:
        """When the log outgrew its share, the ids renumbered (:meth:`_compact`, with room for
        ``inserts``) and the adjacency built again."""
        if self.ne - self.base_ne > max(LOG_MIN, self.base_ne // LOG_SHARE):
            self._compact(inserts)

    def _rows(self) -> None:
        """The adjacency of every id, present or not: a pair deleted now and inserted again later
        keeps its id, and the log would not hold it.  The log's forest lists start empty again."""
        ids = xp.arange(self.ne, dtype=np.int32)
        ends = xp.concatenate([self.EU[: self.ne], self.EV[: self.ne]])
        eids = xp.concatenate([ids, ids])
        order = xp.argsort(ends)
        self.ADJ = eids[order]
        self.ROW = xp.searchsorted(ends[order], xp.arange(self.n + 1, dtype=np.int32)).astype(np.int64)
        self.base_ne, self.base_n = self.ne, self.n
        self.thead[:] = -1
        self.INL[:] = 0

    def _hash(self, kinds, src, dst, ids, mode: int) -> None:
        if src.size:
            if kinds is None:
                kinds = xp.zeros(src.size, np.int32)
            self._run("dyn_hash", src.size, self.HK, self.HV, kinds, src, dst,
                 ids, self.EU if self.ecap else dummy(np.int32), self.EV if self.ecap else dummy(np.int32), self.meta,
                 src.size, self.HK.size - 1, mode)

    # -- a batch

    def run(self, kinds, src, dst, n: int, inserts: int, check: bool = True) -> tuple:
        """The batch (host arrays, ids below ``n``, ``inserts`` of them inserts), unless a
        deletion does not find its edge: ``(-1, answers)`` or ``(i, None)`` with i the first such
        deletion (then nothing is applied).  Every update is hashed (pairs not seen get ids,
        counting 0) and tallied; the check flags a pair both inserted and deleted, or deleted
        more often than present, and the first phase then applies nothing.  The exact pass
        decides a flagged batch, and one it finds right runs again unchecked."""
        m = int(kinds.size)
        self._batch_room(m)
        pin, B = self.pin, self.B
        # contiguous: the one layout warm() compiles (an (m, 3) batch's columns are views)
        stage = _stage_serial if m < PASS_SERIAL_BELOW else _stage
        queries = int(stage(*map(np.ascontiguousarray, (kinds, src, dst)), pin[: 3 * m]))
        upd = m - queries
        cuts = [0, m]
        if queries:
            q = kinds == QUERY
            cuts = np.r_[0, np.flatnonzero(np.diff(q.astype(np.int8))) + 1, m]
        if SIM:
            B[: 3 * m] = pin[: 3 * m]
        else:
            B[: 3 * m].set(pin[: 3 * m])
        out = self._batch(B[:m], B[m: 2 * m], B[2 * m: 3 * m], n, upd, upd - inserts, list(map(int, cuts)),
                          bool(m and kinds[0] == QUERY), check)
        if out is None:
            bad = self._missing_exact(kinds, src, dst)
            return (bad, None) if bad >= 0 else self.run(kinds, src, dst, n, inserts, check=False)
        return -1, (np.concatenate([a if SIM else a.get() for a in out]) if out else np.zeros(0, np.bool_))

    def head(self, kinds, src, dst) -> tuple:
        """A batch in device arrays, read by one kernel: ``(kinds as int32, src, dst, (least kind,
        greatest kind, least id, greatest id), where its runs start, whether the first is of
        queries, (inserts, deletes))`` (ids as given: the caller checks them before they become
        int32)."""
        if kinds.dtype.itemsize > 4 or kinds.dtype == np.uint32:
            kinds = xp.where((kinds >= 0) & (kinds <= 2), kinds, -1)     # 2^32 would pass as 0
        k = xp.ascontiguousarray(kinds, dtype=np.int32)
        if src.dtype != dst.dtype or src.dtype not in (np.int32, np.int64):
            src, dst = src.astype(np.int64), dst.astype(np.int64)
        src, dst = xp.ascontiguousarray(src), xp.ascontiguousarray(dst)
        m = int(k.size)
        self._batch_room(m)
        h = self.hbuf
        if SIM:
            h[:] = self.hinit
        else:
            h.set(self.hinit)
        self._run("dyn_head", m, k, src, dst, m, h, self.starts, self.bcap,
                  key=dtypes_key(src.dtype, src.dtype, src.dtype))
        got = (h.copy() if SIM else h.get()).tolist()
        starts = sorted((self.starts[: got[4]] if SIM else self.starts[: got[4]].get()).tolist())
        return k, src, dst, tuple(got[:4]), [0, *starts, m], bool(got[5]), tuple(got[6:8])

    def run_device(self, k, s, d, n: int, cuts: list, first_query: bool, counts: tuple, check: bool = True) -> tuple:
        """:meth:`run` of a batch in device arrays read by :meth:`head` (kinds 0-2, ids below
        ``n``, ``counts`` its inserts and deletes); the answers stay on the device."""
        s, d = s.astype(np.int32, copy=False), d.astype(np.int32, copy=False)
        ins, dels = counts
        out = self._batch(k, s, d, n, ins + dels, dels, cuts, first_query, check)
        if out is None:
            bad = self._missing_exact(k, s, d)
            return (bad, None) if bad >= 0 else self.run_device(k, s, d, n, cuts, first_query, counts, check=False)
        return -1, (xp.concatenate(out) if out else xp.zeros(0, np.bool_))

    def _batch(self, k, s, d, n: int, upd: int, dels: int, cuts: list, first_query: bool, check: bool):
        """The staged batch (int32 device arrays; its phases start at ``cuts``, the first a run of
        queries when ``first_query``): the answers of its runs of queries (device arrays), or None
        when the check flagged it (nothing applied)."""
        m = int(k.size)
        if dels:
            self._adjacency(upd)
        self._capacity(n, upd, dels)
        nn = max(self.n, n)
        # a link joins two components: at most one a deletion or an arrival
        if self.tl_bound + upd > self.TL.size:
            self.TL = _grown(self.TL, max(self.tl_bound + upd, 2 * self.TL.size), self.TL.size)
        ids = self.ids
        self._hash(k, s, d, ids, ADD)
        self._run("dyn_tally", m, ids, k, m, self.D, self.meta, 1)
        if dels and check:
            self._run("dyn_apply", m, ids, k, m, self.D, self.CNT, self.TREE, self.arr, self.gone, self.meta, 1)
        if len(cuts) > 2:
            self._run("dyn_clear", m, ids, m, self.D)
        out = []
        for j, (lo, hi) in enumerate(zip(cuts[:-1], cuts[1:])):
            if (j % 2 == 0) == first_query:
                out.append(self.label[s[lo:hi]] == self.label[d[lo:hi]])
                continue
            if len(cuts) > 2:
                self._run("dyn_tally", hi - lo, ids[lo:hi], k[lo:hi], hi - lo, self.D, self.meta, 0)
            if not self._phase(nn, ids[lo:hi], k[lo:hi]):
                return None
        self.n = nn
        if 2 * self.tl_left > self.tl_bound:
            self._list_forest()
        return out

    def _batch_room(self, m: int) -> None:
        """The batch's buffers: the updates (page-locked on the host, one copy), their ids, the
        pairs that arrive, the forest edges that leave, the ids hooked, the marked labels."""
        if m <= self.bcap:
            return
        self.bcap = cap = max(m, 2 * self.bcap, 16)
        if SIM:
            self.pin = np.empty(3 * cap, np.int32)
        else:
            import cupyx
            self.pin = cupyx.empty_pinned(3 * cap, np.int32)
        self.B = xp.empty(3 * cap, np.int32)
        self.ids, self.arr, self.gone, self.hook, self.gl, self.starts, self.heals, self.HC, self.RTL, self.RTO = (
            xp.empty(cap, np.int32) for _ in range(10))

    def _phase(self, n: int, ids, k) -> bool:
        """One run of updates; False when the check flagged the batch (nothing applied)."""
        m = int(ids.size)
        self.stamp += 1
        self._run("dyn_apply", m, ids, k, m, self.D, self.CNT, self.TREE, self.arr, self.gone, self.meta, 0)
        meta = self.meta.get() if not SIM else self.meta.copy()
        self.ne = int(meta[NE])
        if meta[FLAG]:
            return False
        # TL holds the links made since (at most one an update)
        self.tl_bound, self.tl_left = int(meta[TLN]) + m, int(meta[DROPPED])
        narr, ngone = int(meta[ARRIVED]), int(meta[LEFT])
        if narr == 0 and ngone == 0:
            return True
        lists = self._sets(self.hook)
        if ngone:
            # past the limit the search only marks the components and fails
            search = ngone <= self.search_limit
            fail, heals, retry = self._search(ngone, self.ncuts if search else 0, 0, 0)
            if retry and not fail:
                # the cuts that lost their piece to another cut, from the two far ends
                fail = self._search(retry, self.ncuts, 1, heals)[0]
            self._learn(search, fail, ngone)
            if fail:
                rebuild = self.ne <= REBUILD_DENSITY * n
                if not rebuild:
                    self._run("dyn_slow", n, n, self.label, self.mark, self.P, self.meta)
                    self._run("dyn_forest", self.tl_bound, self.TL, self.meta, self.EU, self.EV, self.TREE,
                              self.label, self.mark, self.P)
                    compress(get("compress", (False,), _DT), n, view(self.P), dummy(np.int32), 0)
                    step = max(1, n >> SAMPLE_BITS)
                    self._run("dyn_sizes", -(-n // step), n, step, self.label, self.mark, self.P, self.SIZE,
                              self.BEST, self.meta)
                    self._run("dyn_small", n, n, step, self.label, self.mark, self.P, self.PST, self.stamp,
                              self.small, self.SIZE, self.BEST, self.meta)
                    rebuild = int(self.meta[SMALL]) * FLAT_SHARE >= self.ne
                if rebuild:
                    self._rebuild(n, m)
                    self._run("dyn_reset", ngone, self.hook, self.Q, self.gl, self.mark, self.BEST, self.OWN,
                              self.OWNK, self.meta)
                    return True
            self._run("dyn_scan", n * WARP, self.small, self.base_n, self.ROW,
                      self.ADJ if self.ADJ.size else dummy(np.int32), self.BEST, self.EU, self.EV, self.CNT, self.TREE,
                      *lists)
            self._run("dyn_link_edges", self.ne - self.base_ne, dummy(np.int32), NE, self.base_ne, self.EU, self.EV,
                      self.CNT, self.TREE, *lists)
        if narr:
            self._run("dyn_link_edges", narr, self.arr, ARRIVED, -1, self.EU, self.EV, self.CNT, self.TREE, *lists)
        self._run("dyn_label", n, n, self.label, self.P, self.PST, self.stamp, self.Q, self.ANC, self.ncap, self.small,
                  self.meta)
        self._run("dyn_reset", max(narr + ngone, 1), self.hook, self.Q, self.gl, self.mark, self.BEST, self.OWN,
                  self.OWNK, self.meta)
        return True

    def _rebuild(self, n: int, room: int) -> None:
        """Every label and the forest from one pass over the edges (the arrivals with them), TL
        listed again with ``room`` for more links."""
        self._run("dyn_slow", n, n, self.label, self.mark, self.P, self.meta)
        self._run("dyn_rebuild", self.ne, self.ne, self.EU, self.EV, self.CNT, self.TREE, self.P, self.base_ne,
                  self.thead, self.tnext, self.INL)
        compress(get("compress", (False,), _DT), n, view(self.P), dummy(np.int32), 0)
        self.label[:n] = self.P[:n]
        self._list_forest(room)

    def _search(self, cuts: int, ncuts: int, again: int, h0: int) -> tuple:
        """dyn_search and dyn_healed over ``cuts`` cuts (``again``: the cuts listed to be searched
        again): whether the search failed, the heals, the cuts to search again."""
        self._run("dyn_search", min(cuts, SEARCH_WARPS) * WARP, self.gone, self.gl, self.mark, self.EU, self.EV,
                  self.TREE, self.CNT, self.WS, ncuts, self.ROW, self.ADJ if self.ADJ.size else dummy(np.int32),
                  self.base_n, self.thead, self.tnext, self.label, self.P, self.PST, self.stamp, self.small, self.ANC,
                  self.OWN, self.OWNK, self.Q, self.ncap, self.QV, self.QE, SIDE_CAP, ROUNDS, self.heals, self.HC,
                  again, self.RTL, self.RTO, self.meta)
        self._run("dyn_healed", cuts, self.heals, self.HC, h0, again, self.EU, self.EV, self.TREE, self.P, self.PST,
                  self.stamp, self.ncap, self.label, self.mark, self.TL, self.RTL, self.RTO, self.meta)
        got = (self.meta[FAIL: RETRY + 1] if SIM else self.meta[FAIL: RETRY + 1].get()).tolist()
        return bool(got[0]), int(got[HEALS - FAIL]), int(got[RETRY - FAIL])

    def _learn(self, search: bool, fail: bool, cuts: int) -> None:
        """The search's cut limit after a phase of ``cuts`` cuts (MIN_SEARCH)."""
        if not search:
            self.search_limit = min(MAX_CUTS, self.search_limit + max(1, self.search_limit // 16))
            return
        self.failed = self.failed + 1 if fail else 0
        if self.failed >= 2:
            self.search_limit = max(MIN_SEARCH, cuts // 2)
        elif not fail and 2 * cuts >= self.search_limit:
            self.search_limit = min(MAX_CUTS, 2 * self.search_limit)

    def _sets(self, hook):
        """The arguments of _link_edge after an edge's own arrays."""
        return (self.label, self.P, self.PST, self.stamp, self.Q, self.TL, hook, self.base_ne, self.thead, self.tnext,
                self.INL, self.meta)

    def _missing_exact(self, kinds, src, dst) -> int:
        """The first deletion whose pair is not present at its point: the updates sorted by pair,
        each pair's running count from its count before the batch."""
        upd = xp.flatnonzero(xp.asarray(kinds) != QUERY)
        k = xp.asarray(kinds)[upd]
        s, d = xp.asarray(src)[upd], xp.asarray(dst)[upd]
        keys = _keys(s, d)
        order = xp.argsort(keys, kind="stable") if SIM else xp.argsort(keys)    # CUB's radix sort is stable
        sk = keys[order]
        delta = xp.where(k[order] == DELETE, -1, 1).astype(np.int64)
        first = xp.ones(sk.size, np.bool_)
        first[1:] = sk[1:] != sk[:-1]
        seg = xp.cumsum(first) - 1
        starts = xp.flatnonzero(first)
        run = xp.cumsum(delta)
        before = (run[starts] - delta[starts])[seg]
        ids = xp.empty(starts.size, np.int32)
        self._hash(None, s[order][starts], d[order][starts], ids, FIND)
        have = xp.where(ids >= 0, self.CNT[xp.maximum(ids, 0)], 0).astype(np.int64) if self.ne else \
            xp.zeros(ids.size, np.int64)
        bad = xp.flatnonzero(have[seg] + run - before < 0)
        if bad.size == 0:
            return -1
        return int(upd[int(order[bad].min())])

    # -- reading out

    def labels(self) -> tuple:
        """``(k, labels)`` numbered as SciPy numbers them (by each component's smallest vertex)."""
        n = self.n
        if n == 0:
            return 0, np.zeros(0, np.int32)
        lab = self.label[:n]
        first = xp.full(n, n, np.int32)
        _scatter_min(first, lab, xp.arange(n, dtype=np.int32))
        low = first[lab]
        is_first = low == xp.arange(n, dtype=np.int32)
        number = (xp.cumsum(is_first) - 1).astype(np.int32)
        out = number[low]
        k = int(number[-1]) + 1
        return k, (out if SIM else out.get())

    def edge_list(self) -> tuple:
        cnt = self.CNT[: self.ne]
        alive = cnt > 0
        host = (lambda a: a) if SIM else (lambda a: a.get())
        c, u, v = (host(a[alive]) for a in (cnt, self.EU[: self.ne], self.EV[: self.ne]))
        return np.repeat(u, c), np.repeat(v, c)
