"""A drop-in for ``scipy.sparse.csgraph.connected_components``.

Change ``from scipy.sparse.csgraph import connected_components`` to
``from gconn.csgraph import connected_components`` and nothing else: the
signature, the input rules, the results (labels included, int32) and the
exception types are SciPy's.  Weak components run on gconn's connectivity
algorithms; strong components on an iterative Tarjan (CPU) or, for CuPy
input, a coloring method on the GPU (see :mod:`gconn.scc`).

Where we differ from SciPy 1.17, on purpose:

* a ``scipy.sparse`` CSR with duplicate entries: SciPy's strong components
  can be wrong there (it reported 6 components for a graph that has 4);
  duplicates are one edge here;
* array-likes (nested lists, tuples) are read as dense matrices, as SciPy's
  documentation says (SciPy 1.17 raises ``AttributeError`` for them); other
  objects (None, numbers) raise :class:`CSGraphTypeError`, both the
  ``AttributeError`` SciPy raises and a ``TypeError``;
* pydata/sparse DOK (and other formats) convert through COO (SciPy
  raises ``AttributeError``);
* a masked array without a mask (``mask=nomask``): every entry is an edge
  (SciPy raises ``AxisError``);
* strong components of CuPy input are numbered by each component's smallest
  vertex (SciPy's numbering is the order its depth-first search completes
  them, which a GPU does not reproduce); the partition is the same.

>>> import numpy as np
>>> from gconn.csgraph import connected_components
>>> A = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])
>>> connected_components(A)
(2, array([0, 0, 1], dtype=int32))
>>> connected_components(A, connection="strong")
(3, array([1, 0, 2], dtype=int32))
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from .graph import INT32_MAX, _id_dtype, _is_cupy

__all__ = ["connected_components", "CSGraphTypeError"]

#: pydata/sparse fill values that mean "no edge", as SciPy accepts them
_PYDATA_FILL = [0, np.inf, np.nan]
#: SciPy's dense input rule: a float entry within this of 0 is no edge
_DENSE_ATOL = 1e-8


class CSGraphTypeError(TypeError, AttributeError):
    """``csgraph`` is not a matrix at all (None, a number...).  Also an
    AttributeError, which is what SciPy raises for such input."""


class Adjacency(NamedTuple):
    """A directed graph in CSR form: the successors of ``v`` are
    ``indices[indptr[v]:indptr[v + 1]]``, on the host (NumPy) or the GPU
    (CuPy) as ``on_gpu`` says.  Duplicate entries may occur."""

    n: int
    indptr: object
    indices: object
    on_gpu: bool


def connected_components(csgraph, directed=True, connection="weak", return_labels=True):
    """Connected components of a graph given as an N x N matrix.

    Exactly ``scipy.sparse.csgraph.connected_components``: a dense array is
    an adjacency matrix whose zero, infinite and NaN entries (and, for
    float dtypes, entries within 1e-8 of zero) are no edge; every stored
    entry of a sparse matrix is an edge, explicit zeros included; the
    masked entries of a masked array are no edge.  ``connection`` is
    'weak' or 'strong' in any case; 'weak', or ``directed=False``, gives the
    components of the undirected graph.  Returns ``(n_components, labels)``
    with int32 labels numbered as SciPy numbers them, or ``n_components``
    alone when ``return_labels`` is false.  CuPy arrays and CuPy sparse
    matrices run on the GPU and give CuPy labels.

    >>> import numpy as np
    >>> A = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    >>> connected_components(A, directed=True, connection="strong")
    (3, array([0, 0, 2, 1], dtype=int32))
    >>> connected_components(A, directed=False, return_labels=False)
    2
    """
    strong = strong_requested(directed, connection)
    adj = adjacency(csgraph)
    k, labels = strong_components(adj) if strong else weak_components(adj)
    return (k, labels) if return_labels else k


def strong_requested(directed, connection) -> bool:
    """Whether ``(directed, connection)`` asks for strong components,
    validating ``connection`` as SciPy does (a non-string fails on
    ``.lower()``)."""
    mode = connection.lower()
    if mode not in ("weak", "strong"):
        raise ValueError(f"connection must be 'weak' or 'strong'; got {connection!r}")
    return bool(directed) and mode == "strong"


# -- input ----------------------------------------------------------------------

def adjacency(csgraph) -> Adjacency:
    """The directed graph that SciPy reads from ``csgraph``: a scipy.sparse
    or pydata/sparse matrix, a masked array, a dense array or array-like,
    or their CuPy counterparts."""
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


# -- components ------------------------------------------------------------------

def graph_of(adj: Adjacency):
    """The undirected :class:`gconn.Graph` of ``adj`` (on the GPU for CuPy)."""
    from .graph import Graph
    if adj.on_gpu:
        import cupy
        slots = cupy.arange(adj.indices.size, dtype=adj.indptr.dtype)
        rows = (cupy.searchsorted(adj.indptr, slots, side="right") - 1).astype(adj.indices.dtype)
        return Graph.from_edges(rows, adj.indices, adj.n)
    return Graph.from_csr(adj.indptr, adj.indices, adj.n)


def weak_components(adj: Adjacency):
    """Components of the undirected graph, numbered by smallest vertex (as
    SciPy numbers them), through gconn's connectivity algorithms."""
    from . import api
    if adj.n == 0:
        return 0, _empty_labels(adj)
    if adj.on_gpu:
        k, labels = api.connected_components(graph_of(adj), backend="gpu")
        return k, labels.astype(np.int32, copy=False)
    # Union-find over the arcs as they are: building the symmetric,
    # deduplicated CSR a gconn.Graph holds would cost more than the
    # components (measured: BENCHMARKS.md, "SciPy drop-in").
    rows = np.repeat(np.arange(adj.n, dtype=adj.indices.dtype), np.diff(adj.indptr))
    ic = api.IncrementalConnectivity(adj.n, backend="auto")
    ic.insert(rows, adj.indices)
    labels = ic.labels().astype(np.int32, copy=False)
    return int(labels.max()) + 1, labels


def strong_components(adj: Adjacency):
    """Strongly connected components: Tarjan on the host (SciPy's
    numbering), the coloring method on the GPU (numbered by smallest vertex)."""
    if adj.n == 0:
        return 0, _empty_labels(adj)
    if adj.on_gpu:
        from .scc import gpu
        return gpu.strong_components(adj.indptr, adj.indices, adj.n)
    from .scc import cpu
    return cpu.tarjan(adj.indptr, adj.indices, adj.n)


def _empty_labels(adj: Adjacency):
    if adj.on_gpu:
        import cupy
        return cupy.zeros(0, cupy.int32)
    return np.zeros(0, np.int32)
