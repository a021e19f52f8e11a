"""A drop-in for ``scipy.sparse.csgraph.connected_components``: change the import and nothing
else (signature, input rules, int32 labels, exception types are SciPy's).  Weak components run
on gconn's algorithms; strong ones on an iterative Tarjan, or a GPU coloring for CuPy input.

Where we differ from SciPy 1.17, on purpose:

* duplicate entries of a ``scipy.sparse`` CSR are one edge (SciPy's strong components can be
  wrong there);
* array-likes (nested lists, tuples) are dense matrices, as SciPy's documentation says (SciPy
  raises ``AttributeError``); other objects (None, numbers) raise :class:`CSGraphTypeError`,
  both an ``AttributeError`` and a ``TypeError``;
* pydata/sparse DOK and other formats convert through COO (SciPy raises ``AttributeError``);
* a masked array with ``mask=nomask``: every entry is an edge (SciPy raises ``AxisError``);
* strong components of CuPy input are numbered by smallest vertex (SciPy's numbering follows
  its depth-first search); the partition is the same.
"""
from __future__ import annotations

import importlib
import time

import numpy as np

from gconn import api
from gconn.backends import aot
from gconn.api.scc import strong_components
from gconn.inputs.adjacency import Adjacency, CSGraphTypeError, adjacency, graph_of, strong_requested

__all__ = ["connected_components", "CSGraphTypeError"]


def connected_components(csgraph, directed=True, connection="weak", return_labels=True):
    """Connected components of a graph given as an N x N matrix, exactly as SciPy's.

    A dense array's zero, infinite and NaN entries (for floats, within 1e-8 of zero) are no
    edge; every stored entry of a sparse matrix is an edge; masked entries are not.
    ``connection`` 'weak' (any case), or ``directed=False``, gives the undirected graph's
    components.  Returns ``(n_components, labels)``, int32 labels numbered as SciPy's, or
    ``n_components`` alone without ``return_labels``.  CuPy input runs on the GPU.

    >>> import numpy as np
    >>> A = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    >>> connected_components(A, directed=True, connection="strong")
    (3, array([0, 0, 2, 1], dtype=int32))
    >>> connected_components(A, directed=False, return_labels=False)
    2
    """
    strong = strong_requested(directed, connection)
    adj = adjacency(csgraph)
    if adj.n == 0:
        k, labels = 0, (importlib.import_module("cupy") if adj.on_gpu else np).zeros(0, np.int32)
    else:
        k, labels = strong_components(adj) if strong else weak_components(adj)
    return (k, labels) if return_labels else k


def weak_components(adj: Adjacency):
    """Components of the undirected graph, numbered by smallest vertex (as SciPy numbers them)."""
    if adj.on_gpu:
        k, labels = api.connected_components(graph_of(adj), backend="gpu")
        return k, labels.astype(np.int32, copy=False)
    # union-find over the arcs as they are: a gconn.Graph's CSR would cost more (797e30a:BENCHMARKS.md)
    rows = np.repeat(np.arange(adj.n, dtype=adj.indices.dtype), np.diff(adj.indptr))
    m = int(adj.indices.size)
    if aot.chosen(m):
        # a process without numba runs the compiled union-find, as gconn.connected_components does
        t0 = time.perf_counter()
        k, labels = aot.components_of(aot.Edges(rows, adj.indices, adj.n))
        aot.charge(m, time.perf_counter() - t0)
        return k, labels.astype(np.int32, copy=False)
    ic = api.IncrementalConnectivity(adj.n, backend="auto")
    ic.insert(rows, adj.indices)
    labels = ic.labels().astype(np.int32, copy=False)
    return int(labels.max()) + 1, labels
