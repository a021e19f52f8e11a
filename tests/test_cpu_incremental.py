"""Incremental connectivity against a sequential union-find."""
import numpy as np
import pytest

import gconn
from gconn import design

UF_INC = [v.name for v in design.iter_variants("incremental") if v.finish in design.UNION_FINDS]


class SeqUF:
    def __init__(self):
        self.p = []

    def _grow(self, x):
        while len(self.p) <= x:
            self.p.append(len(self.p))

    def find(self, x):
        self._grow(x)
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.p[max(a, b)] = min(a, b)


def stream(rng, n, batches, size):
    for _ in range(batches):
        kinds = (rng.random(size) < 0.4).astype(np.int8)
        yield kinds, rng.integers(0, n, size), rng.integers(0, n, size)


@pytest.mark.parametrize("name", UF_INC)
def test_phased_and_sequential_equal_sequential_union_find(name):
    rng = np.random.default_rng(hash(name) % 2**32)
    for mode in ("phased", "sequential"):
        ic = gconn.IncrementalConnectivity(algorithm=name, backend="cpu", mode=mode)
        ref = SeqUF()
        for kinds, s, d in stream(rng, 400, 6, 150):
            got = ic.process(kinds, s, d)
            expect = []
            if mode == "phased":
                for k, a, b in zip(kinds, s, d):
                    if k == 0:
                        ref.union(a, b)
                for k, a, b in zip(kinds, s, d):
                    if k == 1:
                        expect.append(ref.find(a) == ref.find(b))
            else:
                for k, a, b in zip(kinds, s, d):
                    if k == 0:
                        ref.union(a, b)
                    else:
                        expect.append(ref.find(a) == ref.find(b))
            assert got.tolist() == expect, mode
        labels = ic.labels()
        ref_roots = np.array([ref.find(x) for x in range(ic.n)])
        _, ref_labels = np.unique(ref_roots, return_inverse=True)
        from conftest import same_partition
        assert same_partition(labels, ref_labels)
        assert ic.n_components == len(np.unique(ref_roots))


@pytest.mark.parametrize("name", ["none+union-async+find-halve", "none+union-rem-cas+find-split+splice",
                                  "none+union-jtb+find-two-try-split", "none+union-hooks+find-compress"])
def test_concurrent_mode_is_bounded_by_before_and_after(name):
    rng = np.random.default_rng(5)
    ic = gconn.IncrementalConnectivity(algorithm=name, backend="cpu", mode="concurrent")
    ref = SeqUF()
    for kinds, s, d in stream(rng, 300, 8, 200):
        before = [ref.find(a) == ref.find(b) for a, b in zip(s, d)]
        for k, a, b in zip(kinds, s, d):
            if k == 0:
                ref.union(a, b)
        after = [ref.find(a) == ref.find(b) for a, b in zip(s, d)]
        got = ic.process(kinds, s, d)
        q = np.flatnonzero(kinds == 1)
        for ans, i in zip(got, q):
            assert (not before[i] or ans) and (after[i] or not ans)


def test_growth_insert_connected_labels():
    ic = gconn.IncrementalConnectivity(3, backend="cpu")
    assert ic.n == 3 and ic.n_components == 3
    ic.insert([0], [5000])
    assert ic.n == 5001
    assert ic.connected([5000, 1], [0, 2]).tolist() == [True, False]
    assert ic.n_components == 5000
    ic.insert(np.array([], np.int64), np.array([], np.int64))
    assert ic.connected([], []).size == 0
    assert ic.labels()[:3].tolist() == [0, 1, 2]
    assert ic.labels(compact=False)[5000] == 0


def test_starts_from_a_graph():
    g = gconn.Graph.from_edges([0, 2], [1, 3], n=6)
    for name in ("none+union-async+find-halve", "none+union-jtb+find-naive"):
        ic = gconn.IncrementalConnectivity(graph=g, algorithm=name, backend="cpu")
        assert ic.n == 6 and ic.n_components == 4
        assert ic.connected([0, 0], [1, 2]).tolist() == [True, False]
        ic.insert([1], [2])
        assert ic.connected([0], [3]).tolist() == [True]


def test_batch_array_and_kind_names():
    ic = gconn.IncrementalConnectivity(backend="cpu")
    out = ic.process(np.array([[0, 0, 1], [1, 0, 1], [1, 1, 2]]))
    assert out.tolist() == [True, False]
    out = ic.process(["insert", "query"], [1, 0], [2, 2])
    assert out.tolist() == [True]


@pytest.mark.parametrize("call,exc,needle", [
    (lambda ic: ic.insert([0, -1], [1, 2]), ValueError, "negative"),
    (lambda ic: ic.insert([0, 1], [1]), ValueError, "different lengths"),
    (lambda ic: ic.insert([0.5], [1]), TypeError, "float"),
    (lambda ic: ic.process([0, 2], [0, 1], [1, 2]), ValueError, "0 \\(insert\\) or 1 \\(query\\)"),
    (lambda ic: ic.process([0], [0, 1], [1, 2]), ValueError, "kinds has 1 entries"),
    (lambda ic: ic.process(["jump"], [0], [1]), ValueError, "unknown operation kind"),
    (lambda ic: ic.process(np.zeros((3, 2), int)), ValueError, r"shape \(m, 3\)"),
    (lambda ic: ic.process([0], [1]), TypeError, "kinds, src and dst"),
])
def test_bad_batches(call, exc, needle):
    ic = gconn.IncrementalConnectivity(backend="cpu")
    with pytest.raises(exc, match=needle):
        call(ic)
    # nothing was lost: the structure still works after a rejected batch
    ic.insert([0], [1])
    assert ic.connected([0], [1]).tolist() == [True]


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="unknown mode"):
        gconn.IncrementalConnectivity(mode="eventually")
    with pytest.raises(ValueError, match="non-negative"):
        gconn.IncrementalConnectivity(-1)
    with pytest.raises(ValueError, match="no sampling"):
        gconn.IncrementalConnectivity(algorithm="kout+union-async+find-halve", backend="cpu")
