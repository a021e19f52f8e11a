"""The gconn command: every subcommand on tiny inputs, and its error paths."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
import gconn.cli.tools
import gconn.graph.generators
from gconn import cli

SPEC = "er:n=300,d=3"  # a few components of varied sizes


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fields(out: str) -> dict:
    """The 'key  value' lines of the human-readable output."""
    pairs = (line.split(None, 1) for line in out.splitlines() if line and not line.startswith(" "))
    return {p[0]: p[1] if len(p) > 1 else "" for p in pairs}


@pytest.fixture(scope="module")
def graph():
    return gconn.graph.generators.from_spec(SPEC)


@pytest.fixture
def edge_file(tmp_path, graph):
    path = tmp_path / "g.el"
    gconn.save(graph, path)
    return path


def test_cc_counts_a_metis_files_edges_once(capsys, graph, tmp_path):
    """METIS lists each edge twice; ``gconn cc`` reports the header's m, as the graph has it."""
    path = tmp_path / "g.graph"
    gconn.save(graph, path)
    assert path.read_text().split()[1] == str(graph.m)
    for command in (("cc",), ("cc", "--algorithm", "kout+union-async+find-halve"), ("forest",)):
        code, out, err = run(capsys, *command, str(path), "--quiet")
        assert code == 0, err
        assert fields(out)["m"] == f"{graph.m:,}"


def test_cc_text(capsys, graph, edge_file):
    code, out, err = run(capsys, "cc", str(edge_file), "--quiet")
    assert code == 0, err
    f = fields(out)
    k, labels = scipy_cc(graph.to_scipy(), directed=False)
    assert f["n"] == f"{graph.n:,}" and f["m"] == f"{graph.m:,}"
    assert f["components"] == f"{k:,}"
    assert f["largest"].startswith(f"{np.bincount(labels).max():,}")
    assert f["variant"].split()[0] in gconn.variants("cc")
    assert "finish" in out and "time" in f


def test_cc_json_repeat_compare_and_outputs(capsys, graph, tmp_path):
    k, ref = scipy_cc(graph.to_scipy(), directed=False)
    for name in ("labels.npy", "labels.txt", "labels.csv"):
        out_path = tmp_path / name
        code, out, err = run(capsys, "cc", "--generate", SPEC, "--json", "--repeat", "2", "--compare",
                             "-a", "kout+union-async+find-halve", "-p", "k=3", "-b", "cpu", "-o", str(out_path))
        assert code == 0, err
        res = json.loads(out)
        assert res["components"] == k and res["matches_scipy"] is True
        assert len(res["times_s"]) == 2 and res["variant"] == "kout+union-async+find-halve"
        assert set(res["phases_s"]) >= {"sample", "finish"}
        # One (vertex, label) row per vertex, after a header line in text.
        delimiter = "," if name.endswith(".csv") else None
        saved = np.load(out_path) if name.endswith(".npy") else \
            np.loadtxt(out_path, dtype=np.int64, delimiter=delimiter, skiprows=1)
        assert np.array_equal(saved, np.column_stack([np.arange(graph.n), ref]))


def test_forest_writes_edges(capsys, graph, tmp_path):
    for name in ("forest.el", "forest.npy"):
        path = tmp_path / name
        code, out, err = run(capsys, "forest", "--generate", SPEC, "-o", str(path), "--warmup", "0")
        assert code == 0, err
        k, _ = scipy_cc(graph.to_scipy(), directed=False)
        assert fields(out)["forest"].startswith(f"{graph.n - k:,} edges")
        forest = gconn.load(path, n=graph.n)
        assert forest.m == graph.n - k
        assert scipy_cc(forest.to_scipy(), directed=False)[0] == k


