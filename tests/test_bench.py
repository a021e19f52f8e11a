"""The benchmark harness on tiny graphs."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import gconn
from gconn import bench, cli
from gconn.bench import harness, suites

GRAPHS = ["path:60", "components:20,size=5"]


@pytest.fixture(scope="module")
def rows():
    return bench.run(GRAPHS, variants="auto,kout+union-async+find-halve", backend="cpu", repeat=1, warmup=0)


def test_rows_are_checked_against_scipy(rows):
    assert [r.method for r in rows] == ["scipy", "gconn", "gconn", "networkx", "networkit", "igraph"] * 2
    for r in rows:
        assert len(r.times) == 1 and r.median > 0 and r.speedup > 0
        assert r.correct is (None if r.method == "scipy" else True)
    path_rows = rows[:6]
    assert all(r.components == 1 and r.largest == 60 for r in path_rows)
    assert rows[1].variant.startswith("auto -> ")
    assert set(rows[2].phases) >= {"sample", "finish"}
    assert {r.components for r in rows[6:]} == {20}


def test_a_peer_with_wrong_labels_is_marked(monkeypatch):
    def split(g):
        return (lambda: None), (lambda _: np.arange(g.n))     # every vertex alone: not a path's

    monkeypatch.setitem(harness.PEERS, "igraph", ("igraph", split))
    (row,) = [r for r in bench.run(["path:30"], backend="cpu", repeat=1, warmup=0) if r.method == "igraph"]
    assert row.correct is False and row.note == "components differ from scipy's"


def test_writes_csv_md_and_prints_table_last(capsys, tmp_path):
    code = cli.main(["bench", "--graphs", *GRAPHS, "--repeat", "1", "--warmup", "0", "--backend", "cpu",
                     "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    with open(tmp_path / "results.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert {"graph", "n", "m", "method", "variant", "backend", "median_ms", "min_ms", "speedup_vs_scipy",
            "components", "correct", "phase_finish_ms"} <= set(table[0])
    assert [r["correct"] for r in table if r["method"] == "gconn"] == ["True", "True"]
    md = (tmp_path / "results.md").read_text()
    assert "| graph | n | m | method |" in md and "Machine:" in md
    last = out.rstrip().splitlines()
    assert last[-1].startswith("| components:20,size=5 |") and last[-12].startswith("| graph |")
    assert (tmp_path / "results.png").exists() == _has_matplotlib()
    if not _has_matplotlib():
        assert "plot skipped" in out


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def test_failure_is_marked(capsys, monkeypatch, tmp_path):
    def wrong(graph, **kwargs):
        k, labels, stats = real(graph, **kwargs)
        return k, np.zeros_like(labels), stats

    real = gconn.api.connected_components
    monkeypatch.setattr(gconn.api, "connected_components", wrong)
    code = cli.main(["bench", "--graphs", "components:3,size=4", "--repeat", "1", "--warmup", "0",
                     "--backend", "cpu", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "**NO**" in out and "FAILED" in out


def test_networkx_skipped_when_large():
    rows = bench.run(["path:30"], backend="cpu", repeat=1, warmup=0, nx_max_edges=10)
    (nx_row,) = [r for r in rows if r.method == "networkx"]
    assert nx_row.note == "skipped (too large)" and not nx_row.times
    assert "skipped (too large)" in bench.markdown_table(rows)


def test_expand_variants():
    assert bench.expand_variants("fastest") == list(bench.FASTEST)
    assert all(name in gconn.variants("cc") for name in bench.FASTEST)
    assert len(bench.expand_variants("all,auto")) == len(gconn.variants("cc")) + 1
    assert bench.expand_variants("KOut+UnionAsync+FindHalve") == ["kout+union-async+find-halve"]
    with pytest.raises(ValueError):
        bench.expand_variants("kout+nope")
    with pytest.raises(ValueError):
        bench.expand_variants(" , ")


def test_same_partition():
    assert harness.same_partition(np.array([0, 0, 1, 2]), np.array([1, 1, 0, 2]))
    assert not harness.same_partition(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]))
    assert not harness.same_partition(np.array([0, 1]), np.array([0, 0]))


def test_data_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("GCONN_DATA", raising=False)
    repo = Path(__file__).resolve().parents[1]
    assert suites.data_dir() == repo.parent / "shared" / "data"
    monkeypatch.setenv("GCONN_DATA", str(tmp_path))
    assert suites.data_dir() == tmp_path
    with pytest.raises(ValueError, match="GCONN_DATA"):
        suites.real_graphs()
    (tmp_path / "graphs").mkdir()
    (tmp_path / "graphs" / "b.el").write_text("0 1\n")
    (tmp_path / "graphs" / "a.mtx").write_text("x")
    assert [Path(p).name for p in suites.SUITES["real"].graphs()] == ["a.mtx", "b.el"]


def test_suite_settings_can_be_overridden(monkeypatch, tmp_path):
    seen = {}

    def fake_run(graphs, **kwargs):
        seen.update(kwargs, graphs=graphs)
        return []

    monkeypatch.setattr(harness, "run", fake_run)
    assert cli.main(["bench", "--suite", "cpu-target", "--repeat", "2", "--out", str(tmp_path)]) == 0
    assert seen["graphs"] == ["rmat:scale=20,ef=16"]
    assert seen["backend"] == "cpu" and seen["repeat"] == 2 and seen["warmup"] == 1


def test_frontdoor_api_cases_check_the_labels(tmp_path):
    """``bench.frontdoor``'s API child checks its labels as SciPy's partition: a wrong partition fails."""
    from gconn.bench import frontdoor
    files = frontdoor.make_files(2000, tmp_path)
    how = ("api", "arrays", files["npy"], "cpu", files["canon"])
    r = frontdoor.run_once(how, harness.this_tree(), files["k"])
    assert r["same"] and r["wall_s"] > r["answer_s"] > r["first_s"] > 0
    assert frontdoor.run_once(("api", "scipy") + how[2:], harness.this_tree(), files["k"])["same"]
    # the CSV of names counts only the vertices its edges name, and the CLI's count is checked
    names = dict(frontdoor.cases(files))["cli .csv (names)"]
    assert names[3] == files["k_csv"] <= files["k"]
    assert frontdoor.run_once(names, harness.this_tree(), files["k"])["wall_s"] > 0
    with pytest.raises(RuntimeError, match="components"):
        frontdoor.run_once(names[:3] + (files["k_csv"] + 1,), harness.this_tree(), files["k"])
    np.save(tmp_path / "wrong.npy", np.arange(files["n"]))    # every vertex alone
    with pytest.raises(RuntimeError, match="not SciPy's partition"):
        frontdoor.run_once(how[:4] + (str(tmp_path / "wrong.npy"),), harness.this_tree(), files["k"])


def test_frontdoor_writes_the_text_files_its_cases_read(tmp_path, monkeypatch):
    """``--only arrays`` writes no text file (minutes at 2**26 edges); ``--backend gpu`` adds CuPy's peer."""
    from gconn.bench import frontdoor
    ran = []
    monkeypatch.setattr(frontdoor, "turns", lambda trees, fn, repeat: ran.append(1) or {t: [] for t in trees})
    rows, files = frontdoor.measure(["src"], 2000, 1, tmp_path, only=["arrays"])
    assert len(ran) == 1 and not any((tmp_path / f"g.{f}").exists() for f in frontdoor.TEXT)
    frontdoor.measure(["src"], 2000, 1, tmp_path, only=["api file"])
    assert (tmp_path / "g.el").exists() and not (tmp_path / "g.mtx").exists()
    assert not (tmp_path / "g.el.gz").exists()
    frontdoor.measure(["src"], 2000, 1, tmp_path, only=["cli .el.gz"])
    import gzip
    assert gzip.decompress((tmp_path / "g.el.gz").read_bytes()) == (tmp_path / "g.el").read_bytes()
    names = [name for name, _ in frontdoor.cases(files, "gpu")]
    assert names[1].startswith("peer arrays") and not any(n.startswith("peer arrays") for n, _ in
                                                          frontdoor.cases(files, "cpu"))


