"""gconn.io: every format against the real graphs, round trips, and errors."""
from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components

import gconn
from gconn.graph import Graph
from gconn.io import FORMATS, identify, load, save

from conftest import DATA, manifest, manifest_row


def _manifest():
    rows = manifest()
    assert rows, f"no MANIFEST.tsv at {DATA}"
    return [pytest.param(row, id=Path(row["file"]).name) for row in rows]


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    """Write ``text`` to tmp_path/name, gzip-compressed if the name ends in .gz."""
    data = text.encode() if isinstance(text, str) else text
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def raises(exc, path_or_call, *fragments, **kwargs):
    """Assert that loading raises ``exc`` with a one-line message holding every fragment."""
    call = path_or_call if callable(path_or_call) else (lambda: load(path_or_call, **kwargs))
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    assert "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def edges_of(graph: Graph) -> list[tuple[int, int]]:
    return list(zip(graph.src.tolist(), graph.dst.tolist()))


# -- real graphs ----------------------------------------------------------------

@pytest.mark.parametrize("row", _manifest())
def test_real_graph_matches_manifest(row):
    graph = load(DATA / row["file"])
    assert (graph.n, graph.m) == (int(row["n"]), int(row["m_undirected_simple"]))
    k, labels = connected_components(graph.to_scipy(), directed=False)
    assert k == int(row["components"])
    assert np.bincount(labels).max() == int(row["largest_component"])


@pytest.mark.parametrize("name", ["g.gcb", "g.mtx.gz", "g.el.gz", "g.graph.gz", "g.npz"])
def test_real_graph_round_trip(tmp_path, name):
    graph = load(DATA / manifest_row("cond-mat-2005.el")["file"])
    save(graph, tmp_path / name)
    assert load(tmp_path / name) == graph


# -- round trips ----------------------------------------------------------------

def _graphs():
    rng = np.random.default_rng(7)
    return {
        # Isolated vertices inside (4) and after the largest id (6, 7).
        "small": Graph.from_edges([0, 1, 3, 2], [1, 2, 5, 0], n=8),
        "empty": Graph.from_edges([], [], n=0),
        "edgeless": Graph.from_edges([], [], n=5),
        "random": Graph.from_edges(rng.integers(0, 3000, 20000), rng.integers(0, 3000, 20000), n=3100),
    }


WRITABLE = ["g.gcb", "g.npz", "g.mtx", "g.graph", "g.el", "g.txt", "g.tsv", "g.csv", "g.edges"]
GZIPPED = ["g.mtx.gz", "g.graph.gz", "g.el.gz", "g.txt.gz", "g.tsv.gz", "g.csv.gz", "g.edges.gz"]


@pytest.mark.parametrize("name", WRITABLE + GZIPPED)
@pytest.mark.parametrize("which", list(_graphs()))
def test_round_trip(tmp_path, name, which):
    graph = _graphs()[which]
    path = tmp_path / name
    save(graph, path)
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")
    back = load(path)
    assert back == graph
    assert back.m == graph.m
    assert edges_of(back) == edges_of(graph)
    assert back.indices.dtype == graph.indices.dtype
    assert os.listdir(tmp_path) == [name], "a temporary file was left behind"


def test_npy_refuses_what_it_cannot_give_back(tmp_path):
    graph = _graphs()["small"]       # n = 8, the largest id with an edge 5
    raises(ValueError, lambda: save(graph, tmp_path / "g.npy"),
           "g.npy: .npy holds edges only, and the graph's 2 vertices after its largest id with an edge (5) "
           "would be lost")
    assert not (tmp_path / "g.npy").exists()
    raises(ValueError, lambda: save(Graph.from_edges([3], [3], n=5), tmp_path / "g.npy"),
           "g.npy: .npy holds edges only, and the graph's 5 vertices (it has no edges) would be lost")
    fits = Graph.from_edges(graph.src, graph.dst)
    save(fits, tmp_path / "g.npy")
    assert np.load(tmp_path / "g.npy").tolist() == [[0, 1], [0, 2], [1, 2], [3, 5]]
    assert load(tmp_path / "g.npy") == fits
    assert load(tmp_path / "g.npy", n=8) == graph


