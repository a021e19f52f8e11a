"""gconn.DynamicConnectivity on the CPU (the cases: tests/dynamiccases.py)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gconn
from dynamiccases import (run_bridges_and_whole_components, run_cycle, run_graph_and_ids, run_wide_ids,
                          run_multi_edges_and_the_same_pair, run_one_batch_then_deletions, run_random_batches,
                          run_random_stream, run_rebuild_then_walks,
                          run_revived_edge_replaces, run_hubs)

BATCHES = st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 39), st.integers(0, 39)), max_size=30),
                   min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), BATCHES)
def test_random_mixed_batches(n, batches):
    run_random_batches("cpu", n, batches)


def test_tree_edges_bridges_and_whole_components():
    run_bridges_and_whole_components("cpu")


def test_multi_edges_and_the_same_pair_in_one_batch():
    run_multi_edges_and_the_same_pair("cpu")


def test_a_revived_edge_replaces():
    run_revived_edge_replaces("cpu")


def test_hubs():
    run_hubs("cpu")


def test_replacement_edges_keep_a_cycle_connected():
    run_cycle("cpu")


def test_graph_ids_and_errors():
    run_graph_and_ids("auto")
    run_wide_ids("auto")
    with pytest.raises(ValueError, match="unknown backend 'cuda'"):
        gconn.DynamicConnectivity(backend="cuda")
    from gconn.backends import gpu
    if not gpu.available(simulator_ok=True)[0]:
        with pytest.raises(gconn.GPUUnavailableError, match="backend='gpu' is not usable here"):
            gconn.DynamicConnectivity(backend="gpu")


@pytest.mark.parametrize("cls", [gconn.DynamicConnectivity, gconn.IncrementalConnectivity])
def test_a_graph_of_names_or_relabelled_ids_is_refused(cls):
    """graph= whose vertices are names or relabelled ids: an error, where the structure numbered them
    0..k-1 and a later query by the user's ids answered for other vertices (5 and 7 were 'not connected')."""
    import pandas as pd
    relabelled = gconn.Graph.from_edges([5, 10**6], [7, 10**6 + 1], relabel=True)
    with pytest.raises(ValueError, match=r"graph=...\): the graph's vertices are relabelled ids"):
        cls(graph=relabelled, backend="cpu")
    with pytest.raises(ValueError, match=r"graph=...\): the graph's vertices are names"):
        cls(graph=pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"]}), backend="cpu")
    s = cls(graph=gconn.Graph.from_edges([5, 10**3], [7, 10**3 + 1]), backend="cpu")
    assert s.connected([5], [7]).tolist() == [True]


def test_a_larger_random_stream():
    """10^5 operations in batches of 10^4, 30% deletions of present edges."""
    run_random_stream("cpu")


def test_many_deletions_rebuild_the_forest():
    run_rebuild_then_walks("cpu")


def test_one_batch_then_deletions():
    run_one_batch_then_deletions("cpu")


def test_cli_stream_with_deletes(capsys):
    import json
    from gconn import cli
    argv = ["stream", "--generate", "kron:scale=8", "--batch-size", "100", "--delete-ratio", "0.4",
            "--query-ratio", "0.2", "--json", "--quiet"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["structure"] == "DynamicConnectivity"
    assert out["deletes"] == round(0.4 * out["inserts"]) and out["components"] == out["static_components"]
    # more deletes than inserts cannot be drawn: an error, not a quiet 1
    assert cli.main(argv[:6] + ["1.5"] + argv[7:]) == 2
    assert "--delete-ratio: expected a number from 0 to 1, got 1.5" in capsys.readouterr().err


def test_benchmark_checks_every_batch():
    """``python -m gconn.bench.dynamic`` on a small graph: each batch's components checked (and
    NetworKit's count, where it is installed)."""
    import importlib.util
    from gconn.bench import dynamic as bench
    rows = bench.run("kron:scale=8", [50], [0.5], 2, networkit=50 if importlib.util.find_spec("networkit") else 0,
                     log=lambda s: None)
    assert rows[0]["size"] == 50 and len(rows[0]["gconn"].samples) == 2
    assert "| 50 | 50% |" in bench.report(rows, "kron:scale=8", 256, 1000)
    with pytest.raises(SystemExit):
        bench.main(["--kernels"])      # CUDA events: the GPU only


def test_benchmark_back_to_back_checks_after_the_last_batch(monkeypatch):
    """``--back-to-back``: a row's batches one after another, the components checked once after the
    last (a wrong label is caught), the recomputation timed as often."""
    from gconn.bench import dynamic as bench
    rows = bench.run("kron:scale=8", [50], [0.5], 3, networkit=50, log=lambda s: None, back_to_back=True)
    assert len(rows[0]["gconn"].samples) == 3 and len(rows[0]["recompute"].samples) == 3
    assert "networkit" not in rows[0]
    assert "back to back" in bench.report(rows, "kron:scale=8", 256, 1000, back_to_back=True)
    real = gconn.DynamicConnectivity.components

    def off_by_one(self):
        k, labels = real(self)
        labels[-1] = k
        return k + 1, labels
    monkeypatch.setattr(gconn.DynamicConnectivity, "components", off_by_one)
    with pytest.raises(AssertionError, match="components unlike"):
        bench.run("kron:scale=8", [50], [0.5], 3, networkit=0, log=lambda s: None, back_to_back=True)


def test_single_ids_as_well_as_arrays():
    """connected(0, 2) answers a bool (it was 'src must be a 1-D array of vertex ids; got shape ()'), and
    insert, delete and component_of take one edge or vertex; a bool is no id."""
    for ic in (gconn.IncrementalConnectivity(backend="cpu"), gconn.DynamicConnectivity(backend="cpu")):
        ic.insert(0, 1)
        ic.insert(np.int64(1), np.int32(2))
        assert ic.connected(0, 2) is True and ic.connected(0, 7) is False
        assert ic.connected([0], [2]).tolist() == [True]
        with pytest.raises((TypeError, ValueError)):
            ic.connected(True, 1)
    dc = gconn.DynamicConnectivity(backend="cpu")
    dc.insert([0, 1], [1, 2])
    dc.delete(2, 1)
    assert dc.connected(0, 2) is False and dc.component_of(2) == 1 and dc.component_of([0, 1]).tolist() == [0, 0]


def test_update_log_symbols_are_kinds():
    """'+', '?' and '-' as update logs write them; a deletion asked of the insert-only structure says
    which structure takes it."""
    dc = gconn.DynamicConnectivity(backend="cpu")
    assert dc.process(["+", "?", "-", "?"], [0, 0, 0, 0], [1, 1, 1, 1]).tolist() == [True, False]
    ic = gconn.IncrementalConnectivity(backend="cpu")
    assert ic.process(["+", "?"], [0, 0], [1, 1]).tolist() == [True]
    for kinds in (["-"], ["delete"], [2]):
        with pytest.raises(ValueError, match="deletions.*need gconn.DynamicConnectivity"):
            ic.process(kinds, [0], [1])


def test_a_table_near_half_full_is_not_rehashed_by_every_batch(monkeypatch):
    """The pair table is at most half full; one whose live pairs alone came near half was rehashed into
    its own size by every batch after (7 ms of a 23 ms batch on grid:512)."""
    from gconn.backends.cpu import dynamic as D
    sizes, real = [], D.rehash
    monkeypatch.setattr(D, "rehash", lambda table, new: sizes.append(new.size) or real(table, new))
    rng = np.random.default_rng(1)
    pairs = np.unique(np.sort(rng.integers(0, 1 << 20, (40_000, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]][rng.permutation(len(pairs) - 1)[:20_000]]
    dc = gconn.DynamicConnectivity(backend="cpu")
    dc.insert(pairs[:16_000, 0], pairs[:16_000, 1])
    live, fresh = list(range(16_000)), 16_000
    for _ in range(10):        # each batch: 300 deletions, 300 new pairs
        gone = [live.pop(int(i)) for i in sorted(rng.choice(len(live), 300, replace=False), reverse=True)]
        new = list(range(fresh, fresh + 300))
        fresh += 300
        live += new
        kinds = np.r_[np.full(300, 2), np.zeros(300, int)]
        dc.process(kinds, pairs[gone + new, 0], pairs[gone + new, 1])
    assert len(sizes) <= 2, sizes
    ids = pairs[live]
    k, labels = gconn.connected_components((ids[:, 0], ids[:, 1]), backend="cpu")
    want = dc.components()
    assert want[1].size >= labels.size and want[0] == k + (want[1].size - labels.size)
