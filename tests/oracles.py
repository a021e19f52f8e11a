"""The oracles every suite checks against: SciPy's components, partition
equality, the spanning-forest check, a sequential union-find and the
incremental replay built on it."""
from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import connected_components as scipy_cc


def host(x) -> np.ndarray:
    """A result as a NumPy array (CuPy arrays are copied back)."""
    return x.get() if hasattr(x, "get") else np.asarray(x)


def reference(graph):
    """scipy's (k, labels) for a gconn Graph."""
    return scipy_cc(graph.to_scipy(), directed=False)


def component_minima(labels) -> np.ndarray:
    """Each vertex's component's smallest vertex, from labels 0..k-1 (what
    ``compact=False`` returns)."""
    labels = host(labels)
    mins = np.full(int(labels.max()) + 1 if labels.size else 0, labels.size)
    np.minimum.at(mins, labels, np.arange(labels.size))
    return mins[labels]


def same_partition(a, b) -> bool:
    """Two label arrays describe the same partition."""
    a = host(a)
    b = host(b)
    if a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    pairs = np.unique(np.stack([a, b]), axis=1)
    return len(np.unique(pairs[0])) == pairs.shape[1] == len(np.unique(pairs[1]))


def check_forest(graph, src, dst, k):
    """A valid spanning forest: input edges, n-k of them, same partition."""
    import scipy.sparse as sp
    src = host(src)
    dst = host(dst)
    n = graph.n
    assert src.size == dst.size == n - k
    if src.size:
        a = np.minimum(src, dst).astype(np.int64)
        b = np.maximum(src, dst).astype(np.int64)
        key = a * n + b
        g = graph.to_host()
        ekey = g.src.astype(np.int64) * n + g.dst.astype(np.int64)
        assert np.isin(key, ekey).all(), "forest edge not in the graph"
        assert np.unique(key).size == key.size, "forest edge repeated"
    A = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    kf, lf = scipy_cc(A, directed=False)
    # n-k edges spanning exactly k components means no cycle.
    assert kf == k
    k0, l0 = reference(graph)
    assert same_partition(lf, l0)


class SeqUF:
    """A sequential union-find that grows with the ids it sees."""

    def __init__(self, n: int = 0):
        self.p = list(range(n))

    def find(self, x):
        while len(self.p) <= x:
            self.p.append(len(self.p))
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.p[max(a, b)] = min(a, b)


def stream(rng, n: int, batches: int, size: int | None = None, queries: float = 0.4):
    """Random mixed batches (kinds, src, dst) over ids < n; a random size
    up to 120 per batch when ``size`` is None."""
    out = []
    for _ in range(batches):
        m = int(rng.integers(1, 120)) if size is None else size
        kinds = (rng.random(m) < queries).astype(np.int8)
        out.append((kinds, rng.integers(0, n, m), rng.integers(0, n, m)))
    return out


def replay_incremental(ic, batches, mode: str, exact: bool = True) -> SeqUF:
    """Run ``batches`` through ``ic`` and check every answer against a
    sequential union-find: exact for the phased and sequential modes (and
    for the concurrent mode when ``exact``), otherwise bounded by the
    answers before and after the batch, as the concurrent contract allows.
    Then the labels and component count.  Returns the oracle."""
    ref = SeqUF(ic.n)
    for kinds, s, d in batches:
        before = [ref.find(a) == ref.find(b) for a, b in zip(s, d)]
        expect = []
        for k, a, b in zip(kinds, s, d):
            if k == 0:
                ref.union(a, b)
            elif mode == "sequential":
                expect.append(ref.find(a) == ref.find(b))
        after = [ref.find(a) == ref.find(b) for a, b in zip(s, d)]
        queries = np.flatnonzero(kinds == 1)
        if mode != "sequential":
            expect = [after[i] for i in queries]
        got = host(ic.process(kinds, s, d)).tolist()
        if mode == "concurrent" and not exact:
            assert len(got) == len(queries)
            for ans, i in zip(got, queries):
                assert (not before[i] or ans) and (after[i] or not ans)
        else:
            assert got == expect, mode
    roots = np.array([ref.find(x) for x in range(ic.n)], dtype=np.int64)
    assert same_partition(ic.labels(), roots)
    assert ic.n_components == len(np.unique(roots))
    return ref
