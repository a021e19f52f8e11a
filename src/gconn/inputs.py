"""``gconn.as_graph``: every input a user brings, as a :class:`gconn.Graph`.

Above the graph, the readers and the adjacency rules, so that none of them
imports another to coerce: objects in memory go to :func:`gconn.graph.coerce`,
paths to :func:`gconn.load`, square arrays to SciPy's adjacency rules.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from .adjacency import adjacency, graph_of
from .graph import Graph, _is_cupy, _is_square, coerce
from .io import load


def as_graph(obj: Any, n: int | None = None, *, relabel=False) -> Graph:
    """Coerce any supported input to a Graph (see :class:`Graph`).

    Beyond the Graph constructors' inputs: a file path (loaded as
    :func:`gconn.load` loads it) and a square N x N array, an adjacency
    matrix read as SciPy's csgraph reads it.  A 2 x 2 array, which could be
    an edge list too, is an error that asks which it is.

    ``relabel`` (edge arrays only) is :meth:`Graph.from_edges`'s.

    >>> as_graph(([0, 1], [1, 2])).n
    3
    >>> as_graph(np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])).m
    1
    """
    if isinstance(obj, (str, os.PathLike)):
        return load(obj, n=n, relabel=relabel)
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
