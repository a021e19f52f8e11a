"""Incremental connectivity against a sequential union-find."""
import numpy as np
import pytest

import gconn
from gconn import design
from oracles import replay_incremental, stream

UF_INC = [v.name for v in design.iter_variants("incremental") if v.finish in design.UNION_FINDS]


@pytest.mark.parametrize("name", UF_INC)
def test_phased_and_sequential_equal_sequential_union_find(name):
    rng = np.random.default_rng(hash(name) % 2**32)
    for mode in ("phased", "sequential"):
        ic = gconn.IncrementalConnectivity(algorithm=name, backend="cpu", mode=mode)
        replay_incremental(ic, stream(rng, 400, 6, 150), mode)


@pytest.mark.parametrize("name", ["none+union-async+find-halve", "none+union-rem-cas+find-split+splice",
                                  "none+union-jtb+find-two-try-split", "none+union-hooks+find-compress"])
def test_concurrent_mode_is_bounded_by_before_and_after(name):
    rng = np.random.default_rng(5)
    ic = gconn.IncrementalConnectivity(algorithm=name, backend="cpu", mode="concurrent")
    replay_incremental(ic, stream(rng, 300, 8, 200), "concurrent",
                       exact=design.Variant.parse(name, "incremental").phase_separated)


@pytest.mark.parametrize("mode", ["phased", "sequential", "concurrent"])
def test_batches_on_both_sides_of_the_serial_threshold(mode):
    # Batches below SERIAL_BELOW run the one-thread kernels, larger ones the
    # parallel kernels; both must give the sequential union-find's answers.
    from gconn.cpu.unionfind import SERIAL_BELOW
    rng = np.random.default_rng(17)
    sizes = [SERIAL_BELOW - 1, SERIAL_BELOW, 3 * SERIAL_BELOW, 1]
    batches = [b for size in sizes for b in stream(rng, 4 * SERIAL_BELOW, 1, size, queries=0.5)]
    ic = gconn.IncrementalConnectivity(algorithm="none+union-async+find-halve", backend="cpu", mode=mode)
    replay_incremental(ic, batches, mode, exact=mode != "concurrent")


def test_growth_insert_connected_labels():
    ic = gconn.IncrementalConnectivity(3, backend="cpu")
    assert ic.n == 3 and ic.n_components == 3
    ic.insert([0], [5000])
    assert ic.n == 5001
    assert ic.connected([5000, 1], [0, 2]).tolist() == [True, False]
    assert ic.n_components == 5000
    ic.insert(np.array([], np.int64), np.array([], np.int64))
    assert ic.connected([], []).size == 0
    assert ic.labels()[:3].tolist() == [0, 1, 2]
    assert ic.labels(compact=False)[5000] == 0


def test_starts_from_a_graph():
    g = gconn.Graph.from_edges([0, 2], [1, 3], n=6)
    for name in ("none+union-async+find-halve", "none+union-jtb+find-naive"):
        ic = gconn.IncrementalConnectivity(graph=g, algorithm=name, backend="cpu")
        assert ic.n == 6 and ic.n_components == 4
        assert ic.connected([0, 0], [1, 2]).tolist() == [True, False]
        ic.insert([1], [2])
        assert ic.connected([0], [3]).tolist() == [True]


def test_batch_array_and_kind_names():
    ic = gconn.IncrementalConnectivity(backend="cpu")
    out = ic.process(np.array([[0, 0, 1], [1, 0, 1], [1, 1, 2]]))
    assert out.tolist() == [True, False]
    out = ic.process(["insert", "query"], [1, 0], [2, 2])
    assert out.tolist() == [True]


@pytest.mark.parametrize("call,exc,needle", [
    (lambda ic: ic.insert([0, -1], [1, 2]), ValueError, "negative"),
    (lambda ic: ic.insert([0, 1], [1]), ValueError, "different lengths"),
    (lambda ic: ic.insert([0.5], [1]), TypeError, "float"),
    (lambda ic: ic.process([0, 2], [0, 1], [1, 2]), ValueError, "0 \\(insert\\) or 1 \\(query\\)"),
    (lambda ic: ic.process([0], [0, 1], [1, 2]), ValueError, "kinds has 1 entries"),
    (lambda ic: ic.process(["jump"], [0], [1]), ValueError, "unknown operation kind"),
    (lambda ic: ic.process(np.zeros((3, 2), int)), ValueError, r"shape \(m, 3\)"),
    (lambda ic: ic.process([0], [1]), TypeError, "kinds, src and dst"),
])
def test_bad_batches(call, exc, needle):
    ic = gconn.IncrementalConnectivity(backend="cpu")
    with pytest.raises(exc, match=needle):
        call(ic)
    # nothing was lost: the structure still works after a rejected batch
    ic.insert([0], [1])
    assert ic.connected([0], [1]).tolist() == [True]


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="unknown mode"):
        gconn.IncrementalConnectivity(mode="eventually")
    with pytest.raises(ValueError, match="non-negative"):
        gconn.IncrementalConnectivity(-1)
    with pytest.raises(ValueError, match="no sampling"):
        gconn.IncrementalConnectivity(algorithm="kout+union-async+find-halve", backend="cpu")
