"""Inputs that must not take the machine down: vertex ranges checked against
memory before allocating, relabelling of sparse ids, strict file syntax."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
from gconn.graph import memory, relabel
from gconn.graph import Graph

from oracles import check_forest

SRC = Path(__file__).resolve().parents[1] / "src"
LIMIT = "1G"  # the memory gconn may plan to use in these tests


@pytest.fixture
def limited(monkeypatch):
    """Cap the memory gconn plans with, so the checks fire on any machine."""
    monkeypatch.setenv("GCONN_MEMORY_LIMIT", LIMIT)


def message_of(excinfo) -> str:
    text = str(excinfo.value)
    assert "\n" not in text
    return text


# -- the memory check ------------------------------------------------------------------

def test_available_memory_and_override(monkeypatch):
    monkeypatch.delenv("GCONN_MEMORY_LIMIT", raising=False)
    free = memory.available_bytes()
    assert free is None or free > 0
    monkeypatch.setenv("GCONN_MEMORY_LIMIT", "512M")
    assert memory.available_bytes() == 512 * 10**6
    monkeypatch.setenv("GCONN_MEMORY_LIMIT", "lots")
    with pytest.raises(ValueError, match="GCONN_MEMORY_LIMIT='lots'"):
        memory.available_bytes()


def test_a_recent_reading_answers_only_far_from_the_limit(monkeypatch):
    """check_vertices reuses a reading of the system's memory up to
    REUSE_SECONDS old for requests below half of it; nearer the limit it
    reads again, so a refusal always rests on a fresh reading."""
    monkeypatch.delenv("GCONN_MEMORY_LIMIT", raising=False)
    system = {"bytes": 8 << 30, "reads": 0}

    def read():
        system["reads"] += 1
        return system["bytes"]

    monkeypatch.setattr(memory, "_system_available", read)
    monkeypatch.setattr(memory, "_READING", [])
    per = memory.BYTES_PER_VERTEX[4]
    small = (1 << 30) // per                 # 1 GiB: below half of 8 GiB
    memory.check_vertices(small, "n")
    memory.check_vertices(small, "n")
    assert system["reads"] == 1
    # the system's memory shrinks: a request near the old reading reads again and is refused
    system["bytes"] = 2 << 30
    with pytest.raises(gconn.VertexRangeError):
        memory.check_vertices((5 << 30) // per, "n")
    assert system["reads"] == 2
    # a stale reading is not reused
    monkeypatch.setattr(memory, "REUSE_SECONDS", 0.0)
    memory.check_vertices(small, "n")
    assert system["reads"] == 3


@pytest.mark.parametrize("text, value", [("8G", 8 * 10**9), ("512M", 512 * 10**6), ("1.5GB", 1_500_000_000),
                                         ("2k", 2000), ("123", 123), ("1T", 10**12), ("3GiB", 3 * 10**9)])
def test_parse_size(text, value):
    assert memory.parse_size(text) == value


@pytest.mark.parametrize("big", [2**32, 3_000_000_000])
def test_edges_past_memory_name_the_id(limited, big):
    with pytest.raises(gconn.VertexRangeError) as info:
        Graph.from_edges([0, 5, 1], [1, big, 2])
    text = message_of(info)
    assert text.startswith(f"dst[1]: vertex id {big} needs {big + 1:,} vertices")
    assert "1.0 GB is available" in text and "relabel=True" in text
    e = info.value
    assert isinstance(e, ValueError) and e.vertex_id == big and e.n == big + 1
    assert e.available == 10**9 and e.needed >= 28 * (big + 1)


def test_n_and_matrix_shapes_past_memory(limited):
    with pytest.raises(gconn.VertexRangeError, match=r"^n=100000000000 needs") as info:
        Graph.from_edges([0], [1], n=10**11)
    assert info.value.vertex_id is None and "pass a smaller n" in str(info.value)
    with pytest.raises(gconn.VertexRangeError, match=r"^n=10000000000 needs"):
        Graph.from_edges([], [], n=10**10)
    with pytest.raises(gconn.VertexRangeError, match=r"the matrix's shape \(3000000000, 3000000000\)"):
        Graph.from_scipy(sp.coo_matrix((3_000_000_000, 3_000_000_000)))


def test_under_the_limit_builds(limited):
    g = Graph.from_edges([0], [10**6])
    assert g.n == 10**6 + 1


def test_estimate_matches_what_a_build_allocates():
    # The estimate is the measured peak of build + connected components;
    # it must at least cover the arrays a graph keeps per vertex.
    g = Graph.from_edges([0], [999])
    kept = g.indptr.itemsize * (g.n + 1)
    assert memory.vertex_bytes(g.n) > kept
    assert memory.vertex_bytes(2**31) == 36 * 2**31 and memory.vertex_bytes(100) == 2800


def test_incremental_growth_past_memory(limited):
    ic = gconn.IncrementalConnectivity(backend="cpu")
    ic.insert([0, 1], [1, 2])
    with pytest.raises(gconn.VertexRangeError) as info:
        ic.insert([0, 3], [1, 2**32])
    text = message_of(info)
    assert text.startswith(f"dst[1]: vertex id {2**32} needs")
    assert "map sparse ids to 0..k-1" in text
    assert ic.n == 3 and ic.connected([0], [2]).tolist() == [True]  # still usable
    with pytest.raises(gconn.VertexRangeError, match=r"^n=1099511627776 needs"):
        gconn.IncrementalConnectivity(2**40, backend="cpu")


# -- files: the line (or header) the range came from --------------------------------------

def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    data = text.encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


@pytest.mark.parametrize("name", ["big.el", "big.el.gz", "big.csv"])
def test_edge_list_names_the_line(limited, tmp_path, name):
    sep = "," if name.endswith(".csv") else " "
    path = write(tmp_path, name, f"# comment\n0{sep}1\n\n7{sep}3000000000\n1{sep}2\n")
    with pytest.raises(gconn.VertexRangeError) as info:
        gconn.load(path)
    text = message_of(info)
    assert text.startswith(f"{name}, line 4: vertex id 3000000000 needs 3,000,000,001 vertices")
    assert "--relabel" in text


def test_declared_and_given_sizes_past_memory(limited, tmp_path):
    cases = [
        (write(tmp_path, "h.el", "# gconn edge list: n=5000000000 m=1\n0 1\n"), {},
         "h.el, line 1: the header's n=5000000000 needs"),
        (write(tmp_path, "m.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n"
                                  "4000000000 4000000000 1\n1 2\n"), {},
         "m.mtx, line 3: the 4000000000 x 4000000000 matrix needs"),
        (write(tmp_path, "g.graph", "5000000000 0\n"), {}, "g.graph, line 1: n=5000000000 needs"),
        (write(tmp_path, "s.el", "0 1\n"), {"n": 10**11}, "n=100000000000 needs"),
        (write(tmp_path, "s.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"),
         {"n": 10**11}, "n=100000000000 needs"),
    ]
    for path, kwargs, start in cases:
        with pytest.raises(gconn.VertexRangeError) as info:
            gconn.load(path, **kwargs)
        assert message_of(info).startswith(start), (path, str(info.value))


def test_numpy_files_past_memory(limited, tmp_path):
    np.save(tmp_path / "e.npy", np.array([[0, 1], [2, 3_000_000_000]]))
    with pytest.raises(gconn.VertexRangeError, match=r"^e\.npy: row 1, column 1: vertex id 3000000000"):
        gconn.load(tmp_path / "e.npy")
    np.savez(tmp_path / "e.npz", src=np.array([0]), dst=np.array([1]), n=np.int64(5 * 10**9))
    with pytest.raises(gconn.VertexRangeError, match=r"^e\.npz: the n=5000000000 stored in the file"):
        gconn.load(tmp_path / "e.npz")
    gconn.save(Graph.from_edges([0], [1]), tmp_path / "g.gcb")
    with pytest.raises(gconn.VertexRangeError, match=r"^n=100000000000 needs"):
        gconn.load(tmp_path / "g.gcb", n=10**11)


# -- relabelling -------------------------------------------------------------------------

def expected(src, dst):
    """scipy's answer on the ids that occur, numbered in increasing order."""
    ids, inv = np.unique(np.concatenate([src, dst]).astype(np.int64), return_inverse=True)
    m = len(src)
    A = sp.coo_matrix((np.ones(m), (inv[:m], inv[m:])), shape=(ids.size, ids.size))
    k, labels = scipy_cc(A, directed=False)
    return ids, k, labels


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**40), st.integers(0, 2**40)), max_size=60),
       st.sampled_from([10, 2**40]))
