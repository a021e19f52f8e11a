"""Tables, tensors, CSV/Parquet files and named vertices as input, checked
against scipy's components of the same edges."""
from __future__ import annotations

import re

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
from gconn.io import identify
from gconn.graph import Graph
from oracles import check_forest, same_partition

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _edges(seed=0, n=60, m=70):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m)


def _scipy(src, dst, n=None):
    n = int(max(src.max(), dst.max())) + 1 if n is None else n
    return scipy_cc(sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)


def _check(result, src, dst, n=None):
    k, labels = result
    k0, l0 = _scipy(src, dst, n)
    assert k == k0 and same_partition(labels, l0)


def _check_named(result, src, dst):
    """Names are 'v<id>'; the labels must match scipy's for the ids that occur."""
    k, labels, names = result
    ids = np.array([int(x[1:]) for x in names])
    assert list(names) == sorted(names)
    k0, l0 = _scipy(src, dst)
    occurring = np.unique(np.concatenate([src, dst]))
    assert np.array_equal(np.sort(ids), occurring)
    assert k == np.unique(l0[occurring]).size and same_partition(labels, l0[ids])


# -- tables ---------------------------------------------------------------

def _tables(src, dst):
    cols = {"weight": np.ones(src.size), "u": src, "v": dst}
    return {"pandas": pd.DataFrame(cols), "polars": pl.DataFrame(cols), "pyarrow": pa.table(cols)}


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_table_columns_by_name(kind):
    src, dst = _edges(1)
    table = _tables(src, dst)[kind]
    _check(gconn.connected_components(table, backend="cpu", source="u", target="v"), src, dst)
    fs, fd = gconn.spanning_forest(table, backend="cpu", source="u", target="v")
    g = Graph.from_edges(src, dst)
    check_forest(g, fs, fd, _scipy(src, dst)[0])


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_table_first_two_columns_by_default(kind):
    src, dst = _edges(2)
    table = _tables(src, dst)[kind]
    if kind == "pandas":
        table = table[["u", "v", "weight"]]
    else:
        table = table.select(["u", "v", "weight"])
    _check(gconn.connected_components(table, backend="cpu"), src, dst)


@pytest.mark.parametrize("sep", [",", "\t"])
def test_a_csv_pandas_wrote_with_its_index(tmp_path, sep):
    """DataFrame.to_csv writes the index first, under an empty name: the file was an error ('an empty
    vertex name', 'an empty field'); its edge columns are read, the index never."""
    src, dst = _edges(3)
    path = tmp_path / "e.csv"
    for cols in (["src", "dst"], ["a", "b"], [0, 1]):
        frame = pd.DataFrame(dict(zip(cols, (src, dst))), index=np.arange(src.size) * 7 + 1000)
        frame.to_csv(path, sep=sep)
        _check(gconn.connected_components(str(path), backend="cpu"), src, dst)
        assert any("pandas' DataFrame.to_csv writes its index" in x for x in identify(path).notes)
    pd.DataFrame({"src": [f"v{x}" for x in src], "dst": [f"v{x}" for x in dst]}).to_csv(path, sep=sep)
    g, names = gconn.load(path, return_names=True)
    assert g.m == len({(min(a, b), max(a, b)) for a, b in zip(src, dst) if a != b})


def test_one_end_named_beside_an_unnamed_column_is_an_error(tmp_path):
    """'src' beside 'weight' (or 'weight' beside 'dst', an index holding the sources): the two columns
    were read by position, the weights as vertex ids; the same for a CSV header and Parquet."""
    src, dst = _edges(3)
    w = np.full(src.size, 7, np.int64)
    for cols in ({"src": src, "weight": w}, {"weight": w, "dst": dst}, {"src": src, "w": w, "t": dst}):
        with pytest.raises(ValueError, match=r"include '(weight|w)', a name of an edge's data"):
            gconn.connected_components(pd.DataFrame(cols))
    _check(gconn.connected_components(pd.DataFrame({"src": src, "weight": w}), source="src", target="weight",
                                      backend="cpu"), src, w)
    _check(gconn.connected_components(pd.DataFrame({"source": src, "dest": dst}), backend="cpu"), src, dst)
    _check(gconn.connected_components(pd.DataFrame({"origin": src, "dest": dst, "carrier": w}), backend="cpu"),
           src, dst)
    _check(gconn.connected_components(pd.DataFrame({"from_node": src, "to": dst}), backend="cpu"), src, dst)
    (tmp_path / "g.csv").write_text("src,weight\n" + "".join(f"{a},{b}\n" for a, b in zip(src, w)))
    pd.DataFrame({"weight": w, "dst": dst}).to_parquet(tmp_path / "g.parquet")
    for name in ("g.csv", "g.parquet"):
        with pytest.raises(ValueError, match=rf"{name}.*include 'weight', a name of an edge's data"):
            gconn.load(tmp_path / name)


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_table_edge_columns_found_by_their_names(kind):
    """A table whose weight comes first: its u and v columns are the edges (they were the weight and u),
    said in the input's notes; a third column beside two unnamed ones is noted; two named pairs ask."""
    src, dst = _edges(3)
    table = _tables(src, dst)[kind]        # weight, u, v
    k, labels, stats = gconn.connected_components(table, backend="cpu", return_stats=True)
    _check((k, labels), src, dst)
    assert stats.input["notes"] == ["the table: the edges are columns 'u' and 'v', by their names (source= and "
                                    "target= pick others)"]
    cols = {"a": src, "b": dst, "c": np.ones(src.size, np.int64)}
    k, labels, stats = gconn.connected_components(pd.DataFrame(cols), backend="cpu", return_stats=True)
    _check((k, labels), src, dst)
    assert stats.input["notes"] == ["the table: the edges are columns 'a' and 'b', the first two of 3 (source= "
                                    "and target= pick others)"]
    k, labels, stats = gconn.connected_components(pd.DataFrame({"Source": src, "Target": dst}), return_stats=True)
    assert stats.input["notes"] == []
    with pytest.raises(ValueError, match=r"the columns \('src', 'dst'\) and \('u', 'v'\) could each be the edges"):
        gconn.connected_components(pd.DataFrame({"src": src, "dst": dst, "u": src, "v": dst}))
    _check(gconn.connected_components(pd.DataFrame({"src": src, "dst": dst, "u": src, "v": src}), source="src",
                                      target="dst", backend="cpu"), src, dst)
    # one of the pair named: the other is its partner (it was the second column: 'u' itself, self loops)
    _check(gconn.connected_components(table, backend="cpu", source="u"), src, dst)
    _check(gconn.connected_components(table, backend="cpu", target="v"), src, dst)
    with pytest.raises(ValueError, match="the table: source and target are the same column 'weight'"):
        gconn.connected_components(table, target="weight")


