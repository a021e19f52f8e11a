"""gconn.integrations.csgraph against scipy.sparse.csgraph: the same answers, labels,
dtypes, warnings and exception types on every kind of input; strongly
connected components on digraphs of every shape; and the directed=/
connection= path of gconn.connected_components."""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
from gconn.integrations.csgraph import CSGraphTypeError
from gconn.integrations.csgraph import connected_components as cc

from oracles import same_partition

settings.register_profile("gconn", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gconn")

MODES = [(True, "weak"), (True, "strong"), (False, "weak"), (False, "strong"),
         (True, "STRONG"), (True, "Weak"), (1, "sTrOnG"), (0, "strong")]

#: dense entries: edges (nonzero finite, beyond 1e-8) and SciPy's non-edges
#: (0, +-inf, NaN, and float values within 1e-8 of zero)
WEIGHTS = [0.0, 0.0, 0.0, 1.0, 2.5, -3.0, np.inf, -np.inf, np.nan, 1e-9, -1e-8, 1.01e-8]


def same_result(got, want) -> None:
    """Equal count and labels, int32 labels, as SciPy returns them."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == 2
        assert got[0] == want[0] and isinstance(got[0], int)
        assert got[1].dtype == np.int32 == want[1].dtype
        np.testing.assert_array_equal(got[1], want[1])
    else:
        assert got == want and isinstance(got, int)


@st.composite
def dense_matrices(draw):
    n = draw(st.integers(0, 14))
    vals = draw(st.lists(st.sampled_from(WEIGHTS), min_size=n * n, max_size=n * n))
    return np.array(vals, np.float64).reshape(n, n)


@st.composite
def sparse_matrices(draw):
    """CSR/CSC/COO/LIL with explicit zeros, unsorted and duplicate entries."""
    n = draw(st.integers(0, 14))
    m = draw(st.integers(0, 3 * n))
    ids = st.integers(0, max(n - 1, 0))
    rows = np.array(draw(st.lists(ids, min_size=m, max_size=m)), np.int64)
    cols = np.array(draw(st.lists(ids, min_size=m, max_size=m)), np.int64)
    data = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, -2.0]), min_size=m, max_size=m)))
    fmt = draw(st.sampled_from(["coo", "csr", "csc", "lil", "csr-unsorted", "csr-array"]))
    A = sp.coo_matrix((data, (rows, cols)), shape=(n, n))
    if fmt == "csr-unsorted":
        # unsorted columns, no duplicates: SciPy walks them in storage order
        keys = np.unique(rows * max(n, 1) + cols)
        keys = keys[np.random.default_rng(m).permutation(keys.size)]
        order = np.argsort(keys // max(n, 1), kind="stable")
        indptr = np.r_[0, np.cumsum(np.bincount(keys // max(n, 1), minlength=n))]
        return sp.csr_matrix((np.zeros(keys.size), keys[order] % max(n, 1), indptr), shape=(n, n))
    if fmt == "csr-array":
        return sp.csr_array(A)
    return A.asformat(fmt)


def check_against_scipy(X, directed, connection, return_labels=True):
    want = scipy_cc(X, directed=directed, connection=connection, return_labels=return_labels)
    got = cc(X, directed=directed, connection=connection, return_labels=return_labels)
    same_result(got, want)


@given(dense_matrices(), st.sampled_from(MODES), st.booleans())
@settings(max_examples=120)
def test_dense_matches_scipy(A, mode, as_int):
    directed, connection = mode
    check_against_scipy(A, directed, connection)
    if as_int:
        B = np.where(np.isfinite(A), A, 0).astype(np.int64)
        check_against_scipy(B, directed, connection, return_labels=False)
        check_against_scipy(B.astype(bool), directed, connection)


@given(sparse_matrices(), st.sampled_from(MODES))
@settings(max_examples=150)
def test_sparse_with_explicit_zeros_matches_scipy(A, mode):
    directed, connection = mode
    check_against_scipy(A, directed, connection)


@given(dense_matrices(), st.sampled_from(MODES), st.integers(0, 2**32 - 1))
@settings(max_examples=80)
def test_masked_matches_scipy(A, mode, seed):
    directed, connection = mode
    n = A.shape[0]
    mask = np.random.default_rng(seed).random((n, n)) < 0.6
    M = np.ma.masked_array(A, mask=mask)
    # unmasked entries are edges whatever their value (0, inf and NaN too)
    check_against_scipy(M, directed, connection)


def test_dense_rules_one_by_one():
    """An entry is an edge iff SciPy makes it one."""
    for v in WEIGHTS + [1e-300, 5e-324, 1j, 1e-8j, 7]:
        A = np.array([[0, v], [0, 0]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            same_result(cc(A), scipy_cc(A))


def test_complex_weights_warn_as_in_scipy():
    for X in (np.array([[0, 1j], [0, 0]]), sp.csr_matrix(np.array([[0, 1j], [0, 0]]))):
        with pytest.warns(np.exceptions.ComplexWarning):
            k, _ = cc(X)
        assert k == 1


def test_csr_with_duplicates_strong_is_right_where_scipy_is_not():
    """SciPy 1.17 finds 6 strong components in this 4-component digraph
    (a CSR with duplicate entries); gconn counts each duplicate once and
    numbers as SciPy numbers the duplicate-free matrix."""
    indptr = [0, 3, 6, 8, 9, 12, 15, 16, 18, 23, 26, 32]
    indices = [9, 2, 0, 2, 4, 8, 4, 10, 3, 5, 4, 5, 10, 10, 9, 0, 8, 1, 1, 9, 2, 9, 5, 3, 7, 8, 10, 1,
               10, 7, 4, 10]
    A = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(11, 11))
    k, labels = cc(A, connection="strong")
    canonical = A.copy()
    canonical.sum_duplicates()
    same_result((k, labels), scipy_cc(canonical, connection="strong"))
    assert k == 4


@given(st.integers(1, 30), st.integers(0, 2**32 - 1))
@settings(max_examples=200)
def test_duplicates_count_once(n, seed):
    """A CSR with duplicates in storage order: the labels SciPy gives for
    the same CSR with each duplicate's last copy kept (the one its search
    takes), which is also what every duplicate-free SciPy input gives."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 3 * n))
    rows, cols = np.sort(rng.integers(0, n, m)), rng.integers(0, n, m)
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=n))]
    A = sp.csr_matrix((np.ones(m), cols, indptr), shape=(n, n))
    keep = np.ones(m, bool)
    for r in range(n):
        seg = cols[indptr[r]:indptr[r + 1]]
        _, last_from_end = np.unique(seg[::-1], return_index=True)
        keep[indptr[r]:indptr[r + 1]] = False
        keep[indptr[r] + seg.size - 1 - last_from_end] = True
    dedup = sp.csr_matrix((np.ones(keep.sum()), cols[keep], np.r_[0, np.cumsum(np.bincount(rows[keep],
                                                                                      minlength=n))]),
                          shape=(n, n))
    same_result(cc(A, connection="strong"), scipy_cc(dedup, connection="strong"))