def test_relabel_matches_scipy(pairs, span):
    # span=10 folds the ids into a small range: the table path; 2**40: the hash path.
    arr = np.array(pairs, np.int64).reshape(-1, 2) % span
    src, dst = arr[:, 0], arr[:, 1]
    ids, k, ref = expected(src, dst)
    got_k, labels, got_ids = gconn.connected_components((src, dst), backend="cpu", relabel=True)
    assert got_ids.tolist() == ids.tolist() and got_ids.dtype == np.int64
    assert got_k == k and labels.tolist() == ref.tolist()


@pytest.mark.parametrize("span", [10**6, 2**62])
def test_relabel_paths_on_many_ids(span):
    # 200k distinct ids: the hash table grows several times past its start.
    rng = np.random.default_rng(3)
    pool = np.unique(rng.integers(0, span, 200_000))
    src = pool[rng.integers(0, pool.size, 300_000)]
    dst = pool[rng.integers(0, pool.size, 300_000)]
    s, d, got = relabel.dense_ids(src, dst)
    ids = np.unique(np.concatenate([src, dst]))
    assert np.array_equal(got, ids)
    assert np.array_equal(ids[s], src) and np.array_equal(ids[d], dst)


def test_hash_kernel_on_colliding_ids():
    from gconn.graph._relabel_kernels import IdTable
    # Multiples of a large power of two share their low bits.
    ids = (np.arange(70_000, dtype=np.int64) << 40)[::-1].copy()
    table = IdTable()
    out_s, out_d = table.map(ids, ids[::-1].copy())
    assert np.array_equal(table.ids, ids)
    assert np.array_equal(out_s, np.arange(ids.size)) and np.array_equal(out_d, np.arange(ids.size)[::-1])


