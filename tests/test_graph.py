"""Graph construction from every input kind, and input validation."""
import numpy as np
import pytest
import scipy.sparse as sp

import gconn
from gconn import Graph


def test_symmetric_sorted_csr_and_coo():
    g = Graph.from_edges([3, 0, 1, 1, 2, 2], [0, 1, 0, 1, 3, 3])
    assert g.n == 4 and g.m == 3
    assert g.src.tolist() == [0, 0, 2] and g.dst.tolist() == [1, 3, 3]
    assert g.indptr.tolist() == [0, 2, 3, 4, 6]
    assert g.indices.tolist() == [1, 3, 0, 3, 0, 2]


def test_matches_scipy_on_random_graph():
    rng = np.random.default_rng(3)
    s, d = rng.integers(0, 5000, 40000), rng.integers(0, 5000, 40000)
    g = Graph.from_edges(s, d, 5000)
    A = sp.coo_matrix((np.ones(s.size), (s, d)), shape=(5000, 5000)).tocsr()
    A = ((A + A.T) > 0).astype(np.int8)
    A.setdiag(0)
    A.eliminate_zeros()
    A.sort_indices()
    assert np.array_equal(g.indptr, A.indptr) and np.array_equal(g.indices, A.indices)


def test_from_m_by_2_and_tuple_and_list():
    e = np.array([[0, 1], [1, 2], [2, 4]])
    assert Graph.from_edges(e) == gconn.as_graph((e[:, 0], e[:, 1])) == gconn.as_graph(e.tolist())


def test_from_scipy_directed_means_weak():
    A = sp.csr_matrix(([1, 1], ([0, 2], [1, 1])), shape=(4, 4))
    g = gconn.as_graph(A)
    assert g.n == 4 and g.m == 2
    k, labels = gconn.connected_components(A, backend="cpu")
    assert k == 2 and labels.tolist() == [0, 0, 0, 1]


def test_explicit_zeros_are_edges_like_scipy():
    A = sp.csr_matrix((np.array([0.0]), (np.array([0]), np.array([1]))), shape=(3, 3))
    from scipy.sparse.csgraph import connected_components
    assert gconn.connected_components(A, backend="cpu")[0] == connected_components(A)[0]


def test_from_networkx_keeps_labels():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_edges_from([("a", "b"), ("c", "d")])
    G.add_node("e")
    g = gconn.as_graph(G)
    assert g.nodes == ["a", "b", "c", "d", "e"]
    k, labels = gconn.connected_components(g, backend="cpu")
    assert k == 3
    assert g.node_labels(labels) == {"a": 0, "b": 0, "c": 1, "d": 1, "e": 2}
    D = nx.DiGraph([(1, 2), (3, 2)])
    assert gconn.connected_components(D, backend="cpu")[0] == 1


def test_int64_ids_when_n_needs_them():
    from gconn.graph import _id_dtype
    assert _id_dtype(2**31 - 1) == np.int32 and _id_dtype(2**31) == np.int64


def test_empty_graphs():
    g = Graph.from_edges([], [])
    assert g.n == 0 and g.m == 0
    assert gconn.connected_components(g, backend="cpu")[0] == 0
    assert gconn.connected_components(([], []), backend="cpu")[1].size == 0
    g = Graph.from_edges([], [], n=5)
    assert gconn.connected_components(g, backend="cpu")[1].tolist() == [0, 1, 2, 3, 4]
    src, dst = gconn.spanning_forest(g, backend="cpu")
    assert src.size == 0


@pytest.mark.parametrize("src,dst,n,exc,needle", [
    ([0, -1], [1, 2], None, ValueError, "negative vertex id -1"),
    ([0, 5], [1, 2], 4, ValueError, r"vertex id 5 \(src\[1\]\) is out of range for n=4"),
    ([0.0, 1.0], [1.0, 2.0], None, TypeError, "float"),
    ([0, np.nan], [1, 2], None, ValueError, "NaN"),
    ([0, 1], [1], None, ValueError, "different lengths"),
    ([True, False], [0, 1], None, TypeError, "integers"),
    (["a"], ["b"], None, TypeError, "integers|integer vertex ids"),
    ([0], [1], -3, ValueError, "non-negative"),
    ([0], [1], 2.5, TypeError, "n must be an integer"),
])
def test_bad_edges(src, dst, n, exc, needle):
    with pytest.raises(exc, match=needle):
        Graph.from_edges(src, dst, n)


def test_bad_shapes_and_types():
    with pytest.raises(ValueError, match="square"):
        Graph.from_scipy(sp.csr_matrix((3, 4)))
    with pytest.raises(ValueError, match=r"shape \(m, 2\)"):
        Graph.from_edges(np.zeros((4, 3), np.int64))
    with pytest.raises(TypeError, match="cannot build a graph"):
        gconn.as_graph(3.5)
    with pytest.raises(TypeError, match=r"maps each vertex to its neighbours .*this one maps 'a' to int 1"):
        gconn.as_graph({"a": 1})
    with pytest.raises(TypeError, match=r"maps 'a' to str 'bc'"):
        gconn.as_graph({"a": "bc"})


def test_input_arrays_are_not_modified():
    s = np.array([2, 1, 1], np.int32)
    d = np.array([1, 2, 0], np.int32)
    Graph.from_edges(s, d)
    assert s.tolist() == [2, 1, 1] and d.tolist() == [1, 2, 0]


def test_every_name_a_module_exports_exists():
    """``from gconn.x import *`` works for each module with an ``__all__``
    (gconn.inputs.adjacency's still named a function that had stayed in
    gconn.integrations.csgraph when the module was split)."""
    import importlib
    import pathlib
    root = pathlib.Path(gconn.__file__).parent
    checked = 0
    for path in sorted(root.rglob("*.py")):
        if path.name == "__main__.py" or "__all__" not in path.read_text():
            continue
        parts = path.relative_to(root.parent).with_suffix("").parts
        mod = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        missing = [name for name in getattr(mod, "__all__", ()) if not hasattr(mod, name)]
        assert not missing, (mod.__name__, missing)
        checked += 1
    assert checked >= 10
