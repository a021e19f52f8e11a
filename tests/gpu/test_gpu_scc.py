"""Strong components on a real GPU: gconn.backends.gpu.scc and gconn.integrations.csgraph with
CuPy input, against SciPy's partition, up to millions of arcs.

    python -m pytest -m gpu tests/gpu/test_gpu_scc.py
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

from oracles import same_partition

from gpucases import GPU_OK as _OK, ON_GPU

pytestmark = ON_GPU


def random_digraph(n, m, seed):
    rng = np.random.default_rng(seed)
    return sp.csr_matrix((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))


@pytest.mark.parametrize("n, m", [(1000, 800), (1000, 3000), (100_000, 150_000), (1_000_000, 4_000_000)])
def test_random_digraphs(n, m):
    from gconn.backends.gpu import scc as scc_gpu
    A = random_digraph(n, m, n + m)
    k0, l0 = scipy_cc(A, connection="strong")
    k, labels = scc_gpu.strong_components(A.indptr, A.indices, n)
    assert k == k0 and same_partition(labels.get(), l0)


def test_long_cycle_and_path():
    from gconn.backends.gpu import scc as scc_gpu
    n = 200_000
    cyc = sp.csr_matrix((np.ones(n), (np.arange(n), (np.arange(n) + 1) % n)), shape=(n, n))
    k, labels = scc_gpu.strong_components(cyc.indptr, cyc.indices, n)
    assert k == 1
    path = sp.csr_matrix((np.ones(n - 1), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))
    k, labels = scc_gpu.strong_components(path.indptr, path.indices, n)
    assert k == n and np.array_equal(labels.get(), np.arange(n))


def test_csgraph_with_cupy_input():
    import cupy
    import cupyx.scipy.sparse as csp

    from gconn.integrations.csgraph import connected_components
    A = random_digraph(5000, 12000, 3)
    k0, l0 = scipy_cc(A, connection="strong")
    for X in (csp.csr_matrix(A), cupy.asarray(A.toarray())):
        k, labels = connected_components(X, connection="strong")
        assert isinstance(labels, cupy.ndarray) and labels.dtype == cupy.int32
        assert k == k0 and same_partition(labels.get(), l0)
        kw, lw = connected_components(X)
        kw0, lw0 = scipy_cc(A)
        assert kw == kw0 and np.array_equal(lw.get(), lw0)


def test_api_backend_gpu_follows_input():
    import cupy

    import gconn
    A = random_digraph(3000, 6000, 4)
    coo = A.tocoo()
    k0, l0 = scipy_cc(A, connection="strong")
    k, labels = gconn.connected_components((coo.row, coo.col), connection="strong", backend="gpu")
    assert isinstance(labels, np.ndarray) and k == k0 and same_partition(labels, l0)
    k, labels = gconn.connected_components((cupy.asarray(coo.row), cupy.asarray(coo.col)), connection="strong")
    assert isinstance(labels, cupy.ndarray) and k == k0 and same_partition(labels.get(), l0)