def test_relabel_results():
    src, dst = [7, 3_000_000_000, 9, 11], [9, 5, 3_000_000_000, 11]
    k, labels, ids = gconn.connected_components((src, dst), backend="cpu", relabel=True)
    assert ids.tolist() == [5, 7, 9, 11, 3_000_000_000]
    assert k == 2 and labels.tolist() == [0, 0, 0, 1, 0]
    k2, smallest, _ = gconn.connected_components((src, dst), backend="cpu", relabel=True, compact=False)
    assert smallest.tolist() == [5, 5, 5, 11, 5]
    assert gconn.connected_components((src, dst), backend="cpu", relabel=True, return_labels=False) == 2
    fs, fd = gconn.spanning_forest((src, dst), backend="cpu", relabel=True)
    assert sorted(map(sorted, zip(fs.tolist(), fd.tolist()))) == \
        sorted(map(sorted, [(7, 9), (5, 3_000_000_000), (9, 3_000_000_000)]))
    g = Graph.from_edges(src, dst, relabel=True)
    check_forest(g, np.searchsorted(g.nodes, fs), np.searchsorted(g.nodes, fd), k)


def test_relabel_auto():
    # Small ranges stay as they are: ids 0..n-1, scipy's numbering.
    k, labels, ids, stats = gconn.connected_components(([0, 5], [1, 6]), backend="cpu", relabel="auto",
                                                      return_stats=True)
    assert ids.tolist() == list(range(7)) and labels.size == 7 and not stats.relabelled
    # A range far above the ids that occur is relabelled.
    big = relabel.AUTO_MIN_RANGE * 10
    k, labels, ids, stats = gconn.connected_components(([0, big], [1, 2]), backend="cpu", relabel="auto",
                                                      return_stats=True)
    assert ids.tolist() == [0, 1, 2, big] and k == 2 and stats.relabelled
    assert stats.as_dict()["relabelled"] is True
    g = Graph.from_edges([0, big], [1, 2], relabel="auto")  # reported for a built graph too
    assert gconn.connected_components(g, backend="cpu", return_stats=True)[2].relabelled
    import networkx as nx
    assert not gconn.connected_components(nx.path_graph(3), backend="cpu", return_stats=True)[2].relabelled
    # Dense enough (range <= 4 x distinct) is kept, even past the floor.
    n = relabel.AUTO_MIN_RANGE
    src = np.arange(0, n, 2)
    g = Graph.from_edges(src, src + 1, relabel="auto")
    assert g.nodes is None and g.n == n
    sparse = np.arange(0, 2 * n, 16)  # 1/8 of the range occurs
    g = Graph.from_edges(sparse, sparse + 1, relabel="auto")
    assert g.nodes is not None and g.n == n // 4