def test_edge_columns_found_by_their_names_in_files(tmp_path):
    """A CSV header or a Parquet file whose weight comes first reads its named pair, and says so."""
    src, dst = _edges(4)
    csv = tmp_path / "e.csv"
    csv.write_text("weight,from,to\n" + "".join(f"7,{a},{b}\n" for a, b in zip(src, dst)))
    k, labels, stats = gconn.connected_components(str(csv), backend="cpu", return_stats=True)
    _check((k, labels), src, dst)
    assert "line 1: the edges are columns 'from' and 'to', by their names" in " ".join(stats.input["notes"])
    path = tmp_path / "e.parquet"
    pq.write_table(pa.table({"w": np.ones(src.size), "source": src, "destination": dst}), path)
    k, labels, stats = gconn.connected_components(str(path), backend="cpu", return_stats=True)
    _check((k, labels), src, dst)
    assert stats.input["notes"] == ["e.parquet: the edges are columns 'source' and 'destination', by their names "
                                    "(source= and target= pick others)"]
    _check(gconn.connected_components(str(path), backend="cpu", source="source"), src, dst)
    _check(gconn.connected_components(str(csv), backend="cpu", target="to"), src, dst)


def test_an_iterator_of_single_edges_is_told_how_to_pass_them():
    """An iterator's items are (src, dst) chunks: one of single edges (zip(src, dst), a generator of
    pairs) is an error saying so (it was 'src must be a 1-D array'); chunks still read, empty too."""
    for edges in (zip([0, 2], [1, 3]), ((a, b) for a, b in [(0, 1), (2, 3)]), iter([("a", "b")])):
        with pytest.raises(TypeError, match=r"yields single edges such as \((0, 1|'a', 'b')\): pass "
                                            r"np\.array\(list\(edges\)\)"):
            gconn.connected_components(edges, backend="cpu")
    chunks = iter([(np.array([0, 2]), np.array([1, 3])), (np.array([4]), np.array([5]))])
    assert gconn.connected_components(chunks, backend="cpu")[1].tolist() == [0, 0, 1, 1, 2, 2]
    assert gconn.connected_components(iter([]), backend="cpu")[0] == 0


def test_a_polars_lazy_frame_is_asked_to_collect():
    with pytest.raises(TypeError, match=r"a polars LazyFrame is a query.*\.collect\(\)"):
        gconn.connected_components(pl.DataFrame({"src": [0], "dst": [1]}).lazy())


def test_integer_columns_are_not_copied():
    src, dst = _edges(3)
    df = pd.DataFrame({"u": src.astype(np.int64), "v": dst.astype(np.int64)})
    from gconn.inputs import edge_columns
    s, d, _, _ = edge_columns(df, None, None)
    assert np.shares_memory(s, df["u"].to_numpy())
    t = pa.table({"u": src, "v": dst})
    s, _, _, _ = edge_columns(t, "u", "v")
    assert not s.flags.writeable  # a view of Arrow's buffer, not a copy


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_unknown_column_names_it_and_the_columns(kind):
    table = _tables(*_edges(4))[kind]
    with pytest.raises(ValueError, match=r"target='nope'.*\['weight', 'u', 'v'\]"):
        gconn.as_graph(table, source="u", target="nope")


