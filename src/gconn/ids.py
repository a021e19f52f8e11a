"""Vertex id widths, shared by the graph, the readers and both backends.

>>> id_dtype(2**31 - 1).__name__, id_dtype(2**31).__name__
('int32', 'int64')
"""
from __future__ import annotations

import numpy as np

INT32_MAX = int(np.iinfo(np.int32).max)


def id_dtype(n: int):
    """int32 ids unless n vertices need int64."""
    return np.int32 if n <= INT32_MAX else np.int64


def offset_dtype(m: int):
    """int32 CSR offsets unless the 2m slots of m undirected edges need int64."""
    return np.int32 if 2 * m <= INT32_MAX else np.int64