# -- errors ------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((np.zeros(3),), {}),
    ((np.zeros((2, 3)),), {}),
    ((np.zeros((2, 2, 2)),), {}),
    ((np.array(4.0),), {}),
    ((sp.csr_matrix((2, 3)),), {}),
    ((sp.coo_array(np.array([1, 0])),), {}),
    ((np.ma.masked_array(np.zeros((2, 3)), mask=False),), {}),
    ((np.eye(3),), {"connection": "medium"}),
    ((np.eye(3),), {"connection": b"weak"}),
    ((np.eye(3),), {"connection": None}),
    ((sp.eye(3),), {"connection": 3}),
    ((None,), {"connection": "medium"}),
    ((None,), {}),
    ((5,), {}),
    ((np.array([["0", "1"], ["1", "0"]]),), {}),
    ((np.array([[0, None], [1, 0]], dtype=object),), {}),
])
def test_errors_have_scipy_types(args, kwargs):
    with pytest.raises(Exception) as want:
        scipy_cc(*args, **kwargs)
    with pytest.raises(want.type) as got:
        cc(*args, **kwargs)
    assert str(got.value)


def test_not_a_matrix_is_attribute_and_type_error():
    with pytest.raises(CSGraphTypeError, match="got NoneType"):
        cc(None)
    assert issubclass(CSGraphTypeError, TypeError) and issubclass(CSGraphTypeError, AttributeError)


def test_beyond_scipy_lists_and_masked_without_mask():
    """Documented differences: array-likes work; a masked array without a
    mask has every entry as an edge."""
    same_result(cc([[0, 1, 0], [0, 0, 0], [0, 0, 0]]), (2, np.array([0, 0, 1], np.int32)))
    k, labels = cc(((0, 1), (0, 0)), connection="strong")
    same_result((k, labels), scipy_cc(np.array([[0, 1], [0, 0]]), connection="strong"))
    full = np.ma.masked_array(np.zeros((3, 3)))
    assert cc(full, connection="strong")[0] == 1


