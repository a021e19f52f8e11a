"""IncrementalConnectivity on the CPU used by several threads at once
(see incremental_threads.py for the bounds each answer is checked against)."""
import threading

import numpy as np
import pytest

import gconn
from incremental_threads import check, hammer
from oracles import same_partition


@pytest.mark.parametrize("name,mode", [("none+union-async+find-halve", "phased"),
                                       ("none+union-rem-cas+find-split+splice", "sequential"),
                                       ("none+union-jtb+find-two-try-split", "phased")])
def test_threads_insert_and_query_while_ids_grow(name, mode):
    # five fresh structures: ids grow from 0 past 1024, 2048, 4096 (each a
    # reallocation) while eight threads insert and query
    for run in range(5):
        ic = gconn.IncrementalConnectivity(algorithm=name, backend="cpu", mode=mode)
        log = hammer(ic, threads=8, rounds=30, span=6000, seed=run, big_every=10 if run == 0 else 0)
        counts = check(log)
        assert counts["query"] == 8 * 30
        assert ic.n == max(int(max(np.max(a) for a in e[3] if len(a))) for e in log if e[0] != "labels"
                           and e[0] != "count") + 1


def test_threads_labels_and_count_while_inserting():
    ic = gconn.IncrementalConnectivity(backend="cpu")
    log = hammer(ic, threads=8, rounds=24, span=3000, seed=11, observe_every=3)
    counts = check(log)
    assert counts == {"query": 8 * 24, "labels": 8 * 8, "count": 8 * 8}


def test_threads_on_a_seeded_structure():
    rng = np.random.default_rng(4)
    s, d = rng.integers(0, 2000, 1500), rng.integers(0, 2000, 1500)
    g = gconn.Graph.from_edges(s, d, n=2000)
    built = []

    def build():
        built.append(gconn.IncrementalConnectivity(graph=g, backend="cpu"))
    # construction (the static run that seeds the state) from several threads at once
    pool = [threading.Thread(target=build) for _ in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    _, ref = gconn.connected_components(g, backend="cpu")
    assert len(built) == 4 and all(same_partition(ic.labels(), ref) for ic in built)
    log = hammer(built[0], threads=8, rounds=20, span=5000, seed=2, n0=2000, observe_every=5)
    check(log, 2000, (s, d))
