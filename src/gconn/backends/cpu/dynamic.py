"""Fully dynamic connectivity on the CPU: a spanning forest and the non-tree edges,
updated one operation at a time inside one compiled batch loop.

Each vertex has two adjacency lists, of tree and of non-tree edges (doubly linked
through the edges' two half-edge slots, so that an edge leaves its lists in O(1)),
and a component label; each component knows its size.  An edge's multiplicity is
kept beside it (a hash table from the pair to the edge).

* insert (u, v): another copy of a present pair only counts; otherwise a non-tree
  edge when u and v share a label, else a tree edge, the smaller component taking
  the larger one's label (a walk of its tree).  The inserts of a batch without queries,
  at least n/BULK of them, merge the components in a union-find over their labels and
  relabel every vertex once, after the batch's deletions when each of those finds an edge
  present before the batch (BENCHMARKS.md, "Dynamic connectivity": building from
  kron:scale=18 took 2.5-2.9x less time, batches of 100,000 inserts 2.4-2.6x less).
* delete (u, v): a copy beyond the last only counts; a non-tree edge leaves its
  lists; a tree edge splits its tree in two.  Two walks from u and from v take one
  tree half-edge step in turn until one side is exhausted: that side is the smaller
  one, found in O(its size).  A walk reaching a vertex reads its first few
  non-tree edges: one that reaches the other walk's vertices reconnects the trees
  at once.  Else the smaller side's non-tree edges are scanned for one that leaves
  it: found, it becomes a tree edge and nothing else changes; else the smaller
  side is a new component, with a new label.
* query (u, v): the labels compared.
* a batch without queries that deletes at least one edge in REBUILD of those present (and at
  least REBUILD_MIN) applies its counts only, then builds the forest and the labels again in
  one parallel union-find pass over the edges present (``rebuild``; BENCHMARKS.md, "Dynamic
  connectivity": on grid:512 batches of 100,000 updates with 50-90% deletions took 3.6-7.8x
  less time).  The lists wait for the next batch that walks or links (``relist``): a run of
  such batches builds them never (kron:scale=18, 100,000 updates with 50-90% deletions: 2.2-2.5x
  less time a batch).

A deletion costs O(s + d_s) where s is the smaller side of the cut tree and d_s
the non-tree edges at it; a random edge of a random spanning tree cuts off few
vertices, while a path cut in the middle costs O(n).  :class:`gconn.DynamicConnectivity`
checks a batch before it runs (ids, and that every deletion finds its edge).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.backends.cpu import atomics

INSERT, QUERY, DELETE = 0, 1, 2
_EMPTY, _GONE = -1, -2
# meta slots: components, vertices, free records, free labels, walk stamp, live keys + tombstones,
# whether the lists wait for relist (after a rebuild)
_K, _N, _RTOP, _LTOP, _STAMP, _HUSED, _STALE = range(7)


@njit(cache=True)
def _slot_of(key, mask):
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64((h >> np.uint64(20)) & np.uint64(mask))


# the hash table: key i at table[2 i], its edge at table[2 i + 1] (one cache line for both)

@njit(cache=True)
def _lookup(table, key):
    """The slot i holding ``key``, or -1."""
    mask = table.size // 2 - 1
    i = _slot_of(key, mask)
    while table[2 * i] != _EMPTY:
        if table[2 * i] == key:
            return i
        i = (i + 1) & mask
    return -1


@njit(cache=True)
def _put(table, key, value):
    """Store ``key`` (absent) -> ``value``; returns whether it took an empty slot (not a tombstone)."""
    mask = table.size // 2 - 1
    i = _slot_of(key, mask)
    while table[2 * i] >= 0:
        i = (i + 1) & mask
    fresh = table[2 * i] == _EMPTY
    table[2 * i] = key
    table[2 * i + 1] = value
    return fresh


@njit(cache=True)
def _key(u, v):
    a, b = min(u, v), max(u, v)
    return (np.int64(a) << np.int64(31)) | np.int64(b)


@njit(cache=True)
def _at(eu, ev, s):
    return eu[s >> 1] if s & 1 == 0 else ev[s >> 1]


@njit(cache=True)
def _to(eu, ev, s):
    return ev[s >> 1] if s & 1 == 0 else eu[s >> 1]


@njit(cache=True)
def _link(head, nxt, prv, eu, ev, s):
    x = _at(eu, ev, s)
    h = head[x]
    nxt[s] = h
    prv[s] = -1
    if h != -1:
        prv[h] = s
    head[x] = s


@njit(cache=True)
def _unlink(head, nxt, prv, eu, ev, s):
    p, q = prv[s], nxt[s]
    if p != -1:
        nxt[p] = q
    else:
        head[_at(eu, ev, s)] = q
    if q != -1:
        prv[q] = p


@njit(cache=True)
def _relabel(start, new, label, thead, nxt, eu, ev, queue):
    """Give ``start``'s tree the label ``new`` (a walk of its tree edges); returns its size."""
    label[start] = new
    queue[0] = start
    qlen = 1
    i = 0
    while i < qlen:
        s = thead[queue[i]]
        while s != -1:
            y = _to(eu, ev, s)
            if label[y] != new:
                label[y] = new
                queue[qlen] = y
                qlen += 1
            s = nxt[s]
        i += 1
    return qlen