def test_gcb_keeps_the_arrays_exactly(tmp_path):
    graph = _graphs()["random"]
    save(graph, tmp_path / "g.gcb")
    back = load(tmp_path / "g.gcb")
    for name in ("indptr", "indices", "src", "dst"):
        a, b = getattr(graph, name), getattr(back, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_text_formats_look_as_documented(tmp_path):
    graph = Graph.from_edges([0, 1], [1, 2], n=4)
    save(graph, tmp_path / "g.csv")
    assert (tmp_path / "g.csv").read_text() == "# gconn edge list: n=4 m=2\n0,1\n1,2\n"
    save(graph, tmp_path / "g.tsv")
    assert (tmp_path / "g.tsv").read_text().splitlines()[1:] == ["0\t1", "1\t2"]
    save(graph, tmp_path / "g.mtx")
    assert (tmp_path / "g.mtx").read_text().splitlines()[2:] == ["4 4 2", "2 1", "3 2"]
    save(graph, tmp_path / "g.graph")
    assert (tmp_path / "g.graph").read_text() == "4 2\n2\n1 3\n2\n\n"


def test_save_accepts_edge_arrays(tmp_path):
    save(([0, 1], [1, 2]), tmp_path / "g.gcb")
    assert edges_of(load(tmp_path / "g.gcb")) == [(0, 1), (1, 2)]


def test_failed_save_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    import gconn.io as gio

    path = tmp_path / "g.mtx"
    save(_graphs()["small"], path)
    before = path.read_bytes()

    def broken(graph, f):
        f.write(b"%%MatrixMarket half a file")
        raise RuntimeError("disk full")

    monkeypatch.setitem(gio._WRITERS, "mtx", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        save(_graphs()["random"], path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["g.mtx"]


# -- edge lists -----------------------------------------------------------------

def test_edge_list_comments_separators_and_extra_columns(tmp_path):
    text = ("# SNAP-style header\n"
            "% a Matrix-Market-style comment\n"
            "   # indented comment\n"
            "\n"
            "0\t1\t2\n"
            "1 2 0.25\n"
            "  2   3   7  \r\n"
            "3\t4\t1.5e3\n"
            "4 5 nan\n"
            "5 6 -1")  # no final newline
    graph = load(write(tmp_path, "g.txt", text))
    assert edges_of(graph) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]
    assert edges_of(load(write(tmp_path, "g.csv", "0 , 1,0.5\n1,2 , 7\n"))) == [(0, 1), (1, 2)]


@pytest.mark.parametrize("text, message", [
    ("0 1\n1,2\n", "g.el, line 2, column 1: '1,2' is not a vertex id"),
    ("0,1\n1 2\n", "g.el, line 2, column 1: '1 2' is not a vertex id"),
    ("0 1\n1 2 3\n", "g.el, line 2, column 5: more than the 2 fields of line 1"),
    ("0 1 5\n1 2\n", "g.el, line 2, column 4: 2 fields, but the lines of this file have 3 (line 1)"),
    ("1 2 x\n3 4 y\n", "g.el, line 1, column 5: 'x' is not a number"),
    ("0 1\n1 x\n", "g.el, line 2, column 3: 'x' is not a vertex id"),
    ("0,1,\n", "g.el, line 1, column 5: an empty field"),
    # a list of vertices: it was "column 1 (0-based) asked for", or a header of one name
    ("0\n1\n", "g.el, line 1: one field ('0'), but an edge needs two vertex ids"),
    ("a\nb\n", "g.el, line 1: one field ('a'), but an edge needs two vertex ids"),
    ("7\n", "g.el, line 1: one field ('7'), but an edge needs two vertex ids"),
])
def test_edge_list_lines_must_agree(tmp_path, text, message):
    raises(ValueError, write(tmp_path, "g.el", text), message)


def test_edge_list_byte_order_mark(tmp_path):
    assert edges_of(load(write(tmp_path, "g.csv", b"\xef\xbb\xbf0,1\n1,2\n"))) == [(0, 1), (1, 2)]


def test_edge_list_ids_used_as_they_are(tmp_path):
    # Self loops and duplicates in either direction collapse; ids are 0-based.
    graph = load(write(tmp_path, "g.el", "5 3\n3 5\n5 5\n0 3\n"))
    assert graph.n == 6
    assert edges_of(graph) == [(0, 3), (3, 5)]


def test_edge_list_isolated_vertices_with_n(tmp_path):
    graph = load(write(tmp_path, "g.el", "0 1\n"), n=10)
    assert (graph.n, graph.m) == (10, 1)
    assert graph.degrees().tolist() == [1, 1] + [0] * 8


@pytest.mark.parametrize("text", ["", "# only a comment\n", "\n\n  \n"])
def test_empty_edge_list(tmp_path, text):
    path = write(tmp_path, "g.el", text)
    assert (load(path).n, load(path).m) == (0, 0)
    assert (load(path, n=4).n, load(path, n=4).m) == (4, 0)


def test_gconn_edge_list_header_sets_n(tmp_path):
    path = write(tmp_path, "g.el", "# gconn edge list: n=7 m=1\n0 1\n")
    assert load(path).n == 7
    assert load(path, n=9).n == 9
    raises(ValueError, write(tmp_path, "h.el", "# gconn edge list: n=3 m=1\n0 3\n"),
           "h.el, line 2, column 3: vertex id 3 is out of range for n=3 (declared on line 1)")


@pytest.mark.parametrize("line, column, message", [
    ("a b", 1, "'a' is not a vertex id: ids are integers >= 0 (digits only); line 2 has integer ids: if the "
               "ids are names, pass names=True (--names)"),
    ("5", 2, "1 field, but the lines of this file have 2 (line 2): '5'"),
    ("1.5 2", 1, "'1.5' is not a vertex id"),
    ("1 2e3", 3, "'2e3' is not a vertex id"),
    ("1\t-", 3, "'-' is not a vertex id"),
    ("-3 4", 1, "negative vertex id -3; ids must be >= 0"),
    ("4 -1", 3, "negative vertex id -1"),
    ("99999999999999999999 1", 1, "vertex id 99999999999999999999 is too large (beyond int64)"),
])
@pytest.mark.parametrize("name", ["email.el", "email.el.gz"])
def test_edge_list_errors_name_file_and_line(tmp_path, name, line, column, message):
    path = write(tmp_path, name, "# header\n0 1\n\n% note\n" + line + "\n2 3\n")
    raises(ValueError, path, f"{name}, line 5, column {column}: {message}")


def test_csv_error(tmp_path):
    raises(ValueError, write(tmp_path, "g.csv", "0,1\n1,x\n"),
           "g.csv, line 2, column 3: 'x' is not a vertex id")


def test_edge_list_error_text_is_shortened(tmp_path):
    message = raises(ValueError, write(tmp_path, "g.el", "x" * 500 + "\n"), "g.el, line 1:")
    assert len(message) < 200


def test_edge_list_id_beyond_given_n(tmp_path):
    raises(ValueError, lambda: load(write(tmp_path, "g.el", "0 1\n# c\n1 5\n"), n=3),
           "g.el, line 3, column 3: vertex id 5 is out of range for n=3 (given)")


# -- Matrix Market --------------------------------------------------------------

MTX = "%%MatrixMarket matrix coordinate {field} {symmetry}\n% a comment\n"


@pytest.mark.parametrize("field, entries", [
    ("pattern", ["2 1", "3 2", "5 4"]),
    ("real", ["2 1 0.5", "3 2 -1e3", "5 4 0"]),
    ("integer", ["2 1 7", "3 2 -1", "5 4 0"]),
    ("complex", ["2 1 1 0", "3 2 0 1", "5 4 0 0"]),
])
@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
def test_mtx_fields_and_symmetries(tmp_path, field, entries, symmetry):
    text = MTX.format(field=field, symmetry=symmetry) + "5 5 3\n" + "\n".join(entries) + "\n"
    graph = load(write(tmp_path, "g.mtx", text))
    assert graph.n == 5
    assert edges_of(graph) == [(0, 1), (1, 2), (3, 4)]


def test_mtx_general_with_both_directions_and_isolated(tmp_path):
    text = MTX.format(field="pattern", symmetry="general") + "6 6 4\n1 2\n2 1\n3 3\n4 2\n"
    graph = load(write(tmp_path, "g.mtx", text))
    assert (graph.n, edges_of(graph)) == (6, [(0, 1), (1, 3)])
    assert load(write(tmp_path, "g.mtx", text), n=9).n == 9


def test_mtx_dense_array_keeps_nonzeros(tmp_path):
    text = "%%MatrixMarket matrix array real general\n3 3\n0\n1\n0\n1\n0\n2.5\n0\n0\n0\n"
    graph = load(write(tmp_path, "g.mtx", text))
    assert (graph.n, edges_of(graph)) == (3, [(0, 1), (1, 2)])


@pytest.mark.parametrize("body, fragments", [
    ("5 6 3\n2 1\n", ["line 3: the matrix is 5 x 6; an adjacency matrix must be square"]),
    ("5 5 3\n2 1\n7 2\n4 3\n", ["line 5: entry '7 2' is outside the 5 x 5 matrix declared on line 3"]),
    ("5 5 3\n2 1\n0 2\n4 3\n", ["line 5: entry '0 2' is outside", "1-based"]),
    ("5 5 3\n2 1\n-1 2\n4 3\n", ["line 5: entry '-1 2' is outside"]),
    ("5 5 3\n2 1\n3 2\n", ["line 5: file ends after 2 of the 3 entries declared on line 3"]),
    ("5 5 2\n2 1\n3 2\n4 3\n", ["line 6: more entries than the 2 declared on line 3"]),
    ("5 5 3\n2 1\na 2\n4 3\n", ["line 5: expected an entry 'row col' with integer indices, got 'a 2'"]),
    ("5 5 3\n2 1\n3\n4 3\n", ["line 5: expected an entry 'row col' with integer indices, got '3'"]),
    ("5 5 3 3\n", ["line 3: expected the size line 'rows cols nnz', got '5 5 3 3'"]),
    ("", ["line 2: file ends before the Matrix Market size line"]),
])
@pytest.mark.parametrize("name", ["g.mtx", "g.mtx.gz"])
def test_mtx_errors(tmp_path, name, body, fragments):
    path = write(tmp_path, name, MTX.format(field="pattern", symmetry="general") + body)
    raises(ValueError, path, f"{name}, " + fragments[0], *fragments[1:])


def test_mtx_missing_value(tmp_path):
    path = write(tmp_path, "g.mtx", MTX.format(field="real", symmetry="general") + "5 5 2\n2 1 1.0\n3 2\n")
    raises(ValueError, path, "g.mtx, line 5: expected an entry 'row col value'", "got '3 2'")


@pytest.mark.parametrize("name", ["g.mtx", "g.mtx.gz"])
def test_mtx_bad_value_counts_comment_and_blank_lines(tmp_path, name):
    text = MTX.format(field="real", symmetry="general") + "% more\n\n3 3 2\n2 1 1\n3 1 x\n"
    raises(ValueError, write(tmp_path, name, text), f"{name}, line 7: expected an entry 'row col value' "
           "with integer indices and a real value, got '3 1 x'")


def test_mtx_short_dense_array(tmp_path):
    path = write(tmp_path, "g.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n")
    raises(ValueError, path, "g.mtx, line 4: truncated file")


@pytest.mark.parametrize("banner, fragment", [
    ("hello\n", "line 1: not a Matrix Market file"),
    ("%%MatrixMarket matrix coordinate pattern\n", "line 1: not a Matrix Market file"),
    ("%%MatrixMarket vector coordinate pattern general\n", "line 1: unsupported Matrix Market banner"),
    ("%%MatrixMarket matrix coordinate text general\n", "line 1: unsupported Matrix Market banner"),
])
def test_mtx_bad_banner(tmp_path, banner, fragment):
    raises(ValueError, write(tmp_path, "g.mtx", banner + "3 3 1\n2 1\n"), f"g.mtx, {fragment}")


def test_mtx_n_smaller_than_declared(tmp_path):
    path = write(tmp_path, "g.mtx", MTX.format(field="pattern", symmetry="general") + "5 5 1\n2 1\n")
    raises(ValueError, path, "g.mtx: n=3 is smaller than the 5 vertices declared on line 3", n=3)


# -- METIS ----------------------------------------------------------------------

def test_metis_plain_with_comments_and_isolated_vertex(tmp_path):
    text = "% comment before the header\n5 2\n2 3\n1\n% a comment between vertex lines\n1\n\n  \n"
    graph = load(write(tmp_path, "g.graph", text))
    assert (graph.n, edges_of(graph)) == (5, [(0, 1), (0, 2)])
    assert load(write(tmp_path, "g.graph", text), n=7).n == 7


@pytest.mark.parametrize("header, lines", [
    ("4 3 1", ["2 10", "1 10 3 20", "2 20 4 5", "3 5"]),          # edge weights
    ("4 3 10", ["7 2", "1 1 3", "0 2 4", "2 3"]),                 # one vertex weight
    ("4 3 11", ["7 2 10", "1 1 10 3 20", "0 2 20 4 5", "2 3 5"]),  # both
    ("4 3 011 2", ["7 8 2 10", "1 1 1 10 3 20", "0 0 2 20 4 5", "2 2 3 5"]),  # ncon = 2
    ("4 3 100", ["9 2", "9 1 3", "9 2 4", "9 3"]),                # vertex sizes
    ("4 3 0", ["2", "1 3", "2 4", "3"]),
])
def test_metis_fmt_and_ncon(tmp_path, header, lines):
    graph = load(write(tmp_path, "g.graph", header + "\n" + "\n".join(lines) + "\n"))
    assert (graph.n, edges_of(graph)) == (4, [(0, 1), (1, 2), (2, 3)])


@pytest.mark.parametrize("text, fragment", [
    ("4 3\n2\n1 9\n", "{name}, line 3: neighbour id 9 of vertex 2 is out of range 1..4"),
    ("4 3\n2\n0 3\n", "{name}, line 3: neighbour id 0 of vertex 2 is out of range 1..4"),
    ("4 3\n2\n1 3\n2 4\n", "{name}, line 4: file ends after 3 of the 4 vertex lines declared on line 1"),
    ("2 1\n2\n1\n2\n", "{name}, line 4: more vertex lines than the n=2 declared on line 1"),
    ("% c\n3 1\n2\n1 x\n\n", "{name}, line 4: expected non-negative integers on the line of vertex 2, got '1 x'"),
    ("3 1\n2\n-1\n\n", "{name}, line 3: expected non-negative integers"),
    ("3 1 1\n2 5\n1\n\n", "{name}, line 3: vertex 2: expected neighbour/edge-weight pairs (fmt 001), got '1'"),
    ("3 1 10\n1 2\n1 1\n\n", "{name}, line 4: vertex 3 needs 1 leading size/weight fields"),
    ("3 2\n2\n1\n\n", "{name}, line 1: the header declares m=2 edges, but the vertex lines list 2 neighbour entries"),
    ("3 1\n2 3\n1\n1\n", "{name}, line 3: more neighbour entries than the 2m=2"),
    ("3\n2\n1\n\n", "{name}, line 1: expected a METIS header 'n m [fmt [ncon]]'"),
    ("3 1 2\n2\n1\n\n", "{name}, line 1: expected a METIS header"),
    ("% only a comment\n", "{name}: empty METIS file"),
    # the count of entries is 2m, but the lists are not symmetric
    ("3 2\n2\n1 3\n1\n", "{name}: vertex 3 lists 1 as a neighbour, but vertex 1 does not list 3; a METIS file"),
    ("3 3\n2 2\n1 3 3\n2\n", "{name}: vertex 1 lists 2 twice, but vertex 2 lists 1 once"),
])
@pytest.mark.parametrize("name", ["g.graph", "g.graph.gz"])
def test_metis_errors(tmp_path, name, text, fragment):
    raises(ValueError, write(tmp_path, name, text), fragment.format(name=name))


def test_metis_multi_edges_listed_at_both_ends(tmp_path):
    """An edge listed twice at both of its ends is symmetric: read as it is, each time counted."""
    graph = load(write(tmp_path, "g.graph", "3 3\n2 2\n1 1 3\n2\n"))
    assert (graph.n, graph.m_input, edges_of(graph)) == (3, 6, [(0, 1), (1, 2)])


def test_metis_n_smaller_than_declared(tmp_path):
    raises(ValueError, write(tmp_path, "g.graph", "3 1\n2\n1\n\n"),
           "g.graph: n=2 is smaller than the 3 vertices declared on line 1", n=2)


# -- NumPy ----------------------------------------------------------------------

def test_npy_edges(tmp_path):
    np.save(tmp_path / "g.npy", np.array([[0, 1], [2, 1]], np.int64))
    graph = load(tmp_path / "g.npy", n=4)
    assert (graph.n, edges_of(graph)) == (4, [(0, 1), (1, 2)])


@pytest.mark.parametrize("array, fragment", [
    (np.zeros(4, np.int64), "expected an (m, 2) integer array of edges, got shape (4,)"),
    (np.zeros((2, 3), np.int64), "got shape (2, 3)"),
    (np.zeros((2, 2), np.float64), "of float64"),
    (np.array([[0, 1], [-1, 2]]), "negative vertex id -1"),
    (np.eye(4, dtype=np.int64), "a square array is an adjacency matrix: pass it as one, "
                                "gconn.connected_components(numpy.load('g.npy'))"),
    (np.array([[0, 1, 2], [1, 2, 3]]), "for 2 rows of ids (PyG's edge_index) save a.T"),
])
def test_npy_errors(tmp_path, array, fragment):
    np.save(tmp_path / "g.npy", array)
    raises(ValueError, tmp_path / "g.npy", "g.npy: ", fragment)


def test_npy_ids_beyond_n_and_corrupt_file(tmp_path):
    np.save(tmp_path / "g.npy", np.array([[0, 5]]))
    raises(ValueError, tmp_path / "g.npy", "g.npy: vertex id 5", "out of range for n=3", n=3)
    (tmp_path / "bad.npy").write_bytes((tmp_path / "g.npy").read_bytes()[:-4])
    raises(ValueError, tmp_path / "bad.npy", "bad.npy: not a readable .npy file")


def test_npz_variants(tmp_path):
    np.savez(tmp_path / "a.npz", src=[0, 2], dst=[1, 1], n=5)
    assert (load(tmp_path / "a.npz").n, edges_of(load(tmp_path / "a.npz"))) == (5, [(0, 1), (1, 2)])
    np.savez(tmp_path / "b.npz", src=[0, 2], dst=[1, 1])
    assert load(tmp_path / "b.npz").n == 3
    np.savez(tmp_path / "c.npz", indptr=[0, 1, 1, 2, 2], indices=[1, 0])
    assert (load(tmp_path / "c.npz").n, edges_of(load(tmp_path / "c.npz"))) == (4, [(0, 1), (0, 2)])
    np.savez(tmp_path / "d.npz", indptr=[0, 1, 1], indices=[1], n=6)
    assert load(tmp_path / "d.npz").n == 6
    assert load(tmp_path / "d.npz", n=8).n == 8


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "dia"])
def test_scipy_save_npz_reads_as_the_matrix(tmp_path, fmt):
    """A matrix scipy.sparse.save_npz wrote is the matrix SciPy reads: a BSR's block rows are not
    vertices (a 40 x 40 BSR of 2 x 2 blocks read as 20 vertices), COO and DIA are read (they were errors)."""
    import scipy.sparse as sp
    A = sp.random(40, 40, density=0.03, format="csr", random_state=3)
    M = A.tobsr(blocksize=(2, 2)) if fmt == "bsr" else A.asformat(fmt)
    sp.save_npz(tmp_path / "m.npz", M)
    g = load(tmp_path / "m.npz")
    k, labels = connected_components(M, directed=False)
    k2, labels2 = connected_components(g.to_scipy(), directed=False)
    assert g.n == 40 and k2 == k and np.array_equal(labels2, labels)
    sp.save_npz(tmp_path / "r.npz", sp.random(4, 5, density=0.5, format=fmt if fmt != "bsr" else "csr"))
    raises(ValueError, tmp_path / "r.npz", "r.npz: the adjacency matrix must be square; got shape (4, 5)")


