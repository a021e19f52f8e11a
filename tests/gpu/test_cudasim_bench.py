"""``gconn bench --gpu`` end to end in numba's CUDA simulator on tiny graphs
(the harness runs and writes its tables and plots; times mean nothing).

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_bench.py
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]


def test_gpu_bench_writes_every_table(tmp_path, capsys):
    from gconn.cli import main
    rc = main(["bench", "--gpu", "--tiny", "--graphs", "path_s22", "--finishes", "union-async+find-halve",
               "--incremental", "none+union-rem-cas+find-halve+splice", "--repeat", "1", "--warmup", "0",
               "--out", str(tmp_path)])
    assert rc == 0
    result = json.loads((tmp_path / "gpu.json").read_text())
    (row,) = result["graphs"]
    # the static grid: every sampling with the finish, plus the automatic choice
    variants = {r["variant"] for r in row["static"]}
    assert {f"{s}+union-async+find-halve" for s in ("none", "kout", "hb", "bfs")} <= variants
    assert row["auto"] in variants and row["auto_over_best"] >= 1.0
    assert [r["variant"].split("+")[0] for r in row["sampling"]] == ["kout", "hb", "bfs"]
    # a path is one component: every sampling that covers it has Cov 1
    assert all(0.0 <= r["cov"] <= 1.0 and 0.0 <= r["ic"] <= 1.0 for r in row["sampling"])
    assert row["incremental"][0]["edges_per_s"] > 0 and row["incremental"][0]["api_share"] > 0
    # the spanning forest beside connected components with its variant
    assert row["forest"]["variant"].endswith("split-one") and row["forest"]["first_over_cc"] > 0
    assert row["e2e_pair_ms"] > 0 and row["e2e_host_ms"] > 0 and row["components"] == 1
    # at --tiny there are no peers' figures to divide by
    assert row["peer_ms"] is None and row["incremental_ref"] is None
    assert {r["batch"] for r in result["curves"]["batch"]} == {10, result["curves"]["m"]}
    assert [r["insert_share"] for r in result["curves"]["mixed"]] == [0.5]
    text = (tmp_path / "gpu.md").read_text()
    for heading in ("Connected components, graph resident", "Static compute ms", "End to end", "Sampling (Table 4",
                    "Spanning forest, the automatic choice", "through the public API", "Incremental on Kronecker"):
        assert heading in text
    pytest.importorskip("matplotlib")
    assert (tmp_path / "incremental_batch.png").stat().st_size > 0
    assert (tmp_path / "incremental_ratio.png").stat().st_size > 0
    assert (tmp_path / "compute.png").stat().st_size > 0 and (tmp_path / "host.png").stat().st_size > 0


def test_gpu_bench_fails_on_wrong_labels(monkeypatch):
    """A variant whose labels are not SciPy's partition fails the run."""
    from gconn import pipeline
    from gconn.bench import gpu
    real = pipeline.run

    def wrong(graph, plan, backend, **kw):
        roots, *rest = real(graph, plan, backend, **kw)
        return (np.arange(roots.size, dtype=roots.dtype), *rest)   # every vertex alone: not a path's

    monkeypatch.setattr(pipeline, "run", wrong)
    with pytest.raises(gpu.WrongLabels, match="path_s22"):
        gpu.bench_graph("path_s22", gpu.prepare(["path_s22"], gpu.TINY)["path_s22"], 1, 0, lambda *a: None,
                        ("union-async+find-halve",), ())


def test_gpu_bench_fails_on_a_forest_short_of_spanning(monkeypatch):
    """A spanning forest without n - k edges fails the run."""
    from gconn import pipeline
    from gconn.bench import gpu
    real = pipeline.run

    def short(graph, plan, backend, forest=False, **kw):
        roots, fa, fb = real(graph, plan, backend, forest=forest, **kw)
        if forest:
            fa = fa.copy()
            fa[fa >= 0] = -1            # no edge kept
        return roots, fa, fb

    monkeypatch.setattr(pipeline, "run", short)
    with pytest.raises(gpu.WrongLabels, match="spanning forest"):
        gpu.bench_graph("path_s22", gpu.prepare(["path_s22"], gpu.TINY)["path_s22"], 1, 0, lambda *a: None,
                        ("union-async+find-halve",), ())


def test_gpu_bench_adds_an_earlier_runs_rows(tmp_path):
    """``--add gpu.json``: a run split in two gives one table, the earlier rows with their spreads."""
    from gconn.cli import main
    common = ["bench", "--gpu", "--tiny", "--finishes", "union-async+find-halve", "--incremental",
              "none+union-async+find-halve", "--repeat", "2", "--warmup", "0"]
    assert main([*common, "--graphs", "path_s22", "--no-curves", "--out", str(tmp_path / "a")]) == 0
    assert main([*common, "--graphs", "mesh_4k", "--no-curves", "--add", str(tmp_path / "a" / "gpu.json"),
                 "--out", str(tmp_path / "b")]) == 0
    result = json.loads((tmp_path / "b" / "gpu.json").read_text())
    assert [r["graph"] for r in result["graphs"]] == ["path_s22", "mesh_4k"]
    first = result["graphs"][0]
    assert first["auto_first_ms_range"][0] <= first["auto_first_ms"] <= first["auto_first_ms_range"][1]
    text = (tmp_path / "b" / "gpu.md").read_text()
    assert "With the rows of" in text and "| path_s22 |" in text and "| mesh_4k |" in text