#: a batch without queries with inserts of at least 1/BULK of the vertices merges components by a
#: union-find (after its deletions, when each finds its edge among those present before it)
BULK = 4
#: a batch without queries with at least REBUILD_MIN deletions, and one per REBUILD edges present,
#: builds the forest again (:func:`rebuild`): a deletion's walks cost ~2-4 us, the pass a few ns an
#: edge (the lists as much again, when a later batch needs them)
REBUILD, REBUILD_MIN = 100, 256
#: non-tree edges a walk reads at each vertex it reaches, looking for the other walk
MEETS = 8


@njit(cache=True)
def _meets(x, other, nhead, nxt, mark, eu, ev):
    """One of ``x``'s first :data:`MEETS` non-tree edges that reaches a vertex marked ``other``, or -1."""
    s = nhead[x]
    for _ in range(MEETS):
        if s == -1:
            break
        if mark[_to(eu, ev, s)] == other:
            return s >> 1
        s = nxt[s]
    return -1


@njit(cache=True)
def _advance(queue, length, at, slot, mine, other, thead, nhead, nxt, mark, eu, ev):
    """One tree half-edge step of a walk (its queue, length, position and slot): a new vertex marked
    ``mine``, or the next vertex reached and its non-tree edges read for the ``other`` walk.
    Returns the walk's new (length, position, slot), an edge met or -1, and whether it ran out."""
    if slot == -1:
        at += 1
        if at >= length:
            return length, at, slot, -1, True
        x = queue[at]
        return length, at, thead[x], _meets(x, other, nhead, nxt, mark, eu, ev), False
    y = _to(eu, ev, slot)
    if mark[y] != mine:
        mark[y] = mine
        queue[length] = y
        length += 1
    return length, at, nxt[slot], -1, False


@njit(cache=True)
def _promote(r, thead, nhead, nxt, prv, eu, ev, tree):
    """Non-tree edge ``r`` joins the forest."""
    _unlink(nhead, nxt, prv, eu, ev, 2 * r)
    _unlink(nhead, nxt, prv, eu, ev, 2 * r + 1)
    tree[r] = 1
    _link(thead, nxt, prv, eu, ev, 2 * r)
    _link(thead, nxt, prv, eu, ev, 2 * r + 1)


@njit(cache=True)
def grow_vertices(n, label, size, lfree, meta):
    """Vertices meta[_N] .. n - 1 join, each a component of its own."""
    for v in range(meta[_N], n):
        meta[_LTOP] -= 1
        c = lfree[meta[_LTOP]]
        label[v] = c
        size[c] = 1
        meta[_K] += 1
    meta[_N] = max(meta[_N], n)