@pytest.mark.parametrize("name, text", [
    ("k.txt", "% sym unweighted\n% 2 5 5\n1 2\n3 2\n"),                                  # KONECT
    ("m.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 2\n2 1\n3 2\n"),
])
@pytest.mark.parametrize("out", ["forest.el", "forest.mtx", "forest.npz"])
def test_forest_of_ids_from_one_keeps_them(capsys, tmp_path, name, text, out):
    """A forest of a file whose ids count from 1 is written in those ids, as its labels are (an edge list
    held 0-based ids: the edges 1-2, 2-3 read as 0-1, 1-2); formats counting from 1 keep their own."""
    src = tmp_path / name
    src.write_text(text)
    code, _, err = run(capsys, "forest", str(src), "-o", str(tmp_path / out), "--warmup", "0", "--backend", "cpu")
    assert code == 0, err
    forest = gconn.load(tmp_path / out)
    ids = np.arange(1, 6) if forest.nodes is None else np.asarray(forest.nodes)
    pairs = {tuple(sorted((int(ids[a]), int(ids[b])))) for a, b in zip(*forest.edges()) if a != b}
    assert pairs == {(1, 2), (2, 3)} and forest.n == 5
    if out == "forest.el":
        assert (tmp_path / out).read_text().splitlines()[1:3] == ["1 2", "2 3"]


@pytest.mark.parametrize("mode", ["phased", "sequential", "concurrent"])
def test_stream_matches_static(capsys, mode):
    code, out, err = run(capsys, "stream", "--generate", SPEC, "--batch-size", "97", "--query-ratio", "0.5",
                         "--mode", mode, "--seed", "3")
    assert code == 0, err
    f = fields(out)
    assert f["components"].endswith("ok")
    assert "edges/s" in f["throughput"] and "ops/s" in f["throughput"]