def test_signature_is_scipys():
    import inspect
    assert str(inspect.signature(cc)) == str(inspect.signature(scipy_cc))
    assert list(inspect.signature(cc).parameters) == ["csgraph", "directed", "connection", "return_labels"]
    A = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])
    same_result(cc(A, True, "strong", False), scipy_cc(A, True, "strong", False))
    same_result(cc(csgraph=A), scipy_cc(csgraph=A))
    assert gconn.integrations.csgraph.connected_components is cc


def test_empty_and_one_vertex():
    for X in (np.zeros((0, 0)), sp.csr_matrix((0, 0)), np.ones((1, 1)), sp.csr_matrix((1, 1))):
        for directed, connection in MODES[:4]:
            check_against_scipy(X, directed, connection)


# -- strong components on digraph families ------------------------------------------

def digraph(n, src, dst):
    return sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))


def families():
    rng = np.random.default_rng(3)
    out = []
    n = 2000
    out.append(("random-sparse", digraph(n, rng.integers(0, n, 2200), rng.integers(0, n, 2200))))
    out.append(("random-dense", digraph(300, rng.integers(0, 300, 3000), rng.integers(0, 300, 3000))))
    out.append(("cycle", digraph(500, np.arange(500), (np.arange(500) + 1) % 500)))
    perm = rng.permutation(500)
    out.append(("cycle-permuted", digraph(500, perm, np.roll(perm, 1))))
    s, d = np.triu_indices(60, 1)
    pick = rng.random(s.size) < 0.2
    out.append(("dag", digraph(60, perm[:60][s[pick]] % 60, perm[:60][d[pick]] % 60)))
    out.append(("dag-ordered", digraph(60, s[pick], d[pick])))
    out.append(("path", digraph(400, np.arange(399), np.arange(1, 400))))
    out.append(("path-reversed", digraph(400, np.arange(1, 400), np.arange(399))))
    # a chain of cycles joined one way, plus a back arc making two merge
    cs = np.r_[np.arange(100), np.arange(0, 100, 10)]
    cd = np.r_[np.where(np.arange(100) % 10 == 9, np.arange(100) - 9, np.arange(100) + 1),
               np.minimum(np.arange(0, 100, 10) + 10, 99)]
    out.append(("chain-of-cycles", digraph(100, np.r_[cs, 55], np.r_[cd, 41])))
    out.append(("self-loops", digraph(10, np.arange(10), np.arange(10))))
    out.append(("no-arcs", digraph(25, [], [])))
    return out


@pytest.mark.parametrize("name, A", families(), ids=[f[0] for f in families()])
def test_strong_families_match_scipy(name, A):
    for X in (A, A.tocsc(), A.toarray()):
        check_against_scipy(X, True, "strong")
    want = scipy_cc(A, connection="strong")
    got = gconn.connected_components(A, connection="strong", backend="cpu")
    same_result(got, want)


def test_strong_1e5_vertices_matches_scipy():
    rng = np.random.default_rng(11)
    n, m = 100_000, 150_000
    A = digraph(n, rng.integers(0, n, m), rng.integers(0, n, m))
    same_result(cc(A, connection="strong"), scipy_cc(A, connection="strong"))
    big = digraph(n, rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n))   # one giant component
    same_result(cc(big, connection="strong"), scipy_cc(big, connection="strong"))


def test_strong_deep_path_has_no_recursion_limit():
    """A 10^6-arc cycle: a depth-first search 10^6 deep."""
    n = 1_000_000
    assert n > 100 * sys.getrecursionlimit()
    A = digraph(n, np.arange(n), (np.arange(n) + 1) % n)
    k, labels = cc(A, connection="strong")
    assert k == 1 and not labels.any()
    B = digraph(n, np.arange(1, n), np.arange(n - 1))    # a path: n singletons
    same_result(cc(B, connection="strong"), scipy_cc(B, connection="strong"))


@given(st.integers(1, 40), st.floats(0, 4), st.integers(0, 2**32 - 1))
@settings(max_examples=100)
def test_random_digraphs_strong_is_a_refinement_of_weak(n, density, seed):
    rng = np.random.default_rng(seed)
    m = int(density * n)
    A = digraph(n, rng.integers(0, n, m), rng.integers(0, n, m))
    ks, strong = cc(A, connection="strong")
    kw, weak = cc(A)
    same_result((ks, strong), scipy_cc(A, connection="strong"))
    assert ks >= kw
    # each strong component lies inside one weak component
    assert len(set(zip(strong.tolist(), weak.tolist()))) == ks
    if ks == kw:
        assert same_partition(strong, weak)


# -- gconn.connected_components with directed= and connection= ------------------------