@njit(cache=True)
def _insert(u, v, st):
    (label, size, lfree, thead, nhead, mark, qa, qb, eu, ev, cnt, tree, nxt, prv, rfree, table, meta) = st
    key = _key(u, v)
    i = _lookup(table, key)
    if i >= 0:
        cnt[table[2 * i + 1]] += 1
        return
    meta[_RTOP] -= 1
    e = rfree[meta[_RTOP]]
    eu[e], ev[e], cnt[e] = min(u, v), max(u, v), 1
    if _put(table, key, e):
        meta[_HUSED] += 1
    if u == v:
        tree[e] = 0
        return
    lu, lv = label[u], label[v]
    if lu != lv:
        # the smaller side takes the larger's label before the edge joins the trees
        if size[lu] < size[lv]:
            _relabel(u, lv, label, thead, nxt, eu, ev, qa)
            size[lv] += size[lu]
            lfree[meta[_LTOP]] = lu
        else:
            _relabel(v, lu, label, thead, nxt, eu, ev, qa)
            size[lu] += size[lv]
            lfree[meta[_LTOP]] = lv
        meta[_LTOP] += 1
        meta[_K] -= 1
        tree[e] = 1
        _link(thead, nxt, prv, eu, ev, 2 * e)
        _link(thead, nxt, prv, eu, ev, 2 * e + 1)
    else:
        tree[e] = 0
        _link(nhead, nxt, prv, eu, ev, 2 * e)
        _link(nhead, nxt, prv, eu, ev, 2 * e + 1)


@njit(cache=True)
def _root(P, x):
    while P[x] != x:
        P[x] = P[P[x]]
        x = P[x]
    return x


@njit(cache=True)
def bulk_insert(src, dst, st, P):
    """A batch of inserts at once: the components merge in a union-find over their labels (``P``
    the identity) and every vertex takes its label's root once at the end, instead of the smaller
    side's walk at each merge."""
    (label, size, lfree, thead, nhead, mark, qa, qb, eu, ev, cnt, tree, nxt, prv, rfree, table, meta) = st
    for i in range(src.size):
        u, v = src[i], dst[i]
        key = _key(u, v)
        j = _lookup(table, key)
        if j >= 0:
            cnt[table[2 * j + 1]] += 1
            continue
        meta[_RTOP] -= 1
        e = rfree[meta[_RTOP]]
        eu[e], ev[e], cnt[e] = min(u, v), max(u, v), 1
        if _put(table, key, e):
            meta[_HUSED] += 1
        tree[e] = 0
        if u == v:
            continue
        a, b = _root(P, label[u]), _root(P, label[v])
        if a != b:
            if size[a] < size[b]:
                a, b = b, a
            P[b] = a
            size[a] += size[b]
            lfree[meta[_LTOP]] = b
            meta[_LTOP] += 1
            meta[_K] -= 1
            tree[e] = 1
            _link(thead, nxt, prv, eu, ev, 2 * e)
            _link(thead, nxt, prv, eu, ev, 2 * e + 1)
        else:
            _link(nhead, nxt, prv, eu, ev, 2 * e)
            _link(nhead, nxt, prv, eu, ev, 2 * e + 1)
    for v in range(meta[_N]):
        label[v] = _root(P, label[v])


@njit(parallel=True, cache=True)
def slots_of(kinds, src, dst, table, out):
    """Each update's slot in the table before the batch (-1: absent), looked up in parallel: the
    lookups miss the caches, and the passes after them run in order."""
    for i in prange(kinds.size):
        out[i] = _lookup(table, _key(src[i], dst[i])) if kinds[i] != QUERY else -1


@njit(inline="always")
def _slot(table, key, j):
    """``key``'s slot now, from ``j`` (its slot before the batch): a slot keeps its key until the
    key leaves it."""
    return j if j >= 0 and table[2 * j] == key else _lookup(table, key)


@njit(cache=True)
def apply_counts(kinds, src, dst, st, slots):
    """A batch of inserts and deletions (no queries; each deletion finds its edge) on the pairs'
    counts only (``slots``: :func:`slots_of`): pairs that arrive get records, pairs whose count
    falls to 0 give theirs back.  The forest, the lists and the labels are :func:`rebuild`'s."""
    (label, size, lfree, thead, nhead, mark, qa, qb, eu, ev, cnt, tree, nxt, prv, rfree, table, meta) = st
    for i in range(kinds.size):
        u, v = src[i], dst[i]
        key = _key(u, v)
        j = _slot(table, key, slots[i])
        if kinds[i] == DELETE:
            e = table[2 * j + 1]
            cnt[e] -= 1
            if cnt[e] == 0:
                table[2 * j] = _GONE
                rfree[meta[_RTOP]] = e
                meta[_RTOP] += 1
        elif j >= 0:
            cnt[table[2 * j + 1]] += 1
        else:
            meta[_RTOP] -= 1
            e = rfree[meta[_RTOP]]
            eu[e], ev[e], cnt[e] = min(u, v), max(u, v), 1
            if _put(table, key, e):
                meta[_HUSED] += 1


