"""Static runs on a resident graph captured as CUDA graphs and replayed
(:mod:`gconn.backends.gpu.replay`), on a real GPU, against SciPy.

    python -m pytest -m gpu tests/gpu/test_gpu_replay.py
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import gconn
from gconn.graph import Graph

from oracles import check_forest, component_minima, host, reference
from chunkedcases import components_graph

from gconn.backends import gpu
from gpucases import GPU_OK as _OK, ON_GPU

pytestmark = ON_GPU

if _OK:
    import cupy as cp
    from gconn.backends.gpu import replay

CAPTURED = ["auto", "none+union-rem-cas+find-split+split-one", "kout+union-async+find-halve",
            "hb+union-rem-cas+find-halve+splice", "none+union-jtb+find-two-try-split", "none+ecl-cc"]


@pytest.fixture(scope="module")
def graph():
    src, dst, n = components_graph(np.random.default_rng(11), 60_000, 300_000, parts=9)
    return Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)


@pytest.mark.parametrize("compact", [True, False])
@pytest.mark.parametrize("algorithm", CAPTURED)
def test_replays_match_scipy(graph, algorithm, compact):
    """Every call agrees with SciPy: the first run, the capture and the
    replays; results are the caller's own (mutating one leaves the next
    intact)."""
    k0, l0 = reference(graph)
    want = l0 if compact else component_minima(l0)
    results = []
    for _ in range(5):
        k, labels = gconn.connected_components(graph, algorithm=algorithm, compact=compact)
        assert isinstance(k, int) and k == k0
        assert isinstance(labels, cp.ndarray)
        np.testing.assert_array_equal(host(labels), want)
        results.append(labels)
    results[-1][:] = -1
    np.testing.assert_array_equal(host(results[-2]), want)
    assert len({r.data.ptr for r in results}) == len(results)
    states = replay.captured(graph)
    assert "captured" in states.values()


@pytest.mark.parametrize("algorithm", ["bfs+union-async+find-halve", "none+sv", "none+lt-prf"])
def test_runs_that_read_back_are_not_captured(graph, algorithm):
    """BFS sampling and the rounds finishes read values back: their capture
    fails, and every call runs as usual."""
    k0, l0 = reference(graph)
    for _ in range(4):
        k, labels = gconn.connected_components(graph, algorithm=algorithm)
        assert k == k0
        np.testing.assert_array_equal(host(labels), l0)
    states = {key[1].name: v for key, v in replay.captured(graph).items()}
    assert states[gconn.design.Variant.parse(algorithm).name] == "not capturable"


@pytest.mark.parametrize("algorithm", ["auto", "kout+union-rem-cas+find-split+split-one"])
def test_forest_replays(graph, algorithm):
    k0, _ = reference(graph)
    for _ in range(4):
        src, dst = gconn.spanning_forest(graph, algorithm=algorithm)
        check_forest(graph, src, dst, k0)


@pytest.mark.parametrize("algorithm", ["none+union-rem-cas+find-split+split-one", "hb+union-rem-cas+find-halve+splice"])
def test_threads_on_their_own_streams(graph, algorithm):
    """Threads replaying the same capture, each on its own stream, all get
    SciPy's labels (a busy capture makes a thread run as usual, sharing
    nothing with the replays)."""
    k0, l0 = reference(graph)
    gconn.connected_components(graph, algorithm=algorithm)
    errors = []

    def work():
        try:
            with cp.cuda.Stream(non_blocking=True):
                for _ in range(15):
                    k, labels = gconn.connected_components(graph, algorithm=algorithm)
                    if k != k0 or not np.array_equal(host(labels), l0):
                        errors.append("wrong labels")
        except Exception as e:      # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize("algorithm", ["none+union-rem-cas+find-split+split-one", "kout+union-async+find-halve"])
def test_a_captured_call_goes_straight_to_its_replay(monkeypatch, algorithm):
    """Once a plain call on a resident graph is captured, the next calls
    replay it through the handle kept with the graph (``replay.again``),
    not through the store; the replay counts as the store's latest use.
    Once the capture is dropped, the call finds its way through the store
    again, and every call agrees with SciPy."""
    src, dst, n = components_graph(np.random.default_rng(5), 8_000, 30_000, parts=4)
    g = Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
    k0, l0 = reference(g)
    through = []
    slow, fast = replay.replayed, replay.again
    monkeypatch.setattr(gpu, "replayed", lambda *a, **kw: through.append("store") or slow(*a, **kw))
    monkeypatch.setattr(gpu, "again", lambda h: (lambda out: (through.append("handle" if out else "none"), out)[1])(
        fast(h)))

    def call():
        k, labels = gconn.connected_components(g, algorithm=algorithm)
        assert k == k0
        np.testing.assert_array_equal(host(labels), l0)

    for _ in range(5):
        call()
    # run, capture, then the handle
    assert through == ["none", "store", "none", "store", "handle", "handle", "handle"]
    other = Graph.from_edges(cp.asarray(src[:100]), cp.asarray(dst[:100]), n)
    for _ in range(3):
        gconn.connected_components(other, algorithm=algorithm)
    through.clear()
    call()
    assert through == ["handle"]
    runs = g._cache["api setup"]
    (handle,) = [h for *_, h in runs.values() if h]
    ref, store, key = handle
    assert next(reversed(store)) is key and store[key] is ref()
    del store[key]          # the capture dropped: the handle's reference dies with it
    assert ref() is None
    through.clear()
    call()
    call()
    assert through == ["none", "store", "none", "store"] and handle[0]() is not None


def test_a_first_call_takes_the_choice_for_launched_runs(monkeypatch):
    """The automatic choice's first call on a resident graph is launched from the host, and runs the
    choice for launched runs (no sampling below 2^20 edges); the second runs the replayed choice (HB
    here) as usual, filling its caches, the third captures it, and later calls replay it; every call
    agrees with SciPy."""
    from gconn import design
    from gconn.api import dispatch
    src, dst, n = components_graph(np.random.default_rng(8), 8_000, 80_000, parts=4)
    g = Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
    g.adjacency()
    k0, l0 = reference(g)
    replayed, launched = design.choose(g, backend="gpu"), design.choose(g, backend="gpu", launched=True)
    assert (replayed.name, launched.name) == ("hb+union-rem-cas+find-halve+splice",
                                              "none+union-rem-cas+find-naive+splice")
    ran, real = [], dispatch.run_labels
    monkeypatch.setattr(dispatch, "run_labels", lambda be, g_, plan, *a: ran.append(plan.name) or real(be, g_, plan, *a))
    for _ in range(5):
        k, labels = gconn.connected_components(g)
        assert k == k0
        np.testing.assert_array_equal(host(labels), l0)
    assert ran == [launched.name, replayed.name, replayed.name]
    assert any(key[1] == replayed and state == "captured" for key, state in replay.captured(g).items())
    ran.clear()
    other = Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
    other.adjacency()
    gconn.connected_components(other, algorithm=replayed.name)     # named: no choice for launched runs
    assert ran == [replayed.name]


def test_a_first_forest_call_takes_the_choice_for_launched_runs(monkeypatch):
    """A spanning forest's first call on a resident graph runs the choice for launched runs (no
    sampling below 2^20 edges), later ones the replayed choice (HB here); every forest is valid."""
    from gconn import design, pipeline
    src, dst, n = components_graph(np.random.default_rng(9), 8_000, 80_000, parts=4)
    g = Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
    g.adjacency()
    k0, _ = reference(g)
    replayed = design.choose(g, "forest", backend="gpu")
    launched = design.choose(g, "forest", backend="gpu", launched=True)
    assert (replayed.name, launched.name) == ("hb+union-rem-cas+find-split+split-one",
                                              "none+union-rem-cas+find-naive+split-one")
    ran, real = [], pipeline.run
    monkeypatch.setattr(pipeline, "run", lambda g_, plan, *a, **kw: ran.append(plan.name) or real(g_, plan, *a, **kw))
    for _ in range(4):
        check_forest(g, *gconn.spanning_forest(g), k0)
    assert ran[:3] == [launched.name, replayed.name, replayed.name]
    assert set(ran) == {launched.name, replayed.name}

def test_stats_runs_are_not_captured_and_captures_are_bounded():
    src, dst, n = components_graph(np.random.default_rng(3), 5_000, 20_000, parts=3)
    g = Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
    k0, l0 = reference(g)
    for _ in range(3):
        k, labels, st = gconn.connected_components(g, return_stats=True)
        assert k == k0
    assert replay.captured(g) == {}
    names = ["none+union-async+find-halve", "none+union-async+find-compress", "none+union-rem-cas+find-halve+splice",
             "none+union-rem-cas+find-split+split-one", "none+union-rem-lock+find-split+splice",
             "kout+union-async+find-halve"]
    for name in names:
        for _ in range(3):
            k, labels = gconn.connected_components(g, algorithm=name)
            assert k == k0
            np.testing.assert_array_equal(host(labels), l0)
    states = list(replay.captured(g).values())
    # five runs without sampling kept under the edges' addresses (KEEP of
    # them at most), one k-out run with the graph
    assert states.count("captured") == replay.KEEP + 1
    assert states.count("seen") == 0


def test_automatic_choice_follows_the_graphs_forms():
    """A plain call's setup is kept with the graph per the forms it holds:
    once an adjacency is built, the next call takes the sampled variant the
    automatic choice then picks, and every call agrees with SciPy."""
    from gconn import design
    src, dst, n = components_graph(np.random.default_rng(5), 20_000, 100_000, parts=4)
    g = Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
    k0, l0 = reference(g)
    before = design.choose(g, "cc", backend="gpu")
    for _ in range(3):
        k, labels = gconn.connected_components(g)
        assert k == k0
        np.testing.assert_array_equal(host(labels), l0)
    g.adjacency()
    after = design.choose(g, "cc", backend="gpu")
    assert before.sampling == "none" and after.sampling != "none"
    for _ in range(3):
        k, labels = gconn.connected_components(g)
        assert k == k0
        np.testing.assert_array_equal(host(labels), l0)
        assert gconn.connected_components(g, return_labels=False) == k0
    assert any(key[1] == after and state == "captured" for key, state in replay.captured(g).items())
    # a device graph copied from a host graph: the host graph's adjacency counts
    h = Graph.from_edges(src, dst, n)
    d = h.to_device()
    for _ in range(2):
        assert gconn.connected_components(d)[0] == k0
    h.adjacency()
    assert design.choose(d, "cc", backend="gpu") == after
    for _ in range(3):
        k, labels = gconn.connected_components(d)
        assert k == k0
        np.testing.assert_array_equal(host(labels), l0)
    assert any(key[1] == after and state == "captured" for key, state in replay.captured(d).items())


def test_a_dropped_graph_is_freed_at_once():
    """Nothing gconn keeps with a graph refers back to it: dropping the
    last reference frees its device memory at once, with the garbage
    collector off (a cycle would wait for it).  The same calls run once
    first with the collector on, so that their kernels are compiled
    before it is turned off: numba's compiler leaves cycles that hold the
    frames of the call that compiled (with a cold kernel cache and the
    collector off, this test failed; with the collector on, the graph was
    freed at once all the same; 797e30a:BENCHMARKS.md)."""
    import gc
    pool = cp.get_default_memory_pool()
    src, dst, n = components_graph(np.random.default_rng(9), 50_000, 400_000, parts=3)

    def three_calls():
        g = Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
        g.adjacency()
        for _ in range(3):
            gconn.connected_components(g)
        return g

    three_calls()
    gc.collect()
    gc.disable()
    try:
        g = three_calls()
        held = pool.used_bytes()
        del g
        assert pool.used_bytes() <= held - 2 * 4 * src.size
    finally:
        gc.enable()


def _by_edges(src):
    return [v for k, v in replay._BY_EDGES.items() if src.data.ptr in k]


def test_edge_arrays_passed_again_replay_what_they_hold_now():
    """(src, dst) CuPy arrays passed again replay the capture kept under their
    addresses, and see what the arrays hold at the call: rewriting them in
    place between calls changes the answer as it should."""
    s, d, n = components_graph(np.random.default_rng(21), 40_000, 200_000, parts=5)
    cs, cd = cp.asarray(s), cp.asarray(d)
    want = reference(Graph.from_edges(s, d, n))
    for _ in range(4):
        k, labels = gconn.connected_components((cs, cd))
        assert k == want[0]
        np.testing.assert_array_equal(host(labels), want[1])
    assert any(isinstance(v, replay.Captured) for v in _by_edges(cs))
    # the same ids, other pairs: the same n and m, another partition
    d2 = np.random.default_rng(1).permutation(d)
    cd[:] = cp.asarray(d2)
    want2 = reference(Graph.from_edges(s, d2, n))
    assert want2[0] != want[0]
    for _ in range(3):
        k, labels = gconn.connected_components((cs, cd))
        assert k == want2[0]
        np.testing.assert_array_equal(host(labels), want2[1])
    src, dst = gconn.spanning_forest((cs, cd))
    src, dst = gconn.spanning_forest((cs, cd))
    src, dst = gconn.spanning_forest((cs, cd))
    check_forest(Graph.from_edges(s, d2, n), src, dst, want2[0])


def test_int64_edges_converted_every_call():
    """int64 arrays with small ids become int32 copies every call (fresh
    addresses or reused ones): every answer is right."""
    s, d, n = components_graph(np.random.default_rng(8), 30_000, 90_000, parts=4)
    cs, cd = cp.asarray(s, dtype=cp.int64), cp.asarray(d, dtype=cp.int64)
    want = reference(Graph.from_edges(s, d, n))
    for _ in range(5):
        k, labels = gconn.connected_components((cs, cd))
        assert k == want[0]
        np.testing.assert_array_equal(host(labels), want[1])
        k, labels = gconn.connected_components(Graph.from_edges(cs[::-1].copy(), cd[::-1].copy()))
        assert k == want[0]
        np.testing.assert_array_equal(host(labels), want[1])


@pytest.mark.parametrize("stride", [False, True])
def test_pair_passed_again_checks_its_ids_in_the_run(monkeypatch, stride):
    """A CuPy pair passed again skips the check before the run (the union
    kernel checks its ids): no id_bounds pass after the first call.  When
    the arrays change under it -- a larger id, a smaller largest id, a
    negative id -- the answer is still SciPy's, or the first call's error.
    With ``stride`` the automatic choice is stride sampling (its threshold
    lowered), whose sampling pass reads the unchecked ids first."""
    from gconn import design
    from gconn.backends.gpu import graph as device_graph
    monkeypatch.setattr(design, "AUTO_GPU_STRIDE_EDGES", 1000 if stride else 1 << 40)
    s, d, n = components_graph(np.random.default_rng(31 + stride), 50_000, 250_000, parts=6)
    cs, cd = cp.asarray(s), cp.asarray(d)
    checks = []
    real = device_graph.device_id_range
    monkeypatch.setattr(device_graph, "device_id_range", lambda a, b: checks.append(1) or real(a, b))

    def agree(s_, d_):
        k0, l0 = reference(Graph.from_edges(s_, d_))
        for _ in range(4):
            k, labels = gconn.connected_components((cs, cd))
            assert k == k0 and labels.size == l0.size
            np.testing.assert_array_equal(host(labels), l0)

    agree(s, d)
    assert len(checks) == 1
    assert device_graph.seen_n(cs, cd) == n
    assert any(isinstance(v, replay.Captured) and (k[1].sampling == "stride") == stride
               for k, v in replay._BY_EDGES.items() if cs.data.ptr in k and "ids unchecked" in k)
    # a larger id: the run skips it, sees it, and the call starts over checked
    s2, d2 = s.copy(), d.copy()
    d2[7] = n + 40
    cd[:] = cp.asarray(d2)
    agree(s2, d2)
    assert len(checks) == 2 and device_graph.seen_n(cs, cd) == n + 41
    # a smaller largest id: n would be too large
    s3, d3 = s % (n // 2), d % (n // 2)
    cs[:], cd[:] = cp.asarray(s3), cp.asarray(d3)
    agree(s3, d3)
    assert len(checks) == 3
    # a negative id: the error of a first call
    cs[123] = -5
    with pytest.raises(ValueError, match="-5"):
        gconn.connected_components((cs, cd))
    assert device_graph.seen_n(cs, cd) is None
    with pytest.raises(ValueError, match="-5"):
        gconn.connected_components((cs, cd))


def test_pair_passed_again_goes_straight_to_its_replay(monkeypatch):
    """From its third call on (checked, run, captured), a CuPy pair replays
    its capture through the handle kept with the pair's addresses: no Graph
    and no automatic choice per call; the labels stay SciPy's, also after
    the arrays are rewritten in place."""
    from gconn.api import dispatch
    s, d, n = components_graph(np.random.default_rng(41), 30_000, 120_000, parts=5)
    cs, cd = cp.asarray(s), cp.asarray(d)
    choices = []
    real = dispatch.variant_of
    monkeypatch.setattr(dispatch, "variant_of", lambda *a, **kw: choices.append(1) or real(*a, **kw))
    want = reference(Graph.from_edges(s, d, n))
    for _ in range(6):
        k, labels = gconn.connected_components((cs, cd))
        assert k == want[0]
        np.testing.assert_array_equal(host(labels), want[1])
    assert len(choices) == 3
    d2 = np.random.default_rng(2).permutation(d)
    cd[:] = cp.asarray(d2)
    want2 = reference(Graph.from_edges(s, d2, n))
    k, labels = gconn.connected_components((cs, cd))
    assert k == want2[0] and len(choices) == 3
    np.testing.assert_array_equal(host(labels), want2[1])


def test_a_strided_view_at_a_pair_s_address_is_not_that_pair():
    """A view with the address, size and id type of a pair passed before,
    but strided, is not read as that pair's contiguous memory: its answer
    is SciPy's for the ids it holds."""
    s, d, n = components_graph(np.random.default_rng(43), 20_000, 80_000, parts=4)
    cs, cd = cp.asarray(s), cp.asarray(d)
    h = (cs.size + 1) // 2
    for _ in range(4):
        gconn.connected_components((cs[:h], cd[:h]))
    vs, vd = cs[::2], cd[::2]
    assert vs.data.ptr == cs.data.ptr and vs.size == h
    want = reference(Graph.from_edges(s[::2], d[::2]))
    for _ in range(3):
        k, labels = gconn.connected_components((vs, vd))
        assert k == want[0]
        np.testing.assert_array_equal(host(labels), want[1])

