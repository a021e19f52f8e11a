"""gconn.backends._aot, the ahead-of-time compiled kernels of one-off runs, and the
dispatch that uses them without importing numba (gconn.backends.aot).

pip builds gconn.backends._aot, so these tests fail (they do not skip) where it is
missing; in a development checkout, build it with
``PYTHONPATH=src python -m gconn.backends.aot_build``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
from gconn.backends import aot
from gconn.io import _kernels

SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(scope="module")
def compiled():
    mod = aot.module()
    if mod is None:
        pytest.fail("gconn.backends._aot is not built: `pip install -e .` builds it; in a development checkout run "
                    "`PYTHONPATH=src python -m gconn.backends.aot_build`")
    return mod


# What gconn.backends._aot is compiled from (src/gconn/backends/aot_build.py).
BUILT_FROM = ["backends/aot_build.py", "backends/aot.py", "design.py", "backends/core/unionfind.py",
              "backends/core/primitives.py", "backends/cpu/unionfind.py", "backends/cpu/backend.py", "io/_kernels.py",
              "io/_parsers.py", "io/_codes.py"]


def test_compiled_module_is_not_stale(compiled):
    # a few seconds' slack: installing a wheel writes its files one by one
    built = os.path.getmtime(compiled.__file__) + 5
    package = Path(gconn.__file__).parent
    newer = [name for name in BUILT_FROM if os.path.getmtime(package / name) > built]
    assert not newer, (f"gconn.backends._aot is older than {newer}: rebuild it (`pip install -e .`, or "
                       "`PYTHONPATH=src python -m gconn.backends.aot_build` in a development checkout)")


def scipy_labels(src, dst, n):
    A = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    return scipy_cc(A, directed=False)


def random_edges(seed, n, m, dtype):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m).astype(dtype), rng.integers(0, n, m).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("n, m", [(1, 1), (50, 20), (1000, 600), (1000, 5000), (20000, 30000)])
def test_components_are_scipys(compiled, dtype, n, m):
    # sparse ones leave isolated vertices below the largest id
    src, dst = random_edges(n * m, n, m, dtype)
    e = aot.raw(src, dst, None)
    k, labels = aot.components_of(e)
    k_ref, ref = scipy_labels(src, dst, e.n)
    assert k == k_ref and labels.dtype == np.int32
    np.testing.assert_array_equal(labels, ref)
    k_min, mins = aot.components_of(e, compact=False)
    smallest = np.full(k, e.n)
    np.minimum.at(smallest, ref, np.arange(e.n))
    assert k_min == k
    np.testing.assert_array_equal(mins, smallest[ref])


@pytest.mark.parametrize("kind", ["i4i4", "i8i4", "i8i8"])
def test_every_signature(compiled, kind):
    edt = np.int32 if kind[:2] == "i4" else np.int64
    vdt = np.int32 if kind[2:] == "i4" else np.int64
    src, dst = random_edges(7, 3000, 2500, edt)
    k, labels = getattr(compiled, f"components_{kind}")(src, dst, np.empty(3000, vdt))
    k_ref, ref = scipy_labels(src, dst, 3000)
    assert k == k_ref and labels.dtype == vdt
    np.testing.assert_array_equal(labels, ref)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=80))
def test_forest_spans_every_component(compiled, pairs):
    src = np.array([p[0] for p in pairs], np.int64)
    dst = np.array([p[1] for p in pairs], np.int64)
    e = aot.raw(src, dst, None)
    fa, fb = aot.forest_of(e)
    k, _ = scipy_labels(src, dst, e.n)
    assert fa.size == e.n - k and fa.dtype == np.int32
    # n - k edges of the input that leave k components form a forest
    assert scipy_labels(fa, fb, e.n)[0] == k
    edges = set(zip(src.tolist(), dst.tolist()))
    assert all((a, b) in edges for a, b in zip(fa.tolist(), fb.tolist()))


@pytest.mark.parametrize("graph", [([], []), (np.zeros(0, np.int64), np.zeros(0, np.int64)), ([3], [3]),
                                   np.array([[0, 5], [1, 2], [7, 7]]), ([0, 1, 9], [1, 2, 4])])
def test_api_answers_as_the_jit_backend(compiled, graph):
    jit = "none+union-async+find-halve"
    for kw in ({}, {"compact": False}, {"return_labels": False}):
        got = gconn.connected_components(graph, **kw)
        want = gconn.connected_components(graph, algorithm=jit, **kw)
        assert type(got) is type(want)
        if isinstance(want, tuple):
            assert got[0] == want[0] and got[1].dtype == want[1].dtype
            np.testing.assert_array_equal(got[1], want[1])
        else:
            assert got == want
    fa, fb = gconn.spanning_forest(graph)
    ja, _ = gconn.spanning_forest(graph, algorithm=jit)
    assert fa.dtype == ja.dtype and fa.size == ja.size


@pytest.mark.parametrize("name, text", [
    ("g.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n8 8 3\n2 1\n3 2\n6 5\n"),
    ("g.el", "# gconn edge list: n=9 m=3\n0 1\n1 2\n5 4\n"),
    ("h.el", "0 1\n1 2\n7 4\n2 1\n3 3\n"),
    ("g.graph", "% METIS\n6 3\n2\n1 3\n2\n\n6\n5\n"),
    ("g.gr", "c DIMACS\np sp 7 3\na 1 2 5\na 2 3 1\na 6 5 2\n")])
def test_files_answer_as_the_jit_backend(compiled, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    got = gconn.connected_components(str(path))
    want = gconn.connected_components(path, algorithm="none+union-async+find-halve")
    assert got[0] == want[0] and got[1].dtype == want[1].dtype
    np.testing.assert_array_equal(got[1], want[1])
    assert gconn.spanning_forest(path)[0].size == gconn.spanning_forest(path, algorithm="hb+union-async")[0].size


def test_bad_ids_raise_as_before(compiled):
    with pytest.raises(ValueError, match=r"negative vertex id -1 \(dst\[1\]\)"):
        gconn.connected_components(([0, 1], [2, -1]))
    with pytest.raises(TypeError, match="src has float dtype"):
        gconn.connected_components(([0.5], [1]))
    with pytest.raises(ValueError, match="different lengths"):
        gconn.connected_components(([0, 1], [1]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["1 2", "3\t4", "5,6", "% c", "# c", "", "  7 8 9", "1.5 2", "1 x", "-3 4",
                                 "1,,2", "99999999999999999999 1", "2", "1 2 3.5", "1 2 1e3"]), max_size=12),
       st.sampled_from([-1, 5, 100]))
def test_compiled_parsers_are_the_jit_parsers(compiled, lines, limit):
    buf = np.frombuffer("\n".join(lines).encode(), np.uint8)
    for base in (0, 1):
        outs = []
        for mod in (compiled, _kernels):
            src, dst = np.zeros(20, np.int64), np.zeros(20, np.int64)
            outs.append((mod.parse_pairs(buf, 0, 1, base, limit, 2, -1, src, dst), src.tolist(), dst.tolist()))
        assert outs[0] == outs[1]
    for nvals, kind in ((0, 0), (1, 0), (1, 1)):
        assert compiled.check_entries(buf, 0, 1, 2, nvals, kind) == _kernels.check_entries(buf, 0, 1, 2, nvals, kind)
        assert compiled.entries_ok(buf, 0, 2, nvals, kind, 8) == _kernels.entries_ok(buf, 0, 2, nvals, kind, 8)
    assert compiled.count_lines(buf) == _kernels.count_lines(buf)
    assert compiled.line_start(buf, 3) == _kernels.line_start(buf, 3)
    for delim, fields, ca, cb, numbers in ((0, 2, 0, 1, True), (44, 2, 0, 1, True), (0, 3, 2, 0, False),
                                          (0, 3, 0, 1, True)):
        outs = []
        for mod in (compiled, _kernels):
            src, dst = np.zeros(20, np.int64), np.zeros(20, np.int64)
            outs.append((mod.parse_edges(buf, 0, 1, delim, fields, ca, cb, numbers, limit, src, dst), src.tolist(),
                         dst.tolist()))
        assert outs[0] == outs[1]


def fresh_python(code: str, cwd):
    """Run ``code`` in a new interpreter (gconn from this checkout); it
    prints one JSON object."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_a_small_call_never_imports_numba(compiled, tmp_path):
    src, dst = random_edges(1, 500, 1000, np.int64)
    np.save(tmp_path / "edges.npy", np.column_stack([src, dst]))
    out = fresh_python("""
import json, sys
import numpy as np
import gconn
after_import = sorted(m for m in ("numba", "scipy") if m in sys.modules)
edges = np.load("edges.npy")
k, labels = gconn.connected_components((edges[:, 0], edges[:, 1]))
fa, fb = gconn.spanning_forest(edges)
np.savetxt("edges.el", edges, fmt="%d")
k_file, labels_file = gconn.connected_components("edges.el")
same = k_file == k and labels_file.tolist() == labels.tolist()
print(json.dumps({"after_import": after_import, "k": k, "labels": labels.tolist(), "forest": fa.size, "file": same,
                  "loaded": sorted(m for m in ("numba", "scipy") if m in sys.modules)}))
""", tmp_path)
    k, ref = scipy_labels(src, dst, int(max(src.max(), dst.max())) + 1)
    assert out["after_import"] == [] and out["loaded"] == []
    assert out["k"] == k and out["labels"] == ref.tolist() and out["forest"] == ref.size - k and out["file"]


