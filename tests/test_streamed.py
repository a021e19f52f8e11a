"""Files, streamed: gconn.io.edge_chunks, the chunked CPU union, and the
streamed paths of connected_components / spanning_forest / gconn cc,
against SciPy."""
from __future__ import annotations

import gzip
import json
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
from gconn.chunked import cpu as chunked
from gconn.cli import main
from gconn.design import Plan, Variant
from gconn.io import chunks as C
from gconn.io import edge_chunks, identify, load, save

from oracles import check_forest

PLAN = Plan.of(Variant.parse("none+union-async+find-halve"))


def scipy_labels(src, dst, n):
    A = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    return scipy_cc(A, directed=False)


def components_graph(seed: int, n: int = 300, parts: int = 7, extra: int = 200):
    """Edges of ``parts`` random trees plus chords, shuffled: any chunking
    cuts through components."""
    rng = np.random.default_rng(seed)
    owner = rng.integers(0, parts, n)
    src, dst = [], []
    for p in range(parts):
        members = rng.permutation(np.flatnonzero(owner == p))
        for i in range(1, members.size):
            src.append(members[i])
            dst.append(members[rng.integers(0, i)])
        for _ in range(extra // parts if members.size else 0):
            a, b = rng.choice(members, 2)
            src.append(a)
            dst.append(b)
    order = rng.permutation(len(src))
    return np.array(src)[order], np.array(dst)[order], n


def write_text(path, src, dst, sep=" ", header=None, comments=False, gz=False):
    lines = [header] if header else []
    for i, (a, b) in enumerate(zip(src.tolist(), dst.tolist())):
        if comments and i % 17 == 0:
            lines.append("# a comment\n% another")
        lines.append(f"{a}{sep}{b}")
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


@pytest.fixture
def small_blocks(monkeypatch):
    # Blocks of a few lines: every line end and chunk boundary is crossed.
    monkeypatch.setattr(C, "BLOCK_BYTES", 64)


@pytest.mark.parametrize("name,sep,header,comments", [
    ("g.el", " ", None, False),
    ("g.txt", "\t", "# Directed graph (SNAP)\n# FromNodeId\tToNodeId", True),
    ("g.csv", ",", "from,to", False),
    ("g.csv", ",", None, True),
    ("g.el.gz", "  ", None, True),
    ("g.tsv.gz", "\t", "a\tb", False),
])
@pytest.mark.parametrize("chunk", [1, 7, None])
def test_streamed_matches_scipy(tmp_path, small_blocks, name, sep, header, comments, chunk):
    src, dst, n = components_graph(len(name) + (chunk or 0))
    path = write_text(tmp_path / name, src, dst, sep, header, comments, gz=name.endswith(".gz"))
    chunk = chunk or src.size  # None: one chunk of m edges
    parts = list(edge_chunks(path, chunk_edges=chunk))
    assert [s.size for s, _ in parts] == [chunk] * (src.size // chunk) + ([src.size % chunk] if src.size % chunk
                                                                          else [])
    assert np.array_equal(np.concatenate([s for s, _ in parts]), src)
    assert np.array_equal(np.concatenate([d for _, d in parts]), dst)
    run = chunked.run_file(path, PLAN, chunk_edges=chunk, forest=True)
    k_ref, ref = scipy_labels(src, dst, n)
    k, labels = run.components(compact=True)
    assert (k, labels.tolist()) == (k_ref, ref.tolist())
    fs, fd = run.union.forest()
    check_forest(gconn.Graph.from_edges(src, dst, n), fs, fd, k_ref)


def test_ids_grow_across_chunks(tmp_path, small_blocks):
    # Each chunk brings ids past the parent array's capacity: it doubles.
    src = np.array([0, 1, 2000, 5, 40000, 100000, 3, 99999])
    dst = np.array([1, 2, 1, 2000, 3, 40000, 100000, 7])
    path = write_text(tmp_path / "grow.el", src, dst)
    u = chunked.run_file(path, PLAN, chunk_edges=2).union
    assert u.n == 100001 and u.state.P.size >= u.n
    k, labels = chunked.run_file(path, PLAN, chunk_edges=2).components(compact=True)
    k_ref, ref = scipy_labels(src, dst, 100001)
    assert k == k_ref and np.array_equal(labels, ref)


@pytest.mark.parametrize("text", ["", "0 1\n2 3\n", "# only a comment\n", "0 1\n2 3\n4 5"])
def test_files_ending_at_a_block_boundary_or_empty(tmp_path, monkeypatch, text):
    monkeypatch.setattr(C, "BLOCK_BYTES", 8)  # "0 1\n2 3\n" fills one block exactly
    path = tmp_path / "e.el"
    path.write_text(text)
    pairs = [(int(a), int(b)) for s, d in edge_chunks(path) for a, b in zip(s, d)]
    assert pairs == [(0, 1), (2, 3), (4, 5)][:text.count(" ") if "#" not in text else 0]


def test_id_width_switches_to_int64(tmp_path, small_blocks):
    path = tmp_path / "wide.el"
    path.write_text("".join(f"{i} {i + 1}\n" for i in range(30)) + "4 3000000000\n5 6\n")
    chunks = list(edge_chunks(path, chunk_edges=10))
    widths = [s.dtype for s, _ in chunks]
    assert widths[0] == np.int32 and widths[-1] == np.int64 and widths == sorted(widths, key=lambda t: t.itemsize)
    assert chunks[-1][1].tolist() == [3000000000, 6] and chunks[0][1].tolist() == list(range(1, 11))


@pytest.mark.parametrize("line,message", [
    ("5 x", "big.el, line 1003, column 3: 'x' is not a vertex id"),
    ("5 -2", "big.el, line 1003, column 3: negative vertex id -2"),
    ("  7", "big.el, line 1003, column 4: 1 field, but the lines of this file have 2"),
    ("1.5 2", "big.el, line 1003, column 1: '1.5' is not a vertex id"),
    ("3 99999999999999999999", "big.el, line 1003, column 3: vertex id 99999999999999999999 is too large"),
    ("3 4 5", "big.el, line 1003, column 5: more than the 2 fields of line 3"),
    ("3,4", "big.el, line 1003, column 1: '3,4' is not a vertex id"),
])
def test_bad_token_in_a_later_chunk(tmp_path, small_blocks, line, message):
    good = "\n".join(f"{i} {i + 1}" for i in range(1000))
    path = tmp_path / "big.el"
    path.write_text(f"# two\n# comments\n{good}\n{line}\n0 1\n")
    with pytest.raises(ValueError) as info:
        list(edge_chunks(path, chunk_edges=10))
    assert str(info.value).startswith(message)
    with pytest.raises(ValueError) as info:
        gconn.connected_components(path, backend="cpu")
    assert str(info.value).startswith(message)
    # The whole-file reader says the same.
    with pytest.raises(ValueError) as info:
        load(path)
    assert str(info.value).startswith(message)


def test_declared_n_keeps_isolated_vertices_and_bounds_ids(tmp_path):
    path = tmp_path / "h.el"
    path.write_text("# gconn edge list: n=6 m=1\n0 1\n")
    k, labels = gconn.connected_components(path, backend="cpu")
    assert (k, labels.tolist()) == (5, [0, 0, 1, 2, 3, 4])
    path.write_text("# gconn edge list: n=3 m=1\n0 1\n1 3\n")
    with pytest.raises(ValueError, match=r"^h\.el, line 3, column 3: vertex id 3 is out of range for n=3"):
        gconn.connected_components(path, backend="cpu")


@pytest.mark.parametrize("fmt", ["gcb", "npy"])
def test_binary_formats(tmp_path, fmt):
    src, dst, n = components_graph(3)
    # .npy cannot store isolated vertices past the largest id: save refuses them there
    size = n + 5 if fmt == "gcb" else int(max(src.max(), dst.max())) + 1
    g = gconn.Graph.from_edges(src, dst, size)
    path = tmp_path / f"g.{fmt}"
    save(g, path)
    parts = list(edge_chunks(path, chunk_edges=13))
    assert max(s.size for s, _ in parts) == 13
    assert np.array_equal(np.concatenate([s for s, _ in parts]), g.src)
    k, labels = gconn.connected_components(path, backend="cpu")
    k_ref, ref = scipy_labels(src, dst, size)
    assert k == k_ref and labels.tolist() == ref.tolist()


def test_corrupt_gcb_id(tmp_path):
    path = tmp_path / "g.gcb"
    save(gconn.Graph.from_edges([0, 1], [1, 2]), path)
    data = bytearray(path.read_bytes())
    data[-4:] = (7).to_bytes(4, "little")  # the last dst id
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"g\.gcb: corrupt \.gcb file: vertex id 7 is outside 0\.\.2"):
        list(edge_chunks(path))