@njit(inline="always")
def _find_shared(P, x):
    """x's root in ``P`` while other threads link: FindSplit (each vertex on the path takes its
    grandparent, a store of an ancestor that no race can make wrong)."""
    p = atomics.load(P, x)
    while p != x:
        g = atomics.load(P, p)
        if g != p:
            atomics.store(P, x, g)
        x, p = p, g
    return x


@njit(parallel=True, cache=True)
def _forest(eu, ev, cnt, tree, P, n):
    """UnionAsync over the pairs present, in parallel: a pair whose link (a larger root hooked
    under a smaller one) succeeds is a forest edge, so the forest spans the components and each
    component's root is its least vertex."""
    for v in prange(n):
        P[v] = v
    for e in prange(cnt.size):
        tree[e] = 0
        if cnt[e] <= 0:
            continue
        u, v = eu[e], ev[e]
        while True:
            a, b = _find_shared(P, u), _find_shared(P, v)
            if a == b:
                break
            hi, lo = max(a, b), min(a, b)
            if atomics.cas(P, hi, hi, lo) == hi:
                tree[e] = 1
                break


@njit(cache=True)
def rebuild(st, P):
    """The forest and the labels built again from the pairs present: one union-find pass over
    them (``P`` room for every vertex); a component's label is its least vertex, and every other
    label is free.  The lists wait for :func:`relist`: a run of many deletions after this one
    builds everything again without reading them."""
    (label, size, lfree, thead, nhead, mark, qa, qb, eu, ev, cnt, tree, nxt, prv, rfree, table, meta) = st
    n = meta[_N]
    _forest(eu, ev, cnt, tree, P, n)
    size[:] = 0
    for v in range(n):
        r = _root(P, v)
        label[v] = r
        size[r] += 1
    top = 0
    for c in range(label.size - 1, -1, -1):
        if c >= n or P[c] != c:
            lfree[top] = c
            top += 1
    meta[_LTOP] = top
    meta[_K] = label.size - top
    meta[_STALE] = 1


@njit(cache=True)
def relist(st):
    """Both lists of every vertex from the forest flags: its forest half-edges (thead) and the
    others (nhead)."""
    (label, size, lfree, thead, nhead, mark, qa, qb, eu, ev, cnt, tree, nxt, prv, rfree, table, meta) = st
    n = meta[_N]
    for v in range(n):
        thead[v] = -1
        nhead[v] = -1
    for e in range(cnt.size):
        if cnt[e] <= 0 or eu[e] == ev[e]:
            continue
        head = thead if tree[e] else nhead
        u, v = eu[e], ev[e]
        nxt[2 * e] = head[u]
        head[u] = 2 * e
        nxt[2 * e + 1] = head[v]
        head[v] = 2 * e + 1
    # the back links in a pass of their own: within the loop above they took 2/3 of its time
    for e in range(cnt.size):
        if cnt[e] > 0 and eu[e] != ev[e]:
            if nxt[2 * e] != -1:
                prv[nxt[2 * e]] = 2 * e
            if nxt[2 * e + 1] != -1:
                prv[nxt[2 * e + 1]] = 2 * e + 1
    for v in range(n):
        if thead[v] != -1:
            prv[thead[v]] = -1
        if nhead[v] != -1:
            prv[nhead[v]] = -1
    meta[_STALE] = 0