def test_paths_that_are_no_file(tmp_path):
    """A missing file, a directory and an empty path are each named as what they are."""
    with pytest.raises(FileNotFoundError, match="missing.el: no such file"):
        load(tmp_path / "missing.el")
    with pytest.raises(IsADirectoryError, match="is a directory, not a graph file"):
        load(tmp_path)
    for empty in ("", "  "):
        with pytest.raises(FileNotFoundError, match=r"an empty file path \('\s*'\)"):
            load(empty)


def test_npz_errors(tmp_path):
    np.savez(tmp_path / "keys.npz", a=[0], b=[1])
    raises(ValueError, tmp_path / "keys.npz", "keys.npz: expected arrays 'src' and 'dst' or 'indptr' and "
           "'indices'", "found ['a', 'b']")
    np.savez(tmp_path / "n.npz", src=[0], dst=[1], n=[2, 3])
    raises(ValueError, tmp_path / "n.npz", "n.npz: 'n' must be an integer scalar")
    np.savez(tmp_path / "small.npz", src=[0], dst=[1], n=5)
    raises(ValueError, tmp_path / "small.npz", "small.npz: n=3 is smaller than the 5 vertices the file declares",
           n=3)
    np.savez(tmp_path / "range.npz", src=[0], dst=[7], n=5)
    raises(ValueError, tmp_path / "range.npz", "range.npz: vertex id 7", "out of range for n=5")
    np.savez(tmp_path / "float.npz", src=[0.0], dst=[1.0])
    raises(TypeError, tmp_path / "float.npz", "float.npz: src has float dtype")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 not really a zip")
    raises(ValueError, tmp_path / "junk.npz", "junk.npz: not a readable .npz file")