def test_a_long_running_process_moves_to_the_parallel_kernels(compiled, tmp_path):
    """Once the compiled route's large calls have cost what loading numba costs, later large calls
    load it and run in parallel; small calls stay on the compiled route (here the cost is lowered to a
    nanosecond, so that the second large call moves)."""
    big = aot.WARM_MAX_EDGES + 1000
    src, dst = random_edges(2, big // 4, big, np.int64)
    np.save(tmp_path / "edges.npy", np.column_stack([src, dst]))
    out = fresh_python("""
import json, sys
import numpy as np
import gconn
from gconn.backends import aot
aot.LOAD_SECONDS = 1e-9
edges = np.load("edges.npy")
small = (edges[:1000, 0], edges[:1000, 1])
runs = []
for graph in (small, small, (edges[:, 0], edges[:, 1]), small, (edges[:, 0], edges[:, 1]), small):
    k, labels = gconn.connected_components(graph)
    runs.append([int(k), labels.tolist() if labels.size > 1000 else None, "numba" in sys.modules])
print(json.dumps(runs))
""", tmp_path)
    k, ref = scipy_labels(src, dst, int(max(src.max(), dst.max())) + 1)
    assert [r[2] for r in out] == [False, False, False, False, True, True]
    assert out[2][:2] == out[4][:2] == [k, ref.tolist()]


def test_cli_and_parser_errors_without_numba(compiled, tmp_path):
    mtx = "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n6 6 3\n2 1\n3 2\n6 5\n"
    (tmp_path / "g.mtx").write_text(mtx)
    (tmp_path / "bad.mtx").write_text(mtx.replace("6 5", "6 5.5"))
    (tmp_path / "bad.el").write_text("0 1\n1.5 2\n")
    (tmp_path / "range.el").write_text("# gconn edge list: n=4 m=2\n0 1\n2 9\n")
    out = fresh_python("""
import contextlib, io, json, sys
from gconn import cli
from gconn.io import identify, read_edges
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    code = cli.main(["cc", "g.mtx", "--json", "-b", "cpu"])
text = io.StringIO()
with contextlib.redirect_stdout(text):
    text_code = cli.main(["cc", "g.mtx", "-b", "cpu"])
errors = {}
for name in ("bad.mtx", "bad.el", "range.el"):
    try:
        read_edges(identify(name), None, "auto")
    except ValueError as e:
        errors[name] = str(e)
print(json.dumps({"code": code, "cc": json.loads(buf.getvalue()), "errors": errors,
                  "text_code": text_code, "text": text.getvalue(),
                  "numba": "numba" in sys.modules}))
""", tmp_path)
    assert out["code"] == 0 and not out["numba"]
    # the printed summary too (not only --json) comes from the compiled path
    rows = dict(line.split(None, 1) for line in out["text"].splitlines() if not line.startswith(" "))
    assert out["text_code"] == 0 and "compiled ahead of time" in rows["variant"] and rows["components"] == "3"
    cc = out["cc"]
    assert cc["variant"] == aot.VARIANT and cc["n"] == 6 and cc["m"] == 3 and cc["components"] == 3
    assert out["errors"] == {
        "bad.mtx": "bad.mtx, line 6: expected an entry 'row col' with integer indices, got '6 5.5'",
        "bad.el": "bad.el, line 2, column 1: '1.5' is not a vertex id: ids are integers >= 0 (digits only)",
        "range.el": "range.el, line 3, column 3: vertex id 9 is out of range for n=4 (declared on line 1)"}


def test_metis_and_dimacs_without_numba(compiled, tmp_path):
    """A METIS (or DIMACS) file runs on the compiled module (it loaded numba: 0.93-1.02 s against
    0.27-0.32 for `gconn cc` on 1M edges, BENCHMARKS.md), its errors the same."""
    (tmp_path / "g.graph").write_text("6 3\n2\n1 3\n2\n\n6\n5\n")
    (tmp_path / "g.gr").write_text("p edge 6 2\ne 1 2\ne 6 5\n")
    (tmp_path / "odd.graph").write_text("3 1\n2\n3\n\n")           # 1 lists 2, 2 lists 3
    (tmp_path / "range.graph").write_text("3 1\n4\n1\n\n")
    out = fresh_python("""
import contextlib, io, json, sys
import gconn
k, labels = gconn.connected_components("g.graph")
k_gr, labels_gr = gconn.connected_components("g.gr")
errors = {}
for name in ("odd.graph", "range.graph"):
    try:
        gconn.connected_components(name)
    except ValueError as e:
        errors[name] = str(e)
print(json.dumps({"k": k, "labels": labels.tolist(), "gr": [k_gr, labels_gr.tolist()], "errors": errors,
                  "numba": "numba" in sys.modules}))
""", tmp_path)
    assert out["k"] == 3 and out["labels"] == [0, 0, 0, 1, 2, 2] and not out["numba"]
    assert out["gr"] == [4, [0, 0, 1, 2, 3, 3]]
    assert out["errors"] == {
        "odd.graph": "odd.graph: vertex 1 lists 2 as a neighbour, but vertex 2 does not list 1; a METIS file lists "
                     "each edge at both of its ends",
        "range.graph": "range.graph, line 2: neighbour id 4 of vertex 1 is out of range 1..3"}
    for name in ("odd.graph", "range.graph"):
        with pytest.raises(ValueError) as jit:
            gconn.connected_components(tmp_path / name, algorithm="none+union-async+find-halve")
        assert str(jit.value) == out["errors"][name]


@pytest.mark.parametrize("ext", ["npy", "npz", "gcb", "parquet", "feather"])
def test_binary_files_without_numba(compiled, tmp_path, ext):
    """gconn's binary formats take the compiled route too (they loaded numba: a one-off `gconn cc` of
    1M edges took 0.9-1.2 s, now 0.2-0.5, BENCHMARKS.md), with the answers of the JIT backend; so do
    tables of names, and integer ids to relabel come back for the resident route."""
    src, dst = random_edges(3, 300, 700, np.int64)
    g = gconn.Graph.from_edges(src, dst)
    gconn.save(g, tmp_path / f"g.{ext}")
    want = gconn.connected_components(tmp_path / f"g.{ext}", algorithm="none+union-async+find-halve")
    if ext in ("parquet", "feather"):
        gconn.save(gconn.Graph.from_edges(["a", "b"], ["b", "c"], relabel=True), tmp_path / f"names.{ext}")
    out = fresh_python(f"""
import json, sys
import gconn
k, labels = gconn.connected_components("g.{ext}")
fa, fb = gconn.spanning_forest("g.{ext}")
ids_numba = "numba" in sys.modules
names = None
if "{ext}" in ("parquet", "feather"):
    k2, labels2, ids = gconn.connected_components("names.{ext}", relabel=True)
    names = [int(k2), ids.tolist()]
names_numba = "numba" in sys.modules
k3, labels3, ids3 = gconn.connected_components("g.{ext}", relabel=True)
print(json.dumps({{"k": int(k), "labels": labels.tolist(), "forest": int(fa.size), "names": names,
                  "ids_numba": ids_numba, "names_numba": names_numba,
                  "relabelled": [int(k3), labels3.tolist(), ids3.tolist()]}}))
""", tmp_path)
    assert out["k"] == want[0] and out["labels"] == want[1].tolist() and out["forest"] == g.n - want[0]
    assert not out["ids_numba"] and not out["names_numba"]
    if out["names"] is not None:
        assert out["names"] == [1, ["a", "b", "c"]]
    k3, labels3, ids3 = gconn.connected_components(tmp_path / f"g.{ext}", relabel=True,
                                                   algorithm="none+union-async+find-halve")
    assert out["relabelled"] == [k3, labels3.tolist(), ids3.tolist()]


def test_files_of_names_without_numba(compiled, tmp_path):
    """A text file of names (read by Arrow into codes) takes the compiled route where the call lets it
    (a one-off `gconn cc` of 1M named edges loaded numba's kernels for a 25 ms run, BENCHMARKS.md): the
    names, labels and forest size of the JIT backend, and word for word its error without relabel."""
    rng = np.random.default_rng(8)
    names = np.array([f"v{i}" for i in range(300)])
    s, d = names[rng.integers(0, 300, 400)], names[rng.integers(0, 300, 400)]
    (tmp_path / "g.csv").write_text("source,target\n" + "".join(f"{a},{b}\n" for a, b in zip(s, d)))
    (tmp_path / "g.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in zip(s, d)))
    want = {}
    for f in ("g.csv", "g.tsv"):
        k, labels, ids = gconn.connected_components(tmp_path / f, relabel=True, algorithm="none+union-async+find-halve")
        fa, _ = gconn.spanning_forest(tmp_path / f, relabel=True, algorithm="none+union-async+find-halve")
        want[f] = [int(k), labels.tolist(), ids.tolist(), int(fa.size)]
    with pytest.raises(ValueError) as jit:
        gconn.connected_components(tmp_path / "g.csv", algorithm="none+union-async+find-halve")
    out = fresh_python("""
import json, sys
import gconn
got = {}
for f in ("g.csv", "g.tsv"):
    k, labels, ids = gconn.connected_components(f, relabel=True)
    fa, fb = gconn.spanning_forest(f, relabel=True)
    got[f] = [int(k), labels.tolist(), ids.tolist(), int(fa.size)]
try:
    gconn.connected_components("g.csv")
except ValueError as e:
    error = str(e)
print(json.dumps({"got": got, "error": error, "numba": "numba" in sys.modules}))
""", tmp_path)
    assert out["got"] == want
    assert out["error"] == str(jit.value)
    assert not out["numba"]


def test_gzip_text_without_numba(compiled, tmp_path):
    """A gzip edge list or Matrix Market file (SNAP's downloads) takes the compiled route, its text's
    size read from the stream's trailer, with the JIT backend's answers; a file of many gzip streams
    (whose trailer counts the last alone) and bzip2 keep the chunked route, with the same answers."""
    import bz2
    import gzip
    src, dst = random_edges(4, 2000, 3000, np.int64)
    text = "# Nodes: 2000 Edges: 3000\n" + "".join(f"{a}\t{b}\n" for a, b in zip(src, dst))
    (tmp_path / "g.txt.gz").write_bytes(gzip.compress(text.encode()))
    lines = text.splitlines(keepends=True)
    # BGZF-like: a gzip stream every 100 lines, the last one's count far below the file's size
    (tmp_path / "many.txt.gz").write_bytes(b"".join(gzip.compress("".join(lines[i:i + 100]).encode())
                                                    for i in range(0, len(lines), 100)))
    (tmp_path / "g.txt.bz2").write_bytes(bz2.compress(text.encode()))
    g = gconn.Graph.from_edges(src, dst, 2000)
    gconn.save(g, tmp_path / "g.mtx")
    (tmp_path / "g.mtx.gz").write_bytes(gzip.compress((tmp_path / "g.mtx").read_bytes()))
    want = gconn.connected_components(g, algorithm="none+union-async+find-halve")
    out = fresh_python("""
import json, sys
import gconn
got = {}
for f in ("g.txt.gz", "g.mtx.gz", "many.txt.gz", "g.txt.bz2"):
    k, labels = gconn.connected_components(f)
    got[f] = [int(k), labels.tolist(), "numba" in sys.modules]
print(json.dumps(got))
""", tmp_path)
    for f in ("g.txt.gz", "g.mtx.gz", "many.txt.gz", "g.txt.bz2"):
        assert out[f][:2] == [want[0], want[1].tolist()], f
    assert not out["g.txt.gz"][2] and not out["g.mtx.gz"][2]
    assert out["many.txt.gz"][2]        # the chunked route loaded numba


def test_relabelling_without_numba(compiled, tmp_path, monkeypatch):
    """Sparse ids (relabel='auto') and relabel=True, in arrays and files, take the compiled route: NumPy
    relabels them as Graph.from_edges does (a mark table, or a sort where its range is too large), with
    the JIT backend's labels and ids; past SORT_MAX_EDGES such ids go on to the resident route."""
    rng = np.random.default_rng(9)
    pool = rng.choice(np.int64(1) << 40, 300, replace=False)            # sparse: a sort
    s, d = pool[rng.integers(0, 300, 500)], pool[rng.integers(0, 300, 500)]
    dense_s, dense_d = rng.integers(0, 3000, 500), rng.integers(0, 3000, 500)  # a mark table (range <= 8m)
    (tmp_path / "sparse.el").write_text("".join(f"{a} {b}\n" for a, b in zip(s, d)))
    np.save(tmp_path / "s.npy", s)
    np.save(tmp_path / "d.npy", d)
    np.save(tmp_path / "ds.npy", dense_s)
    np.save(tmp_path / "dd.npy", dense_d)
    want = {}
    for key, arg, kw in (("file auto", tmp_path / "sparse.el", dict(relabel="auto")),
                         ("file true", tmp_path / "sparse.el", dict(relabel=True)),
                         ("arrays auto", (s, d), dict(relabel="auto")),
                         ("arrays true", (s, d), dict(relabel=True)),
                         ("marked true", (dense_s, dense_d), dict(relabel=True))):
        k, labels, ids = gconn.connected_components(arg, algorithm="none+union-async+find-halve", **kw)
        want[key] = [int(k), labels.tolist(), ids.tolist()]
    code = """
import json, sys
import numpy as np
import gconn
from gconn.backends import aot
LIMIT
s, d, ds, dd = (np.load(f + ".npy") for f in ("s", "d", "ds", "dd"))
got = {}
for key, arg, kw in (("file auto", "sparse.el", dict(relabel="auto")), ("file true", "sparse.el", dict(relabel=True)),
                     ("arrays auto", (s, d), dict(relabel="auto")), ("arrays true", (s, d), dict(relabel=True)),
                     ("marked true", (ds, dd), dict(relabel=True))):
    k, labels, ids = gconn.connected_components(arg, **kw)
    got[key] = [int(k), labels.tolist(), ids.tolist()]
try:
    gconn.connected_components((np.array([-5, 3]), np.array([3, 7])), relabel=True)
except ValueError as e:
    error = str(e)
print(json.dumps({"got": got, "error": error, "numba": "numba" in sys.modules}))
"""
    out = fresh_python(code.replace("LIMIT", ""), tmp_path)
    assert out["got"] == want
    assert out["error"] == "negative vertex id -5 (src[0]); ids must be >= 0"
    assert not out["numba"]
    out = fresh_python(code.replace("LIMIT", "aot.SORT_MAX_EDGES = 100"), tmp_path)
    assert out["got"] == want
    assert out["numba"]                 # the sparse ones went on to the hash table


def test_scipy_drop_in_without_numba(compiled, tmp_path):
    """The SciPy drop-in's weak components run the compiled union-find in a process without numba
    (it loaded numba's kernels for a few milliseconds of work), with SciPy's int32 labels."""
    A = sp.random(3000, 3000, density=0.0003, format="csr", random_state=3)
    sp.save_npz(tmp_path / "a.npz", A)
    want = [scipy_cc(A, directed=d) for d in (False, True)]
    out = fresh_python("""
import json, sys
import scipy.sparse as sp
from gconn.integrations.csgraph import connected_components
A = sp.load_npz("a.npz")
got = [connected_components(A, directed=False), connected_components(A, connection="weak")]
print(json.dumps({"got": [[int(k), labels.tolist(), str(labels.dtype)] for k, labels in got],
                  "numba": "numba" in sys.modules}))
""", tmp_path)
    assert out["got"] == [[int(want[0][0]), want[0][1].tolist(), "int32"]] * 2
    assert not out["numba"]


def test_import_gconn_loads_neither_numba_nor_scipy(tmp_path):
    out = fresh_python("import json, sys, gconn; "
                       "print(json.dumps(sorted(m for m in ('numba', 'scipy') if m in sys.modules)))", tmp_path)
    assert out == []
