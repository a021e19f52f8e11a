"""gconn.integrations.dask with GPU workers: dask-cuda's LocalCUDACluster when installed,
else a one-worker LocalCluster, with backend="gpu" in every task.

    python -m pytest -m gpu tests/gpu/test_dask_gpu.py
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from scipy.sparse.csgraph import connected_components as scipy_cc  # noqa: E402

import gconn  # noqa: E402
import gconn.integrations.dask as gd  # noqa: E402
from oracles import check_forest  # noqa: E402

from gconn.backends import gpu
from gpucases import GPU_OK as _OK, ON_GPU

pytestmark = ON_GPU


@pytest.fixture(scope="module")
def client():
    from distributed import Client
    try:
        from dask_cuda import LocalCUDACluster
        cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES="0", dashboard_address=None)
    except ImportError:
        from distributed import LocalCluster
        cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    with cluster, Client(cluster) as c:
        yield c


def test_rmat_on_gpu_workers(client):
    src, dst, n = gconn.graph.generators.rmat_edges(18, 16, seed=3)
    src, dst = src.astype(np.int64), dst.astype(np.int64)
    ddf = dd.from_pandas(pd.DataFrame({"s": src, "d": dst}), npartitions=8, sort=False)
    k, labels = gd.connected_components(ddf, n=n, backend="gpu", fan_in=3)
    A = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    k0, l0 = scipy_cc(A, directed=False)
    assert k == k0
    assert np.array_equal(labels.compute(), l0)
    f = gd.spanning_forest(ddf, backend="gpu").compute()
    check_forest(gconn.Graph.from_edges(src, dst, n=n), f["source"].to_numpy(),
                 f["target"].to_numpy(), k0)
    # The tasks really ran on a GPU worker.
    assert all(client.run(lambda: gconn.backends.gpu.available(simulator_ok=False)[0]).values())


def test_sparse_ids_on_gpu_workers(client):
    rng = np.random.default_rng(4)
    ids = np.sort(rng.choice(2**62, 5000, replace=False))
    s, d = rng.integers(0, 5000, 8000), rng.integers(0, 5000, 8000)
    ddf = dd.from_pandas(pd.DataFrame({"s": ids[s], "d": ids[d]}), npartitions=5, sort=False)
    k, out = gd.connected_components(ddf, backend="gpu")
    df = out.compute()
    used = np.unique(np.r_[s, d])
    assert np.array_equal(df["vertex"].to_numpy(), ids[used])
    rs, rd = np.searchsorted(used, s), np.searchsorted(used, d)
    A = sp.coo_matrix((np.ones(s.size), (rs, rd)), shape=(used.size, used.size))
    k0, l0 = scipy_cc(A, directed=False)
    assert k == k0 and np.array_equal(df["label"].to_numpy(), l0)
