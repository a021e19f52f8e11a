"""gconn.DynamicConnectivity(backend="gpu") in numba's CUDA simulator (the cases: tests/dynamiccases.py).

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_dynamic.py
"""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings, strategies as st

from dynamiccases import (run_bridges_and_whole_components, run_cycle, run_gpu_largest_piece, run_gpu_local_search,
                          run_gpu_many_small, run_gpu_wide_tally, run_graph_and_ids, run_hubs,
                          run_multi_edges_and_the_same_pair,
                          run_random_batches, run_random_stream, run_revived_edge_replaces, run_wide_ids, on_device,
                          run_gpu_queries_reserve_nothing, run_gpu_heal, run_gpu_heal_meets_a_piece,
                          run_gpu_small_trees)

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]

BATCHES = st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 39), st.integers(0, 39)), max_size=30),
                   min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 40), BATCHES)
def test_random_mixed_batches(n, batches):
    run_random_batches("gpu", n, batches)


@settings(max_examples=5, deadline=None)
@given(st.integers(2, 40), BATCHES)
def test_random_batches_checked_on_the_device(n, batches):
    on_device(run_random_batches, "gpu", n, batches)


def test_ids_and_errors_checked_on_the_device():
    on_device(run_graph_and_ids, "gpu")
    on_device(run_wide_ids, "gpu")
    on_device(run_gpu_queries_reserve_nothing)


def test_tree_edges_bridges_and_whole_components():
    run_bridges_and_whole_components("gpu")


def test_multi_edges_and_the_same_pair_in_one_batch():
    run_multi_edges_and_the_same_pair("gpu")


def test_a_revived_edge_replaces():
    run_revived_edge_replaces("gpu")


def test_hubs():
    run_hubs("gpu")


def test_replacement_edges_keep_a_cycle_connected():
    run_cycle("gpu", n=200)


def test_graph_ids_and_errors():
    run_graph_and_ids("gpu")


def test_a_random_stream_through_rebuilds():
    """Batches large enough to rebuild the adjacency and compact the edges several times."""
    run_random_stream("gpu", n=300, batches=6, size=500, deletes=0.45)


def test_the_local_search_and_its_fallback():
    run_gpu_local_search()


def test_cuts_heal_on_a_grid():
    for seed in (1, 5):     # seeds on which a heal by any non-tree edge into the phase's walks fails
        run_gpu_heal(seed=seed)
    run_gpu_heal_meets_a_piece()


def test_cuts_that_lose_their_piece_are_searched_again():
    run_gpu_small_trees()


def test_the_pass_over_the_forest_keeps_the_largest_piece_or_builds_the_forest_again():
    run_gpu_largest_piece()
    run_gpu_many_small()


def test_a_deletion_before_thousands_of_inserts_of_its_pair_is_refused():
    run_gpu_wide_tally()
