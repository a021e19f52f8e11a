"""gconn.DynamicConnectivity(backend="gpu") in numba's CUDA simulator (the cases: tests/dynamiccases.py).

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_dynamic.py
"""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings, strategies as st

from dynamiccases import (run_bridges_and_whole_components, run_cycle, run_graph_and_ids,
                          run_multi_edges_and_the_same_pair, run_random_batches, run_random_stream,
                          run_revived_edge_replaces, run_hubs)

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]

BATCHES = st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 39), st.integers(0, 39)), max_size=30),
                   min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 40), BATCHES)
def test_random_mixed_batches(n, batches):
    run_random_batches("gpu", n, batches)


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


def _path_after(deletions):
    """A 20-vertex path, then one batch deleting ``deletions``: (labels, whether the pass over
    the forest decided the pieces)."""
    import numpy as np

    import gconn
    from gconn.backends.gpu import dynamic
    dc = gconn.DynamicConnectivity(backend="gpu")
    dc.insert(np.arange(19), np.arange(1, 20))
    u, v = zip(*deletions)
    dc.delete(list(u), list(v))
    return dc.components()[1].tolist(), bool(dc._state.meta[dynamic.FAIL])


def test_a_short_side_is_found_by_the_local_search():
    labels, fell_back = _path_after([(18, 19)])
    assert labels == [0] * 19 + [1]
    assert not fell_back


def test_sides_longer_than_the_search_take_the_forest_pass():
    from gconn.backends.gpu.dynamic import SIDE_CAP
    assert 10 > SIDE_CAP        # both halves outgrow the search
    labels, fell_back = _path_after([(9, 10)])
    assert labels == [0] * 10 + [1] * 10
    assert fell_back


def test_two_cuts_finding_one_piece_take_the_forest_pass():
    # both cuts exhaust {15} first: the pieces {0..14} and {16..19} would both go unsearched
    labels, fell_back = _path_after([(14, 15), (15, 16)])
    assert labels == [0] * 15 + [1] + [2] * 4
    assert fell_back


def test_a_deletion_before_thousands_of_inserts_of_its_pair_is_refused():
    # the batch check's tally must not wrap: 2,048 inserts at 2^20 apiece overflow 32 bits
    import numpy as np

    import gconn
    dc = gconn.DynamicConnectivity(backend="gpu")
    dc.insert([0, 2], [1, 3])
    m = 2048
    kinds = np.r_[2, 2, np.zeros(m, np.int8)]
    with pytest.raises(ValueError, match=r"delete \(0, 1\) \(operation 1 of"):
        dc.process(kinds, np.zeros(m + 2, np.int32), np.ones(m + 2, np.int32))
    assert sorted(dc.edges()[0].tolist()) == [0, 2]
