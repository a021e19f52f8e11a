"""Fully dynamic connectivity on the GPU: a batch-parallel spanning forest
(the design and its costs: docs/dynamic.rst).

On the device: a label per vertex (a vertex of its component; ``label[r] == r``
at the component's representative r); the edges by id (ends, multiplicity,
whether in the forest) and a hash table from a pair to its id; the forest's
edge ids; an adjacency of every edge id given before its last
build, the ids given since then a log beside it.

A batch runs in phases: the updates between two runs of queries form one phase
(the graph after them depends only on each pair's net count), and the queries
then compare labels.  A phase:

1. nets each pair's inserts and deletes: pairs whose count falls to 0 leave,
   pairs whose count rises from 0 arrive;
2. when forest edges left, their components fall into *pieces*, the trees of
   the forest without them (UnionAsync over those trees' edges).  Each piece
   but the one holding its component's representative is *small*; the edges at
   small pieces' vertices (read from the adjacency) and the log are the
   candidates to reconnect them: every edge between two pieces has an end in a
   small one;
3. the candidates and the arriving edges are linked by UnionAsync over the
   piece (or component) roots; an edge whose union links two roots joins the
   forest;
4. every vertex takes its piece's root as its label.

A phase without forest deletions costs O(batch) plus one pass over the
labels; one with them adds the trees of the affected components and the
edges at their small pieces.
"""
from __future__ import annotations

import numpy as np

from gconn.backends.core.unionfind import FIND_HALVE, FIND_NAIVE, UNION_ASYNC
from gconn.backends.gpu._compat import SIM, cuda, view, xp
from gconn.backends.gpu.launch import WARP, dtypes_key, dummy, get, kernel, launch
from gconn.backends.gpu.primitives import UF, device
from gconn.backends.gpu.unionfind import compress

INSERT, QUERY, DELETE = 0, 1, 2
EMPTY = -1
#: the hash kernel's modes: find (-1 when absent), add absent keys with new ids, put given ids
FIND, ADD, PUT = 0, 1, 2
#: slots of ``meta``: edge ids given (the hash's counter), arrived pairs, forest edges gone, small
#: vertices, forest edges chosen, a wrong deletion seen by the check, forest edge ids listed in TL
NE, ARRIVED, LEFT, SMALL, CHOSEN, FLAG, TLN = range(7)
#: the log may grow to this share of the adjacency's edges (and at least LOG_MIN) before a rebuild
LOG_SHARE, LOG_MIN = 16, 4 if SIM else 1 << 16
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


@kernel("dyn_tally", lambda t: (t.id, t.lvl, t.I64, t.id, t.i64, t.I64), offsets=False)
def make_dyn_tally():
    """``check`` 0: each update's +1 (insert) or -1 (delete) added at its pair's id in D.
    ``check`` 1 (ids from FIND, D counting deletes + 2^20 an insert): ``flag[0]`` set when a
    deletion's pair is absent (``meta[FLAG]``); dyn_apply flags the rest."""

    def dyn_tally(ids, kinds, m, D, meta, check):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            k = kinds[i]
            if k == QUERY:
                continue
            e = ids[i]
            if not check:
                cuda.atomic.add(D, e, 1 if k == INSERT else -1)
            elif e < 0:
                if k == DELETE:
                    meta[FLAG] = 1
            else:
                cuda.atomic.add(D, e, 1 if k == DELETE else 1 << 20)

    return dyn_tally


@kernel("dyn_apply", lambda t: (t.id, t.lvl, t.I64, t.id, t.id, t.i8, t.id, t.id, t.i64, t.I64), offsets=False)
def make_dyn_apply():
    """``check`` 0: the net change of each pair (taken once, D left 0) applied to CNT: pairs from 0
    arrive in ``arr``, forest edges falling to 0 leave the forest into ``gone`` (their numbers in
    ``meta``).  ``check`` 1: ``meta[FLAG]`` set for a deletion the tally found wrong."""

    def dyn_apply(ids, kinds, m, D, CNT, TREE, arr, gone, meta, check):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            k = kinds[i]
            if k == QUERY:
                continue
            e = ids[i]
            if check:
                if e >= 0 and k == DELETE:
                    t = D[e]
                    if t >= 1 << 20 or t > CNT[e]:
                        meta[FLAG] = 1
                continue
            d = cuda.atomic.exch(D, e, 0)
            if d == 0:
                continue
            old = CNT[e]
            new = old + d
            CNT[e] = new
            if old == 0 and new > 0:
                arr[cuda.atomic.add(meta, ARRIVED, 1)] = e
            elif old > 0 and new == 0 and TREE[e] == 1:
                TREE[e] = 0
                gone[cuda.atomic.add(meta, LEFT, 1)] = e

    return dyn_apply


