"""Device tensors and cuDF tables as input: they stay on the GPU."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn

from gconn.backends import gpu
from gpucases import GPU_OK as _OK, ON_GPU

pytestmark = ON_GPU


def _edges():
    rng = np.random.default_rng(3)
    return rng.integers(0, 500, 400), rng.integers(0, 500, 400)


def _scipy_k(src, dst):
    n = int(max(src.max(), dst.max())) + 1
    return scipy_cc(sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)[0]


class CAIOnly:
    """A device array seen only through __cuda_array_interface__."""

    def __init__(self, a):
        self._a = a
        self.__cuda_array_interface__ = a.__cuda_array_interface__


class DLPackOnly:
    """A device array seen only through DLPack."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


@pytest.mark.parametrize("wrap", [CAIOnly, DLPackOnly])
def test_device_tensors_stay_on_the_gpu(wrap):
    import cupy
    src, dst = _edges()
    s, d = cupy.asarray(src), cupy.asarray(dst)
    g = gconn.as_graph((wrap(s), wrap(d)))
    assert g.on_gpu
    k, labels = gconn.connected_components((wrap(s), wrap(d)), backend="gpu")
    assert isinstance(labels, cupy.ndarray) and k == _scipy_k(src, dst)
    from gconn.inputs import from_tensor
    view = from_tensor(wrap(s), "t")
    assert view.data.ptr == s.data.ptr  # no copy
    k2, _ = gconn.connected_components(wrap(cupy.stack([s, d], axis=1)), backend="gpu")
    assert k2 == k


def test_torch_cuda_tensors():
    torch = pytest.importorskip("torch")
    src, dst = _edges()
    k, labels = gconn.connected_components((torch.from_numpy(src).cuda(), torch.from_numpy(dst).cuda()),
                                           backend="gpu")
    assert k == _scipy_k(src, dst)


def test_cudf_table():
    cudf = pytest.importorskip("cudf")
    import cupy
    src, dst = _edges()
    df = cudf.DataFrame({"w": np.ones(src.size), "a": src, "b": dst})
    k, labels = gconn.connected_components(df, source="a", target="b", backend="gpu")
    assert isinstance(labels, cupy.ndarray) and k == _scipy_k(src, dst)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_host_matrices_and_graphs_cross_in_pieces(fmt):
    """Host inputs large enough for the pinned pieces of gconn.backends.gpu.staging:
    a SciPy matrix (directed, unsorted rows, duplicates; a CSR crosses as
    CSR and its rows are found on the device) and a host Graph, against
    SciPy."""
    rng = np.random.default_rng(11)
    n, m = 300_000, 900_000
    A = sp.coo_matrix((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n)).asformat(fmt)
    k0, want = scipy_cc(A, directed=False)
    k, labels, stats = gconn.connected_components(A, backend="gpu", return_stats=True)
    assert isinstance(labels, np.ndarray) and k == k0 and np.array_equal(labels, want)
    g = gconn.Graph.from_scipy(A)
    k2, labels2 = gconn.connected_components(g, backend="gpu")
    assert k2 == k0 and np.array_equal(labels2, want)
    src, dst = gconn.spanning_forest(A, backend="gpu")
    assert src.size == n - k0
