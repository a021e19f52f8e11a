"""``gconn.as_graph``: every input a user brings, as a :class:`gconn.Graph`.

Above the graph, the readers and the adjacency rules, so that none of them
imports another to coerce: objects in memory go to :func:`gconn.graph.coerce`,
paths to :func:`gconn.load`, square arrays to SciPy's adjacency rules,
tables, tensors and named vertices to :mod:`gconn.inputs.tables`.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..adjacency import adjacency, graph_of
from ..graph import Graph, _is_cupy, _is_square, coerce
from .tables import edge_columns, from_tensor, graph_from_pair, is_named, is_table, is_tensor


def _is_paths(obj) -> bool:
    # A flat list of strings cannot be an edge list, so it names files.
    return isinstance(obj, list) and bool(obj) and all(isinstance(p, (str, os.PathLike)) for p in obj)


def as_graph(obj: Any, n: int | None = None, *, relabel=False, source=None, target=None) -> Graph:
    """Coerce any supported input to a Graph (see :class:`Graph`).

    Beyond the Graph constructors' inputs: a file path or a list of paths
    (partitions of one graph), loaded as :func:`gconn.load` loads them; a
    square N x N array, an adjacency matrix read as SciPy's csgraph reads
    it (a 2 x 2 array, which could be an edge list too, is an error that
    asks which it is); a pandas, polars, pyarrow or cuDF edge table, its
    edge columns named by ``source=`` and ``target=`` (default: the first
    two); DLPack and CUDA-array-interface tensors (PyTorch, JAX, CuPy,
    Numba) as ``(src, dst)`` or ``(m, 2)``, a GPU tensor staying on the GPU.

    Vertex ids that are not integers (strings) are mapped to 0..k-1 in
    sorted order, with ``graph.nodes`` holding the names (see
    :mod:`gconn.inputs.tables`).  ``relabel`` (edge arrays and tables) is
    :meth:`Graph.from_edges`'s.

    >>> as_graph(([0, 1], [1, 2])).n
    3
    >>> as_graph(np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])).m
    1
    >>> import pandas as pd
    >>> g = as_graph(pd.DataFrame({"w": [1.5], "a": ["x"], "b": ["y"]}), source="a", target="b")
    >>> g.n, g.nodes.tolist()
    (2, ['x', 'y'])
    """
    if isinstance(obj, (str, os.PathLike)) or _is_paths(obj):
        from ..io import load  # the readers (and fast_matrix_market) load with the first file
        return load(obj, n=n, relabel=relabel, source=source, target=target)
    if is_table(obj):
        src, dst, _ = edge_columns(obj, source, target)
        return graph_from_pair(src, dst, n, relabel)
    if source is not None or target is not None:
        raise TypeError(f"source= and target= name the columns of a table or an edge file, not of a "
                        f"{type(obj).__name__}")
    if is_tensor(obj):
        obj = from_tensor(obj, "the edge tensor")
    elif isinstance(obj, tuple) and len(obj) == 2 and (is_tensor(obj[0]) or is_tensor(obj[1])):
        obj = tuple(from_tensor(a, w) if is_tensor(a) else a for a, w in zip(obj, ("src", "dst")))
    if isinstance(obj, tuple) and len(obj) == 2 and not _is_cupy(obj[0]):
        src, dst = np.asarray(obj[0]), np.asarray(obj[1])
        if is_named(src) or is_named(dst):
            return graph_from_pair(src, dst, n, relabel)
    if isinstance(obj, (np.ndarray, list)) and not _is_cupy(obj):
        arr = np.asarray(obj) if isinstance(obj, list) else obj
        if arr.ndim == 2 and arr.shape[1] == 2 and is_named(arr):
            return graph_from_pair(arr[:, 0], arr[:, 1], n, relabel)
    if (isinstance(obj, (np.ndarray, list)) or _is_cupy(obj)) and _is_square(obj):
        # (m, 2) arrays are edge lists; any other square array can only be
        # an adjacency matrix, read as scipy.sparse.csgraph reads it
        if relabel is not False:
            raise TypeError("relabel applies to edge arrays, not to an adjacency matrix")
        g = graph_of(adjacency(obj))
        if n is not None and n != g.n:
            raise ValueError(f"n={n} does not match the {g.n} x {g.n} adjacency matrix")
        return g
    return coerce(obj, n, relabel=relabel)