@kernel("dyn_clear", lambda t: (t.id, t.I64, t.id), offsets=False)
def make_dyn_clear():
    """D[ids[i]] = 0 (ids >= 0)."""

    def dyn_clear(ids, m, D):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            if ids[i] >= 0:
                D[ids[i]] = 0

    return dyn_clear


@kernel("dyn_unmark", lambda t: (t.id, t.I64, t.i8), offsets=False)
def make_dyn_unmark():
    """mark[gl[i]] = 0."""

    def dyn_unmark(gl, g, mark):
        for i in range(cuda.grid(1), g, cuda.gridsize(1)):
            mark[gl[i]] = 0

    return dyn_unmark


@device
def _cur(label, mark, P, v):
    """v's piece root in an affected component, else its label."""
    lv = label[v]
    return P[v] if mark[lv] else lv


@kernel("dyn_mark", lambda t: (t.id, t.I64, t.id, t.id, t.i8, t.id, t.I64, t.id, t.id), offsets=False)
def make_dyn_mark():
    """Mark the components of the forest edges that left (their labels kept in ``gl``); every
    vertex below n its own piece (P) and set (Q)."""

    def dyn_mark(gone, g, EU, label, mark, gl, n, P, Q):
        for i in range(cuda.grid(1), max(g, n), cuda.gridsize(1)):
            if i < g:
                lv = label[EU[gone[i]]]
                gl[i] = lv
                mark[lv] = 1
            if i < n:
                P[i] = i
                Q[i] = i

    return dyn_mark


@kernel("dyn_forest", lambda t: (t.id, t.i64, t.id, t.id, t.i8, t.id, t.i8, t.id), offsets=False)
def make_dyn_forest():
    """The pieces: UnionAsync in P over the forest edges (TL, ``meta[TLN]`` of them) of the marked
    components."""
    UnionAsync = UF.UnionAsync

    def dyn_forest(TL, meta, EU, EV, TREE, label, mark, P):
        for i in range(cuda.grid(1), meta[TLN], cuda.gridsize(1)):
            e = TL[i]
            if TREE[e] == 1:
                u = EU[e]
                if mark[label[u]]:
                    UnionAsync(P, u, EV[e], FIND_HALVE)

    return dyn_forest


@kernel("dyn_small", lambda t: (t.I64, t.id, t.i8, t.id, t.id, t.i64), offsets=False)
def make_dyn_small():
    """The vertices of the marked components outside the piece of their representative."""

    def dyn_small(n, label, mark, P, small, meta):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            lv = label[v]
            if mark[lv] and P[v] != P[lv]:
                small[cuda.atomic.add(meta, SMALL, 1)] = v

    return dyn_small


@device
def _link_edge(e, EU, EV, CNT, TREE, label, mark, P, Q, TL, meta):
    """Edge e (present) between two pieces or components: UnionAsync of their roots in Q; when it
    links, e joins the forest (TREE, and the end of TL)."""
    if CNT[e] > 0:
        a = _cur(label, mark, P, EU[e])
        b = _cur(label, mark, P, EV[e])
        if a != b and UF.UnionAsync(Q, a, b, FIND_HALVE) >= 0:
            TREE[e] = 1
            TL[cuda.atomic.add(meta, TLN, 1)] = e


@kernel("dyn_link_edges",
        lambda t: (t.id, t.I64, t.I64, t.id, t.id, t.id, t.i8, t.id, t.i8, t.id, t.id, t.id, t.i64), offsets=False)
def make_dyn_link_edges():
    """_link_edge over the edge ids ``es`` (``first`` < 0), or over the ids first..first+k-1 of
    the log whose ends are marked."""

    def dyn_link_edges(es, k, first, EU, EV, CNT, TREE, label, mark, P, Q, TL, meta):
        for i in range(cuda.grid(1), k, cuda.gridsize(1)):
            if first < 0:
                e = es[i]
            else:
                e = first + i
                if not mark[label[EU[e]]]:
                    continue
            _link_edge(e, EU, EV, CNT, TREE, label, mark, P, Q, TL, meta)

    return dyn_link_edges