def test_stream_json_counts(capsys, graph):
    code, out, _ = run(capsys, "stream", "--generate", SPEC, "--batch-size", "50", "--query-ratio", "2",
                       "--json")
    res = json.loads(out)
    assert code == 0 and res["ok"] is True
    assert res["inserts"] == graph.m and res["queries"] == 2 * graph.m
    assert res["batches"] == -(-3 * graph.m // 50)


def test_stream_ops_places_every_edge_once(graph):
    kinds, src, dst = cli.stream_ops(graph, 0.25, seed=1)
    ins = kinds == 0
    got = np.sort(src[ins].astype(np.int64) * graph.n + dst[ins])
    assert np.array_equal(got, np.sort(graph.src.astype(np.int64) * graph.n + graph.dst))
    assert (kinds == 1).sum() == round(0.25 * graph.m)


def test_generate_round_trips(capsys, tmp_path):
    path = tmp_path / "k.mtx.gz"
    code, out, err = run(capsys, "generate", "kron:8", "-o", str(path))
    assert code == 0, err
    assert gconn.load(path) == gconn.graph.generators.from_spec("kron:8")
    assert fields(out)["wrote"] == str(path)


def test_cache_shows_and_clears_the_gpu_kernels(capsys, tmp_path, monkeypatch):
    from gconn.backends.gpu import kernel_cache
    monkeypatch.setenv("GCONN_KERNEL_CACHE", str(tmp_path))
    for k in ("a", "b"):
        assert kernel_cache.save(k, "entry", b"x" * 1000)
    code, out, _ = run(capsys, "cache")
    assert code == 0 and out.strip() == f"GPU kernel cache: {tmp_path}, 2 kernels, 2.0 kB"
    code, out, _ = run(capsys, "cache", "--clear")
    assert code == 0 and "removed 2 files" in out and kernel_cache.files() == []
    monkeypatch.setenv("GCONN_KERNEL_CACHE", "off")
    code, out, _ = run(capsys, "cache")
    assert code == 0 and "off" in out


def test_warmup_of_the_gpu_without_one_says_why(capsys, monkeypatch):
    if gconn.cli.tools.gpu_status()[0]:
        pytest.skip("a GPU is usable here: tests/gpu covers the warmup of its kernels")
    code, out, err = run(capsys, "warmup", "-b", "gpu")
    assert code != 0 and "gpu is not usable here" in err and not out


def test_info_and_variants(capsys):
    code, out, _ = run(capsys, "info")
    assert code == 0
    f = fields(out)
    assert f["gconn"] == gconn.__version__ and "threads" in f["numba"] and "CUDA" in f
    code, out, _ = run(capsys, "info", "--json")
    info = json.loads(out)
    assert info["variants"] == {p: len(gconn.variants(p)) for p in ("cc", "forest", "incremental")}
    assert info["numba_threading_layer"] in ("omp", "tbb", "workqueue")
    assert f"{info['numba_threading_layer']} layer" in f["numba"]
    for problem in ("cc", "forest", "incremental"):
        code, out, _ = run(capsys, "variants", "--problem", problem)
        assert code == 0 and out.split() == gconn.variants(problem)


def test_a_slow_threading_layer_is_named(capsys, monkeypatch):
    """numba's workqueue layer (no OpenMP runtime) slows the GPU's host
    copies: ``gconn info`` says so, and the first copies warn once."""
    from gconn.backends.gpu import staging
    monkeypatch.setattr(staging, "threading_layer", lambda: "workqueue")
    code, out, _ = run(capsys, "info")
    assert code == 0 and "workqueue layer" in fields(out)["numba"] and "libgomp1" in out
    staging.warn_slow_layer.cache_clear()
    with pytest.warns(RuntimeWarning, match="workqueue threading layer"):
        staging.warn_slow_layer()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        staging.warn_slow_layer()           # once a process
        monkeypatch.setattr(staging, "threading_layer", lambda: "omp")
        staging.warn_slow_layer.cache_clear()
        staging.warn_slow_layer()
    code, out, _ = run(capsys, "info")
    assert "omp layer" in fields(out)["numba"] and "warning" not in out


@pytest.mark.parametrize("env, want, said", [({}, "100000", "GOMP_SPINCOUNT=100000 (set by gconn"),
                                             ({"GOMP_SPINCOUNT": "5"}, "5", "GOMP_SPINCOUNT=5 (yours)"),
                                             ({"OMP_WAIT_POLICY": "passive"}, None, "OMP_WAIT_POLICY=passive (yours)")])
def test_openmp_threads_spin_briefly_unless_the_user_chose(env, want, said):
    """``import gconn`` shortens GNU OpenMP's spin after a parallel loop (a loop after idling paid
    milliseconds to wake the threads); a spin count or wait policy of the user's stays theirs, and
    ``gconn info`` says which is in effect."""
    base = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    code = ("import os, gconn; from gconn.cli.tools import _openmp_wait; "
            "print(os.environ.get('GOMP_SPINCOUNT')); print(_openmp_wait())")
    out = subprocess.run([sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[-2] == str(want) and out[-1].startswith(said)


def test_demo_and_example(capsys, monkeypatch):
    monkeypatch.setattr(cli.common, "EXAMPLE_SPEC", "rmat:scale=9")
    code, out, err = run(capsys, "demo")
    assert code == 0, err
    assert "rmat:scale=9" in out and "ok: same components as scipy" in out
    code, out, err = run(capsys, "cc", "--example", "--warmup", "0")
    assert code == 0 and fields(out)["input"].startswith("rmat:scale=9")


def test_bench_subcommand(capsys, tmp_path):
    code, out, err = run(capsys, "bench", "--graphs", "path:40", "--repeat", "1", "--warmup", "0",
                         "--backend", "cpu", "--out", str(tmp_path))
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("| path:40 |")
    assert (tmp_path / "results.csv").exists() and (tmp_path / "results.md").exists()


def test_no_command_prints_help(capsys):
    code, out, _ = run(capsys)
    assert code == 2 and "demo" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and gconn.__version__ in out


@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "bad.mtx").write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 x\n")
    (tmp_path / "g.xyz").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    (tmp_path / "g.el").write_text("0 1\n1 2.5\n")
    (tmp_path / "k.el").write_text("0 1\n1 2\n")
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["cc", "{d}/missing.mtx"],
    ["cc", "--generate", "nosuch:3"],
    ["cc", "--generate", "rmat:scale=x"],
    ["cc", "--generate", "path:10", "-a", "kout+union-bogus"],
    ["forest", "--generate", "path:10", "-a", "none+union-rem-cas+find-split+splice"],
    ["stream", "--generate", "path:10", "--batch-size", "4", "-a", "kout+union-async"],
    ["cc", "--generate", "path:10", "-p", "nosuch=1"],
    ["cc", "{d}/g.xyz"],
    ["cc", "{d}/bad.mtx"],
    ["cc", "{d}/g.el"],
    ["cc", "{d}/g.xyz", "--format", "edgelist"],
    ["cc", "{d}/bad.mtx", "--format", "edgelist"],
    ["cc", "{d}/k.el", "-p", "k=3"],
    ["cc", "{d}"],
    ["cc", "--generate", "path:10", "-o", "{d}/labels.bin"],
    ["forest", "--generate", "path:10", "-o", "{d}/nofolder/f.el"],
    ["generate", "path:10", "-o", "{d}/g.unknown"],
    ["bench", "--graphs", "{d}/missing.el", "--out", "{d}/b"],
    ["bench", "--graphs", "path:10", "--variants", "bogus", "--out", "{d}/b"],
], ids=lambda a: " ".join(a[:4]))
def test_bad_input_is_one_line(capsys, bad_files, argv):
    code, out, err = run(capsys, *(a.format(d=bad_files) for a in argv))
    assert code == 1
    # the process's first compilation announces itself once (whichever command comes first in a worker)
    lines = [line for line in err.strip().splitlines() if line != gconn.cli.common.COMPILE_NOTICE]
    assert len(lines) == 1, err
    assert lines[0].startswith("gconn: error: ") and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["cc"], ["cc", "--generate", "path:3", "--example"], ["stream", "--generate", "path:3"],
    ["cc", "--generate", "path:3", "--repeat", "0"], ["cc", "--generate", "path:3", "-p", "k"], ["nosuch"],
    ["cc", "--generate", "path:3", "--format", "mtx"],
    ["cc", "x.el", "--format", "nosuch"],
])
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and "error:" in err and "Traceback" not in err


