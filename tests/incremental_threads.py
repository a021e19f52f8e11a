"""One IncrementalConnectivity used by several threads at once, checked
against the calls' order.

Every call is stamped with a start and an end tick of one locked counter.
Calls overlap, so each answer is checked against bounds: a query must be
True when its pair is connected by the inserts that *ended* before it
started, and False when its pair is not connected by the inserts that
*started* before it ended.  ``labels()`` must be the partition of some
state between those two edge sets (and cover a vertex count between the
ids seen before and during the call); ``n_components`` must be the count
of some such state.

>>> log = hammer(_FakeIC(), threads=2, rounds=3, span=50, seed=1)
>>> check(log, 0)
{'query': 6, 'labels': 0, 'count': 0}
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from oracles import SeqUF, host


class Clock:
    """Strictly increasing ticks shared by all threads."""

    def __init__(self):
        self._lock = threading.Lock()
        self._t = 0

    def __call__(self) -> int:
        with self._lock:
            self._t += 1
            return self._t


def hammer(ic, threads: int = 8, rounds: int = 30, span: int = 6000, seed: int = 0, batch: int = 12,
           big_every: int = 0, observe_every: int = 0, n0: int = 0, switch: float | None = 1e-6):
    """``threads`` threads, each inserting ``rounds`` random batches whose ids
    reach further each round (up to ``span``: the state reallocates on the
    way) and querying random pairs; every ``observe_every``-th round also
    labels() and n_components, every ``big_every``-th insert has 1500 edges
    (the parallel kernels).  ``switch`` is the interpreter's thread switch
    interval meanwhile (None: left as it is).  Returns the log of calls;
    raises what a thread raised."""
    clock = Clock()
    log: list = []
    errors: list = []
    start = threading.Barrier(threads)

    def call(kind, fn, *args):
        t0 = clock()
        out = fn(*args)
        t1 = clock()
        log.append((kind, t0, t1, args, out))  # list.append is atomic

    def worker(t):
        rng = np.random.default_rng([seed, t])
        try:
            start.wait()
            for r in range(rounds):
                hi = max(2, n0, int(span * (r + 1) / rounds))
                size = 1500 if big_every and r % big_every == big_every - 1 else int(rng.integers(1, batch + 1))
                # ids near hi, so the batch pushes the vertex set up, and low
                # ones, so the batches meet
                s = rng.integers(0, hi, size)
                d = np.where(rng.random(size) < 0.5, rng.integers(max(0, hi - 64), hi, size),
                             rng.integers(0, 64, size))
                call("insert", ic.insert, s.tolist() if r % 2 else s, d.tolist() if r % 2 else d)
                u = rng.integers(0, hi, batch)
                v = rng.integers(0, min(hi, 64), batch)
                call("query", ic.connected, u.tolist() if r % 3 else u, v.tolist() if r % 3 else v)
                if observe_every and r % observe_every == observe_every - 1:
                    call("labels", ic.labels)
                    call("count", lambda: ic.n_components)
        except BaseException as e:  # noqa: BLE001 -- re-raised in the main thread
            errors.append(e)

    old = sys.getswitchinterval()
    # switch threads every few bytecodes, not every 5 ms, so that calls
    # really interleave inside the methods
    sys.setswitchinterval(switch or old)
    try:
        pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
    finally:
        sys.setswitchinterval(old)
    if errors:
        raise errors[0]
    return log


def _ids_of(entry) -> int:
    """1 + the largest id a logged insert or query named (0 if none)."""
    kind, _, _, args, _ = entry
    if kind not in ("insert", "query"):
        return 0
    return 1 + max((int(np.max(a)) for a in args if len(a)), default=-1)


def check(log, n0: int = 0, seed_edges=((), ())) -> dict:
    """Check every logged answer against the bounds (see the module
    docstring); returns how many calls of each kind were checked, raises
    AssertionError naming the first wrong one."""
    inserts = [e for e in log if e[0] == "insert"]
    size = max([n0] + [_ids_of(e) for e in log])
    seeded = SeqUF(size)
    for a, b in zip(*seed_edges):
        seeded.union(int(a), int(b))

    def state(calls):
        uf = SeqUF(size)
        uf.p = list(seeded.p)
        for c in calls:
            for a, b in zip(*c[3]):
                uf.union(int(a), int(b))
        return uf

    def bounds(e):
        """The inserts that ended before e started and those that started
        before it ended; the vertex counts the same way."""
        low = [i for i in inserts if i[2] < e[1]]
        high = [i for i in inserts if i[1] < e[2]]
        n_low = max([n0] + [_ids_of(c) for c in log if c[2] < e[1]])
        n_high = max([n0] + [_ids_of(c) for c in log if c[1] < e[2]])
        return low, high, n_low, n_high

    counts = {"query": 0, "labels": 0, "count": 0}
    # one sweep per bound: a query's low bound grows with its start, its
    # high bound with its end
    queries = [e for e in log if e[0] == "query"]
    for bound, tick, order in (("low", 1, 2), ("high", 2, 1)):
        ranked = sorted(inserts, key=lambda i: i[order])
        uf, k = state([]), 0
        for q in sorted(queries, key=lambda e: e[tick]):
            while k < len(ranked) and ranked[k][order] < q[tick]:
                for a, b in zip(*ranked[k][3]):
                    uf.union(int(a), int(b))
                k += 1
            joined = [uf.find(int(a)) == uf.find(int(b)) for a, b in zip(*q[3])]
            got = host(q[4]).tolist()
            assert len(got) == len(joined), q
            if bound == "low":
                counts["query"] += 1
                assert all(g or not j for g, j in zip(got, joined)), \
                    f"query {q[1]}..{q[2]}: a pair the inserts before it connect answered False: {q[3]} -> {got}"
            else:
                assert all(j or not g for g, j in zip(got, joined)), \
                    f"query {q[1]}..{q[2]}: a pair no insert up to its end connects answered True: {q[3]} -> {got}"
    for e in (e for e in log if e[0] == "labels"):
        counts["labels"] += 1
        labels = host(e[4])
        low, high, n_low, n_high = bounds(e)
        assert n_low <= labels.size <= n_high, ("labels cover", labels.size, "vertices", n_low, n_high)
        first = np.sort(np.unique(labels, return_index=True)[1])
        assert np.array_equal(labels[first], np.arange(first.size)), "labels are not in scipy's numbering"
        low, high = state(low), state(high)
        rep_of = dict(zip(labels[first].tolist(), first.tolist()))
        for x in range(labels.size):
            # coarser than the state before the call, finer than the one at its end
            assert labels[low.find(x)] == labels[x], f"labels split a component the call saw ({x})"
            assert high.find(x) == high.find(rep_of[int(labels[x])]), f"labels join what no insert joined ({x})"
    for e in (e for e in log if e[0] == "count"):
        counts["count"] += 1
        low, high, n_low, n_high = bounds(e)
        most = _components_by_n(low, seed_edges, n_high)
        least = _components_by_n(high, seed_edges, n_high)
        # a state between the bounds with n vertices has at least the
        # high edges' components among 0..n-1 and at most the low edges'
        fits = [n for n in range(n_low, n_high + 1) if least[n] <= e[4] <= most[n]]
        assert fits, f"n_components {e[4]} fits no state ({n_low}..{n_high} vertices)"
    return counts


def _components_by_n(calls, seed_edges, n_max: int) -> list:
    """c[n]: components among vertices 0..n-1 of the edges of ``calls`` and
    the seed that lie within them, for n = 0..n_max."""
    edges = [(int(a), int(b)) for a, b in zip(*seed_edges)]
    edges += [(int(a), int(b)) for c in calls for a, b in zip(*c[3])]
    edges.sort(key=max)
    uf = SeqUF(n_max)
    out, c, k = [0], 0, 0
    for n in range(1, n_max + 1):
        c += 1
        while k < len(edges) and max(edges[k]) < n:
            a, b = uf.find(edges[k][0]), uf.find(edges[k][1])
            if a != b:
                uf.union(a, b)
                c -= 1
            k += 1
        out.append(c)
    return out


class _FakeIC:
    """A locked, sequential stand-in for the doctest."""

    def __init__(self):
        self._uf = SeqUF(0)
        self._lock = threading.Lock()

    def insert(self, s, d):
        with self._lock:
            for a, b in zip(s, d):
                self._uf.union(int(a), int(b))

    def connected(self, u, v):
        with self._lock:
            return np.array([self._uf.find(int(a)) == self._uf.find(int(b)) for a, b in zip(u, v)])