def test_relabel_rules():
    with pytest.raises(TypeError, match="relabel applies to edge arrays, tables and files, not to a gconn.Graph"):
        gconn.connected_components(Graph.from_edges([0], [1]), relabel=True)
    with pytest.raises(ValueError, match="n cannot be combined with relabel"):
        Graph.from_edges([0], [1], n=5, relabel=True)
    with pytest.raises(ValueError, match="relabel must be False, True or 'auto'"):
        Graph.from_edges([0], [1], relabel="yes")
    with pytest.raises(ValueError, match="negative vertex id -3"):
        Graph.from_edges([0], [-3], relabel=True)
    assert Graph.from_edges([], [], relabel=True).nodes.tolist() == []
    # "auto" with an explicit n keeps every vertex
    assert Graph.from_edges([0], [10**7], n=10**7 + 5, relabel="auto").n == 10**7 + 5


def test_load_relabel(tmp_path):
    el = write(tmp_path, "g.el", "0 3000000000\n3000000000 42\n")
    g = gconn.load(el, relabel=True)
    assert g.nodes.tolist() == [0, 42, 3_000_000_000] and g.m == 2
    assert gconn.load(el, relabel="auto").nodes.tolist() == [0, 42, 3_000_000_000]
    mtx = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                   "3000000000 3000000000 2\n3000000000 1\n5 1\n")
    g = gconn.load(mtx, relabel=True)
    assert g.nodes.tolist() == [0, 4, 2_999_999_999]  # 0-based: index i is vertex i - 1
    small = write(tmp_path, "s.mtx", "%%MatrixMarket matrix coordinate pattern general\n9 9 1\n1 2\n")
    assert gconn.load(small, relabel="auto").n == 9  # a declared size is kept
    assert gconn.load(small, relabel=True).n == 2
    np.save(tmp_path / "e.npy", np.array([[4, 2**40]]))
    assert gconn.load(tmp_path / "e.npy", relabel=True).nodes.tolist() == [4, 2**40]
    np.savez(tmp_path / "e.npz", src=np.array([4]), dst=np.array([9]), n=np.int64(100))
    assert gconn.load(tmp_path / "e.npz", relabel=True).nodes.tolist() == [4, 9]
    gconn.save(Graph.from_edges([3], [8], n=20), tmp_path / "g.gcb")
    assert gconn.load(tmp_path / "g.gcb", relabel=True).nodes.tolist() == [3, 8]
    metis = write(tmp_path, "g.graph", "4 1\n\n3\n2\n\n")
    assert gconn.load(metis, relabel=True).nodes.tolist() == [1, 2]
    with pytest.raises(ValueError, match="n cannot be combined with relabel=True"):
        gconn.load(el, n=5, relabel=True)


@pytest.mark.parametrize("name", ["g.el", "g.csv.gz", "g.npz", "g.parquet"])
def test_save_relabelled_keeps_the_ids(tmp_path, name):
    g = Graph.from_edges([0, 3_000_000_000, 7], [3_000_000_000, 7, 0], relabel=True)
    gconn.save(g, tmp_path / name)
    for back in (gconn.load(tmp_path / name), gconn.load(tmp_path / name, relabel=True)):
        assert back.nodes.tolist() == [0, 7, 3_000_000_000] and back == g