def test_gpu_backend_without_gpu(capsys):
    if gconn.cli.tools.gpu_status()[0]:
        pytest.skip("a GPU is present")
    code, _, err = run(capsys, "cc", "--generate", "path:5", "--backend", "gpu")
    assert code == 1 and err.startswith("gconn: error: ") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("exc, code, text", [
    (KeyboardInterrupt, 130, "gconn: interrupted"),
    (MemoryError, 1, "gconn: error: out of memory"),
    (RuntimeError("boom\nsecond line"), 1, "gconn: internal error: RuntimeError: boom"),
])
def test_exceptions_and_debug(capsys, monkeypatch, exc, code, text):
    def fail(args, parser):
        raise exc

    monkeypatch.setattr(cli.tools, "cmd_variants", fail)
    got, _, err = run(capsys, "variants")
    assert got == code and err.startswith(text) and len(err.strip().splitlines()) == 1
    with pytest.raises(type(exc) if isinstance(exc, BaseException) else exc):
        cli.main(["variants", "--debug"])


def _python(*args, cwd):
    env = dict(os.environ)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)


@pytest.mark.slow  # three fresh processes, each importing numba and loading its kernels
def test_subprocess(tmp_path):
    from gconn.cli.common import COMPILE_NOTICE
    res = _python("-m", "gconn", "cc", "--generate", "path:30", "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["components"] == 1
    # No progress bars when stderr is not a terminal; the one-line notice
    # only if a kernel had to be compiled.
    assert res.stderr.replace(COMPILE_NOTICE + "\n", "") == ""

    res = _python("-m", "gconn", "cc", "missing.mtx", cwd=tmp_path)
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == ["gconn: error: missing.mtx: no such file"]

    res = _python("-m", "gconn.bench", "--graphs", "path:20", "--repeat", "1", "--warmup", "0",
                  "--backend", "cpu", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert Path(tmp_path, "bench-out", "results.md").exists()
    assert res.stdout.rstrip().splitlines()[-1].startswith("| path:20 |")


# -- section 4 of issue 10: parameters, --n, label files, demo on a missing GPU --------------

@pytest.mark.parametrize("param, message", [
    ("k=x", "k takes a positive integer, got 'x'"),
    ("k=0", "k takes a positive integer, got 0"),
    ("max_rounds=1.5", "max_rounds takes a positive integer, got '1.5'"),
    ("kout=bad", "kout takes one of afforest, paper, got 'bad'"),
])
def test_param_types_are_named(capsys, param, message):
    code, _, err = run(capsys, "cc", "--generate", "path:5", "-p", param)
    assert code == 2 and message in err and "invalid literal" not in err


def test_n_adds_isolated_vertices(capsys, tmp_path):
    path = tmp_path / "g.el"
    path.write_text("0 1\n1 2\n")
    code, out, err = run(capsys, "cc", str(path), "--n", "10", "--json", "-b", "cpu")
    assert code == 0, err
    res = json.loads(out)
    assert res["n"] == 10 and res["components"] == 8
    code, _, err = run(capsys, "cc", str(path), "--n", "2", "-b", "cpu")
    assert code == 1 and "vertex id 2 is out of range for n=2" in err
    code, _, err = run(capsys, "cc", str(path), "--n", "10", "--relabel")
    assert code == 2 and "--relabel and --n cannot be combined" in err
    code, _, err = run(capsys, "cc", "--generate", "path:3", "--n", "10")
    assert code == 2 and "--n applies to FILE input only" in err


def test_label_files_carry_vertex_ids(capsys, tmp_path):
    mtx = tmp_path / "g.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate pattern general\n4 4 1\n4 2\n")
    out_path = tmp_path / "labels.txt"
    code, out, err = run(capsys, "cc", str(mtx), "-o", str(out_path), "-b", "cpu")
    assert code == 0, err
    lines = out_path.read_text().splitlines()
    assert lines[0] == "# vertex label (vertex ids 1-based, as in the input file)"
    assert lines[1:] == ["1 0", "2 1", "3 2", "4 1"]
    assert "vertex ids 1-based" in fields(out)["wrote"]
    csv = tmp_path / "labels.csv"
    code, out, err = run(capsys, "cc", str(mtx), "-o", str(csv), "-b", "cpu", "--relabel")
    assert code == 0, err
    assert csv.read_text().splitlines() == ["vertex,label", "2,0", "4,0"]
    npy = tmp_path / "labels.npy"
    code, _, err = run(capsys, "cc", str(mtx), "-o", str(npy), "-b", "cpu", "--labels-format", "plain")
    assert code == 0 and np.load(npy).tolist() == [0, 1, 2, 1], err
    code, _, err = run(capsys, "cc", str(mtx), "-o", str(npy), "-b", "cpu", "--labels-format", "plain",
                       "--relabel")
    assert code == 1 and "plain labels" in err and "cannot say which vertex" in err


def test_demo_gpu_without_gpu_says_nothing_about_the_cpu(capsys, monkeypatch):
    from gconn.backends import gpu
    monkeypatch.setattr(gpu, "available", lambda simulator_ok=False: (False, "no CUDA device (test)"))
    code, out, err = run(capsys, "demo", "-b", "gpu")
    assert code == 1 and out == ""
    assert err.strip() == "gconn: error: --backend gpu is not usable here: no CUDA device (test)"
def test_kernels_are_timed_apart_from_the_input(capsys):
    code, out, err = run(capsys, "cc", "--generate", "path:30")
    assert code == 0
    f = fields(out)
    assert f["kernels"].endswith(("(loaded from numba's cache)", "later runs load them from numba's cache)"))
    assert f["input"].startswith("path:30 (generate")
    code, out, err = run(capsys, "stream", "--generate", "path:30", "--batch-size", "7", "--json")
    data = json.loads(out)
    assert code == 0 and data["kernels_s"] > 0 and data["kernels_compiled"] >= 0


def test_compile_notice_once_per_process(capsys, monkeypatch):
    from numba import njit
    from gconn.cli import common
    monkeypatch.setattr(common, "_COMPILE_NOTICE_SHOWN", False)

    def twice(x):
        return 2 * x

    with common.watch_compiles() as watch:
        assert njit(twice)(3) == 6        # a compilation: the notice
        assert njit(twice)(4) == 8        # another: counted, no second notice
    assert watch.count == 2 and watch.seconds > 0
    assert capsys.readouterr().err == common.COMPILE_NOTICE + "\n"
    with common.watch_compiles() as watch:
        assert njit(cache=False)(twice)(5) == 10
    assert watch.count == 1 and capsys.readouterr().err == ""


def test_cc_notes_a_vertex_0_left_alone(capsys, tmp_path):
    """An edge list numbered from 1 counts vertex 0 as a component: said, as the user may count from 1."""
    one, zero = tmp_path / "one.el", tmp_path / "zero.el"
    one.write_text("1 2\n2 3\n5 6\n")
    zero.write_text("0 1\n1 2\n4 5\n")
    code, out, err = run(capsys, "cc", str(one), "-b", "cpu")
    assert code == 0 and fields(out)["components"] == "4"
    assert "vertex 0 is a component of its own" in err and "--relabel" in err
    for argv in ((str(zero),), (str(one), "--relabel"), (str(one), "--n", "9")):
        code, out, err = run(capsys, "cc", *argv, "-b", "cpu")
        assert code == 0 and "vertex 0" not in err, argv
    code, out, err = run(capsys, "cc", str(one), "-b", "cpu", "--json")
    assert any("vertex 0 is a component" in x for x in json.loads(out)["notes"])