def test_api_takes_scipy_arguments():
    A = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 0], [0, 1, 0]]))
    for args, kwargs in [((A,), {}), ((A, True), {}), ((A, False), {}), ((A, True, "weak"), {}),
                         ((A, True, "strong"), {}), ((A, True, "STRONG", False), {}),
                         ((), {"csgraph": A, "directed": True, "connection": "strong"}),
                         ((A,), {"directed": False, "connection": "strong"})]:
        kw = {k: v for k, v in kwargs.items() if k != "csgraph"}
        want = scipy_cc(kwargs.get("csgraph", A), *args[1:], **kw)
        same_result(gconn.connected_components(*args, backend="cpu", **kwargs), want)


def test_api_graph_argument_once():
    A = sp.eye(3)
    with pytest.raises(TypeError, match="once"):
        gconn.connected_components(A, csgraph=A)
    with pytest.raises(TypeError, match="needs a graph: the first argument .or csgraph=. is None"):
        gconn.connected_components()
    with pytest.raises(TypeError, match="needs a graph"):
        gconn.connected_components(None)


def test_api_strong_on_edges_networkx_and_arrays():
    import networkx as nx
    src, dst = np.array([0, 1, 2, 3, 4, 4]), np.array([1, 0, 3, 2, 2, 5])
    A = sp.coo_matrix((np.ones(6), (src, dst)), shape=(6, 6))
    want = scipy_cc(A, connection="strong")
    same_result(gconn.connected_components((src, dst), connection="strong", backend="cpu"), want)
    same_result(gconn.connected_components(np.stack([src, dst], 1), connection="strong"), want)
    same_result(gconn.connected_components(A.toarray(), connection="strong"), want)
    same_result(gconn.connected_components(nx.DiGraph(zip(src.tolist(), dst.tolist())),
                                           connection="strong"), want)
    k, reps = gconn.connected_components((src, dst), connection="strong", compact=False)
    assert k == 4 and reps.tolist() == [0, 0, 2, 2, 4, 5]
    k, labels, stats = gconn.connected_components((src, dst), connection="strong", return_stats=True)
    assert stats.variant == "scc-tarjan" and stats.m == 6
    assert gconn.connected_components((src, dst), connection="strong", return_labels=False) == 4


def test_api_strong_refuses_undirected_input(tmp_path):
    import networkx as nx
    g = gconn.Graph.from_edges([0, 1], [1, 2])
    path = tmp_path / "g.el"
    path.write_text("0 1\n1 2\n")
    for obj in (g, str(path), path, nx.path_graph(3)):
        with pytest.raises(ValueError, match="no edge directions"):
            gconn.connected_components(obj, connection="strong")
    with pytest.raises(TypeError, match="strong"):
        gconn.connected_components(([0], [1]), connection="strong", algorithm="afforest")
    with pytest.raises(TypeError, match="strong"):
        gconn.connected_components(([0], [1]), connection="strong", k=3)
    with pytest.raises(ValueError, match="backend"):
        gconn.connected_components(([0], [1]), connection="strong", backend="tpu")


def test_api_square_arrays():
    """2 x 2: ambiguous, an error; other square arrays: adjacency matrices."""
    for a in (np.array([[1, 0], [0, 1]]), [[1, 0], [0, 1]]):
        for connection in ("weak", "strong"):
            with pytest.raises(ValueError, match="2 x 2 array could be 2 edges or the adjacency matrix"):
                gconn.connected_components(a, connection=connection)
    with pytest.raises(ValueError, match="2 x 2"):
        gconn.as_graph(np.eye(2))
    assert gconn.connected_components(gconn.Graph.from_edges(np.array([[1, 0], [0, 1]])))[0] == 1
    assert gconn.connected_components(sp.csr_array(np.array([[1, 0], [0, 1]])))[0] == 2
    A = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 1]])
    same_result(gconn.connected_components(A, backend="cpu"), scipy_cc(A))
    same_result(gconn.connected_components(A.tolist(), backend="cpu"), scipy_cc(A))
    assert gconn.connected_components(np.array([[0, 1], [1, 2], [2, 3]]), backend="cpu")[0] == 1


def test_api_loads_paths(tmp_path):
    path = tmp_path / "g.el"
    path.write_text("0 1\n2 3\n3 4\n")
    want = gconn.connected_components(gconn.load(path), backend="cpu")
    for p in (path, str(path)):
        same_result(gconn.connected_components(p, backend="cpu"), want)
    assert gconn.as_graph(path, n=7).n == 7
    with pytest.raises(FileNotFoundError, match="missing.el"):
        gconn.connected_components(tmp_path / "missing.el")
