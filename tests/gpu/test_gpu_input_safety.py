"""Relabelling and vertex-range checks with the graph on the GPU (CuPy input)."""
from __future__ import annotations

import numpy as np
import pytest

import gconn

from gpucases import GPU_OK as _OK, ON_GPU

pytestmark = ON_GPU


def test_relabel_device_edges_match_host():
    import cupy
    rng = np.random.default_rng(7)
    pool = np.unique(rng.integers(0, 2**40, 5000))
    src = pool[rng.integers(0, pool.size, 20000)]
    dst = pool[rng.integers(0, pool.size, 20000)]
    k, labels, ids = gconn.connected_components((src, dst), backend="cpu", relabel=True)
    dk, dlabels, dids = gconn.connected_components((cupy.asarray(src), cupy.asarray(dst)), backend="gpu",
                                                   relabel=True)
    assert isinstance(dlabels, cupy.ndarray) and isinstance(dids, cupy.ndarray)
    assert dk == k and np.array_equal(dids.get(), ids) and np.array_equal(dlabels.get(), labels)
    fs, fd = gconn.spanning_forest((cupy.asarray(src), cupy.asarray(dst)), backend="gpu", relabel=True)
    assert fs.size == ids.size - k and np.isin(fs.get(), ids).all() and np.isin(fd.get(), ids).all()


def test_relabel_auto_device():
    import cupy
    g = gconn.Graph.from_edges(cupy.asarray([0, 3_000_000_000]), cupy.asarray([1, 2]), relabel="auto")
    assert g.on_gpu and g.n == 4 and g.nodes.get().tolist() == [0, 1, 2, 3_000_000_000]
    g = gconn.Graph.from_edges(cupy.asarray([0, 5]), cupy.asarray([1, 2]), relabel="auto")
    assert g.nodes is None and g.n == 6


def test_host_graph_on_gpu_backend_keeps_ids():
    k, labels, ids = gconn.connected_components(([7, 3_000_000_000], [9, 5]), backend="gpu", relabel=True)
    assert isinstance(labels, np.ndarray) and ids.tolist() == [5, 7, 9, 3_000_000_000]
    assert k == 2 and labels.tolist() == [0, 1, 1, 0]