def test_api_streams_and_matches_the_load_path(tmp_path, monkeypatch):
    src, dst, n = components_graph(5)
    path = write_text(tmp_path / "g.el", src, dst)
    whole = gconn.load(path)
    for compact in (True, False):
        k, labels, stats = gconn.connected_components(path, backend="cpu", compact=compact, return_stats=True)
        k_ref, ref = gconn.connected_components(whole, backend="cpu", compact=compact)
        assert k == k_ref and np.array_equal(labels, ref)
        assert "finish" in stats.phase_times and stats.m == src.size
    fs, fd = gconn.spanning_forest(path, backend="cpu")
    check_forest(whole, fs, fd, k_ref)
    # A sampling variant asked for loads the graph as before.
    monkeypatch.setattr(chunked, "run_file", lambda *a, **kw: pytest.fail("streamed a sampling variant"))
    k, labels = gconn.connected_components(path, backend="cpu", algorithm="kout+union-async")
    assert k == k_ref


def test_relabel_auto_on_sparse_ids(tmp_path):
    # ids past 2^20 and sparse: "auto" numbers the occurring ones, a self
    # loop included, as the whole-file path does.
    path = tmp_path / "sparse.el"
    path.write_text("0 1\n2000000 1\n7 7\n1500000 30\n")
    k, labels, ids = gconn.connected_components(path, backend="cpu", relabel="auto")
    g = gconn.load(path, relabel="auto")
    k_ref, ref = gconn.connected_components(g, backend="cpu")
    assert ids.tolist() == g.nodes.tolist() == [0, 1, 7, 30, 1500000, 2000000]
    assert k == k_ref == 3 and labels.tolist() == ref.tolist()
    k, labels, ids = gconn.connected_components(path, backend="cpu", relabel="auto", compact=False)
    assert labels.tolist() == [0, 0, 7, 30, 30, 0]