@njit(cache=True)
def _delete(u, v, st):
    (label, size, lfree, thead, nhead, mark, qa, qb, eu, ev, cnt, tree, nxt, prv, rfree, table, meta) = st
    i = _lookup(table, _key(u, v))
    e = table[2 * i + 1]    # present: checked before the batch ran
    cnt[e] -= 1
    if cnt[e] > 0:
        return
    table[2 * i] = _GONE
    rfree[meta[_RTOP]] = e
    meta[_RTOP] += 1
    if u == v:
        return
    if tree[e] == 0:
        _unlink(nhead, nxt, prv, eu, ev, 2 * e)
        _unlink(nhead, nxt, prv, eu, ev, 2 * e + 1)
        return
    _unlink(thead, nxt, prv, eu, ev, 2 * e)
    _unlink(thead, nxt, prv, eu, ev, 2 * e + 1)
    # two walks in turn, one tree half-edge step each, until one side is exhausted; a walk reaching
    # a vertex reads its first few non-tree edges, and one that meets the other walk reconnects
    # the trees at once (a grid's cut is mended next to it; a hub's long list is not read twice)
    meta[_STAMP] += 2
    sa, sb = meta[_STAMP], meta[_STAMP] + 1
    mark[u], mark[v] = sa, sb
    qa[0], qb[0] = u, v
    la, lb, ia, ib = 1, 1, 0, 0
    ca, cb = thead[u], thead[v]
    while True:
        la, ia, ca, r, done = _advance(qa, la, ia, ca, sa, sb, thead, nhead, nxt, mark, eu, ev)
        if done:
            queue, count, stamp = qa, la, sa
            break
        if r >= 0:
            break
        lb, ib, cb, r, done = _advance(qb, lb, ib, cb, sb, sa, thead, nhead, nxt, mark, eu, ev)
        if done:
            queue, count, stamp = qb, lb, sb
            break
        if r >= 0:
            break
    if r >= 0:
        _promote(r, thead, nhead, nxt, prv, eu, ev, tree)
        return
    # a non-tree edge leaving the smaller side reconnects it
    for j in range(count):
        s = nhead[queue[j]]
        while s != -1:
            if mark[_to(eu, ev, s)] != stamp:
                _promote(s >> 1, thead, nhead, nxt, prv, eu, ev, tree)
                return
            s = nxt[s]
    old = label[u]
    meta[_LTOP] -= 1
    new = lfree[meta[_LTOP]]
    for j in range(count):
        label[queue[j]] = new
    size[new] = count
    size[old] -= count
    meta[_K] += 1


@njit(cache=True)
def run_batch(kinds, src, dst, out, st):
    """The batch's operations in order; ``out`` takes the queries' answers (their count returned)."""
    label = st[0]
    answers = 0
    for i in range(kinds.size):
        k, u, v = kinds[i], src[i], dst[i]
        if k == INSERT:
            _insert(u, v, st)
        elif k == DELETE:
            _delete(u, v, st)
        else:
            out[answers] = label[u] == label[v]
            answers += 1
    return answers


@njit(cache=True)
def _pairs_deleted(kinds, src, dst):
    """A table (as the structure's) of the pairs the batch deletes, each with the value 0 (an
    array, not a typed Dict: BENCHMARKS.md, "Dynamic connectivity")."""
    dels = 0
    for i in range(kinds.size):
        dels += kinds[i] == DELETE
    size = 1
    while size < 2 * dels:
        size *= 2
    tab = np.full(2 * max(size, 8), _EMPTY, np.int64)
    for i in range(kinds.size):
        if kinds[i] == DELETE:
            key = _key(src[i], dst[i])
            if _lookup(tab, key) < 0:
                _put(tab, key, 0)
    return tab


@njit(cache=True)
def first_missing(kinds, src, dst, table, cnt, slots):
    """The index of the first deletion whose edge is not present when it runs, or -1 (``slots``:
    :func:`slots_of`)."""
    # the running counts of the pairs the batch deletes, and of no others
    delta = _pairs_deleted(kinds, src, dst)
    for i in range(kinds.size):
        k = kinds[i]
        if k == QUERY:
            continue
        key = _key(src[i], dst[i])
        s = _lookup(delta, key)
        if s < 0:
            continue
        d = delta[2 * s + 1]
        if k == INSERT:
            delta[2 * s + 1] = d + 1
            continue
        j = slots[i]
        have = (cnt[table[2 * j + 1]] if j >= 0 else 0) + d
        if have <= 0:
            return i
        delta[2 * s + 1] = d - 1
    return -1


@njit(cache=True)
def deletes_fit(kinds, src, dst, table, cnt):
    """Whether every deletion finds its edge among those present before the batch (so that the
    deletions may run before the inserts)."""
    want = _pairs_deleted(kinds, src, dst)
    for i in range(kinds.size):
        if kinds[i] == DELETE:
            key = _key(src[i], dst[i])
            s = _lookup(want, key)
            d = want[2 * s + 1] + 1
            j = _lookup(table, key)
            if j < 0 or cnt[table[2 * j + 1]] < d:
                return False
            want[2 * s + 1] = d
    return True


