"""gconn.DynamicConnectivity(backend="gpu") on a GPU (the cases: tests/dynamiccases.py), and its benchmark.

    python -m pytest -m gpu tests/gpu/test_gpu_dynamic.py
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from dynamiccases import (run_bridges_and_whole_components, run_cycle, run_gpu_largest_piece, run_gpu_local_search,
                          run_gpu_wide_tally, run_graph_and_ids, run_hubs, run_multi_edges_and_the_same_pair, run_random_batches,
                          run_random_stream, run_revived_edge_replaces)
from gpucases import ON_GPU

pytestmark = ON_GPU

BATCHES = st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 39), st.integers(0, 39)), max_size=30),
                   min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), BATCHES)
def test_random_mixed_batches(n, batches):
    run_random_batches("gpu", n, batches)


def test_small_cases():
    run_gpu_local_search()
    run_gpu_wide_tally()
    run_gpu_largest_piece()
    run_hubs("gpu", leaves=2000)
    run_revived_edge_replaces("gpu")
    run_bridges_and_whole_components("gpu")
    run_multi_edges_and_the_same_pair("gpu")
    run_cycle("gpu", n=100_000)
    run_graph_and_ids("gpu")


def test_random_streams():
    run_random_stream("gpu", n=3000, batches=10, size=10_000, deletes=0.3)
    run_random_stream("gpu", n=100_000, batches=3, size=300_000, deletes=0.5, seed=3)


def test_benchmark_checks_every_batch():
    from gconn.bench import dynamic as bench
    rows = bench.run("kron:scale=12", [100, 10_000], [0.1, 0.9], 2, log=lambda s: None, backend="gpu")
    assert [r["size"] for r in rows] == [100, 100, 10_000, 10_000] and len(rows[0]["gconn"].samples) == 2
    assert "recomputation on the GPU" in bench.report(rows, "kron:scale=12", 4096, 1000, "gpu")
