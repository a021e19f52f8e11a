"""The lazy graph (issue 11): the forms a variant reads, built only when it
reads them, on messy input (duplicates, self loops, both orientations,
isolated vertices, int64 ids), against SciPy."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
from gconn.graph.build import PASS_SERIAL_BELOW, adjacency_csr, id_bounds
from gconn.design import FINISHES, Plan, Variant, choose
from gconn.graph import FORMS, Graph

from oracles import check_forest, same_partition


def messy(seed: int, n: int = 60, m: int = 90, dtype=np.int32):
    """Edges with duplicates in both orientations, self loops, and
    vertices n-5..n-1 isolated."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n - 5, m)
    d = rng.integers(0, n - 5, m)
    s = np.r_[s, d[:20], s[:10], [3, 7, 7]]
    d = np.r_[d, s[:20], d[:10], [3, 7, 7]]
    return s.astype(dtype), d.astype(dtype), n


def scipy_of(s, d, n):
    A = sp.coo_matrix((np.ones(s.size, np.int8), (s, d)), shape=(n, n))
    return scipy_cc(A, directed=False)


def simple(s, d, n):
    """The simple graph's symmetric 0/1 matrix, by SciPy."""
    A = sp.coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)).tocsr()
    A = ((A + A.T) != 0).astype(np.int8)
    A.setdiag(0)
    A.eliminate_zeros()
    return A


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
def test_forms_against_scipy(dtype):
    s, d, n = messy(1, dtype=dtype)
    g = Graph.from_edges(s, d, n)
    assert [g.has_form(f) for f in FORMS] == [True, False, False]
    assert g.m_input == s.size and g.id_dtype == np.int32
    es, ed = g.edges()
    assert np.array_equal(es, s) and np.array_equal(ed, d)
    if dtype == np.int32:
        assert es is s          # the user's array, not a copy
    g.adjacency()
    assert g.has_form("adjacency") and not g.has_form("canonical")
    A = simple(s, d, n)
    assert g.m == A.nnz // 2
    assert (g.to_scipy() != A).nnz == 0
    assert g.has_form("canonical") and g.m_input == g.m


def test_adjacency_is_the_canonical_csr_as_sets():
    for seed in range(4):
        s, d, n = messy(seed)
        indptr, indices = adjacency_csr(s, d, n)
        loops = int(np.count_nonzero(s == d))
        assert indptr[-1] == 2 * (s.size - loops)
        c = Graph.from_edges(s, d, n).canonical()
        for v in range(n):
            row = indices[indptr[v]:indptr[v + 1]]
            want = c[1][c[0][v]:c[0][v + 1]]
            assert np.array_equal(np.unique(row), want), v
            if row.size:
                assert row[0] == row.min(), "the smallest neighbour comes first"
        # each edge (u, v) appears as often in row u as in the input
        key = np.sort(np.repeat(np.arange(n), np.diff(indptr)) * n + indices)
        keep = s != d
        both = np.r_[s[keep] * n + d[keep], d[keep] * n + s[keep]]
        assert np.array_equal(key, np.sort(both))


@pytest.mark.parametrize("nchunks", [1, 2, 3, 7])
def test_adjacency_chunks(nchunks):
    s, d, n = messy(5)
    a = adjacency_csr(s, d, n)
    b = adjacency_csr(s, d, n, nchunks=nchunks)
    assert np.array_equal(a[0], b[0])
    for v in range(n):
        assert np.array_equal(np.sort(a[1][a[0][v]:a[0][v + 1]]), np.sort(b[1][b[0][v]:b[0][v + 1]]))


def test_id_bounds():
    s = np.array([5, 2, 9], np.int64)
    d = np.array([4, 11, 3], np.int64)
    assert id_bounds(s, d) == (2, 11)
    big = np.arange(300000, dtype=np.int32)
    assert id_bounds(big, big[::-1].copy()) == (0, 299999)
    assert id_bounds(big.astype(np.uint32), big[::-1].astype(np.int64) + 7) == (0, 300006)
    assert id_bounds(big[::3], big[1::3]) == (0, 299998)
    # both sides of the serial twin's size: the extremes at the last places
    for m in (PASS_SERIAL_BELOW - 1, PASS_SERIAL_BELOW):
        s, d = np.full(m, 5, np.int64), np.full(m, 6, np.int32)
        s[-1], d[-1] = -3, 1 << 30
        assert id_bounds(s, d) == (-3, 1 << 30)
    with pytest.raises(ValueError, match=r"negative vertex id -1 \(dst\[1\]\)"):
        Graph.from_edges([0, 1], [2, -1])
    with pytest.raises(ValueError, match=r"out of range for n=3"):
        Graph.from_edges([0, 1], [2, 3], n=3)