def test_source_target_rejected_for_arrays():
    with pytest.raises(TypeError, match="source= and target="):
        gconn.as_graph(([0], [1]), source="a")


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_empty_table_is_an_empty_graph(kind):
    table = {"pandas": pd.DataFrame({"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64)}),
             "polars": pl.DataFrame({"a": [], "b": []}, schema={"a": pl.Int64, "b": pl.Int64}),
             "pyarrow": pa.table({"a": pa.array([], pa.int64()), "b": pa.array([], pa.int64())})}[kind]
    assert gconn.as_graph(table).n == 0
    with pytest.raises(ValueError, match="two columns"):
        gconn.as_graph(pd.DataFrame({"a": [1]}))


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_bad_ids_in_tables(kind):
    def make(a, b):
        if kind == "pandas":
            return pd.DataFrame({"a": a, "b": b})
        if kind == "polars":
            return pl.DataFrame({"a": a, "b": b}, strict=False)
        return pa.table({"a": a, "b": b})
    with pytest.raises(ValueError, match=r"column 'b'.*1 null"):
        gconn.as_graph(make([0, 1], [1, None]))
    with pytest.raises(TypeError, match=r"column 'a' has float dtype"):
        gconn.as_graph(make([0.0, 1.5], [1, 2]))
    with pytest.raises(ValueError, match=r"column 'a', row 1: negative vertex id -3"):
        gconn.as_graph(make([0, -3], [1, 2]))
    big = np.array([1, 2**63 + 5], np.uint64)
    with pytest.raises(ValueError, match=r"column 'b', row 1: vertex id 9223372036854775813 is beyond"):
        gconn.as_graph(make(np.array([0, 1], np.uint64), big))


def test_named_table_and_compact_false():
    src, dst = _edges(5)
    names_s = np.array([f"v{i}" for i in src], object)
    names_d = np.array([f"v{i}" for i in dst], object)
    for table in (pd.DataFrame({"a": names_s, "b": names_d}), pl.DataFrame({"a": names_s, "b": names_d}),
                  pa.table({"a": names_s, "b": names_d})):
        _check_named(gconn.connected_components(table, backend="cpu", relabel=True), src, dst)
    k, labels, names = gconn.connected_components(pd.DataFrame({"a": names_s, "b": names_d}),
                                                  backend="cpu", relabel=True, compact=False)
    # compact=False: each vertex's label is the smallest name of its component
    for lab, name in zip(labels, names):
        assert lab <= name
    fs, fd = gconn.spanning_forest(pd.DataFrame({"a": names_s, "b": names_d}), backend="cpu", relabel=True)
    assert set(fs) | set(fd) <= set(names) and len(fs) == len(names) - k


def test_names_need_relabel_in_the_api():
    with pytest.raises(ValueError, match=r"relabel=True to get the names back with the labels"):
        gconn.connected_components((np.array(["a"]), np.array(["b"])), backend="cpu")
    with pytest.raises(ValueError, match=r"relabel=True to get the forest's edges by name, as \(src, dst\)"):
        gconn.spanning_forest((np.array(["a"]), np.array(["b"])), backend="cpu")
    with pytest.raises(TypeError, match="both hold names or both integer"):
        gconn.as_graph((np.array(["a", "b"]), np.array([1, 2])))
    with pytest.raises(TypeError, match="str or bytes"):
        gconn.as_graph((np.array(["a", 3.5], object), np.array(["b", "c"], object)))


def test_edge_arrays_of_another_shape_say_which():
    """An array that is neither (m, 2) edges nor a square matrix is an error; 2 rows of ids (PyG's
    edge_index) are told how to pass them, the same from every entry point."""
    pyg = np.array([[0, 1, 2], [1, 2, 3]])
    hint = r"got \(2, 3\): for 2 rows of ids \(PyG's edge_index\) pass \(a\[0\], a\[1\]\) or a\.T"
    for call in (lambda: gconn.connected_components(pyg), lambda: gconn.Graph.from_edges(pyg),
                 lambda: gconn.connected_components(pyg, directed=True, connection="strong")):
        with pytest.raises(ValueError, match=hint):
            call()
    with pytest.raises(ValueError, match=r"must have shape \(m, 2\); got \(5, 4\)$"):
        gconn.connected_components(np.zeros((5, 4), np.int64))
    _check(gconn.connected_components((pyg[0], pyg[1])), pyg[0], pyg[1])


def test_weighted_edge_rows_are_told_how_and_never_read_as_a_matrix():
    """Rows (u, v, w), as NetworkX's add_weighted_edges_from takes them, are an error saying how to pass
    them; three of them, a 3 x 3 list of tuples, were read silently as the adjacency matrix of 3 vertices
    (edges 0-1, 2-3, 4-5 came out as 1 component of 3 vertices)."""
    weighted = [(0, 1, 0.5), (2, 3, 1.0), (4, 5, 1)]
    hint = r"got \(3, 3\): for rows \(u, v, w\) of weighted edges pass \(a\[:, 0\], a\[:, 1\]\)"
    for call in (lambda: gconn.connected_components(weighted, backend="cpu"),
                 lambda: gconn.connected_components(weighted, connection="strong", backend="cpu"),
                 lambda: gconn.connected_components(weighted[:1] * 4, backend="cpu")):
        with pytest.raises(ValueError, match=hint.replace("3, 3", r"\d, 3")):
            call()
    assert gconn.connected_components([(0, 1), (2, 3), (4, 5)], backend="cpu")[0] == 3
    assert gconn.connected_components([(0, 1), (1, 2), (4, 3)], connection="strong", backend="cpu")[0] == 5


def test_a_3x3_array_is_read_as_a_matrix_with_a_note():
    """A 3 x 3 array (not of tuples) stays an adjacency matrix, and says so: three weighted edges have
    the same shape."""
    A = np.array([[0, 1, 7], [2, 3, 7], [4, 5, 7]])
    for connection in ("weak", "strong"):
        with pytest.warns(gconn.InputNote, match="a 3 x 3 array is read as the adjacency matrix of 3 vertices"):
            k, _ = gconn.connected_components(A, connection=connection, backend="cpu")
        assert k == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gconn.connected_components(np.eye(3, dtype=bool), backend="cpu")[0] == 3
        assert gconn.connected_components(np.eye(4), backend="cpu")[0] == 4


def test_masked_ids_are_an_error():
    """np.asarray drops a mask: a masked id was read as the value under it (edges 0-1, 1-2 with 1 masked
    in src came out as one component)."""
    src = np.ma.array([0, 1], mask=[0, 1])
    for call in (lambda: gconn.connected_components((src, np.array([1, 2])), backend="cpu"),
                 lambda: gconn.Graph.from_edges(src, [1, 2]),
                 lambda: gconn.DynamicConnectivity().insert(src, [1, 2])):
        with pytest.raises(ValueError, match="src has 1 masked \\(missing\\) vertex id\\(s\\)"):
            call()
    edges = np.ma.array([[0, 1], [2, 3], [4, 5]], mask=[[0, 0], [1, 0], [0, 0]])
    with pytest.raises(ValueError, match="the edge array has 1 masked"):
        gconn.connected_components(edges, backend="cpu")
    unmasked = np.ma.array([[0, 1], [2, 3], [4, 5]])
    assert gconn.connected_components(unmasked, backend="cpu")[0] == 3
    # a masked matrix's hidden entries are no edges (SciPy's rule)
    A = np.ma.masked_array(np.ones((4, 4)), mask=~np.eye(4, dtype=bool))
    assert gconn.connected_components(A, backend="cpu")[0] == 4


@pytest.mark.parametrize("kind", ["dok_matrix", "dok_array"])
def test_a_dok_matrix_is_a_matrix_not_a_dict(kind):
    """SciPy's DOK format subclasses dict: an empty 3 x 3 one gave 0 components, a non-empty one 'a dict
    passed as a graph maps each vertex to its neighbours'."""
    import scipy.sparse as sp
    cls = getattr(sp, kind)
    assert gconn.connected_components(cls((3, 3)), backend="cpu")[0] == 3
    A = cls((3, 3))
    A[0, 1] = 1.0
    k, labels = gconn.connected_components(A, backend="cpu")
    assert k == 2 and labels.tolist() == [0, 0, 1]
    assert gconn.as_graph(A).n == 3


def test_as_graph_reports_its_guesses(tmp_path):
    """gconn.as_graph kept the notes of describing and reading an input to itself; gconn.load and
    connected_components report them."""
    import pandas as pd
    with pytest.warns(gconn.InputNote, match="the first two of 3"):
        g = gconn.as_graph(pd.DataFrame({"x": [0], "y": [1], "z": [5]}))
    assert g.n == 2
    path = tmp_path / "t3.csv"
    path.write_text("a,b,c\n0,1,5\n")
    with pytest.warns(gconn.InputNote) as seen:
        assert gconn.as_graph(path).n == 2
    said = [str(w.message) for w in seen]
    assert any("is a header" in s for s in said) and any("the first two of 3" in s for s in said)


def test_named_edge_arrays():
    g = gconn.as_graph(np.array([["b", "a"], ["c", "a"]]))
    assert g.nodes.tolist() == ["a", "b", "c"] and g.m == 2
    g = gconn.as_graph((["x", "y"], ["y", "x"]))
    assert g.n == 2 and g.m == 1


# -- tensors --------------------------------------------------------------

class DLPackOnly:
    """A host tensor seen only through the DLPack protocol."""

    def __init__(self, array):
        self._a = np.ascontiguousarray(array)

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_record_arrays_are_tables(tmp_path):
    """numpy.genfromtxt(..., names=True) gives a record array: its fields are columns, found by name as a
    table's (it was 'an edge array must have shape (m, 2); got (3,)')."""
    path = tmp_path / "edges.csv"
    path.write_text("weight,src,dst\n5,0,1\n6,1,2\n7,4,5\n")
    rec = np.genfromtxt(path, delimiter=",", names=True, dtype=np.int64)
    k, labels = gconn.connected_components(rec, backend="cpu")
    assert k == 3 and labels.tolist() == [0, 0, 0, 1, 2, 2]
    assert gconn.connected_components(rec, source="weight", target="dst", backend="cpu")[0] == 5


def test_igraph_and_networkit_graphs():
    """igraph and NetworKit graphs are inputs (they were 'cannot build a graph from Graph'), differential
    against each library's own components; NetworKit's removed nodes are no vertices."""
    igraph = pytest.importorskip("igraph")
    networkit = pytest.importorskip("networkit")
    rng = np.random.default_rng(4)
    pairs = [tuple(map(int, e)) for e in rng.integers(0, 40, (30, 2)) if e[0] != e[1]]
    g = igraph.Graph(pairs, n=50)
    k, labels = gconn.connected_components(g, backend="cpu")
    theirs = g.connected_components()
    assert k == len(theirs) and same_partition(labels, np.asarray(theirs.membership))
    G = networkit.Graph(50)
    for u, v in pairs:
        if not G.hasEdge(u, v):
            G.addEdge(u, v)
    for v in (3, 17, 49):
        G.removeNode(v)
    cc = networkit.components.ConnectedComponents(G)
    cc.run()
    k, labels = gconn.connected_components(G, backend="cpu")
    assert k == cc.numberOfComponents() and labels.size == G.numberOfNodes()
    theirs = np.array([cc.componentOfNode(v) for v in G.iterNodes()])
    assert same_partition(labels, theirs)


def test_dlpack_pair_and_matrix():
    src, dst = _edges(6)
    _check(gconn.connected_components((DLPackOnly(src), DLPackOnly(dst)), backend="cpu"), src, dst)
    _check(gconn.connected_components(DLPackOnly(np.column_stack([src, dst])), backend="cpu"), src, dst)


def test_dlpack_host_tensor_is_not_copied():
    from gconn.inputs import from_tensor
    a = np.arange(10, dtype=np.int64)
    assert np.shares_memory(from_tensor(DLPackOnly(a), "t"), a)


def test_dlpack_float_tensor_is_rejected():
    with pytest.raises(TypeError, match="float"):
        gconn.as_graph((DLPackOnly(np.array([0.0, 1.0])), DLPackOnly(np.array([1.0, 2.0]))))


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    src, dst = _edges(7)
    _check(gconn.connected_components((torch.from_numpy(src), torch.from_numpy(dst)), backend="cpu"), src, dst)


# -- files ----------------------------------------------------------------

@pytest.mark.parametrize("sep,ext", [(",", "csv"), ("\t", "tsv"), (";", "csv"), ("  ", "txt")])
def test_csv_with_header_and_comments(tmp_path, sep, ext):
    src, dst = _edges(8)
    lines = ["# exported by a tool", f"node_1{sep}node_2{sep}weight"]
    lines += [f"{a}{sep}{b}{sep}1.5" for a, b in zip(src, dst)]
    lines.insert(10, "% a comment in the middle")
    path = tmp_path / f"e.{ext}"
    path.write_text("\n".join(lines) + "\n")
    _check(gconn.connected_components(str(path), backend="cpu"), src, dst)
    # columns by name: weight is not an id
    _check(gconn.connected_components(str(path), backend="cpu", source="node_2", target="node_1"), dst, src)
    with pytest.raises(ValueError, match=r"e\.\w+, line 2: target='x' is not a column.*'node_1', 'node_2'"):
        gconn.load(path, source="node_1", target="x")


def test_csv_named_vertices_and_return_names(tmp_path):
    src, dst = _edges(9)
    path = tmp_path / "names.csv"
    path.write_text("from,to\n" + "".join(f"v{a},v{b}\n" for a, b in zip(src, dst)))
    g, names = gconn.load(path, return_names=True)
    assert g.nodes is names
    _check_named(gconn.connected_components(g, backend="cpu") + (names,), src, dst)
    _check_named(gconn.connected_components(str(path), backend="cpu", relabel=True), src, dst)
    # Without a header, a first line of names is read as an edge where one of
    # its names recurs, and is an error asking which it is where none does.
    path.write_text("".join(f"v{a},v{b}\n" for a, b in zip(src, dst)))
    assert gconn.load(path, header=False).m == Graph.from_edges(src, dst).m
    if {src[0], dst[0]} & set(src[1:].tolist() + dst[1:].tolist()):
        assert gconn.load(path).m == Graph.from_edges(src, dst).m
    else:
        with pytest.raises(ValueError, match="cannot tell whether 'v.*' is a header or an edge"):
            gconn.load(path)
    path.write_text("v1,v2\nv2,v3\n")
    assert gconn.load(path).m == 2


@pytest.mark.parametrize("text, sep", [
    ('"Smith, John" , "Doe, Jane"\n"Doe, Jane",x\n"y z" , "w, v"\n', ","),
    ('"Smith, John"  "Doe, Jane"\n"Doe, Jane" x\n"y z"\t"w, v"\n', " "),
    ('"Smith, John";"Doe, Jane"\n"Doe, Jane";x\n"y z" ; "w, v"\n', ";"),
])
def test_quoted_names_keep_their_delimiters_and_blanks(tmp_path, text, sep):
    """A quoted name holds the delimiter, blanks and doubled quotes as they are (they were split on the
    delimiter, or their blanks turned into tabs)."""
    path = tmp_path / "quoted.csv"
    path.write_text(text)
    g = gconn.load(path)
    assert g.nodes.tolist() == ["Doe, Jane", "Smith, John", "w, v", "x", "y z"] and g.m == 3
    assert gconn.connected_components(g)[1].tolist() == [0, 0, 1, 0, 1]
    path.write_text('a,"b ""big"" c"\n"b ""big"" c" , d\n')
    assert gconn.load(path).nodes.tolist() == ["a", 'b "big" c', "d"]
    path.write_text('a,b\nb,c\n"Smith ,  John",a\n')        # quotes first seen below the lines sniffed
    assert gconn.load(path).nodes.tolist() == ["Smith ,  John", "a", "b", "c"]


def test_csv_errors_name_file_line_column(tmp_path):
    path = tmp_path / "bad.csv"
    cases = [("a,b\n0,1\n1,x\n", r"bad\.csv, line 3, column 3: 'x' is not a vertex id"),
             ("a,b\n0,1\n2,-1\n", r"bad\.csv, line 3, column 3: negative vertex id -1"),
             ("a,b\n0,1\n0,1.5\n", r"bad\.csv, line 3, column 3: '1\.5' is not a vertex id"),
             ("a,b\n0,1\n0,9223372036854775808\n", r"bad\.csv, line 3, column 3: vertex id 9223372036854775808 is "
                                                   r"too large"),
             ("a;b\n0;1\n1;\n", r"bad\.csv, line 3, column 3: an empty field"),
             ("a;b\n0;1\n1;2.5\n", r"bad\.csv, line 3, column 3: '2\.5' is not a vertex id"),
             ("a;b\n0;1\n-1;2\n", r"bad\.csv, line 3, column 1: negative vertex id -1"),
             ("a\n0\n", r"bad\.csv, line 1: a header needs two or more column names, got 'a'")]
    for text, pattern in cases:
        path.write_text(text)
        with pytest.raises(ValueError, match=pattern):
            gconn.load(path)
    path.write_text("a b\nx y\n")
    with pytest.raises(ValueError, match="name the columns of a header line, but header=False"):
        gconn.load(path, header=False, source="a")
    np.save(tmp_path / "x.npy", np.array([[0, 1]]))
    with pytest.raises(ValueError, match="header= applies to edge lists"):
        gconn.load(tmp_path / "x.npy", header=True)


@pytest.mark.parametrize("text", ["a;b\n", "a,b\n", "# only a comment\n", ""])
def test_csv_without_edges_is_an_empty_graph(tmp_path, text):
    (tmp_path / "e.csv").write_text(text)
    if text.startswith("a"):
        # One line of two words: an edge between names (reported), or a
        # header when asked, or when source=/target= name its columns.
        g, names = gconn.load(tmp_path / "e.csv", return_names=True)
        assert g.m == 1 and names.tolist() == ["a", "b"]
        assert any("the only line" in note for note in gconn.io.identify(tmp_path / "e.csv").notes)
        assert gconn.load(tmp_path / "e.csv", header=True).n == 0
        assert gconn.load(tmp_path / "e.csv", source="b", target="a").n == 0
    else:
        assert gconn.load(tmp_path / "e.csv").n == 0


def test_headerless_integer_files_are_unchanged(tmp_path):
    src, dst = _edges(10)
    path = tmp_path / "plain.el"
    path.write_text("".join(f"{a} {b}\n" for a, b in zip(src, dst)))
    _check(gconn.connected_components(str(path), backend="cpu"), src, dst)


def _write_arrow(table, path):
    """Parquet or Feather (Arrow IPC) by the file's extension."""
    if path.suffix == ".feather":
        import pyarrow.feather as feather
        feather.write_feather(table, path)
    else:
        pq.write_table(table, path)


@pytest.mark.parametrize("ext, what", [(".parquet", "Parquet"), (".feather", "Feather")])
def test_parquet(tmp_path, ext, what):
    src, dst = _edges(11)
    path = tmp_path / f"e{ext}"
    _write_arrow(pa.table({"x": np.ones(src.size), "s": src, "t": dst}), path)
    _check(gconn.connected_components(str(path), backend="cpu", source="s", target="t"), src, dst)
    e = re.escape(path.name)
    with pytest.raises(TypeError, match=rf"{e}: column 'x' has float dtype"):
        gconn.load(path)
    with pytest.raises(ValueError, match=rf"{e}: source='q' is not a column.*\['x', 's', 't'\]"):
        gconn.load(path, source="q")
    _write_arrow(pa.table({"w": np.ones(src.size), "s": src, "t": dst}), path)
    with pytest.raises(ValueError, match=rf"{e}: the first two columns, the edges by position, include 'w'"):
        gconn.load(path)
    _write_arrow(pa.table({"s": pa.array([0, None]), "t": pa.array([1, 2])}), path)
    with pytest.raises(ValueError, match=rf"{e}: column 's'.*null"):
        gconn.load(path)
    junk = tmp_path / f"junk{ext}"
    junk.write_bytes(b"not an arrow file")
    with pytest.raises(ValueError, match=rf"junk{re.escape(ext)}: not a readable {what}"):
        gconn.load(junk)


@pytest.mark.parametrize("ext", [".parquet", ".feather"])
def test_parquet_round_trip_keeps_isolated_vertices_and_names(tmp_path, ext):
    g = Graph.from_edges([0, 1], [1, 2], n=6)
    gconn.save(g, tmp_path / f"g{ext}")
    assert gconn.load(tmp_path / f"g{ext}") == g
    named = gconn.as_graph((["x", "y"], ["y", "z"]))
    gconn.save(named, tmp_path / f"n{ext}")
    back = gconn.load(tmp_path / f"n{ext}")
    assert back.nodes.tolist() == ["x", "y", "z"] and back == named
    # by its content where its name says nothing
    (tmp_path / f"n{ext}").rename(tmp_path / "n.dat")
    assert gconn.load(tmp_path / "n.dat").nodes.tolist() == ["x", "y", "z"]
    with pytest.raises(ValueError, match=r"n\.mtx: the graph's vertices are names .*which mtx cannot store"):
        gconn.save(named, tmp_path / "n.mtx")


@pytest.mark.parametrize("ext", [".parquet", ".feather"])
def test_tables_of_names_from_other_tools(tmp_path, ext):
    """Columns of names as other tools write them (string, large_string, dictionary-encoded, binary):
    the same sorted names and codes, the string ones coded by Arrow, the others as before (dense_names);
    a null and a column of integers beside names are errors."""
    from gconn.graph.relabel import dense_names
    rng = np.random.default_rng(5)
    pool = np.array(["zeta", "Alpha", "beta", "β", "", "a b", "10", "9"])
    s, d = pool[rng.integers(0, pool.size, 40)], pool[rng.integers(0, pool.size, 40)]
    want_s, want_d, want = dense_names(s.astype(object), d.astype(object))
    for kind in (pa.string(), pa.large_string(), "dictionary", pa.binary()):
        if kind == "dictionary":
            table = pa.table({"a": pa.array(s).dictionary_encode(), "b": pa.array(d).dictionary_encode()})
        else:
            table = pa.table({"a": pa.array(s.tolist(), kind), "b": pa.array(d.tolist(), kind)})
        path = tmp_path / f"names{ext}"
        _write_arrow(table, path)
        g = gconn.load(path)
        names = [x.decode() if isinstance(x, bytes) else x for x in g.nodes.tolist()]
        assert names == want.tolist(), kind
        es, ed = g.edges()
        assert sorted(zip(es.tolist(), ed.tolist())) == sorted(zip(want_s.tolist(), want_d.tolist())), kind
    _write_arrow(pa.table({"a": pa.array(["x", None]), "b": pa.array(["y", "z"])}), path)
    with pytest.raises(ValueError, match="column 'a', row 1: a null"):
        gconn.load(path)
    _write_arrow(pa.table({"a": pa.array(["x", "y"]), "b": pa.array([1, 2])}), path)
    with pytest.raises(TypeError, match="mix names and integer ids"):
        gconn.load(path)


@pytest.mark.parametrize("name", ["n.csv", "n.el", "n.tsv", "n.txt.gz"])
def test_edge_list_round_trip_keeps_names(tmp_path, name):
    """Names written to an edge list come back as they were: quoted (the delimiter, blanks, quotes, a
    leading '#' or '%', digits), a vertex without edges as a self loop."""
    names = np.array(["Smith, John", 'say "hi"', "#tag", "%x", "42", "lonely one", "b"])
    g = Graph.from_edges([0, 2, 3], [1, 4, 6], n=7)
    g.nodes = names
    gconn.save(g, tmp_path / name)
    back = gconn.load(tmp_path / name)
    order = np.argsort(names)
    assert back.nodes.tolist() == names[order].tolist()
    k, labels = gconn.connected_components(g)
    k2, labels2 = gconn.connected_components(back)
    assert k == k2 == 4 and same_partition(labels2, labels[order])


def test_partitions_read_as_one_graph(tmp_path):
    src, dst = _edges(12)
    parts = []
    for i, cut in enumerate(np.array_split(np.arange(src.size), 3)):
        p = tmp_path / f"part{i}.csv"
        p.write_text("u,v\n" + "".join(f"{a},{b}\n" for a, b in zip(src[cut], dst[cut])))
        parts.append(str(p))
    _check(gconn.connected_components(parts, backend="cpu"), src, dst)
    pq.write_table(pa.table({"u": src[:5], "v": dst[:5]}), tmp_path / "p.parquet")
    g = gconn.load([parts[0], tmp_path / "p.parquet"])
    assert g.m == Graph.from_edges(np.concatenate([src[np.array_split(np.arange(src.size), 3)[0]], src[:5]]),
                                   np.concatenate([dst[np.array_split(np.arange(src.size), 3)[0]],
                                                   dst[:5]])).m
    named = []
    for i, cut in enumerate(np.array_split(np.arange(src.size), 2)):
        p = tmp_path / f"named{i}.{'csv' if i else 'parquet'}"
        a, b = [f"v{x}" for x in src[cut]], [f"v{x}" for x in dst[cut]]
        if i:
            p.write_text("u,v\n" + "".join(f"{x},{y}\n" for x, y in zip(a, b)))
        else:
            pq.write_table(pa.table({"u": a, "v": b}), p)
        named.append(p)
    g, names = gconn.load(named, return_names=True)
    _check_named(gconn.connected_components(g, backend="cpu") + (names,), src, dst)
    (tmp_path / "names.csv").write_text("u,v\nx,y\n")
    with pytest.raises(TypeError, match="mix integer ids and names"):
        gconn.load([parts[0], tmp_path / "names.csv"])


# -- outputs --------------------------------------------------------------

@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_labels_as_a_table(kind):
    src, dst = _edges(13)
    k, table = gconn.connected_components((src, dst), backend="cpu", output=kind)
    if kind == "polars":
        table = table.to_pandas()
    assert list(table.columns) == ["vertex", "component"]
    assert table["vertex"].tolist() == list(range(int(max(src.max(), dst.max())) + 1))
    _check((k, table["component"].to_numpy()), src, dst)
    names = pd.DataFrame({"a": [f"v{i}" for i in src], "b": [f"v{i}" for i in dst]})
    k, table = gconn.connected_components(names, backend="cpu", output=kind)
    if kind == "polars":
        table = table.to_pandas()
    _check_named((k, table["component"].to_numpy(), table["vertex"].to_numpy()), src, dst)


def test_output_option_is_checked():
    with pytest.raises(ValueError, match="output must be one of"):
        gconn.connected_components(([0], [1]), backend="cpu", output="excel")
    with pytest.raises(ValueError, match="return_labels=False"):
        gconn.connected_components(([0], [1]), None, "weak", False, backend="cpu", output="pandas")


@pytest.mark.parametrize("fn", [gconn.connected_components, gconn.spanning_forest])
def test_seed_and_device_memory_are_checked_on_every_backend(fn):
    """A seed that is no 64-bit integer (1.5 was truncated, None a numba typing error) and a
    device_memory that is no size (ignored on the CPU) are errors naming the argument."""
    e = ([0, 1], [1, 2])
    for seed, error, match in ((1.5, TypeError, "seed must be an integer; got 1.5"),
                               (None, TypeError, "seed must be an integer; got None"),
                               (True, TypeError, "seed must be an integer"),
                               (2**63, ValueError, "seed=9223372036854775808 is out of range")):
        with pytest.raises(error, match=match):
            fn(e, backend="cpu", algorithm="kout+union-async", seed=seed)
    for size, match in (("abc", "device_memory='abc' is not a size"), (-5, "device_memory=-5 must be positive")):
        with pytest.raises(ValueError, match=match):
            fn(e, backend="cpu", device_memory=size)
    assert fn(e, backend="cpu", seed=np.uint64(5), device_memory="2GB") is not None


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_cli_writes_named_labels(tmp_path, suffix, capsys):
    from gconn.cli import main
    src, dst = _edges(14, 60, 40)
    path = tmp_path / "names.csv"
    path.write_text("from,to\n" + "".join(f"v{a},v{b}\n" for a, b in zip(src, dst)))
    out = tmp_path / f"labels{suffix}"
    assert main(["cc", str(path), "-o", str(out), "-b", "cpu", "-q", "--warmup", "0", "--json"]) == 0
    table = pq.read_table(out).to_pandas() if suffix == ".parquet" else pd.read_csv(out)
    assert list(table.columns) == ["vertex", "label"]
    _check_named((table["label"].nunique(), table["label"].to_numpy(), table["vertex"].to_numpy()), src, dst)
    assert main(["cc", str(path), "-o", str(tmp_path / "l.npy"), "-b", "cpu", "-q", "--warmup", "0"]) != 0
    assert ".npy cannot store" in capsys.readouterr().err


# -- any delimiter, header and comment layout reads the same edges --------

from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(edges=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=30),
       sep=st.sampled_from([",", "\t", ";", " ", "   "]), header=st.booleans(),
       comments=st.lists(st.integers(0, 30), max_size=3), names=st.booleans())
def test_csv_layouts_read_the_same_edges(tmp_path_factory, edges, sep, header, comments, names):
    src = np.array([a for a, _ in edges])
    dst = np.array([b for _, b in edges])
    fmt = (lambda v: f"v{v}") if names else str
    lines = [f"{fmt(a)}{sep}{fmt(b)}" for a, b in edges]
    for i in sorted(comments, reverse=True):
        lines.insert(min(i, len(lines)), "# note" if i % 2 else "% note")
    if header:
        lines.insert(0, f"from{sep}to")
    path = tmp_path_factory.mktemp("csv") / "e.csv"
    path.write_text("\n".join(lines) + "\n")
    if names:
        g, ids = gconn.load(path, return_names=True, header=None if header else False)
        _check_named(gconn.connected_components(g, backend="cpu") + (ids,), src, dst)
    else:
        # header=False without a header: a first edge 'a b' above b edges with ids below a is asked about
        g = gconn.load(path, header=None if header else False)
        _check(gconn.connected_components(g, backend="cpu"), src, dst)


def test_quoted_fields(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('"a","b"\n"1","2"\n"2","3"\n')
    g = gconn.load(path)
    assert (g.n, g.m, g.nodes) == (4, 2, None)
    path.write_text('"from","to"\n"ann smith","bob"\n"bob","cat"\n')
    assert gconn.load(path).nodes.tolist() == ["ann smith", "bob", "cat"]
    path.write_text('"a","b"\n"1","2"\n"-2","x"\n')
    with pytest.raises(ValueError, match=r"q\.csv, line 3, column 'a': '-2' is a negative vertex id"):
        gconn.load(path)
    path.write_text('"1","2"\n"2","x"\n')
    with pytest.raises(ValueError, match=r"q\.csv, line 2, field 2: 'x' is not a vertex id"):
        gconn.load(path)


def test_adjacency_tables_are_refused():
    """A square table of a graph's adjacency (networkx.to_pandas_adjacency, or a DataFrame of a 0/1
    matrix) was read as an edge table of its first two columns; now an error whose call reads it."""
    nx = pytest.importorskip("networkx")
    import pandas as pd
    G = nx.path_graph(["x", "y", "z", "w"])
    G.add_node("v")
    a = np.array([[0, 1, 1, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]])
    for table, k0 in ((nx.to_pandas_adjacency(G), 2), (pd.DataFrame(a), 2), (pd.DataFrame(a * 7), 2)):
        with pytest.raises(ValueError, match=r"an adjacency matrix .*connected_components\(table\.to_numpy\(\)\)"):
            gconn.connected_components(table, backend="cpu")
        assert gconn.connected_components(table.to_numpy(), backend="cpu")[0] == k0
    # a weighted edge table of as many rows as columns stays one
    for table in (pd.DataFrame([(0, 1, 5), (1, 2, 3), (2, 0, 4)]),
                  pd.DataFrame({"s": [0, 1, 2], "t": [1, 2, 0], "w": [1.0, 2.0, 3.0]})):
        assert gconn.connected_components(table, backend="cpu")[0] == 1


@pytest.mark.parametrize("graph, k, labels", [
    ([(0, 1), (2, 3)], 2, [0, 0, 1, 1]),                      # two pairs: edges, as NetworkX takes them
    ({(0, 1), (2, 3), (3, 4)}, 2, [0, 0, 1, 1, 1]),
    ({0: [1], 2: [3], 5: []}, 4, [0, 0, 1, 1, 2, 3]),          # neighbour lists; 4 and 5 alone
    ({0: {1: {}}, 1: {0: {}}, 2: {}}, 2, [0, 0, 1]),           # NetworkX's dict of dicts
    (set(), 0, []),
])
def test_python_edge_collections(graph, k, labels):
    """A list or set of (u, v) pairs and a dict of neighbour lists were errors (two pairs: 'could be a
    2 x 2 adjacency matrix'; sets and dicts: 'cannot build a graph')."""
    got, lab = gconn.connected_components(graph, backend="cpu")
    assert got == k and lab.tolist() == labels


def test_python_adjacency_dict_of_names():
    k, labels, names = gconn.connected_components({"a": ["b"], "c": [], "d": ["a"]}, backend="cpu", relabel=True)
    assert k == 2 and dict(zip(names.tolist(), labels.tolist())) == {"a": 0, "b": 0, "c": 1, "d": 0}
    with pytest.raises(ValueError, match="2 x 2 array could be 2 edges"):
        gconn.connected_components([[0, 1], [1, 0]], backend="cpu")   # lists of lists stay a question


def test_an_empty_table_has_no_edges():
    """pandas makes an empty column float: an empty edge table was 'column 'src' has float dtype'."""
    empty = pd.DataFrame({"src": [], "dst": []})
    assert empty["src"].dtype.kind == "f"
    k, labels = gconn.connected_components(empty, backend="cpu")
    assert k == 0 and labels.size == 0
    assert gconn.as_graph(empty).n == 0
    with pytest.raises(TypeError, match="float dtype"):
        gconn.connected_components(pd.DataFrame({"src": [0.0], "dst": [1.0]}), backend="cpu")


def test_edge_arrays_do_not_load_numpy_ma():
    """The masked-ids check looks for numpy.ma only where it was imported: importing it cost a process's
    first call on edge arrays 8 ms (25 -> 33 ms, python -m gconn.bench.frontdoor --only "api arrays")."""
    import subprocess
    import sys
    code = ("import sys, numpy as np, gconn; gconn.connected_components((np.array([0]), np.array([1])), "
            "backend='cpu'); print('numpy.ma' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
