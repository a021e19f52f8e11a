"""gconn.DynamicConnectivity: batches of inserts, deletes and queries against SciPy's components
of the edges present, recomputed after every batch."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn


def scipy_labels(pairs: Counter, n: int):
    live = [p for p, c in pairs.items() if c > 0]
    src = np.array([p[0] for p in live], np.int64)
    dst = np.array([p[1] for p in live], np.int64)
    return scipy_cc(coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)


def check(dc, pairs: Counter):
    k0, l0 = scipy_labels(pairs, dc.n)
    k, labels = dc.components()
    assert k == k0 == dc.n_components
    assert np.array_equal(labels, l0)
    src, dst = dc.edges()
    assert Counter(zip(src.tolist(), dst.tolist())) == +Counter({p: c for p, c in pairs.items() if c > 0})


def key(u, v):
    return (min(u, v), max(u, v))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 39), st.integers(0, 39)),
                                             max_size=30), min_size=1, max_size=8))
def test_random_mixed_batches(n, batches):
    """Random batches; deletions only of edges present at that point (else the batch is refused whole)."""
    dc = gconn.DynamicConnectivity()
    pairs: Counter = Counter()
    for batch in batches:
        ops = [(k, u % n, v % n) for k, u, v in batch]
        have = Counter(pairs)
        valid = True
        for k, u, v in ops:
            if k == 0:
                have[key(u, v)] += 1
            elif k == 2:
                if have[key(u, v)] <= 0:
                    valid = False
                    break
                have[key(u, v)] -= 1
        kinds = np.array([o[0] for o in ops], np.int8)
        src = np.array([o[1] for o in ops], np.int64)
        dst = np.array([o[2] for o in ops], np.int64)
        if not valid:
            before = dc.components(), dc.edges()
            with pytest.raises(ValueError, match="is not present at that point; nothing of the batch was applied"):
                dc.process(kinds, src, dst)
            after = dc.components(), dc.edges()
            assert before[0][0] == after[0][0] and np.array_equal(before[0][1], after[0][1])
            assert all(np.array_equal(a, b) for a, b in zip(before[1], after[1]))
            continue
        # the queries' answers as each sees the operations before it
        expect, live = [], Counter(pairs)
        n_now = dc.n
        for k, u, v in ops:
            n_now = max(n_now, u + 1, v + 1)
            if k == 0:
                live[key(u, v)] += 1
            elif k == 2:
                live[key(u, v)] -= 1
            else:
                _, lab = scipy_labels(live, n_now)
                expect.append(lab[u] == lab[v])
        got = dc.process(kinds, src, dst)
        assert got.tolist() == expect
        pairs = live
        check(dc, pairs)


def test_tree_edges_bridges_and_whole_components():
    dc = gconn.DynamicConnectivity()
    # two triangles joined by a bridge (2, 3), and a path 6-7-8
    src, dst = [0, 1, 2, 3, 4, 5, 2, 6, 7], [1, 2, 0, 4, 5, 3, 3, 7, 8]
    dc.insert(src, dst)
    pairs = Counter(key(u, v) for u, v in zip(src, dst))
    check(dc, pairs)
    dc.delete([2], [3])                         # the bridge: two components
    pairs[(2, 3)] -= 1
    check(dc, pairs)
    assert dc.n_components == 3
    for u, v in ((0, 1), (1, 2), (2, 0)):       # every edge of a component, one at a time
        dc.delete([u], [v])
        pairs[key(u, v)] -= 1
        check(dc, pairs)
    assert dc.n_components == 5
    dc.delete([7], [6])                         # either orientation names the pair
    pairs[(6, 7)] -= 1
    check(dc, pairs)


def test_multi_edges_and_the_same_pair_in_one_batch():
    dc = gconn.DynamicConnectivity()
    dc.insert([0, 1, 0], [1, 0, 2])             # (0, 1) twice
    dc.delete([0], [1])
    assert dc.connected([0], [1]).tolist() == [True]
    dc.delete([1], [0])
    assert dc.connected([0], [1]).tolist() == [False]
    # insert and delete the same pair in one batch, queries between
    got = dc.process([0, 1, 2, 1, 0, 1], [0, 0, 0, 0, 1, 0], [1, 1, 1, 1, 0, 1])
    assert got.tolist() == [True, False, True]
    with pytest.raises(ValueError, match=r"delete \(5, 6\) \(operation 1 of the batch\)"):
        dc.process(["insert", "delete"], [3, 5], [4, 6])
    assert dc.n == 3        # nothing applied: the insert's id 4 did not grow the vertex set


def test_replacement_edges_keep_a_cycle_connected():
    """A long cycle: the first deletion (a tree edge, whichever) finds the non-tree edge that closes
    the cycle; the second splits it in two."""
    n = 1000
    dc = gconn.DynamicConnectivity()
    dc.insert(np.arange(n), (np.arange(n) + 1) % n)
    pairs = Counter(key(u, (u + 1) % n) for u in range(n))
    for u in (0, 500):
        dc.delete([u], [(u + 1) % n])
        pairs[key(u, (u + 1) % n)] -= 1
        check(dc, pairs)
    assert dc.n_components == 2


def test_graph_ids_and_errors():
    g = gconn.Graph.from_edges([0, 1], [1, 2], n=5)
    dc = gconn.DynamicConnectivity(graph=g)
    assert dc.n == 5 and dc.n_components == 3
    assert dc.component_of([0, 2, 4]).tolist() == [0, 0, 2]
    dc.connected([9], [0])                      # a query's unseen id grows the vertex set
    assert dc.n == 10
    with pytest.raises(ValueError, match="not among the 10 vertices"):
        dc.component_of([10])
    with pytest.raises(ValueError, match="negative vertex id -1"):
        dc.insert([-1], [0])
    with pytest.raises(ValueError, match="beyond DynamicConnectivity's ids"):
        dc.insert([0], [2**31])
    with pytest.raises(ValueError, match="unknown operation kind 'remove'"):
        dc.process(["remove"], [0], [1])
    with pytest.raises(ValueError, match="0 \\(insert\\), 1 \\(query\\) or 2 \\(delete\\)"):
        dc.process([3], [0], [1])
    with pytest.raises(ValueError, match="no GPU backend yet"):
        gconn.DynamicConnectivity(backend="gpu")
    assert dc.process(np.array([[0, 5, 6], [1, 5, 6]])).tolist() == [True]


def test_a_larger_random_stream():
    """10^5 operations in batches of 10^4, 30% deletions of present edges."""
    rng = np.random.default_rng(7)
    n = 3000
    dc = gconn.DynamicConnectivity(n)
    present: list = []
    pairs: Counter = Counter()
    for _ in range(10):
        kinds, src, dst = [], [], []
        for _ in range(10_000):
            if present and rng.random() < 0.3:
                u, v = present.pop(int(rng.integers(len(present))))
                kinds.append(2)
                pairs[key(u, v)] -= 1
            else:
                u, v = (int(x) for x in rng.integers(0, n, 2))
                present.append((u, v))
                kinds.append(0)
                pairs[key(u, v)] += 1
            src.append(u)
            dst.append(v)
        dc.process(kinds, src, dst)
        check(dc, pairs)


def test_cli_stream_with_deletes(capsys):
    import json
    from gconn import cli
    argv = ["stream", "--generate", "kron:scale=8", "--batch-size", "100", "--delete-ratio", "0.4",
            "--query-ratio", "0.2", "--json", "--quiet"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["structure"] == "DynamicConnectivity"
    assert out["deletes"] == round(0.4 * out["inserts"]) and out["components"] == out["static_components"]
    assert cli.main(argv + ["--backend", "gpu"]) == 2
    assert "--delete-ratio runs gconn.DynamicConnectivity on the CPU" in capsys.readouterr().err


def test_benchmark_checks_every_batch():
    """``python -m gconn.bench.dynamic`` on a small graph: each batch's components checked (and
    NetworKit's count, where it is installed)."""
    import importlib.util
    from gconn.bench import dynamic as bench
    rows = bench.run("kron:scale=8", [50], [0.5], 2, networkit=50 if importlib.util.find_spec("networkit") else 0,
                     log=lambda s: None)
    assert rows[0]["size"] == 50 and len(rows[0]["gconn"].samples) == 2
    assert "| 50 | 50% |" in bench.report(rows, "kron:scale=8", 256, 1000)