def test_save_relabelled_refuses_npy(tmp_path):
    # .npy holds the edges alone: loaded back, its ids would be vertices 0..3e9
    g = Graph.from_edges([0, 3_000_000_000, 7], [3_000_000_000, 7, 0], relabel=True)
    with pytest.raises(ValueError, match="g.npy: the graph is relabelled .*which npy cannot store"):
        gconn.save(g, tmp_path / "g.npy")


@pytest.mark.parametrize("name", ["g.mtx", "g.graph", "g.gcb"])
def test_save_relabelled_refuses_dense_formats(tmp_path, name):
    g = Graph.from_edges([0], [3_000_000_000], relabel=True)
    with pytest.raises(ValueError, match="the graph is relabelled"):
        gconn.save(g, tmp_path / name)
    assert not (tmp_path / name).exists()
    g.nodes = None
    gconn.save(g, tmp_path / name)
    assert gconn.load(tmp_path / name).m == 1


# -- strict syntax ----------------------------------------------------------------------

MTX = "%%MatrixMarket matrix coordinate {field} general\n3 3 2\n1 2{value}\n{entry}\n"


@pytest.mark.parametrize("field, entry, expected", [
    ("pattern", "3 1.5", "an entry 'row col' with integer indices"),
    ("pattern", "3 1 7", "an entry 'row col' with integer indices"),
    ("pattern", "3 1e0", "an entry 'row col' with integer indices"),
    ("pattern", "3 1x", "an entry 'row col' with integer indices"),
    ("pattern", "3", "an entry 'row col' with integer indices"),
    ("integer", "3 1 2.5", "an integer value"),
    ("integer", "3 1", "an integer value"),
    ("integer", "3 1 2 9", "an integer value"),
    ("real", "3 1 2.5 7", "a real value"),
    ("real", "3 1 1e", "a real value"),
    ("real", "3 1 .", "a real value"),
    ("real", "3 1 --1", "a real value"),
    ("complex", "3 1 2.5", "a real and an imaginary part"),
])
@pytest.mark.parametrize("gz", [False, True])
def test_mtx_entries_are_strict(tmp_path, field, entry, expected, gz):
    value = "" if field == "pattern" else (" 1 0" if field == "complex" else " 1")
    name = "g.mtx.gz" if gz else "g.mtx"
    path = write(tmp_path, name, MTX.format(field=field, value=value, entry=entry))
    with pytest.raises(ValueError) as info:
        gconn.load(path)
    text = message_of(info)
    assert text.startswith(f"{name}, line 4: expected ") and expected in text and repr(entry) in text


@pytest.mark.parametrize("field, entry", [
    ("integer", "3 1 -7"), ("real", "3 1 -1.5e-3"), ("real", "3 1 .5"),
    ("real", "3 1 5."), ("real", "3 1 1E+9"), ("real", "3 1 inf"), ("real", "3 1 NaN"),
    ("complex", "3 1 1.0 -2"), ("pattern", "  3\t1  "),
])
def test_mtx_valid_entries_still_read(tmp_path, field, entry):
    value = "" if field == "pattern" else (" 1 0" if field == "complex" else " 1")
    g = gconn.load(write(tmp_path, "g.mtx", MTX.format(field=field, value=value, entry=entry)))
    assert g.n == 3 and g.m == 2


def test_mtx_dense_array_is_strict(tmp_path):
    good = "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1.5\n"
    assert gconn.load(write(tmp_path, "a.mtx", good)).m == 0
    bad = "%%MatrixMarket matrix array real general\n2 2\n1\n0 3\n0\n1\n"
    with pytest.raises(ValueError, match=r"^a\.mtx, line 4: expected one real value per line, got '0 3'"):
        gconn.load(write(tmp_path, "a.mtx", bad))


@pytest.mark.parametrize("line, column, message", [
    ("1,,2", 3, "an empty field"), (",1,2", 1, "an empty field"), ("1.5,2", 1, "'1.5' is not a vertex id"),
    ("1,2.5", 3, "'2.5' is not a vertex id"), ("1,x", 3, "'x' is not a vertex id"),
    ("0x1,2", 1, "'0x1' is not a vertex id"), ("1 2", 1, "'1 2' is not a vertex id"),
    ("1,2,3", 5, "more than the 2 fields of line 1")])
