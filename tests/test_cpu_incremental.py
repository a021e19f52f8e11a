"""Incremental connectivity against a sequential union-find."""
import numpy as np
import pytest

import gconn
from gconn import design
from oracles import replay_incremental, same_partition, stream

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
    from gconn.backends.cpu.unionfind import SERIAL_BELOW
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
    # the default backend: a host graph chose the GPU's structure (as if its arrays were on the device)
    ic = gconn.IncrementalConnectivity(graph=([0, 2], [1, 3]))
    assert ic.n == 4 and ic.n_components == 2


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


# -- small batches: one compiled call checks and runs them (gconn.backends.cpu.unionfind.small_insert)

ARRAYS = {"list": list, "tuple": tuple, "int64": lambda x: np.array(x, np.int64),
          "int32": lambda x: np.array(x, np.int32), "int8": lambda x: np.array(x, np.int8),
          "uint32": lambda x: np.array(x, np.uint32), "strided": lambda x: np.repeat(np.array(x, np.int64), 2)[::2]}


@pytest.mark.parametrize("form", ARRAYS)
@pytest.mark.parametrize("mode", ["phased", "sequential", "concurrent"])
def test_small_batches_in_every_form_answer_like_the_union_find(form, mode):
    a = ARRAYS[form]
    rng = np.random.default_rng(len(form))
    batches = stream(rng, 100, 12, 15, queries=0.5)
    ic = gconn.IncrementalConnectivity(algorithm="none+union-jtb+find-two-try-split", backend="cpu", mode=mode)

    class InForm:
        """ic, given every batch in the form under test."""
        def __getattr__(self, name):
            return getattr(ic, name)

        def process(self, k, s, d):
            return ic.process(a(k.tolist()), a(s.tolist()), a(d.tolist()))
    replay_incremental(InForm(), batches, mode, exact=mode != "concurrent")
    # ids the batches did not use (below 128 for int8)
    ic.insert(a([101, 103]), a([103, 120]))
    assert ic.connected(a([120, 100]), a([101, 125])).tolist() == [True, False]


def test_small_batch_grows_within_the_capacity():
    ic = gconn.IncrementalConnectivity(3, backend="cpu")
    ic.insert([0], [5])
    assert ic.n == 6 and ic.n_components == 5 and ic.labels().tolist() == [0, 1, 2, 3, 4, 0]
    assert ic.connected([7], [6]).tolist() == [False] and ic.n == 8
    assert ic.process([0, 1], [9, 8], [8, 9]).tolist() == [True] and ic.n == 10


@pytest.mark.parametrize("form", ["int64", "int32", "tuple"])
@pytest.mark.parametrize("call,exc,needle", [
    (lambda ic, a: ic.insert(a([0, -1]), a([1, 2])), ValueError, "negative vertex id -1 \\(src\\[1\\]\\)"),
    (lambda ic, a: ic.connected(a([0, 1]), a([1, -2])), ValueError, "negative vertex id -2 \\(dst\\[1\\]\\)"),
    (lambda ic, a: ic.insert(a([0, 1]), a([1])), ValueError, "different lengths"),
    (lambda ic, a: ic.connected(a([0]), a([1, 2])), ValueError, "different lengths"),
    (lambda ic, a: ic.process(a([0, 2]), a([0, 1]), a([1, 2])), ValueError, "0 \\(insert\\) or 1 \\(query\\)"),
    (lambda ic, a: ic.process(a([-1]), a([0]), a([1])), ValueError, "0 \\(insert\\) or 1 \\(query\\)"),
    (lambda ic, a: ic.process(a([0]), a([0, 1]), a([1, 2])), ValueError, "kinds has 1 entries"),
    (lambda ic, a: ic.process(a([0, 1]), a([0, 1]), a([1])), ValueError, "different lengths"),
    (lambda ic, a: ic.process(a([0, 1]), a([0, -1]), a([1, 1])), ValueError, "negative"),
])
def test_small_batches_keep_the_checks(form, call, exc, needle):
    ic = gconn.IncrementalConnectivity(backend="cpu")
    ic.insert([5], [6])
    with pytest.raises(exc, match=needle):
        call(ic, ARRAYS[form])
    # a rejected batch changed nothing
    assert ic.n == 7 and ic.n_components == 6


@pytest.mark.parametrize("bad,exc,needle", [
    ([0.5, 1.0], TypeError, "float"), ([True, False], TypeError, "dtype bool"), ([1, None], TypeError, "integer"),
    ([[0, 1]], ValueError, "1-D"), ([2**63], ValueError, "int64 range"), (["a"], TypeError, "dtype <U1"),
])
def test_small_batches_reject_what_is_not_ids(bad, exc, needle):
    ic = gconn.IncrementalConnectivity(backend="cpu")
    for call in (ic.insert, ic.connected, lambda s, d: ic.process([0] * len(s), s, d)):
        with pytest.raises(exc, match=needle):
            call([0] * len(bad), bad)
    assert ic.n == 0


def test_ids_beyond_int32_on_an_int32_state():
    ic = gconn.IncrementalConnectivity(backend="cpu")
    ic.insert([0], [1])
    with pytest.raises(ValueError, match="64-bit ids|needs"):
        ic.insert([0], [2**31 - 1])
    assert ic.n == 2 and ic.connected([0], [1]).tolist() == [True]


def test_small_kernels_stop_at_the_id_limit():
    # an int32 state takes ids below INT32_MAX; the limit is the smaller of
    # that and the capacity, so try a limit of 5 on a capacity of 1024
    from gconn.backends.cpu import IncrementalState
    st = IncrementalState(design.Variant.parse("none+union-async+find-halve", "incremental"), np.int32)
    st.reserve(8)
    like, _, fin, fopt, sopt = st._codes
    st._codes = (like, 5, fin, fopt, sopt)
    assert st.small_insert(np.array([0]), np.array([5])) == -1
    out = np.empty(1, np.bool_)
    assert st.small_query(np.array([5]), np.array([0]), out) == -1
    assert st.small_process(np.array([0]), np.array([5]), np.array([0]), True, out) == (-1, 0)
    assert st.small_insert(np.array([0]), np.array([4])) == 5
    assert st.small_query(np.array([4]), np.array([0]), out) == 5 and out.tolist() == [True]


@pytest.mark.parametrize("name", ["none+union-async+find-halve", "none+union-jtb+find-naive"])
def test_small_kernels_on_an_int64_state(name):
    from gconn.backends.cpu import IncrementalState
    st = IncrementalState(design.Variant.parse(name, "incremental"), np.int64)
    st.reserve(8)
    assert st.small_insert(np.array([0, 2], np.int32), np.array([7, 3], np.int64)) == 8
    out = np.empty(3, np.bool_)
    assert st.small_process(np.array([1, 0, 1], np.int8), np.array([7, 3, 2]), np.array([0, 7, 0]), True,
                            out) == (8, 2)
    assert out[:2].tolist() == [True, True]
    assert same_partition(st.roots(8), np.array([0, 1, 0, 0, 4, 5, 6, 0]))