def test_turns_reads_generator_specs_and_graph_files(tmp_path, capsys):
    """``bench.turns`` times each tree on a spec or a file, and checks the trees' counts agree;
    ``--launched`` is for the GPU only."""
    from gconn.bench import turns
    path = tmp_path / "two.el"
    path.write_text("0 1\n2 3\n3 4\n")
    tree = harness.this_tree()
    turns.main(["--tree", tree, "--tree", tree, "--graphs", "mesh:3", str(path), "--rounds", "1", "--repeat", "1"])
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| ")][1:]
    assert [r.split(" | ")[0] for r in rows] == ["| mesh:3", f"| {path}"]
    # --host: calls from the edges as host arrays
    turns.main(["--tree", tree, "--graphs", str(path), "--rounds", "1", "--repeat", "1", "--host"])
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| ")][1:]
    assert len(rows) == 1 and rows[0].endswith("| 1.00 |")
    # --forest: spanning forests, on a grid with scattered ids
    turns.main(["--tree", tree, "--tree", tree, "--graphs", "grid:8,permute=true", "--rounds", "1", "--repeat", "1",
                "--forest"])
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| ")][1:]
    assert len(rows) == 1 and rows[0].startswith("| grid:8,permute=true | auto |")
    # --batches: incremental inserts through the API and into the state, and the share of the two
    turns.main(["--tree", tree, "--graphs", "grid:8", "--rounds", "1", "--repeat", "1", "--batches", "10,100"])
    out = capsys.readouterr().out
    rows = [r.split(" | ")[1] for r in out.splitlines() if r.startswith("| ")][1:]
    assert rows == ["auto api, 10 edges", "auto kernels, 10 edges", "auto api, 100 edges", "auto kernels, 100 edges"]
    assert "The kernels' time over the API's, each tree: auto, 10 edges: " in out
    with pytest.raises(SystemExit):
        turns.main(["--tree", tree, "--launched"])
    with pytest.raises(SystemExit):
        turns.main(["--tree", tree, "--backend", "gpu", "--launched", "--host"])
    with pytest.raises(SystemExit):
        turns.main(["--tree", tree, "--batches", "10", "--host"])