def _static_variants():
    """Every finish without sampling (the input's edges as given), and a
    few with each sampling (the counting-sort adjacency)."""
    out = [f"none+{f}" for f in FINISHES]
    for sm in ("kout", "hb", "bfs"):
        out += [f"{sm}+{f}" for f in ("union-async", "union-jtb", "ecl-cc", "sv", "lt-prf", "label-prop")]
    return out


@pytest.mark.parametrize("name", _static_variants())
def test_every_finish_on_raw_edges(name):
    """Every finish, with and without sampling, on the input's edges as
    given (edge-centric finishes) or on the counting-sort adjacency."""
    for seed in range(2):
        s, d, n = messy(seed)
        k0, l0 = scipy_of(s, d, n)
        g = Graph.from_edges(s, d, n)
        k, labels = gconn.connected_components(g, algorithm=name, backend="cpu")
        assert k == k0 and np.array_equal(labels, l0), name
        assert not g.has_form("canonical"), name
        assert g.has_form("adjacency") == (Plan.of(Variant.parse(name)).needs == "adjacency")


def test_hot_path_builds_nothing():
    s, d, n = messy(3)
    g = Graph.from_edges(s, d, n)
    k, labels, st = gconn.connected_components(g, backend="cpu", return_stats=True)
    assert st.variant == "none+union-async+find-halve"
    assert [g.has_form(f) for f in FORMS] == [True, False, False]
    assert st.m == s.size and st.edge_inspections["finish"] == s.size
    # arrays in: n is the largest id + 1, and the result is SciPy's
    k0, l0 = scipy_of(s, d, int(max(s.max(), d.max())) + 1)
    k, labels = gconn.connected_components((s, d), backend="cpu")
    assert k == k0 and np.array_equal(labels, l0)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil"])
def test_scipy_matrix_kept_as_given(fmt):
    s, d, n = messy(4)
    A = sp.coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)).asformat(fmt)
    k0, l0 = scipy_cc(A, directed=False)
    g = Graph.from_scipy(A)
    assert g.m_input == A.nnz and not g.has_form("canonical")
    k, labels = gconn.connected_components(g, backend="cpu")
    assert k == k0 and np.array_equal(labels, l0)
    assert not g.has_form("canonical") and not g.has_form("adjacency")
    for name in ("kout+union-async", "hb+ecl-cc", "none+lt-prf"):
        assert gconn.connected_components(g, algorithm=name, backend="cpu")[0] == k0
    assert (g.to_scipy() != simple(s, d, n)).nnz == 0


def test_forest_on_raw_edges():
    for seed in range(3):
        s, d, n = messy(seed)
        k0, _ = scipy_of(s, d, n)
        for name in ("auto", "none+union-rem-cas+find-split+split-one", "kout+union-async", "none+sv",
                     "hb+lt-prf", "bfs+ecl-cc"):
            g = Graph.from_edges(s, d, n)
            fs, fd = gconn.spanning_forest(g, algorithm=name, backend="cpu")
            assert not g.has_form("canonical"), name
            assert not np.any(fs == fd), "a self loop is no forest edge"
            check_forest(g, fs, fd, k0)


def test_choice_counts_construction():
    """Without an adjacency, sampling would first build one: no sampling.
    With it (here the canonical form), the paper's decision tree."""
    s, d, n = gconn.generators.erdos_renyi_edges(4000, 16, seed=1)
    g = Graph.from_edges(s, d, n)
    assert choose(g).sampling == "none"
    assert choose(g, backend="gpu").name == "none+union-rem-cas+find-split+split-one"
    assert not g.has_form("adjacency")
    g.canonical()
    assert choose(g).sampling == "kout"


def test_m_input_and_equality():
    s, d, n = messy(2)
    a = Graph.from_edges(s, d, n)
    b = Graph.from_edges(np.r_[d, s], np.r_[s, d], n)
    assert a.m_input == s.size and b.m_input == 2 * s.size
    assert a == b and a.m == b.m
    assert repr(a) == f"Graph(n={n}, m={a.m})"
    with pytest.raises(ValueError, match="unknown graph form"):
        a.form("sorted")


def test_relabel_and_networkx_are_lazy():
    import networkx as nx
    g = Graph.from_edges([5, 3000000000, 5], [7, 5, 5], relabel=True)
    assert not g.has_form("canonical") and g.nodes.tolist() == [5, 7, 3000000000]
    assert gconn.connected_components(g, backend="cpu")[0] == 1
    h = Graph.from_networkx(nx.path_graph(4))
    assert not h.has_form("canonical") and h.m == 3


def test_same_partition_on_int64_input():
    s, d, _ = messy(6, dtype=np.int64)
    k0, l0 = scipy_of(s, d, int(max(s.max(), d.max())) + 1)
    k, labels = gconn.connected_components((s, d), backend="cpu", compact=False)
    assert k == k0 and same_partition(labels, l0)
