"""Every union-find variant on the CPU against scipy, forests, stats."""
import numpy as np
import pytest

import gconn
from gconn import design

from oracles import check_forest, component_minima, reference, same_partition

UF_CC = [v.name for v in design.iter_variants("cc") if v.finish in design.UNION_FINDS]
UF_FOREST = [v.name for v in design.iter_variants("forest") if v.finish in design.UNION_FINDS]


@pytest.mark.parametrize("name", UF_CC)
def test_cc_variant_matches_scipy(name, graphs):
    for gname, g in graphs:
        k0, l0 = reference(g)
        k, labels = gconn.connected_components(g, algorithm=name, backend="cpu")
        assert k == k0, gname
        # gconn's compaction numbers components like scipy: equal arrays.
        assert np.array_equal(labels, l0), gname


@pytest.mark.parametrize("name", UF_FOREST)
def test_spanning_forest(name, graphs):
    for gname, g in graphs:
        k0, _ = reference(g)
        src, dst = gconn.spanning_forest(g, algorithm=name, backend="cpu")
        check_forest(g, src, dst, k0)


@pytest.mark.parametrize("params", [dict(k=1), dict(k=3), dict(k=2, kout="paper"), dict(k=4, kout="paper"),
                                    dict(hb_n=1), dict(hb_n=16), dict(bfs_sample=4), dict(bfs_levels=1),
                                    dict(bfs_levels=3)])
def test_sampling_parameters(params, graphs):
    sampling = "hb" if "hb_n" in params else "bfs" if any(p.startswith("bfs") for p in params) else "kout"
    for gname, g in graphs:
        k0, l0 = reference(g)
        k, labels = gconn.connected_components(
            g, algorithm=f"{sampling}+union-async+find-halve", backend="cpu", **params)
        assert np.array_equal(labels, l0), gname


@pytest.mark.parametrize("finish", ["union-rem-cas+find-split+splice", "sv", "lt-prf", "stergiou", "label-prop",
                                    "ecl-cc", "afforest"])
def test_bfs_sampling_level_cap(finish):
    """A capped BFS leaves a partial tree of the giant component that every
    finish completes; on a path it reaches 2 * levels + 1 vertices at most."""
    from gconn.graph.generators import path
    g = path(2000, permute=True, seed=3)
    k0, l0 = reference(g)
    name = f"bfs+{finish}"
    for levels in (1, 5, 40):
        k, labels, st = gconn.connected_components(g, algorithm=name, backend="cpu", bfs_levels=levels,
                                                   return_stats=True)
        assert k == k0 and np.array_equal(labels, l0), (name, levels)
        assert st.coverage <= (2 * levels + 1) / g.n, (name, levels, st.coverage)
        if gconn.design.Variant.parse(name).root_based:
            src, dst = gconn.spanning_forest(g, algorithm=name, backend="cpu", bfs_levels=levels)
            check_forest(g, src, dst, k0)


def test_bad_sampling_parameters():
    g = gconn.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(ValueError, match="bfs_levels >= 1"):
        gconn.connected_components(g, algorithm="bfs+union-async", backend="cpu", bfs_levels=0)
    with pytest.raises(ValueError, match="k >= 1"):
        gconn.connected_components(g, algorithm="kout+union-async", backend="cpu", k=0)
    with pytest.raises(ValueError, match="hb_n >= 1"):
        gconn.connected_components(g, algorithm="hb+union-async", backend="cpu", hb_n=0)


def test_uncompacted_labels_are_component_minima(graphs):
    for name in ("kout+union-async+find-halve", "hb+union-jtb+find-two-try-split", "none+union-jtb+find-naive"):
        for gname, g in graphs:
            k0, l0 = reference(g)
            k, reps = gconn.connected_components(g, algorithm=name, backend="cpu", compact=False)
            assert k == k0
            assert same_partition(reps, l0)
            # each representative is the smallest vertex of its component
            assert np.array_equal(reps, component_minima(l0)), (name, gname)


