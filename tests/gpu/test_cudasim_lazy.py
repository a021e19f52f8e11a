"""The lazy graph's GPU side in numba's CUDA simulator: the device counting
sort that builds the adjacency, and runs that read only the form their plan
needs.  Runs in its own process:

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_lazy.py
"""
from __future__ import annotations

import os

import numpy as np
import pytest

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]

if SIM:
    import gconn
    from gconn.graph import FORMS, Graph


def messy(seed: int):
    """Under 40 edges: duplicates both ways, self loops, isolated vertices."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 14, 18)
    d = rng.integers(0, 14, 18)
    s = np.r_[s, d[:6], [4, 4]].astype(np.int32)
    d = np.r_[d, s[:6], [4, 9]].astype(np.int32)
    return s, d, 17


@pytest.mark.parametrize("seed", [0, 1])
def test_counting_adjacency_matches_the_canonical_rows(seed):
    from gconn.backends.gpu.graph import counting_adjacency
    s, d, n = messy(seed)
    indptr, indices = counting_adjacency(s, d, n)
    keep = s != d
    assert int(indptr[-1]) == 2 * int(keep.sum())
    c = Graph.from_edges(s, d, n).canonical()
    for v in range(n):
        row = indices[indptr[v]:indptr[v + 1]]
        assert np.array_equal(np.unique(row), c[1][c[0][v]:c[0][v + 1]]), v
        if row.size:
            assert row[0] == row.min()
    key = np.sort(np.repeat(np.arange(n), np.diff(indptr)) * n + indices)
    assert np.array_equal(key, np.sort(np.r_[s[keep] * n + d[keep], d[keep] * n + s[keep]]))


def test_counting_adjacency_without_edges():
    from gconn.backends.gpu.graph import counting_adjacency
    e = np.zeros(0, np.int32)
    indptr, indices = counting_adjacency(e, e, 3)
    assert indptr.tolist() == [0, 0, 0, 0] and indices.size == 0


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_ids_local_probe_on_the_device(dtype):
    """The device's row probe counts as the host's does: a grid in row
    order is local, the same grid with shuffled ids and a shuffled path are
    not; HB's first step leaves almost no roots on a path in id order and a
    mesh, many on the others."""
    from gconn.graph import generators as gen
    from gconn.backends.gpu.graph import ids_local_counts
    s, d, n = gen.grid_road_edges(100, keep=0.9, seed=1)      # a row (100) within n / 64
    p = np.random.default_rng(2).permutation(n)
    ms, md, mn = gen.triangle_mesh_edges(100)
    cases = (((s, d, n), True, False), ((p[s], p[d], n), False, False), ((p[:-1], p[1:], n), False, False),
             ((np.arange(n - 1), np.arange(1, n), n), True, True), ((ms, md, mn), True, True))
    for (a, b, k), local, chains in cases:
        g = Graph.from_edges(a.astype(dtype), b.astype(dtype), k)
        indptr, indices = g.adjacency()
        rows = np.arange(0, k, max(k // 100, 1))
        first = indptr[rows]
        with_one = indptr[rows + 1] > first
        smallest = indices[first[with_one]].astype(np.int64)
        near = np.abs(smallest - rows[with_one]) <= k // 64
        low = smallest > rows[with_one]
        assert ids_local_counts(indptr, indices, k, 100) == (int(with_one.sum()), int(near.sum()), int(low.sum()))
        assert g.ids_local() == local and (g.hb_roots() <= 0.01) == chains


@pytest.mark.parametrize("name", ["none+union-async", "none+union-rem-cas+find-split+split-one", "kout+union-async",
                                  "hb+ecl-cc", "none+lt-prf", "bfs+sv", "none+bfs-cc"])
def test_runs_read_only_their_form(name):
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as scipy_cc
    s, d, n = messy(2)
    k0, l0 = scipy_cc(coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)), directed=False)
    g = Graph.from_edges(s, d, n)
    k, labels = gconn.connected_components(g, algorithm=name, backend="gpu")
    assert k == k0 and np.array_equal(np.asarray(labels), l0)
    needs = gconn.design.Plan.of(gconn.design.Variant.parse(name)).needs
    assert [g.has_form(f) for f in FORMS] == [True, needs == "adjacency", False]


@pytest.mark.parametrize("numbered", [True, False])
@pytest.mark.parametrize("name", ["union-async+find-halve", "stride+union-rem-cas+find-naive+splice",
                                  "union-jtb+find-two-try-split"])
def test_a_run_with_unchecked_ids_stands_only_where_they_fit(name, numbered):
    """A CuPy pair passed again runs from the n of its last check, its ids
    checked by its union kernels (sampling's too): the count is SciPy's
    where every id fits and n-1 occurs, and -1 (the call starts over,
    checked) for an id past n-1, a smaller largest id, or a negative id;
    with labels numbered (the flags read by the numbering's scan) or not
    (by ``ids_fit`` after the count).  Each run after the first starts
    from flags cleared by the one before."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc

    from gconn.api import dispatch
    from gconn.design import Plan
    rng = np.random.default_rng(5)
    n = 90
    s = rng.integers(0, n, 200).astype(np.int32)
    d = rng.integers(0, n, 200).astype(np.int32)
    d[17] = n - 1
    be = dispatch.backend_module("gpu")

    def run(s_, d_):
        g = Graph._of(n, "gpu", edges=(s_, d_))
        plan = Plan.of(dispatch.variant_of(name, "cc", g, be, {}))
        k, labels = dispatch._run_unchecked(be, g, plan, numbered, 0)
        return int(k), np.asarray(labels)

    want = scipy_cc(sp.coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)), directed=False)
    past, negative = d.copy(), s.copy()
    past[150] = n + 4
    negative[3] = -2
    for s_, d_ in ((s, past), (s, d), (s % (n // 2), d % (n // 2)), (s, d), (negative, d), (s, d)):
        k, labels = run(s_, d_)
        if s_ is not s or d_ is not d:
            assert k == -1
            continue
        assert k == want[0]
        if numbered:
            np.testing.assert_array_equal(labels, want[1])
        else:       # each label the smallest vertex of its component
            assert np.array_equal(np.unique(labels, return_inverse=True)[1], want[1])
            assert all(labels[v] <= v for v in range(n))


@pytest.mark.parametrize("reader", ["ids_fit", "compact"])
def test_the_flags_reader_clears_them(reader):
    """A captured run's flags are zeroed once, and cleared by the kernel
    that reads them into k (``ids_fit`` after a count, the numbering's
    scan) after each run: each run starts from (0, 0)."""
    from gconn.backends.gpu.graph import if_ids_fit
    from gconn.backends.gpu.ops import compact
    roots = np.array([0, 0, 2, 3, 2, 0, 6], np.int32)      # 4 components
    for flags, fit in (([0, 1], True), ([1, 1], False), ([0, 0], False), ([1, 0], False)):
        f = np.array(flags, np.int64)
        if reader == "ids_fit":
            k = int(if_ids_fit(np.array(4, np.int64), f))
        else:
            k, labels = compact(roots, min_rooted=True, flags=f)
            k = int(k)
            if fit:
                assert np.asarray(labels).tolist() == [0, 0, 1, 2, 1, 0, 3]
        assert k == (4 if fit else -1)
        assert f.tolist() == [0, 0]