@kernel("dyn_scan", lambda t: (t.id, t.I64, t.i64, t.id, t.id, t.id, t.id, t.i8, t.id, t.i8, t.id, t.id,
                               t.id, t.i64), offsets=False)
def make_dyn_scan():
    """_link_edge over the adjacency of the small vertices (``meta[SMALL]`` of them; those below
    ``rows`` have rows), a warp a vertex, 32 edges at a time until the vertex's piece is in one
    set with its representative's (a hub's row is read no further once its piece is joined).  Exact: a piece never joined to it has read every edge of its
    vertices, and a vertex without rows has all its edges in the log, which is read whole."""
    find_any = UF.find_any

    def dyn_scan(small, rows, ROW, ADJ, EU, EV, CNT, TREE, label, mark, P, Q, TL, meta):
        lane = cuda.grid(1) % WARP
        for w in range(cuda.grid(1) // WARP, meta[SMALL], cuda.gridsize(1) // WARP):
            v = small[w]
            if v >= rows:
                continue
            home = P[label[v]]
            for j in range(ROW[v], ROW[v + 1], WARP):
                # after the first 32 (read-only finds: the sets only grow while they are read)
                if j > ROW[v] and find_any(Q, P[v], UNION_ASYNC, FIND_NAIVE) == \
                        find_any(Q, home, UNION_ASYNC, FIND_NAIVE):
                    break
                if j + lane < ROW[v + 1]:
                    _link_edge(ADJ[j + lane], EU, EV, CNT, TREE, label, mark, P, Q, TL, meta)

    return dyn_scan


@kernel("dyn_label", lambda t: (t.I64, t.id, t.i8, t.id, t.id), offsets=False)
def make_dyn_label():
    """Each vertex's label: the root in Q of its piece or component."""
    find_any = UF.find_any

    def dyn_label(n, label, mark, P, Q):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            label[v] = find_any(Q, _cur(label, mark, P, v), UNION_ASYNC, FIND_NAIVE)

    return dyn_label


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


def _run(kind: str, nthreads: int, *args) -> None:
    launch(get(kind, (), _DT), nthreads, *(view(a) if hasattr(a, "dtype") and a.ndim else a for a in args),
           persistent=True)


class DynamicState:
    """The device arrays of the structure, grown by doubling (the interface of the CPU's)."""

    def __init__(self):
        z = lambda dt: xp.zeros(0, dt)     # noqa: E731
        self.n = self.ncap = 0
        # a vertex: its label, whether its label's component lost forest edges (mark), its piece (P)
        # and set (Q) in a phase; the small vertices of a phase
        self.label, self.mark, self.P, self.Q, self.small = (z(d) for d in (np.int32, np.int8, np.int32, np.int32,
                                                                             np.int32))
        self.ne = self.ecap = 0
        # an edge id: its ends, multiplicity, whether in the forest, a phase's net change (0 between)
        self.EU, self.EV, self.CNT, self.TREE, self.D = (z(d) for d in (np.int32, np.int32, np.int32, np.int8,
                                                                         np.int32))
        self.HK, self.HV = xp.full(16, EMPTY, np.int64), xp.full(16, -1, np.int32)
        self.meta = xp.zeros(7, np.int64)
        # the forest's edge ids, meta[TLN] of them (with some that left it, until compacted): at most
        # tl_bound, tl_left of them gone
        self.TL = xp.zeros(16, np.int32)
        self.tl_bound = self.tl_left = 0
        self.base_ne = self.base_n = 0
        self.ROW, self.ADJ = xp.zeros(1, np.int64), z(np.int32)
        self._staged = None

    @property
    def k(self) -> int:
        return int(xp.count_nonzero(self.label[: self.n] == xp.arange(self.n, dtype=np.int32)))

    def reserve(self, n: int, inserts: int) -> None:
        """Room for vertices below ``n`` and ``inserts`` more edge ids."""
        if n > self.ncap:
            cap = max(n, 2 * self.ncap, 16)
            label = xp.arange(cap, dtype=np.int32)
            label[: self.n] = self.label[: self.n]
            self.label, self.ncap = label, cap
            self.mark = xp.zeros(cap, np.int8)
            self.P, self.Q, self.small = (xp.empty(cap, np.int32) for _ in range(3))
        self.n = max(self.n, n)
        self._room(inserts)

    def _room(self, inserts: int) -> None:
        if 2 * (self.ne + inserts) > self.HK.size:
            self._compact(inserts)
        if self.ne + inserts > self.ecap:
            cap = max(self.ne + inserts, 2 * self.ecap, 16)
            self.EU, self.EV, self.CNT, self.TREE, self.D = (
                _grown(a, cap, self.ne) for a in (self.EU, self.EV, self.CNT, self.TREE, self.D))
            self.ecap = cap

    def _compact(self, inserts: int) -> None:
        """Renumber the edges present 0..live-1 in a table with room for ``inserts`` more ids."""
        alive = xp.flatnonzero(self.CNT[: self.ne] > 0).astype(np.int32)
        live = int(alive.size)
        self.EU, self.EV, self.CNT, self.TREE = (a[alive] for a in (self.EU, self.EV, self.CNT, self.TREE))
        self.D = xp.zeros(live, np.int32)
        self.ne = self.ecap = live
        self._list_forest()
        # at most a third full after, compacted again past half full
        size = 1 << max(int(3 * (live + inserts) - 1).bit_length(), 4)
        self.HK, self.HV = xp.full(size, EMPTY, np.int64), xp.full(size, -1, np.int32)
        if live:
            self._hash(None, self.EU, self.EV, xp.arange(live, dtype=np.int32), PUT)
        self.meta[NE] = live
        self.base_ne = self.base_n = 0      # the adjacency is rebuilt when next needed
        self.ROW, self.ADJ = xp.zeros(1, np.int64), xp.zeros(0, np.int32)

    def _list_forest(self) -> None:
        tree = xp.flatnonzero(self.TREE[: self.ne] == 1).astype(np.int32)
        self.TL = _grown(tree, max(2 * tree.size, 16), tree.size)
        self.meta[TLN] = self.tl_bound = int(tree.size)
        self.tl_left = 0

    def _hash(self, kinds, src, dst, ids, mode: int) -> None:
        if src.size:
            if kinds is None:
                kinds = xp.zeros(src.size, np.int32)
            _run("dyn_hash", src.size, self.HK, self.HV, kinds, src, dst,
                 ids, self.EU if self.ecap else dummy(np.int32), self.EV if self.ecap else dummy(np.int32), self.meta,
                 src.size, self.HK.size - 1, mode)

    def _stage(self, kinds, src, dst):
        """The batch on the device, one copy: rows kinds, src, dst (kept for :meth:`run`)."""
        st = self._staged
        if st is not None and st[0] is kinds and st[1] is src and st[2] is dst:
            return st[3]
        buf = np.empty((3, kinds.size), np.int32)
        buf[0], buf[1], buf[2] = kinds, src, dst
        dev = xp.asarray(buf)
        self._staged = (kinds, src, dst, dev)
        return dev

    # -- a batch

    def missing(self, kinds, src, dst) -> int:
        """The first deletion of the batch whose pair is not present at its point, or -1.  A tally
        decides most batches (no pair both inserted and deleted, none deleted more often than
        present); the others take the exact pass."""
        if self.ne == 0:
            return self._missing_exact(kinds, src, dst)
        m = kinds.size
        k, s, d = self._stage(kinds, src, dst)
        ids = xp.empty(m, np.int32)
        self._hash(k, s, d, ids, FIND)
        self.meta[FLAG] = 0
        _run("dyn_tally", m, ids, k, m, self.D, self.meta, 1)
        _run("dyn_apply", m, ids, k, m, self.D, self.CNT, self.TREE, dummy(np.int32), dummy(np.int32), self.meta, 1)
        _run("dyn_clear", m, ids, m, self.D)
        return self._missing_exact(kinds, src, dst) if int(self.meta[FLAG]) else -1

    def _missing_exact(self, kinds, src, dst) -> int:
        upd = np.flatnonzero(kinds != QUERY)
        k = xp.asarray(kinds[upd])
        s, d = xp.asarray(src[upd]), xp.asarray(dst[upd])
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

    def run(self, kinds, src, dst) -> np.ndarray:
        """The batch in phases: each run of updates, then each run of queries; the answers in order."""
        q = kinds == QUERY
        cuts = np.flatnonzero(np.diff(q.astype(np.int8))) + 1
        k, s, d = self._stage(kinds, src, dst)
        self._staged = None
        out = []
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, kinds.size]):
            if q[lo]:
                ans = self.label[s[lo:hi]] == self.label[d[lo:hi]]
                out.append(ans if SIM else ans.get())
            else:
                self._phase(k[lo:hi], s[lo:hi], d[lo:hi])
        return np.concatenate(out) if out else np.zeros(0, np.bool_)

    def _phase(self, k, s, d) -> None:
        m, n = int(k.size), self.n
        ids = xp.empty(m, np.int32)
        arr, gone = xp.empty(m, np.int32), xp.empty(m, np.int32)
        self.meta[ARRIVED:TLN] = 0
        self._hash(k, s, d, ids, ADD)
        _run("dyn_tally", m, ids, k, m, self.D, self.meta, 0)
        _run("dyn_apply", m, ids, k, m, self.D, self.CNT, self.TREE, arr, gone, self.meta, 0)
        meta = self.meta.tolist()
        self.ne, narr, ngone = int(meta[NE]), int(meta[ARRIVED]), int(meta[LEFT])
        if narr == 0 and ngone == 0:
            return
        self.tl_left += ngone
        if 2 * self.tl_left > self.tl_bound:
            self._list_forest()
        # every link joins two components, and there are at most ngone more of them
        self.tl_bound += narr + ngone
        if self.tl_bound > self.TL.size:
            self.TL = _grown(self.TL, max(self.tl_bound, 2 * self.TL.size), self.TL.size)
        args = (self.EU, self.EV, self.CNT, self.TREE, self.label, self.mark, self.P, self.Q, self.TL, self.meta)
        gl = xp.empty(max(ngone, 1), np.int32)
        _run("dyn_mark", max(ngone, n), gone, ngone, self.EU, self.label, self.mark, gl, n, self.P, self.Q)
        if ngone:
            self._pieces(ngone)
            log = self.ne - self.base_ne
            _run("dyn_link_edges", log, dummy(np.int32), log, self.base_ne, *args)
        _run("dyn_link_edges", narr, arr, narr, -1, *args)
        _run("dyn_label", n, n, self.label, self.mark, self.P, self.Q)
        if ngone:
            _run("dyn_unmark", ngone, gl, ngone, self.mark)

    def _pieces(self, ngone: int) -> None:
        """The marked components' pieces in P, and the edges at their small vertices linked in Q."""
        n = self.n
        _run("dyn_forest", self.tl_bound, self.TL, self.meta, self.EU, self.EV, self.TREE, self.label, self.mark,
             self.P)
        compress(get("compress", (False,), _DT), n, view(self.P), dummy(np.int32), 0)
        # the piece holding the component's representative is left out of the scan: any one piece
        # a component may be, and a random cut seldom puts the representative on the smaller side
        # (sizes counted by atomics serialize on a giant piece: 1.6-3.2 ms, kron:scale=20)
        _run("dyn_small", n, n, self.label, self.mark, self.P, self.small, self.meta)
        self._adjacency()
        _run("dyn_scan", n * WARP, self.small, self.base_n, self.ROW, self.ADJ if self.ADJ.size else dummy(np.int32),
             self.EU, self.EV, self.CNT, self.TREE, self.label, self.mark, self.P, self.Q, self.TL, self.meta)

    def _adjacency(self) -> None:
        """Rebuild the adjacency when the log outgrew its share.  It holds every id, present or not:
        a pair deleted now and inserted again later keeps its id, and the log would not hold it."""
        if self.ne - self.base_ne <= max(LOG_MIN, self.base_ne // LOG_SHARE):
            return
        ids = xp.arange(self.ne, dtype=np.int32)
        ends = xp.concatenate([self.EU[: self.ne], self.EV[: self.ne]])
        eids = xp.concatenate([ids, ids])
        order = xp.argsort(ends)
        self.ADJ = eids[order]
        self.ROW = xp.searchsorted(ends[order], xp.arange(self.n + 1, dtype=np.int32)).astype(np.int64)
        self.base_ne, self.base_n = self.ne, self.n

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
