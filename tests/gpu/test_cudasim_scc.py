"""Strong components on the GPU (gconn.backends.gpu.scc) in numba's CUDA simulator,
against SciPy's partition, on small digraphs:

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_scc.py

The labels are numbered by each component's smallest vertex (see
gconn.backends.gpu.scc), so the tests compare with SciPy's labels renumbered that way.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]


def by_smallest_vertex(labels):
    """SciPy's labels renumbered 0..k-1 in the order of each component's
    smallest vertex."""
    _, first = np.unique(labels, return_index=True)
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[labels]


def digraphs():
    rng = np.random.default_rng(5)
    out = []
    for i in range(6):
        n = int(rng.integers(1, 24))
        m = int(rng.integers(0, 2 * n + 1))
        out.append((f"random-{i}", n, rng.integers(0, n, m), rng.integers(0, n, m)))
    out.append(("cycle", 12, np.arange(12), (np.arange(12) + 1) % 12))
    out.append(("path", 12, np.arange(11), np.arange(1, 12)))          # all trimmed
    out.append(("dag", 10, np.array([0, 0, 1, 2, 3, 5]), np.array([1, 2, 3, 3, 4, 6])))
    # two cycles joined one way, a self loop, an isolated vertex, a duplicate arc
    out.append(("two-cycles", 9, np.array([0, 1, 2, 3, 4, 5, 2, 7, 0]), np.array([1, 2, 0, 4, 5, 3, 3, 7, 1])))
    # three coloring rounds, nothing to trim: cycle {8, 9} -> {0, 1} -> {2, 3} settles
    # {8, 9} first (9 is the largest id), then {2, 3}, then {0, 1}
    out.append(("rounds", 10, np.array([8, 9, 8, 0, 1, 1, 2, 3]), np.array([9, 8, 0, 1, 0, 2, 3, 2])))
    return out


@pytest.mark.parametrize("name, n, src, dst", digraphs(), ids=[d[0] for d in digraphs()])
def test_gpu_strong_components_match_scipy(name, n, src, dst):
    from gconn.backends.gpu import scc as gpu
    A = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    k0, l0 = scipy_cc(A, connection="strong")
    k, labels = gpu.strong_components(A.indptr, A.indices, n)
    assert k == k0
    assert labels.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(labels), by_smallest_vertex(l0))
    k, reps = gpu.strong_components(A.indptr, A.indices, n, compact=False)
    smallest = np.array([np.flatnonzero(l0 == l0[v])[0] for v in range(n)])
    assert k == k0 and np.array_equal(np.asarray(reps), smallest)


def test_rounds_case_takes_three_rounds(monkeypatch):
    """The "rounds" digraph exercises the arc filtering between rounds."""
    from gconn.backends.gpu import scc as gpu
    trims = []
    real = gpu._trim
    monkeypatch.setattr(gpu, "_trim", lambda *a: trims.append(1) or real(*a))
    name, n, src, dst = digraphs()[-1]
    A = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    assert gpu.strong_components(A.indptr, A.indices, n)[0] == 7
    assert len(trims) == 4     # a trim before each of the 3 rounds, and the last finds all settled


def test_api_backend_gpu_reaches_the_gpu_path():
    import gconn
    src, dst = np.array([0, 1, 2, 3, 4]), np.array([1, 0, 3, 2, 2])
    k, labels, stats = gconn.connected_components((src, dst), connection="strong", backend="gpu",
                                                  return_stats=True)
    assert stats.variant == "scc-coloring" and stats.backend == "gpu"
    assert k == 3 and np.asarray(labels).tolist() == [0, 0, 1, 1, 2]