def test_return_labels_false_and_stats(graphs):
    g = dict(graphs)["hub"]
    k0, _ = reference(g)
    assert gconn.connected_components(g, backend="cpu", return_labels=False) == k0
    k, labels, st = gconn.connected_components(g, algorithm="kout+union-async+find-halve",
                                               backend="cpu", return_stats=True)
    assert st.variant == "kout+union-async+find-halve" and st.backend == "cpu"
    assert {"sample", "lmax", "finish", "finalize"} <= set(st.phase_times)
    assert 0 < st.coverage <= 1 and 0 <= st.inter_component <= 1
    assert st.edge_inspections["sample"] > 0
    # the hub component is the largest: L_max is its root (vertex 0)
    assert st.lmax == 0
    _, _, st = gconn.connected_components(g, algorithm="none+union-async+find-halve",
                                          backend="cpu", return_stats=True)
    assert st.edge_inspections == {"finish": g.m}


def test_repeated_parallel_runs_are_stable():
    # Races show up as run-to-run differences on a contended graph.
    rng = np.random.default_rng(7)
    n = 20000
    s, d = rng.integers(0, n, 80000), rng.integers(0, n, 80000)
    g = gconn.Graph.from_edges(s, d, n)
    k0, l0 = reference(g)
    for name in ("none+union-async+find-compress", "none+union-rem-lock+find-split+splice",
                 "kout+union-hooks+find-halve", "none+union-jtb+find-two-try-split",
                 "none+union-early+find-split", "hb+union-rem-cas+find-halve+halve-one"):
        for _ in range(5):
            k, labels = gconn.connected_components(g, algorithm=name, backend="cpu")
            assert np.array_equal(labels, l0), name


def test_auto_picks_and_is_correct(graphs):
    for gname, g in graphs:
        k0, l0 = reference(g)
        k, labels = gconn.connected_components(g, backend="cpu")
        assert np.array_equal(labels, l0), gname


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("finish", ["union-async+find-halve", "union-rem-cas+find-naive+splice",
                                    "union-rem-lock+find-split+split-one", "union-jtb+find-naive"])
def test_stride_sampling_spread_runs(finish, k):
    """Stride sampling on edge lists several times k n long, so that its
    32-edge runs are spread apart and most edges are left to the finish;
    in id order, shuffled, and as the canonical list.  The sampled edge
    count is the runs' total."""
    from gconn.design import STRIDE_RUN, Plan, Variant
    rng = np.random.default_rng(k)
    n = 300
    for m in (8 * k * n, 30 * k * n + 17):
        src = rng.integers(0, n, m)
        dst = np.where(rng.random(m) < 0.5, rng.integers(0, n, m), (src + 1) % n)
        dst[: m // 10] = src[: m // 10]     # self loops first: the first runs link nothing
        order = np.argsort(src, kind="stable")
        for s, d in ((src, dst), (src[order], dst[order])):
            g = gconn.Graph.from_edges(s, d, n)
            k0, l0 = reference(g)
            name = f"stride+{finish}"
            kk, labels, st = gconn.connected_components(g, algorithm=name, backend="cpu", k=k, return_stats=True)
            assert kk == k0 and np.array_equal(labels, l0), (name, m)
            seen = st.edge_inspections["finish"]        # the list the run read
            assert seen in (m, g.m) and 0 < st.coverage <= 1
            step = Plan.of(Variant.parse(name).with_params(k=k)).stride_step(seen, n)
            assert step > STRIDE_RUN
            runs = -(-seen // step)
            assert st.edge_inspections["sample"] == sum(min(STRIDE_RUN, seen - r * step) for r in range(runs))
            if Variant.parse(name).root_based:
                fs, fd = gconn.spanning_forest(g, algorithm=name, backend="cpu", k=k)
                check_forest(g, fs, fd, k0)


def test_stride_sampling_takes_only_union_find_finishes():
    with pytest.raises(ValueError, match="stride sampling .* union-find"):
        gconn.connected_components(([0], [1]), algorithm="stride+lt-prf", backend="cpu")
    with pytest.raises(ValueError, match="incremental connectivity takes no sampling"):
        gconn.IncrementalConnectivity(algorithm="stride+union-async", backend="cpu")