# -- .gcb -----------------------------------------------------------------------

def test_gcb_errors(tmp_path):
    path = tmp_path / "g.gcb"
    save(_graphs()["small"], path)
    data = path.read_bytes()
    (tmp_path / "short.gcb").write_bytes(data[:-3])
    raises(ValueError, tmp_path / "short.gcb", "short.gcb: truncated or corrupt .gcb file",
           f"needs {len(data)} bytes, the file has {len(data) - 3}")
    (tmp_path / "long.gcb").write_bytes(data + b"\0")
    raises(ValueError, tmp_path / "long.gcb", "long.gcb: truncated or corrupt .gcb file")
    (tmp_path / "head.gcb").write_bytes(data[:20])
    raises(ValueError, tmp_path / "head.gcb", "head.gcb: truncated .gcb file: 20 bytes")
    (tmp_path / "magic.gcb").write_bytes(b"not a graph at all" * 10)
    raises(ValueError, tmp_path / "magic.gcb", "magic.gcb: not a gconn .gcb file (bad magic bytes")
    (tmp_path / "version.gcb").write_bytes(data[:8] + b"\x09\x00" + data[10:])
    raises(ValueError, tmp_path / "version.gcb", "version.gcb: .gcb version 9 is not supported")


def test_gcb_n(tmp_path):
    graph = _graphs()["small"]
    save(graph, tmp_path / "g.gcb")
    wider = load(tmp_path / "g.gcb", n=12)
    assert (wider.n, edges_of(wider)) == (12, edges_of(graph))
    assert wider == Graph.from_edges(graph.src, graph.dst, n=12)
    raises(ValueError, tmp_path / "g.gcb", "g.gcb: n=5 is smaller than the 8 vertices the file declares", n=5)


