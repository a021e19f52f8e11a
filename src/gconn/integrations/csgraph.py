"""A drop-in for ``scipy.sparse.csgraph.connected_components``.

Change ``from scipy.sparse.csgraph import connected_components`` to
``from gconn.integrations.csgraph import connected_components`` and nothing else: the
signature, the input rules, the results (labels included, int32) and the
exception types are SciPy's.  Weak components run on gconn's connectivity
algorithms; strong components on an iterative Tarjan (CPU) or, for CuPy
input, a coloring method on the GPU (see :mod:`gconn.api.scc`).

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
>>> from gconn.integrations.csgraph import connected_components
>>> A = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])
>>> connected_components(A)
(2, array([0, 0, 1], dtype=int32))
>>> connected_components(A, connection="strong")
(3, array([1, 0, 2], dtype=int32))
"""
from __future__ import annotations

import numpy as np

from gconn import api
from gconn.inputs.adjacency import Adjacency, CSGraphTypeError, adjacency, graph_of, strong_requested

__all__ = ["connected_components", "CSGraphTypeError"]


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


def weak_components(adj: Adjacency):
    """Components of the undirected graph, numbered by smallest vertex (as SciPy numbers them)."""
    if adj.n == 0:
        return 0, _empty_labels(adj)
    if adj.on_gpu:
        k, labels = api.connected_components(graph_of(adj), backend="gpu")
        return k, labels.astype(np.int32, copy=False)
    # union-find over the arcs as they are: a gconn.Graph's CSR would cost more than the
    # components (BENCHMARKS.md, "SciPy drop-in")
    rows = np.repeat(np.arange(adj.n, dtype=adj.indices.dtype), np.diff(adj.indptr))
    ic = api.IncrementalConnectivity(adj.n, backend="auto")
    ic.insert(rows, adj.indices)
    labels = ic.labels().astype(np.int32, copy=False)
    return int(labels.max()) + 1, labels


def strong_components(adj: Adjacency):
    """Strongly connected components: Tarjan on the host, coloring on the GPU."""
    if adj.n == 0:
        return 0, _empty_labels(adj)
    if adj.on_gpu:
        from gconn.backends.gpu import scc as gpu
        return gpu.strong_components(adj.indptr, adj.indices, adj.n)
    from gconn.backends.cpu import scc as cpu
    return cpu.tarjan(adj.indptr, adj.indices, adj.n)


def _empty_labels(adj: Adjacency):
    if adj.on_gpu:
        import cupy
        return cupy.zeros(0, cupy.int32)
    return np.zeros(0, np.int32)