def test_names_fall_back_to_loading(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("from,to\nann,bob\ncid,dan\n")
    assert isinstance(C.of_file(identify(path)), str)
    with pytest.raises(ValueError, match="names"):
        edge_chunks(path)
    k, labels, names = gconn.connected_components(path, backend="cpu", relabel=True)
    assert k == 2 and names.tolist() == ["ann", "bob", "cid", "dan"]


@pytest.mark.parametrize("fmt", ["el", "gcb"])
def test_peak_memory_is_n_plus_chunk(tmp_path, monkeypatch, fmt):
    """m = 200,000 edges on 50 vertices: the streamed run's Python-visible
    allocations stay near one chunk and the parent array, far below the
    1.6 MB of the edges as int32 pairs."""
    rng = np.random.default_rng(1)
    m, n = 200_000, 50
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    path = tmp_path / f"many.{fmt}"
    if fmt == "el":
        write_text(path, src, dst)
        monkeypatch.setattr(C, "BLOCK_BYTES", 1 << 14)
    else:
        # A .gcb holding repeated edges (gconn writes none): the layout is all the stream reads.
        from types import SimpleNamespace
        from gconn.io.binary import write_gcb
        with open(path, "wb") as f:
            write_gcb(SimpleNamespace(n=n, m=m, indptr=np.r_[np.zeros(n, np.int32), 2 * m].astype(np.int32),
                                  indices=np.zeros(2 * m, np.int32), src=src, dst=dst), f)
    chunk = 1000
    chunked.run_file(path, PLAN, chunk_edges=chunk)  # compile and warm up first
    tracemalloc.start()
    try:
        run = chunked.run_file(path, PLAN, chunk_edges=chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert run.m == m
    assert peak < 160_000, peak  # a tenth of the edges' bytes
    k_ref, ref = scipy_labels(src, dst, n)
    assert run.components(compact=True)[1].tolist() == ref.tolist()


def test_cli_cc_streams_a_file(tmp_path, capsys):
    src, dst, n = components_graph(9)
    path = write_text(tmp_path / "g.el.gz", src, dst, gz=True)
    out = tmp_path / "labels.npy"
    assert main(["cc", str(path), "--json", "-q", "-o", str(out), "--labels-format", "plain"]) == 0
    result = json.loads(capsys.readouterr().out)
    k_ref, ref = scipy_labels(src, dst, n)
    assert result["chunked"] and result["components"] == k_ref and result["m"] == src.size
    assert np.load(out).tolist() == ref.tolist()
    # --compare needs the graph: it loads it, as before.
    assert main(["cc", str(path), "--json", "-q", "--compare"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert not result.get("chunked") and result["matches_scipy"]


@pytest.mark.parametrize("algorithm", ["none+union-rem-cas+find-naive+split-one", "union-jtb", "union-hooks"])
def test_other_union_find_variants_stream(tmp_path, monkeypatch, algorithm):
    src, dst, n = components_graph(11)
    path = write_text(tmp_path / "g.el", src, dst)
    calls = []
    real = chunked.run_file
    monkeypatch.setattr(chunked, "run_file", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    k_ref, ref = scipy_labels(src, dst, n)
    k, labels = gconn.connected_components(path, backend="cpu", algorithm=algorithm)
    assert calls and k == k_ref and labels.tolist() == ref.tolist()
    k, mins = gconn.connected_components(path, backend="cpu", algorithm=algorithm, compact=False)
    first = {}
    assert mins.tolist() == [first.setdefault(lab, v) for v, lab in enumerate(ref.tolist())]
    fs, fd = gconn.spanning_forest(path, backend="cpu", algorithm=algorithm)
    check_forest(gconn.Graph.from_edges(src, dst, n), fs, fd, k_ref)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(edges=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=40),
       chunk=st.integers(1, 45), block=st.integers(8, 120), sep=st.sampled_from([" ", "\t", ",", "  "]),
       newline=st.sampled_from(["\n", "\r\n"]), comments=st.lists(st.integers(0, 40), max_size=3))
def test_any_chunking_reads_the_file_s_edges(tmp_path_factory, edges, chunk, block, sep, newline, comments):
    lines = [f"{a}{sep}{b}" for a, b in edges]
    for i in sorted(comments, reverse=True):
        lines.insert(min(i, len(lines)), "# note")
    path = tmp_path_factory.mktemp("chunks") / "e.el"
    path.write_bytes(newline.join(lines).encode())  # the last line without a newline
    saved = C.BLOCK_BYTES
    C.BLOCK_BYTES = block
    try:
        # header=False: a first edge 'a b' above b edges with ids below a would be asked about (a count line?)
        parts = list(edge_chunks(path, chunk_edges=chunk, header=False))
        run = chunked.run_file(identify(path, header=False), PLAN, chunk_edges=chunk)
    finally:
        C.BLOCK_BYTES = saved
    assert all(0 < s.size <= chunk for s, _ in parts) and all(s.size == chunk for s, _ in parts[:-1])
    got = [(int(a), int(b)) for s, d in parts for a, b in zip(s, d)]
    assert got == edges
    n = 1 + max((max(e) for e in edges), default=-1)
    k_ref, ref = scipy_labels([a for a, _ in edges], [b for _, b in edges], n)
    k, labels = run.components(compact=True)
    assert (k, labels.tolist()) == (k_ref, ref.tolist())
