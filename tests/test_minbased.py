"""The finishes beyond union-find on the CPU: SV (root-based and classic),
the 16 Liu-Tarjan variants, Stergiou, label propagation, ECL-CC, Afforest
and BFS-CC -- with every sampler, as spanning forests and incrementally."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gconn
from gconn import design
from gconn.design import default_max_rounds
from gconn.design import Variant
from oracles import check_forest, reference, replay_incremental, same_partition, stream

NEW = [f for f in design.FINISHES if f not in design.UNION_FINDS]
NEW_CC = [v.name for v in design.iter_variants("cc") if v.finish in NEW]
NEW_FOREST = [v.name for v in design.iter_variants("forest") if v.finish in NEW]
NEW_INC = [v.name for v in design.iter_variants("incremental") if v.finish in NEW]


def medium_graph():
    """Large enough for the parallel loops to interleave: many components of
    mixed sizes, a long path and isolated vertices."""
    rng = np.random.default_rng(99)
    n = 6000
    s = rng.integers(0, 4000, 5000)
    d = rng.integers(0, 4000, 5000)
    perm = rng.permutation(np.arange(4000, 5500))
    return gconn.Graph.from_edges(np.r_[s, perm[:-1]], np.r_[d, perm[1:]], n)


@pytest.fixture(scope="module")
def suite(graphs):
    return list(graphs) + [("medium", medium_graph())]


@st.composite
def edge_lists(draw):
    """Arbitrary small graphs with loops, duplicates and isolated vertices."""
    n = draw(st.integers(1, 50))
    m = draw(st.integers(0, 3 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = [x if draw(st.integers(0, 9)) == 0 else draw(ids) for x in src]
    return gconn.Graph.from_edges(np.array(src, np.int64), np.array(dst, np.int64), n)


def examples(n):
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- the design space ---------------------------------------------------------
def test_counts_reach_the_papers_339():
    counts = design.count_variants()
    assert counts["total"] >= 339
    # 22 finishes with the 4 samplers plus BFS-CC without sampling; 9
    # root-based ones (SV, 6 LT, ECL-CC, Afforest) for forests and batches.
    assert len(NEW_CC) == 22 * 4 + 1
    assert len(NEW_FOREST) == 9 * 4
    assert len(NEW_INC) == 9
    # union-find: 32 combinations (26 root-based) with the 4 samplers and
    # our stride sampling
    assert counts == {"cc": 160 + len(NEW_CC), "forest": 130 + len(NEW_FOREST),
                      "incremental": 32 + len(NEW_INC), "total": counts["total"]}


def test_every_listed_variant_runs():
    g = gconn.Graph.from_edges([0, 1, 3, 5, 5], [1, 2, 4, 6, 7], 9)
    k0, l0 = reference(g)
    for name in gconn.variants("cc"):
        k, labels = gconn.connected_components(g, algorithm=name, backend="cpu")
        assert k == k0 and np.array_equal(labels, l0), name
    for name in gconn.variants("forest"):
        src, dst = gconn.spanning_forest(g, algorithm=name, backend="cpu")
        check_forest(g, src, dst, k0)
    for name in gconn.variants("incremental"):
        ic = gconn.IncrementalConnectivity(g.n, algorithm=name, backend="cpu")
        ic.insert(g.src, g.dst)
        assert ic.n_components == k0, name


@pytest.mark.parametrize("alias,canonical", [
    ("KOut+LiuTarjanPRF", "kout+lt-prf"),
    ("ShiloachVishkin", "none+sv"),
    ("hb+LabelPropagation", "hb+label-prop"),
    ("BFS-CC", "none+bfs-cc"),
    ("bfs+ECL-CC", "bfs+ecl-cc"),
    ("Afforest", "none+afforest"),
    ("kout+gpu-cc", "kout+sv-classic"),
    ("cusa", "none+lt-cusa"),
])
def test_names(alias, canonical):
    assert Variant.parse(alias).name == canonical


@pytest.mark.parametrize("bad,needle", [
    ("kout+bfs-cc", "takes no sampling"),
    ("kout+lt-prf+find-halve", "takes no find option"),
    ("none+sv+split-one", "only Rem's algorithms"),
    ("none+lt-xyz", "valid finishes"),
])
def test_invalid_names(bad, needle):
    with pytest.raises(ValueError, match=needle):
        Variant.parse(bad)


def test_problem_rules_of_the_new_finishes():
    for name in ("kout+lt-pus", "none+label-prop", "none+stergiou", "none+sv-classic", "none+bfs-cc"):
        with pytest.raises(ValueError, match="not root-based"):
            Variant.parse(name, "forest")
    with pytest.raises(ValueError, match="root-based"):
        Variant.parse("none+lt-cusa", "incremental")
    for f in ("sv", "ecl-cc", "afforest") + design.ROOT_BASED_LT:
        assert Variant.parse(f).root_based
    assert not Variant.parse("sv-classic").min_rooted
    assert all(Variant.parse(f).min_rooted for f in NEW if f != "sv-classic")


# -- static connectivity ------------------------------------------------------
@pytest.mark.parametrize("name", NEW_CC)
def test_cc_matches_scipy(name, suite):
    for gname, g in suite:
        k0, l0 = reference(g)
        k, labels = gconn.connected_components(g, algorithm=name, backend="cpu")
        assert k == k0, gname
        assert np.array_equal(labels, l0), gname


@examples(200)
@given(edge_lists(), st.sampled_from(NEW_CC), st.integers(0, 3))
def test_cc_property(g, name, seed):
    k0, l0 = reference(g)
    k, labels = gconn.connected_components(g, algorithm=name, backend="cpu", seed=seed)
    assert k == k0 and np.array_equal(labels, l0)


@pytest.mark.parametrize("name", ["none+sv", "kout+lt-cusa", "hb+stergiou", "bfs+label-prop",
                                  "none+ecl-cc", "kout+afforest", "none+bfs-cc", "none+sv-classic"])
def test_uncompacted_labels_are_component_minima(name, suite):
    for gname, g in suite:
        k0, l0 = reference(g)
        _, roots = gconn.connected_components(g, algorithm=name, backend="cpu", compact=False)
        mins = np.full(k0, g.n)
        np.minimum.at(mins, l0, np.arange(g.n))
        assert np.array_equal(roots, mins[l0]), gname


def test_stats_count_rounds_and_inspections(graphs):
    g = dict(graphs)["path-permuted"]
    for name in ("none+label-prop", "none+sv", "none+lt-prf", "none+stergiou", "none+sv-classic"):
        _, _, st = gconn.connected_components(g, algorithm=name, backend="cpu", return_stats=True)
        assert st.rounds >= 2
        assert st.edge_inspections["finish"] == st.rounds * g.m
        assert "finish" in st.phase_times
    # Alter drops the edges it made internal, so later rounds inspect fewer.
    _, _, st = gconn.connected_components(g, algorithm="none+lt-cusa", backend="cpu", return_stats=True)
    assert st.rounds >= 2 and g.m < st.edge_inspections["finish"] < 2 * st.rounds * g.m
    _, _, st = gconn.connected_components(g, algorithm="none+bfs-cc", backend="cpu", return_stats=True)
    assert st.rounds >= 100 and st.edge_inspections["finish"] == 2 * g.m
    _, _, st = gconn.connected_components(g, algorithm="kout+ecl-cc", backend="cpu", return_stats=True)
    assert st.rounds == 0 and st.edge_inspections["sample"] > 0


def test_label_propagation_on_a_long_path():
    n = 2000
    for order in (np.arange(n), np.random.default_rng(1).permutation(n), np.arange(n)[::-1]):
        g = gconn.Graph.from_edges(order[:-1], order[1:], n)
        k, labels, st = gconn.connected_components(g, algorithm="none+label-prop", backend="cpu",
                                                   return_stats=True)
        assert k == 1 and not labels.any()
        assert 2 <= st.rounds <= default_max_rounds("label-prop", n) == n + 2


@pytest.mark.parametrize("name", ["none+label-prop", "none+sv", "none+lt-prs", "none+lt-eusa",
                                  "none+stergiou", "none+sv-classic", "bfs+lt-cufa"])
def test_convergence_error_with_a_tiny_round_cap(name):
    # Two long paths: BFS sampling covers one and leaves the other.
    order = np.random.default_rng(3).permutation(500)
    a, b = order[:250], order[250:]
    g = gconn.Graph.from_edges(np.r_[a[:-1], b[:-1]], np.r_[a[1:], b[1:]], 500)
    with pytest.raises(gconn.ConvergenceError, match="max_rounds=1"):
        gconn.connected_components(g, algorithm=name, backend="cpu", max_rounds=1)
    assert issubclass(gconn.ConvergenceError, RuntimeError)
    with pytest.raises(ValueError, match="max_rounds"):
        gconn.connected_components(g, algorithm=name, backend="cpu", max_rounds=0)
    k, _ = gconn.connected_components(g, algorithm=name, backend="cpu", max_rounds=10**6)
    assert k == 2


@pytest.mark.slow  # compiles every min-based kernel again for 64-bit ids (~30 s cold)
def test_64_bit_ids():
    rng = np.random.default_rng(4)
    n = 500
    g32 = gconn.Graph.from_edges(rng.integers(0, n, 400), rng.integers(0, n, 400), n)
    g = gconn.Graph(n, g32.indptr, g32.indices.astype(np.int64), g32.src.astype(np.int64),
                    g32.dst.astype(np.int64))
    k0, l0 = reference(g32)
    for name in ("none+sv", "kout+lt-prfa", "hb+label-prop", "none+ecl-cc", "bfs+stergiou", "none+bfs-cc"):
        k, labels = gconn.connected_components(g, algorithm=name, backend="cpu")
        assert k == k0 and np.array_equal(labels, l0), name
    src, dst = gconn.spanning_forest(g, algorithm="kout+lt-crsa", backend="cpu")
    check_forest(g, src, dst, k0)


# -- spanning forest ----------------------------------------------------------
@pytest.mark.parametrize("name", NEW_FOREST)
def test_spanning_forest(name, suite):
    for gname, g in suite:
        k0, _ = reference(g)
        src, dst = gconn.spanning_forest(g, algorithm=name, backend="cpu")
        check_forest(g, src, dst, k0)


@examples(150)
@given(edge_lists(), st.sampled_from(NEW_FOREST))
def test_forest_property(g, name):
    k0, _ = reference(g)
    src, dst = gconn.spanning_forest(g, algorithm=name, backend="cpu")
    check_forest(g, src, dst, k0)


# -- incremental ----------------------------------------------------------------
@pytest.mark.parametrize("name", NEW_INC)
def test_incremental_against_sequential_union_find(name):
    n = 400
    for mode in ("phased", "sequential", "concurrent"):
        rng = np.random.default_rng(17)
        ic = gconn.IncrementalConnectivity(n, algorithm=name, backend="cpu", mode=mode)
        ref = replay_incremental(ic, stream(rng, n, 25, queries=0.45), mode, exact=False)
        _, mins = np.unique([ref.find(x) for x in range(n)], return_inverse=True)
        assert same_partition(ic.labels(compact=False), mins)


@examples(100)
@given(edge_lists(), st.sampled_from(NEW_INC), st.integers(1, 40))
def test_stream_in_batches_equals_static(g, name, batch):
    ic = gconn.IncrementalConnectivity(g.n, algorithm=name, backend="cpu")
    rng = np.random.default_rng(batch)
    flip = rng.random(g.m) < 0.5
    s, d = np.where(flip, g.dst, g.src), np.where(flip, g.src, g.dst)
    for lo in range(0, g.m, batch):
        ic.insert(s[lo:lo + batch], d[lo:lo + batch])
    k0, l0 = reference(g)
    assert ic.n_components == k0 and np.array_equal(ic.labels(), l0)


@pytest.mark.parametrize("name", NEW_INC)
def test_incremental_from_a_graph_then_batches(name, graphs):
    g = dict(graphs)["many-components"]
    rng = np.random.default_rng(8)
    extra_s, extra_d = rng.integers(0, g.n + 50, 60), rng.integers(0, g.n + 50, 60)
    ic = gconn.IncrementalConnectivity(algorithm=name, backend="cpu", graph=g)
    for lo in range(0, 60, 20):
        ic.insert(extra_s[lo:lo + 20], extra_d[lo:lo + 20])
    full = gconn.Graph.from_edges(np.r_[g.src, extra_s], np.r_[g.dst, extra_d], ic.n)
    k0, l0 = reference(full)
    assert ic.n_components == k0
    assert np.array_equal(ic.labels(), l0)
