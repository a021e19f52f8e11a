"""The GPU kernels in numba's CUDA simulator, on tiny graphs, against scipy.

The simulator must be switched on before numba loads, so this module runs
in its own process:

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim.py

Without the variable its tests are skipped (and the default ``-m 'not gpu
and not cudasim'`` deselects them anyway).  The simulator runs one Python
thread per CUDA thread, so graphs stay under ~40 edges; under it the
backend uses NumPy for CuPy, blocks of 32 threads, 4-edge warp units and a
small-degree limit of 2, so that tiny graphs take every load-balancing path.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from oracles import check_forest, host, reference, same_partition, stream
from gpucases import check_incremental, compaction_cases, uf_variants

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]

if SIM:
    import gconn
    from gconn.graph import Graph


def tiny_graphs():
    """Under 40 edges each: random, two stars with leaves (degree > the
    small limit, several warp units), a path, isolated vertices."""
    rng = np.random.default_rng(7)
    out = [("random", rng.integers(0, 30, 25), rng.integers(0, 30, 25), 30)]
    s = np.r_[np.zeros(9, int), np.full(6, 10), np.arange(20, 27)]
    d = np.r_[np.arange(1, 10), np.arange(11, 17), np.arange(21, 28)]
    out.append(("stars-path", s, d, 32))
    out.append(("two-triangles-isolated", np.array([0, 1, 2, 5, 6, 7]), np.array([1, 2, 0, 6, 7, 5]), 12))
    return [(name, Graph.from_edges(s, d, n)) for name, s, d, n in out]


@pytest.fixture(scope="module")
def graphs():
    return tiny_graphs()


def check_cc(g, name, **params):
    k0, l0 = reference(g)
    k, labels = gconn.connected_components(g, algorithm=name, backend="gpu", **params)
    assert k == k0, name
    assert np.array_equal(host(labels), l0), name


@pytest.mark.parametrize("name", uf_variants("cc", sampling="none"))
def test_every_union_find_combination(name, graphs):
    """Every (finish, find, splice) combination: the edge-centric COO finish."""
    for _, g in graphs:
        check_cc(g, name)


SAMPLED = ["union-async+find-compress", "union-hooks+find-halve", "union-early+find-split",
           "union-rem-cas+find-split+splice", "union-rem-lock+find-halve+halve-one",
           "union-jtb+find-two-try-split"]


@pytest.mark.parametrize("name", ["none+union-async+find-compress", "none+union-rem-cas+find-split+splice",
                                  "none+union-jtb+find-naive", "hb+union-async+find-halve"])
def test_paths_longer_than_the_grid(name):
    """150 edges over 2 simulated warps: each warp walks several chunks of
    its segment; sorted and permuted ids."""
    perm = np.random.default_rng(1).permutation(151)
    for s, d in ((np.arange(150), np.arange(1, 151)), (perm[:-1], perm[1:])):
        check_cc(Graph.from_edges(s, d, 151), name)


@pytest.mark.parametrize("sampling,params", [
    ("kout", {}), ("kout", dict(k=3, kout="paper")), ("hb", {}), ("hb", dict(hb_n=1)), ("bfs", {})])
@pytest.mark.parametrize("finish", SAMPLED)
def test_samplers_and_gathered_finish(sampling, params, finish, graphs):
    for _, g in graphs:
        check_cc(g, f"{sampling}+{finish}", **params)


@pytest.mark.parametrize("finish", ["union-async+find-halve", "union-rem-cas+find-split+splice", "sv", "afforest"])
def test_bfs_sampling_level_cap(finish):
    """BFS sampling stops after ``bfs_levels`` levels (a permuted path:
    2 * levels + 1 vertices reached at most) and the finish completes it."""
    perm = np.random.default_rng(2).permutation(151)
    g = Graph.from_edges(perm[:-1], perm[1:], 151)
    k0, l0 = reference(g)
    for levels in (1, 4):
        k, labels, st = gconn.connected_components(g, algorithm=f"bfs+{finish}", backend="gpu",
                                                   bfs_levels=levels, return_stats=True)
        assert k == k0 and np.array_equal(host(labels), l0), levels
        assert st.coverage <= (2 * levels + 1) / g.n, (levels, st.coverage)
        if gconn.design.Variant.parse(f"bfs+{finish}").root_based:
            src, dst = gconn.spanning_forest(g, algorithm=f"bfs+{finish}", backend="gpu", bfs_levels=levels)
            check_forest(g, host(src), host(dst), k0)


@pytest.mark.parametrize("finish", SAMPLED)
def test_stride_sampling(finish, graphs):
    """Stride sampling: on the tiny graphs its one run takes every edge; on
    150 edges over 70 vertices with k=1 three 32-edge runs, 64 apart (the
    union kernel's chunks spread through the list), sorted and shuffled,
    and the stats count the sampled edges."""
    for _, g in graphs:
        check_cc(g, f"stride+{finish}")
    rng = np.random.default_rng(3)
    s, d = rng.integers(0, 70, 150), rng.integers(0, 70, 150)
    for order in (np.arange(150), np.argsort(s, kind="stable")):
        g = Graph.from_edges(s[order], d[order], 70)
        check_cc(g, f"stride+{finish}", k=1)
        k0, l0 = reference(g)
        k, labels, st = gconn.connected_components(g, algorithm=f"stride+{finish}", backend="gpu", k=1,
                                                   return_stats=True)
        assert k == k0 and np.array_equal(host(labels), l0)
        seen = st.edge_inspections["finish"]
        step = 32 * (seen // 70)
        assert st.edge_inspections["sample"] == sum(min(32, seen - r * step) for r in range(-(-seen // step)))
        assert 0 < st.coverage <= 1 and 0 <= st.inter_component <= 1


@pytest.mark.parametrize("sampling", ["none", "kout", "hb", "bfs", "stride"])
@pytest.mark.parametrize("finish", [f for f in SAMPLED if "splice" not in f] + ["union-rem-cas+find-naive+split-one"])
def test_spanning_forest(sampling, finish, graphs):
    for _, g in graphs:
        k0, _ = reference(g)
        src, dst = gconn.spanning_forest(g, algorithm=f"{sampling}+{finish}", backend="gpu")
        check_forest(g, host(src), host(dst), k0)


@pytest.mark.parametrize("algorithm, params", [("kout+union-async+find-halve", dict(k=1)),
                                               ("kout+union-rem-cas+find-naive+split-one", dict(k=3)),
                                               ("kout+union-async+find-halve", dict(kout="paper")),
                                               ("none+union-async+find-halve", {})])
def test_forest_recorded_by_position(algorithm, params, graphs, monkeypatch):
    """k-out and the pass over every edge record a forest in their edges' slots past the roots' (the
    size threshold lowered to the tiny graphs): every k and both k-out modes."""
    from gconn import design
    monkeypatch.setattr(design, "AUTO_GPU_PATH_EDGES", 1)
    plan = design.Plan.of(design.Variant.parse(algorithm, "forest").with_params(**params))
    by = []
    for _, g in graphs:
        k0, _ = reference(g)
        g.adjacency()
        by.append(design.forest_by_position(g, plan))
        src, dst = gconn.spanning_forest(g, algorithm=algorithm, backend="gpu", **params)
        check_forest(g, host(src), host(dst), k0)
    assert by.count(algorithm.split("+")[0].replace("none", "edges")) >= 2, by


def test_uncompacted_labels_and_stats(graphs):
    for name in ("kout+union-jtb+find-naive", "hb+union-async+find-halve", "none+union-jtb+find-two-try-split"):
        for _, g in graphs:
            k0, l0 = reference(g)
            k, reps, st = gconn.connected_components(g, algorithm=name, backend="gpu", compact=False,
                                                     return_stats=True)
            reps = host(reps)
            assert k == k0 and same_partition(reps, l0)
            mins = np.full(k0, g.n)
            np.minimum.at(mins, l0, np.arange(g.n))
            assert np.array_equal(reps, mins[l0]), "representatives are component minima"
            assert st.backend == "gpu" and st.device_time is not None and st.device_time >= 0
            assert "finish" in st.phase_times and "finish" in st.edge_inspections
            if not name.startswith("none"):
                assert 0 < st.coverage <= 1 and st.lmax is not None and 0 <= st.inter_component <= 1


def test_int64_ids(graphs):
    for _, g in graphs:
        g64 = Graph(g.n, g.indptr.astype(np.int64), g.indices.astype(np.int64), g.src.astype(np.int64),
                    g.dst.astype(np.int64))
        assert g64.id_dtype == np.int64
        for name in ("kout+union-async+find-compress", "none+union-jtb+find-two-try-split"):
            check_cc(g64, name)


@pytest.mark.parametrize("name", ["none+union-async+find-halve", "none+union-hooks+find-compress",
                                  "none+union-early+find-naive", "none+union-rem-cas+find-split+splice",
                                  "none+union-rem-lock+find-halve+split-one", "none+union-jtb+find-two-try-split"])
def test_incremental_growth(name):
    rng = np.random.default_rng(3)
    # ids jump past the first capacity (1024) twice: doubling copies, and
    # untouched vertices must read as singletons
    batches = stream(rng, 40, 2, 12) + stream(rng, 1500, 1, 12) + stream(rng, 2600, 1, 10)
    for mode in ("phased", "sequential", "concurrent"):
        check_incremental(name, batches, mode)


def test_incremental_int64_state():
    from gconn.design import Variant
    from gconn.backends.gpu import IncrementalState, asarray
    st = IncrementalState(Variant.parse("none+union-async+find-halve", "incremental"), np.int64)
    st.reserve(6)
    st.insert(asarray([0, 2], np.int64), asarray([1, 5], np.int64))
    assert host(st.query(asarray([1, 5, 0], np.int64), asarray([0, 2, 3], np.int64))).tolist() == [True, True, False]
    assert host(st.roots(6)).tolist() == [0, 0, 2, 3, 4, 2]


def test_simulator_is_not_picked_automatically():
    from gconn.backends import gpu
    assert gpu.available(simulator_ok=True)[0]
    ok, why = gpu.available(simulator_ok=False)
    assert not ok and "simulator" in why
    _, labels = gconn.connected_components(([0], [1]), backend="auto")
    assert isinstance(labels, np.ndarray)


def test_coo_from_csr(graphs, monkeypatch):
    """to_device copies the CSR and derives the COO on the device; here the
    same code on host arrays (the simulator's xp), in several chunks too."""
    from gconn.backends.gpu import graph as gg
    empty = Graph.from_edges([], [], n=4)
    for chunk in (gg.COO_CHUNK, 7):
        monkeypatch.setattr(gg, "COO_CHUNK", chunk)
        for _, g in graphs + [("empty", empty)]:
            src, dst = gg.coo_from_csr(g.indptr, g.indices)
            assert src.dtype == g.src.dtype and dst.dtype == g.dst.dtype
            assert np.array_equal(src, g.src) and np.array_equal(dst, g.dst)


@pytest.mark.parametrize("n,parts", [(1, 1), (7, 3), (64, 5), (65, 65), (100, 1), (333, 40), (1000, 997),
                                     (2049, 2000), (4500, 7)])
def test_compaction_of_any_roots(n, parts):
    """Labels in SciPy's order for roots that are the minima (the pass
    that finds minima skipped) and roots that are not, against the CPU's
    compaction; sizes on and across the simulator's 64-vertex tiles, and
    more tiles than the scanning block has threads; parent arrays not yet
    compressed come back compressed.  Every other case reads the roots
    from a view one item into its memory (not 16-byte aligned: the labels
    kernel's 4-byte path)."""
    from gconn.backends import cpu
    from gconn.backends.gpu import ops
    for i, (parents, min_rooted, flat, roots) in enumerate(compaction_cases(n, parts)):
        want_k, want = cpu.compact(roots.astype(np.int32))
        P = np.empty(n + 4, np.int32)
        P = P[(-P.ctypes.data // 4) % 4 + i % 2:][:n]       # 16-byte aligned, or one item past
        P[...] = parents
        assert (P.ctypes.data % 16 == 0) == (i % 2 == 0)
        k, labels = ops.compact(P, min_rooted=min_rooted, flat=flat)
        assert k == want_k and np.array_equal(host(labels), want), (min_rooted, flat)
        if not flat:        # the first kernel also compresses the parents
            assert np.array_equal(host(P), roots), min_rooted