def test_edge_list_rejects(tmp_path, line, column, message):
    path = write(tmp_path, "g.csv", f"0,1\n{line}\n")
    with pytest.raises(ValueError, match=rf"^g\.csv, line 2, column {column}: {message}"):
        gconn.load(path)


# -- the command -------------------------------------------------------------------------

def gconn_cmd(*args, cwd, env=None, stdin=None):
    full_env = dict(os.environ, PYTHONPATH=str(SRC), **(env or {}))
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "gconn", *args], capture_output=True, text=True, cwd=cwd,
                         env=full_env, timeout=180, input=stdin)
    return res, time.perf_counter() - t0


@pytest.mark.parametrize("big", [3_000_000_000, 2**32])
def test_cli_sparse_ids_subprocess(tmp_path, big):
    (tmp_path / "big.el").write_text(f"0 {big}\n")
    # Without relabelling the range cannot fit: a quick, clear error (the
    # limit makes that so on a machine of any size).
    res, seconds = gconn_cmd("cc", "big.el", "--no-relabel", "-b", "cpu", cwd=tmp_path,
                             env={"GCONN_MEMORY_LIMIT": "1G"})
    assert res.returncode == 1 and res.stdout == ""
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"gconn: error: big.el, line 1: vertex id {big} needs "
                                               f"{big + 1:,} vertices"), res.stderr
    assert "1.0 GB is available" in err[0] and "--relabel" in err[0]
    assert seconds < 60
    for flag in ("--relabel", None):  # asked for, and chosen automatically
        res, _ = gconn_cmd("cc", "big.el", "-b", "cpu", *([flag] if flag else []), "-o", "labels.txt",
                           cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        out = dict(line.split(None, 1) for line in res.stdout.splitlines() if not line.startswith(" "))
        assert out["n"] == "2" and out["components"] == "1" and out["largest"].startswith("2 ")
        assert out["ids"].startswith("relabelled (--relabel)" if flag else "relabelled (automatically")
        assert (tmp_path / "labels.txt").read_text().splitlines()[1:] == ["0 0", f"{big} 0"]


def test_cli_stdin(tmp_path):
    res, _ = gconn_cmd("cc", "-", "-b", "cpu", "--json", cwd=tmp_path, stdin="0 1\n2 3\n4 5\n5 6\n")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["input"] == "stdin" and out["n"] == 7 and out["components"] == 3
    mtx = "%%MatrixMarket matrix coordinate pattern general\n4 4 1\n1 2\n"
    res, _ = gconn_cmd("cc", "-", "--format", "mtx", "-b", "cpu", "--json", cwd=tmp_path, stdin=mtx)
    assert res.returncode == 0 and json.loads(res.stdout)["components"] == 3, res.stderr
    res, _ = gconn_cmd("cc", "-", "-b", "cpu", cwd=tmp_path, stdin="0 1\n1.5 2\n")
    assert res.returncode == 1
    assert res.stderr.strip().splitlines()[-1] == ("gconn: error: stdin, line 2, column 1: '1.5' is not a vertex id: "
                                                   "ids are integers >= 0 (digits only)")


@pytest.mark.parametrize("where", [0, 1234, 4999])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_mtx_strict_pass_finds_one_bad_line_among_many(tmp_path, where, newline):
    # The pass runs in 64 pieces; a bad line must be found in any of them.
    rng = np.random.default_rng(where)
    entries = [f"{a} {b}" for a, b in rng.integers(1, 101, (5000, 2))]
    header = "%%MatrixMarket matrix coordinate pattern general\n100 100 5000\n"
    good = header + newline.join(entries)  # no newline after the last entry
    assert gconn.load(write(tmp_path, "g.mtx", good)).n == 100
    entries[where] = "7 7.0"
    with pytest.raises(ValueError, match=rf"^g\.mtx, line {where + 3}: expected an entry 'row col'"):
        gconn.load(write(tmp_path, "g.mtx", header + newline.join(entries)))
