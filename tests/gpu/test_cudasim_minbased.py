"""The non-union-find finishes (gconn.backends.gpu.finishes) in numba's CUDA
simulator, on tiny graphs, against scipy and the CPU backend.

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_minbased.py

Every finish without sampling; each family (SV, classic SV, Liu-Tarjan
with and without Alter and RootUpdate, Stergiou, label propagation,
ECL-CC / Afforest) after every sampler, which exercises the gathered edge
list and the contraction of L_max; spanning forests and incremental
batches of every root-based finish; rounds, inspections and max_rounds.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from oracles import check_forest, host, reference, stream
from gpucases import check_incremental, mb_variants

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]

if SIM:
    import gconn
    from gconn.graph import Graph

#: one finish per family and rule that changes the kernels or the loop
FAMILIES = ["sv", "sv-classic", "lt-prf", "lt-cusa", "lt-eusa", "lt-crfa", "lt-pus", "stergiou", "label-prop",
            "ecl-cc", "afforest"]


@pytest.fixture(scope="module")
def graphs():
    """Under 40 edges each: random, a star with a path (L_max by far the
    largest sampled component), two triangles and isolated vertices, a
    two-level tree (whose BFS goes bottom-up)."""
    rng = np.random.default_rng(11)
    out = [(rng.integers(0, 30, 25), rng.integers(0, 30, 25), 30),
           (np.r_[np.zeros(9, int), np.arange(20, 27)], np.r_[np.arange(1, 10), np.arange(21, 28)], 32),
           (np.array([0, 1, 2, 5, 6, 7]), np.array([1, 2, 0, 6, 7, 5]), 12),
           (np.r_[np.zeros(5, int), np.repeat(np.arange(1, 6), 2)], np.arange(1, 16), 16)]
    return [Graph.from_edges(s, d, n) for s, d, n in out]


def check_cc(g, name):
    k0, l0 = reference(g)
    k, labels = gconn.connected_components(g, algorithm=name, backend="gpu")
    assert k == k0 and np.array_equal(host(labels), l0), name


@pytest.mark.parametrize("name", mb_variants("cc", sampling="none"))
def test_every_finish(name, graphs):
    for g in graphs:
        check_cc(g, name)


@pytest.mark.parametrize("sampling", ["kout", "hb", "bfs"])
@pytest.mark.parametrize("finish", FAMILIES)
def test_after_sampling(sampling, finish, graphs):
    for g in graphs[:2]:
        check_cc(g, f"{sampling}+{finish}")


@pytest.mark.parametrize("name", mb_variants("forest", sampling="none"))
def test_spanning_forest(name, graphs):
    finish = name.split("+", 1)[1]
    for sampling in ("none", "kout", "hb", "bfs"):
        for g in graphs[:2]:
            k0, _ = reference(g)
            src, dst = gconn.spanning_forest(g, algorithm=f"{sampling}+{finish}", backend="gpu")
            check_forest(g, host(src), host(dst), k0)


@pytest.mark.parametrize("name", mb_variants("incremental"))
def test_incremental(name):
    rng = np.random.default_rng(5)
    batches = stream(rng, 40, 3, 12)
    for mode in ("phased", "sequential", "concurrent"):
        check_incremental(name, batches, mode)


def test_rounds_inspections_and_max_rounds():
    path = Graph.from_edges(np.arange(20), np.arange(1, 21), 21)
    for name in ("none+label-prop", "none+sv-classic", "none+stergiou"):
        _, _, st = gconn.connected_components(path, algorithm=name, backend="gpu", return_stats=True)
        assert st.rounds >= 2 and st.edge_inspections["finish"] == st.rounds * path.m, name
        with pytest.raises(gconn.ConvergenceError, match="max_rounds=1"):
            gconn.connected_components(path, algorithm=name, backend="gpu", max_rounds=1)
    # Alter drops the edges it made internal, so later rounds inspect fewer.
    _, _, st = gconn.connected_components(path, algorithm="none+lt-cusa", backend="gpu", return_stats=True)
    assert st.rounds >= 2 and path.m < st.edge_inspections["finish"] < 2 * st.rounds * path.m
    # BFS-CC is deterministic: the same levels and scans as on the CPU.
    _, _, st = gconn.connected_components(path, algorithm="none+bfs-cc", backend="gpu", return_stats=True)
    _, _, cpu = gconn.connected_components(path, algorithm="none+bfs-cc", backend="cpu", return_stats=True)
    assert (st.rounds, st.edge_inspections) == (cpu.rounds, cpu.edge_inspections) == (21, {"finish": 2 * path.m})
    _, _, st = gconn.connected_components(path, algorithm="kout+ecl-cc", backend="gpu", return_stats=True)
    assert st.rounds == 0 and st.edge_inspections["sample"] > 0


def test_int64_ids(graphs):
    for g in graphs[:2]:
        g64 = Graph(g.n, g.indptr.astype(np.int64), g.indices.astype(np.int64), g.src.astype(np.int64),
                    g.dst.astype(np.int64))
        for name in ("none+sv", "kout+lt-cusa", "hb+ecl-cc", "none+bfs-cc", "bfs+stergiou"):
            check_cc(g64, name)
