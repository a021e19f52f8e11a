"""Property tests: arbitrary edge lists with loops, duplicates and isolated
vertices give scipy's partition, a valid forest, and a consistent stream."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gconn
from gconn import design

from oracles import check_forest, reference

VARIANTS = [v.name for v in design.iter_variants("cc") if v.finish in design.UNION_FINDS]
FOREST = [v.name for v in design.iter_variants("forest") if v.finish in design.UNION_FINDS]


@st.composite
def edge_lists(draw):
    n = draw(st.integers(0, 60))
    if n == 0:
        return 0, np.zeros(0, np.int64), np.zeros(0, np.int64)
    m = draw(st.integers(0, 3 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    # bias towards loops and duplicates
    dst = [s if draw(st.integers(0, 9)) == 0 else draw(ids) for s in src]
    return n, np.array(src, np.int64), np.array(dst, np.int64)


settings.register_profile("gconn", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gconn")


@given(edge_lists(), st.sampled_from(VARIANTS), st.integers(0, 3))
@settings(max_examples=150)
def test_cc_matches_scipy(graph, name, seed):
    n, s, d = graph
    g = gconn.Graph.from_edges(s, d, n)
    k0, l0 = reference(g)
    k, labels = gconn.connected_components(g, algorithm=name, backend="cpu", seed=seed)
    assert k == k0 and np.array_equal(labels, l0)


@given(edge_lists(), st.sampled_from(FOREST))
@settings(max_examples=100)
def test_forest_is_valid(graph, name):
    n, s, d = graph
    g = gconn.Graph.from_edges(s, d, n)
    k0, _ = reference(g)
    fs, fd = gconn.spanning_forest(g, algorithm=name, backend="cpu")
    check_forest(g, fs, fd, k0)


@given(edge_lists(), st.integers(1, 50))
@settings(max_examples=60)
def test_stream_in_batches_equals_static(graph, batch):
    n, s, d = graph
    ic = gconn.IncrementalConnectivity(n, backend="cpu")
    for a in range(0, s.size, batch):
        ic.insert(s[a:a + batch], d[a:a + batch])
    g = gconn.Graph.from_edges(s, d, n)
    k0, l0 = reference(g)
    assert ic.n_components == k0
    assert np.array_equal(ic.labels(), l0)