# -- formats, names, arguments ----------------------------------------------------

def test_format_override(tmp_path):
    assert load(write(tmp_path, "edges.dat", "0 1\n1 2\n"), format="edgelist").m == 2
    # Compression is recognised by content, whatever the name says.
    assert load(write(tmp_path, "mesh.bin.gz", "3 2\n2\n1 3\n2\n"), format="metis").m == 2
    gz_as_plain = tmp_path / "m.data"
    gz_as_plain.write_bytes(gzip.compress(b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n2 1\n"))
    assert load(gz_as_plain, format="mtx").m == 1
    # format= wins over a misleading extension.
    assert load(write(tmp_path, "g.mtx", "0 1\n"), format="edgelist").m == 1
    raises(ValueError, lambda: load(tmp_path / "g.mtx", format="xml"),
           "unknown format 'xml'; expected one of 'mtx', 'edgelist', 'metis', 'dimacs', 'npy', 'npz', 'gcb'")


@pytest.mark.parametrize("name", ["g.foo", "g", "g.foo.gz"])
def test_a_name_without_a_format_is_read_by_its_content(tmp_path, name):
    path = tmp_path / name
    data = b"0 1\n1 2\n"
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    info = identify(path)
    assert info.format == "edgelist" and any("read as an edge list" in note for note in info.notes)
    assert edges_of(load(path)) == [(0, 1), (1, 2)]
    path.write_bytes(b"3 2\n2\n1 3\n2\n")
    assert identify(path).format == "metis" and load(path).m == 2
    # as many fields as METIS would hold, but real weights or an id 0 (METIS counts from 1): edge lists
    for text in (b"2 3 0\n0 1 0.5\n1 2 1\n", b"2 3 0\n0 1 5\n1 2 1\n"):
        path.write_bytes(text)
        assert identify(path).format == "edgelist" and load(path).m == 3
    path.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    message = raises(ValueError, path, f"{name}: binary data (first bytes 89 50 4e 47")
    for exts in FORMATS.values():
        for ext in exts:
            assert ext in message
    raises(ValueError, lambda: save(_graphs()["small"], tmp_path / ("out_" + name)), "unsupported file extension")
    assert not (tmp_path / ("out_" + name)).exists()


@pytest.mark.parametrize("ext", [".el.bz2", ".el.xz", ".mtx.xz", ".graph.bz2", ".gr.xz", ".csv.bz2"])
def test_bzip2_and_xz_text(tmp_path, ext):
    """bzip2 and xz text are read and written as gzip is (they were 'binary data'), whole and in chunks,
    whatever the name says; the files others' tools decompress."""
    import bz2
    import lzma
    g = Graph.from_edges([0, 1, 5], [1, 2, 6], n=8)
    path = tmp_path / f"g{ext}"
    save(g, path)
    assert (bz2 if ext.endswith(".bz2") else lzma).decompress(path.read_bytes())
    back = load(path)
    assert back.n == 8 and edges_of(back) == edges_of(g) and identify(path).compressed
    assert gconn.connected_components(str(path), backend="cpu")[0] == 5
    hidden = tmp_path / "g.dat"
    hidden.write_bytes(lzma.compress(b"0 1\n1 2\n"))
    assert edges_of(load(hidden)) == [(0, 1), (1, 2)]


@pytest.mark.parametrize("packed, what", [("zstd", "zstd-compressed: decompress it first"),
                                          ("tar", "a tar archive: extract it"), ("tgz", "a tar archive: extract it")])
def test_archives_say_what_they_are(tmp_path, packed, what):
    """An archive or compression gconn does not open names itself and the command that opens it
    (it was 'binary data (first bytes 28 b5 2f fd ...)')."""
    import io
    import tarfile
    path = tmp_path / {"zstd": "g.el.zst", "tar": "g.tar", "tgz": "g.tar.gz"}[packed]
    if packed == "zstd":
        path.write_bytes(b"\x28\xb5\x2f\xfd\x24\x0c\x61\x00" + bytes(8))
    else:
        with tarfile.open(path, "w:gz" if packed == "tgz" else "w") as t:
            data = b"0 1\n"
            info = tarfile.TarInfo("g.el")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    raises(ValueError, lambda: load(path), f"{path.name}: {what}")


@pytest.mark.parametrize("name", ["g.npz.gz", "g.npy.gz", "g.gcb.gz"])
def test_gzip_only_for_text_formats(tmp_path, name):
    raises(ValueError, lambda: save(_graphs()["small"], tmp_path / name), "compression (gzip, bzip2, xz) applies to the text formats only")
    raises(ValueError, write(tmp_path, name, b"whatever"), "compression (gzip, bzip2, xz) applies to the text formats only")


@pytest.mark.parametrize("name", ["g.el.gz", "g.mtx.gz", "g.graph.gz"])
def test_corrupt_gzip(tmp_path, name):
    data = gzip.compress(b"%%MatrixMarket matrix coordinate pattern general\n" + b"3 3 1\n2 1\n" * 50)
    (tmp_path / name).write_bytes(data[:len(data) // 2])
    raises(ValueError, tmp_path / name, f"{name}: corrupt or truncated gzip data")


@pytest.mark.parametrize("name", ["g.el", "g.el.gz", "g.mtx", "g.graph", "g.npy", "g.npz", "g.gcb"])
def test_missing_file(tmp_path, name):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / name)


def test_argument_types(tmp_path):
    path = write(tmp_path, "g.el", "0 1\n")
    raises(TypeError, lambda: load(123), "path must be a str or os.PathLike, not int")
    raises(TypeError, lambda: load(path, n=2.5), "n must be an integer, not float")
    raises(TypeError, lambda: load(path, n=True), "n must be an integer, not bool")
    raises(ValueError, lambda: load(path, n=-1), "n must be non-negative; got -1")
    assert load(str(path), n=np.int64(3)).n == 3
    raises(TypeError, lambda: save(object(), tmp_path / "g.el"), "cannot build a graph from object")


def test_error_messages_are_one_line_with_the_file_name(tmp_path):
    for name, text in [("a.el", "0 1\nx\n"), ("b.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n"),
                       ("c.graph", "2 1\n3\n\n")]:
        message = raises(ValueError, write(tmp_path, name, text), name)
        assert re.match(rf"{re.escape(name)}, line \d+(, column \d+)?: ", message)


def test_guesses_are_warned_from_python_and_printed_once_by_the_command(tmp_path, capsys):
    """A guess (here: a name that names no format, the first two of three columns) is a gconn.InputNote
    warning from gconn.load and connected_components, and the command line prints each note once."""
    import warnings
    import gconn
    from gconn import cli
    path = tmp_path / "g.dat"
    path.write_text("a,b,c\n0,1,5\n1,2,5\n")
    for call in (lambda: gconn.load(path), lambda: gconn.connected_components(path, backend="cpu")):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call()
        notes = [str(w.message) for w in seen if w.category is gconn.InputNote]
        assert any("its name names no format" in x for x in notes)
        assert any("the first two of 3" in x for x in notes)
        assert all(w.filename == __file__ for w in seen if w.category is gconn.InputNote)   # the caller's line
    assert cli.main(["cc", str(path), "-b", "cpu"]) == 0
    err = capsys.readouterr().err
    assert err.count("the first two of 3") == 1 and "InputNote" not in err


def test_a_lone_vertex_0_is_noted_from_python(tmp_path):
    """An edge list numbered from 1: vertex 0 counts as a component, said as an InputNote and in the stats."""
    import warnings
    import gconn
    one, zero = tmp_path / "one.el", tmp_path / "zero.el"
    one.write_text("1 2\n2 3\n5 6\n")
    zero.write_text("0 1\n1 2\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        k, labels, st = gconn.connected_components(one, backend="cpu", return_stats=True)
    assert k == 4 and any("one.el: vertex 0 is a component of its own" in x for x in st.input["notes"])
    assert any("vertex 0" in str(w.message) for w in seen if w.category is gconn.InputNote)
    for path, kw in ((zero, {}), (one, {"relabel": True})):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            gconn.connected_components(path, backend="cpu", **kw)
        assert not any("vertex 0" in str(w.message) for w in seen), (path, kw)


def test_a_folder_of_parts_says_how_to_read_them(tmp_path):
    """Spark and Dask write a graph as a folder of parts: the error names them and the way to read them."""
    import gconn
    folder = tmp_path / "edges"
    folder.mkdir()
    (folder / "_SUCCESS").touch()
    for i, text in enumerate(("0 1\n", "1 2\n")):
        (folder / f"part-0000{i}").write_text(text)
    with pytest.raises(IsADirectoryError, match=r"edges: is a directory.*\(part-00000, part-00001\).*gconn\.load\("):
        gconn.load(folder)
    assert gconn.load(sorted(folder.glob("part-*"))).m == 2