@njit(cache=True)
def rehash(table, new):
    """The live keys of one table into another (empty) one; returns how many."""
    live = 0
    for i in range(table.size // 2):
        if table[2 * i] >= 0:
            _put(new, table[2 * i], table[2 * i + 1])
            live += 1
    return live


@njit(cache=True)
def compact(label, n, out):
    """Labels 0..k-1 numbered by each component's first vertex (SciPy's order); returns k."""
    first = np.full(label.size, -1, np.int64)
    k = 0
    for v in range(n):
        c = label[v]
        if first[c] < 0:
            first[c] = k
            k += 1
        out[v] = first[c]
    return k


@njit(cache=True)
def edges_of(eu, ev, cnt, table, src, dst):
    """Every present edge, each copy once: fills ``src``/``dst``; returns the count."""
    m = 0
    for i in range(table.size // 2):
        if table[2 * i] >= 0:
            e = table[2 * i + 1]
            for _ in range(cnt[e]):
                src[m], dst[m] = eu[e], ev[e]
                m += 1
    return m


class DynamicState:
    """The arrays of the structure, grown by doubling; the batch loop runs over them."""

    def __init__(self):
        self.meta = np.zeros(7, np.int64)
        self.ncap = self.ecap = 0
        z = lambda dt: np.zeros(0, dt)     # noqa: E731
        self.label, self.size, self.lfree = z(np.int32), z(np.int32), z(np.int32)
        self.thead, self.nhead, self.mark, self.qa, self.qb = z(np.int32), z(np.int32), z(np.int64), \
            z(np.int32), z(np.int32)
        self.eu, self.ev, self.cnt, self.tree = z(np.int32), z(np.int32), z(np.int32), z(np.int8)
        self.nxt, self.prv, self.rfree = z(np.int32), z(np.int32), z(np.int32)
        self.table = np.full(16, _EMPTY, np.int64)

    @property
    def n(self) -> int:
        return int(self.meta[_N])

    @property
    def k(self) -> int:
        return int(self.meta[_K])

    @property
    def edges(self) -> int:
        """Distinct pairs present."""
        return self.ecap - int(self.meta[_RTOP])

    def arrays(self) -> tuple:
        return (self.label, self.size, self.lfree, self.thead, self.nhead, self.mark, self.qa, self.qb,
                self.eu, self.ev, self.cnt, self.tree, self.nxt, self.prv, self.rfree, self.table, self.meta)

    def reserve(self, n: int, inserts: int) -> None:
        """Room for vertices below ``n`` and ``inserts`` more edges."""
        if n > self.ncap:
            cap = max(n, 2 * self.ncap, 16)
            old = self.ncap
            grow = lambda a, fill: np.concatenate([a, np.full(cap - old, fill, a.dtype)])     # noqa: E731
            self.label, self.size = grow(self.label, -1), grow(self.size, 0)
            self.thead, self.nhead, self.mark = grow(self.thead, -1), grow(self.nhead, -1), grow(self.mark, 0)
            self.qa, self.qb = np.empty(cap, np.int32), np.empty(cap, np.int32)
            # labels not in use: the new ids, then the free ones kept on top
            top = int(self.meta[_LTOP])
            self.lfree = np.concatenate([np.arange(cap - 1, old - 1, -1, dtype=np.int32), self.lfree[:top],
                                         np.zeros(old - top, np.int32)])
            self.meta[_LTOP] = top + cap - old
            self.ncap = cap
        if n > self.n:
            grow_vertices(n, self.label, self.size, self.lfree, self.meta)
        need = self.edges + inserts
        if need > self.ecap:
            cap = max(need, 2 * self.ecap, 16)
            old, top = self.ecap, int(self.meta[_RTOP])
            grow = lambda a: np.concatenate([a, np.zeros(cap - old, a.dtype)])     # noqa: E731
            self.eu, self.ev, self.cnt, self.tree = grow(self.eu), grow(self.ev), grow(self.cnt), grow(self.tree)
            self.nxt = np.concatenate([self.nxt, np.full(2 * (cap - old), -1, np.int32)])
            self.prv = np.concatenate([self.prv, np.full(2 * (cap - old), -1, np.int32)])
            self.rfree = np.concatenate([np.arange(cap - 1, old - 1, -1, dtype=np.int32), self.rfree[:top],
                                         np.zeros(old - top, np.int32)])
            self.meta[_RTOP] = top + cap - old
            self.ecap = cap
        # a table at most half full of live keys and tombstones, at most 45% after a rehash: one whose
        # live keys alone neared half was rehashed into its own size by every batch (grid:512,
        # batches of 100,000 updates: 7 ms of their 23; BENCHMARKS.md, "Dynamic connectivity")
        if 4 * (int(self.meta[_HUSED]) + inserts) > self.table.size:
            size = 1 << max(int(2 * (self.edges + inserts)).bit_length(), 3)
            if 20 * (self.edges + inserts) > 9 * size:
                size *= 2
            new = np.full(2 * size, _EMPTY, np.int64)
            self.meta[_HUSED] = rehash(self.table, new)
            self.table = new

    def run(self, kinds, src, dst, n: int, inserts: int) -> tuple:
        """The batch over vertices below ``n`` with ``inserts`` insertions: ``(-1, answers)``, or
        ``(i, None)`` when deletion i does not find its edge (checked first: nothing applied)."""
        slots = None
        if (kinds == DELETE).any():
            slots = np.empty(kinds.size, np.int64)
            slots_of(kinds, src, dst, self.table, slots)
            bad = int(first_missing(kinds, src, dst, self.table, self.cnt, slots))
            if bad >= 0:
                return bad, None
        self.reserve(n, inserts)
        q = kinds == QUERY
        queries = int(np.count_nonzero(q))
        if queries == 0:
            self._updates(kinds, src, dst, inserts, slots)
            return -1, np.zeros(0, np.bool_)
        out = np.empty(queries, np.bool_)
        if not self._rebuilds(kinds.size - inserts - queries):
            run_batch(kinds, src, dst, out, self.lists())
            return -1, out
        # the runs of updates between the queries, each on its own: one of many deletions rebuilds
        cuts = np.r_[0, np.flatnonzero(np.diff(q.view(np.int8))) + 1, kinds.size]
        at = 0
        for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
            if q[lo]:
                run_batch(kinds[lo:hi], src[lo:hi], dst[lo:hi], out[at: at + hi - lo], self.lists())
                at += hi - lo
            else:
                self._updates(kinds[lo:hi], src[lo:hi], dst[lo:hi], int(np.count_nonzero(kinds[lo:hi] == INSERT)),
                              slots[lo:hi])
        return -1, out

    def lists(self) -> tuple:
        """:meth:`arrays`, the lists made current first (a walk or a link reads them)."""
        if self.meta[_STALE]:
            relist(self.arrays())
        return self.arrays()

    def _rebuilds(self, deletes: int) -> bool:
        return deletes >= REBUILD_MIN and REBUILD * deletes >= self.edges

    def _updates(self, kinds, src, dst, inserts: int, slots) -> None:
        """A run of inserts and deletions (each finds its edge; ``slots``: their slots before the
        batch, where it deletes)."""
        if self._rebuilds(kinds.size - inserts):
            # many deletions: the counts first, then the forest again in one pass
            apply_counts(kinds, src, dst, self.arrays(), slots)
            rebuild(self.arrays(), np.empty(self.ncap, np.int32))
        elif BULK * inserts >= self.n and (
                inserts == kinds.size or deletes_fit(kinds, src, dst, self.table, self.cnt)):
            # only the net change counts: the deletions first, then the inserts at once
            ins = kinds == INSERT
            if inserts < kinds.size:
                dels = ~ins
                run_batch(kinds[dels], src[dels], dst[dels], np.zeros(0, np.bool_), self.lists())
            bulk_insert(src[ins], dst[ins], self.lists(), np.arange(self.ncap, dtype=np.int32))
        else:
            run_batch(kinds, src, dst, np.zeros(0, np.bool_), self.lists())

    def labels(self) -> tuple:
        out = np.empty(self.n, np.int32)
        return int(compact(self.label, self.n, out)), out

    def edge_list(self) -> tuple:
        m = int(self.cnt[self._live()].sum()) if self.ecap else 0
        src, dst = np.empty(m, np.int32), np.empty(m, np.int32)
        edges_of(self.eu, self.ev, self.cnt, self.table, src, dst)
        return src, dst

    def _live(self):
        return self.table[1::2][self.table[0::2] >= 0]
