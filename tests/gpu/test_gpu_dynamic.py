"""gconn.DynamicConnectivity(backend="gpu") on a GPU (the cases: tests/dynamiccases.py), and its benchmark.

    python -m pytest -m gpu tests/gpu/test_gpu_dynamic.py
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from dynamiccases import (run_bridges_and_whole_components, run_cycle, run_gpu_largest_piece, run_gpu_local_search,
                          run_gpu_many_small, run_gpu_wide_tally, run_graph_and_ids, run_hubs,
                          run_multi_edges_and_the_same_pair,
                          run_random_batches, run_random_stream, run_revived_edge_replaces, run_wide_ids,
                          run_gpu_queries_reserve_nothing, run_gpu_heal, run_gpu_heal_meets_a_piece,
                          run_gpu_small_trees)
from gpucases import ON_GPU

pytestmark = ON_GPU

BATCHES = st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 39), st.integers(0, 39)), max_size=30),
                   min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), BATCHES)
def test_random_mixed_batches(n, batches):
    run_random_batches("gpu", n, batches)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 40), BATCHES)
def test_random_batches_on_the_device(n, batches):
    import cupy as cp
    run_random_batches("gpu", n, batches, put=cp.asarray)


def test_device_batches_checked_there():
    import cupy as cp
    import gconn
    run_gpu_queries_reserve_nothing(put=cp.asarray)
    dc = gconn.DynamicConnectivity(backend="gpu")
    dc.insert(cp.asarray([0, 1]), cp.asarray([1, 2]))
    got = dc.process(cp.asarray([2, 1, 1], cp.int8), cp.asarray([0, 0, 1]), cp.asarray([1, 2, 2]))
    assert isinstance(got, cp.ndarray) and got.tolist() == [False, True]
    with pytest.raises(ValueError, match=r"delete \(0, 1\) \(operation 0 of"):
        dc.delete(cp.asarray([0]), cp.asarray([1]))
    with pytest.raises(ValueError, match=r"negative vertex id -3 \(dst\[1\]\)"):
        dc.insert(cp.asarray([0, 1]), cp.asarray([1, -3]))
    with pytest.raises(ValueError, match="or 2 \\(delete\\)"):
        dc.process(cp.asarray([0, 5]), cp.asarray([0, 1]), cp.asarray([1, 2]))
    with pytest.raises(ValueError, match="vertex id 2147483648 \\(dst\\[1\\]\\) is beyond"):
        dc.insert(cp.asarray([0, 1], cp.int64), cp.asarray([1, 2**31], cp.int64))
    with pytest.raises(TypeError, match="dst must be a CuPy array"):
        dc.insert(cp.asarray([0]), [1])
    with pytest.raises(TypeError, match="takes NumPy arrays, not CuPy"):
        gconn.DynamicConnectivity(backend="cpu").insert(cp.asarray([0]), cp.asarray([1]))
    g = gconn.Graph.from_edges(cp.asarray([0, 1]), cp.asarray([1, 2]), n=5)
    for backend in ("gpu", "cpu"):
        dc = gconn.DynamicConnectivity(graph=g, backend=backend)
        assert dc.n == 5 and dc.components()[1].tolist() == [0, 0, 0, 1, 2]
        assert dc.component_of(cp.asarray([4, 2])).tolist() == [2, 0]


def test_small_cases():
    run_gpu_local_search()
    run_gpu_wide_tally()
    run_gpu_largest_piece()
    run_gpu_many_small()
    run_gpu_heal(side=300, rounds=4)    # on a grid of 144 the cuts' sides run out before they heal
    run_gpu_heal_meets_a_piece()
    run_gpu_small_trees(seeds=(3, 4, 5, 6))
    run_hubs("gpu", leaves=2000)
    run_revived_edge_replaces("gpu")
    run_bridges_and_whole_components("gpu")
    run_multi_edges_and_the_same_pair("gpu")
    run_cycle("gpu", n=100_000)
    run_graph_and_ids("gpu")
    run_wide_ids("gpu")


def test_random_streams():
    run_random_stream("gpu", n=3000, batches=10, size=10_000, deletes=0.3)
    run_random_stream("gpu", n=100_000, batches=3, size=300_000, deletes=0.5, seed=3)


def test_benchmark_checks_every_batch():
    from gconn.bench import dynamic as bench
    rows = bench.run("kron:scale=12", [100, 10_000], [0.1, 0.9], 2, log=lambda s: None, backend="gpu",
                     kernels=True)
    assert [r["size"] for r in rows] == [100, 100, 10_000, 10_000] and len(rows[0]["gconn"].samples) == 2
    # every batch hashes its updates; a batch of deletions applies them
    assert all(len(r["kernels"]["dyn_hash"].samples) == 2 and r["kernels"]["dyn_apply"] > 0 for r in rows)
    text = bench.report(rows, "kron:scale=12", 4096, 1000, "gpu")
    assert "recomputation on the GPU" in text and "- 10,000, 90%: all " in text and "dyn_hash" in text


def test_a_launcher_packs_again_what_changed():
    """The structure's launches keep their parameters: another array or another scalar in a
    position is packed again, an array of another type refused."""
    import cupy as cp
    from gconn.backends.gpu import dynamic, launch
    run = launch.Launcher(launch.get("dyn_clear", (), dynamic._DT))
    ids = cp.asarray([0, 2], cp.int32)
    a, b = cp.ones(4, cp.int64), cp.ones(4, cp.int64)
    run(2, ids, 2, a)
    run(2, ids, 1, b)
    assert a.tolist() == [0, 1, 0, 1] and b.tolist() == [0, 1, 1, 1]
    with pytest.raises(TypeError, match="int64"):
        run(2, ids, 2, cp.ones(4, cp.int32))
    run(2, ids, 2, b)
    assert b.tolist() == [0, 1, 0, 1]


@pytest.mark.parametrize("deletes", [True, False])
def test_update_log_on_the_gpu(tmp_path, capsys, deletes):
    """`gconn stream --updates LOG -b gpu` (DynamicConnectivity with deletes, IncrementalConnectivity
    without) answers each query as the CPU does, on a log of 60,000 updates."""
    import numpy as np
    from gconn import cli
    rng = np.random.default_rng(3)
    n, m = 5000, 60000
    kinds = rng.choice([0, 1, 2] if deletes else [0, 1], m, p=[0.6, 0.25, 0.15] if deletes else [0.7, 0.3])
    src, dst, present, lines = rng.integers(0, n, m), rng.integers(0, n, m), [], []
    for k, u, v in zip(kinds.tolist(), src.tolist(), dst.tolist()):
        if k == 2 and not present:
            k = 0
        if k == 2:
            u, v = present.pop(int(rng.integers(len(present))))
        elif k == 0:
            present.append((u, v))
        lines.append(f"{'+?-'[k]} {u} {v}")
    log = tmp_path / "log.txt"
    log.write_text("\n".join(lines) + "\n")
    answers = {}
    for backend in ("cpu", "gpu"):
        out = tmp_path / f"{backend}.txt"
        assert cli.main(["stream", "--updates", str(log), "--batch-size", "4096", "-b", backend, "-o", str(out),
                         "-q"]) == 0, capsys.readouterr()
        answers[backend] = out.read_text()
    assert answers["gpu"] == answers["cpu"]
    assert answers["cpu"].count("\n") == sum(line.startswith("?") for line in lines) > 10000
