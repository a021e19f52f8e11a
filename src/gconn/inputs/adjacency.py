"""The directed graph SciPy's csgraph reads from a matrix (sparse, masked, dense, or their CuPy
counterparts), with SciPy's rules for which entries are edges.

>>> import numpy as np
>>> adjacency(np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])).indices.tolist()
[1]
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from gconn.graph import INT32_MAX, Graph, _id_dtype, _is_cupy

__all__ = ["Adjacency", "CSGraphTypeError", "adjacency", "graph_of", "strong_requested"]

#: pydata/sparse fill values that mean "no edge", as SciPy accepts them
_PYDATA_FILL = [0, np.inf, np.nan]
#: SciPy's dense input rule: a float entry within this of 0 is no edge
_DENSE_ATOL = 1e-8


class CSGraphTypeError(TypeError, AttributeError):
    """``csgraph`` is not a matrix at all (None, a number...); also an AttributeError, as in SciPy."""


class Adjacency(NamedTuple):
    """A directed graph in CSR form: the successors of ``v`` are
    ``indices[indptr[v]:indptr[v + 1]]``, on the host (NumPy) or the GPU
    (CuPy) as ``on_gpu`` says.  Duplicate entries may occur."""

    n: int
    indptr: object
    indices: object
    on_gpu: bool


def strong_requested(directed, connection) -> bool:
    """Whether ``(directed, connection)`` asks for strong components (checked as SciPy does)."""
    mode = connection.lower()
    if mode not in ("weak", "strong"):
        raise ValueError(f"connection must be 'weak' or 'strong'; got {connection!r}")
    return bool(directed) and mode == "strong"


def adjacency(csgraph) -> Adjacency:
    """The directed graph that SciPy reads from ``csgraph``."""
    mod = type(csgraph).__module__.split(".")[0]
    if mod == "sparse" and hasattr(csgraph, "asformat"):
        # pydata/sparse: DOK and others convert through COO (SciPy only takes COO, GCXS)
        coo = csgraph if hasattr(csgraph, "to_scipy_sparse") else csgraph.asformat("coo")
        csgraph = coo.to_scipy_sparse(accept_fv=_PYDATA_FILL)
        mod = "scipy"
    if mod in ("scipy", "cupyx") and hasattr(csgraph, "tocsr"):
        return _from_sparse(csgraph, on_gpu=mod == "cupyx")
    if np.ma.isMaskedArray(csgraph):
        _check_square(csgraph.shape)
        mask = csgraph.mask
        edges = np.ones(csgraph.shape, bool) if mask is np.ma.nomask else ~np.asarray(mask, bool)
        return _from_dense_mask(edges, np)
    if _is_cupy(csgraph):
        import cupy
        return _from_dense(csgraph, cupy)
    a = np.asarray(csgraph)
    if a.ndim == 0 and not isinstance(csgraph, np.ndarray):
        raise CSGraphTypeError(
            f"csgraph must be an N x N matrix (a scipy.sparse or pydata/sparse matrix, a dense or "
            f"masked array, or nested sequences); got {type(csgraph).__name__}")
    return _from_dense(a, np)


def _check_square(shape) -> None:
    if len(shape) != 2:
        raise ValueError(f"csgraph must be a 2-D N x N matrix; got shape {tuple(shape)}")
    if shape[0] != shape[1]:
        raise ValueError(f"csgraph must be a square N x N matrix; got shape {tuple(shape)}")


def _warn_complex(dtype) -> None:
    # SciPy casts weights to float64 and warns; the result keeps the edge
    if np.dtype(dtype).kind == "c":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=4)


def _from_sparse(A, on_gpu: bool) -> Adjacency:
    _check_square(A.shape)
    if A.dtype == object:
        # SciPy converts the weights to float64; unconvertible ones fail the same way
        A = A.tocsr().astype(np.float64)
    _warn_complex(A.dtype)
    # SciPy walks CSR as tocsr() leaves it (COO input gets summed, sorted);
    # matching its storage order is what makes strong labels match.
    A = A.tocsr()
    return Adjacency(int(A.shape[0]), A.indptr, A.indices, on_gpu)


def _from_dense(a, xp) -> Adjacency:
    _check_square(a.shape)
    if a.dtype.kind == "f":
        edges = xp.isfinite(a) & (xp.abs(a) > _DENSE_ATOL)
    else:
        # np.equal rather than !=: string input fails as in SciPy (UFuncTypeError)
        edges = ~xp.equal(a, 0) & ~xp.isinf(a) & ~xp.isnan(a)
    _warn_complex(a.dtype)
    return _from_dense_mask(edges, xp)


def _from_dense_mask(edges, xp) -> Adjacency:
    n = int(edges.shape[0])
    rows, cols = xp.nonzero(edges)
    ptr_dtype = np.int32 if edges.size <= INT32_MAX else np.int64
    indptr = xp.zeros(n + 1, ptr_dtype)
    indptr[1:] = xp.cumsum(xp.bincount(rows, minlength=n))
    return Adjacency(n, indptr, cols.astype(_id_dtype(n)), xp is not np)


def graph_of(adj: Adjacency):
    """The undirected :class:`gconn.Graph` of ``adj`` (on the GPU for CuPy)."""
    if adj.on_gpu:
        import cupy
        slots = cupy.arange(adj.indices.size, dtype=adj.indptr.dtype)
        rows = (cupy.searchsorted(adj.indptr, slots, side="right") - 1).astype(adj.indices.dtype)
        return Graph.from_edges(rows, adj.indices, adj.n)
    return Graph.from_csr(adj.indptr, adj.indices, adj.n)


