"""Relabelling: map the vertex ids that occur in an edge list to 0..k-1, in order
(a mark table over the range where it is at most 4 x 2m, else a hash table).
``relabel="auto"`` relabels when the range is at least :data:`AUTO_MIN_RANGE`
and more than :data:`AUTO_RATIO` times the number of distinct ids.

>>> import numpy as np
>>> s, d, ids = dense_ids(np.array([10, 3000000000]), np.array([3000000000, 7]))
>>> s.tolist(), d.tolist(), ids.tolist()
([1, 2], [2, 0], [7, 10, 3000000000])
"""
from __future__ import annotations

import numpy as np

from gconn.graph.ids import id_dtype

#: ``relabel="auto"`` leaves id ranges below this alone (small inputs keep scipy's numbering)
AUTO_MIN_RANGE = 1 << 20
#: ... and relabels when the range exceeds this many times the distinct ids.
AUTO_RATIO = 4


def _mark(src: np.ndarray, dst: np.ndarray, size: int) -> np.ndarray:
    seen = np.zeros(size, np.bool_)
    seen[src] = True
    seen[dst] = True
    return seen


def decide(src: np.ndarray, dst: np.ndarray, hi: int):
    """For ``relabel="auto"``: None to keep the ids, else the mark table (or True: too large for one)."""
    span = hi + 1
    if span < AUTO_MIN_RANGE:
        return None
    if span > AUTO_RATIO * (src.size + dst.size):
        return True  # more than AUTO_RATIO x any possible distinct count
    seen = _mark(src, dst, span)
    return seen if span > AUTO_RATIO * int(np.count_nonzero(seen)) else None


def dense_ids(src: np.ndarray, dst: np.ndarray, seen=None, hashed=None):
    """``(src', dst', ids)``: the sorted distinct ids (int64) and positions in it, NumPy or CuPy;
    ``seen``: a mark table from :func:`decide`; ``hashed(src, dst)`` gives them where the ids' range is
    too large for a mark table (default: numba's hash table)."""
    if type(src).__module__.split(".")[0] == "cupy":
        import cupy
        ids, inverse = cupy.unique(cupy.concatenate([src, dst]), return_inverse=True)
        dt = id_dtype(ids.size)
        inverse = inverse.astype(dt, copy=False)
        return inverse[:src.size], inverse[src.size:], ids.astype(cupy.int64, copy=False)
    src = np.asarray(src)
    dst = np.asarray(dst)
    if src.size == 0:
        return src.astype(np.int32), dst.astype(np.int32), np.zeros(0, np.int64)
    hi = max(int(src.max()), int(dst.max()))
    if not isinstance(seen, np.ndarray) and hi + 1 <= AUTO_RATIO * (src.size + dst.size):
        seen = _mark(src, dst, hi + 1)
    if isinstance(seen, np.ndarray):
        ids = np.flatnonzero(seen)
        dt = id_dtype(ids.size)
        table = np.empty(seen.size, dt)
        table[ids] = np.arange(ids.size, dtype=dt)
        return table[src], table[dst], ids.astype(np.int64, copy=False)
    return (hashed or _hashed)(src, dst)


def sorted_ids(src: np.ndarray, dst: np.ndarray):
    """:func:`dense_ids` of host arrays by NumPy's sort, without numba (its hash table is faster
    from about a million edges on, once loaded).

    >>> s, d, ids = sorted_ids(np.array([10, 3000000000]), np.array([3000000000, 7]))
    >>> s.tolist(), d.tolist(), ids.tolist()
    ([1, 2], [2, 0], [7, 10, 3000000000])
    """
    ids, inverse = np.unique(np.concatenate([src, dst]).astype(np.int64, copy=False), return_inverse=True)
    inverse = inverse.astype(id_dtype(ids.size), copy=False)
    return inverse[:src.size], inverse[src.size:], ids


def _hashed(src: np.ndarray, dst: np.ndarray):
    from gconn.graph._relabel_kernels import IdTable
    table = IdTable()
    out_s, out_d = table.map(np.ascontiguousarray(src, np.int64), np.ascontiguousarray(dst, np.int64))
    order = table.ids
    perm = np.argsort(order, kind="stable")
    dt = id_dtype(order.size)
    rank = np.empty(order.size, dt)
    rank[perm] = np.arange(order.size, dtype=dt)
    return rank[out_s], rank[out_d], order[perm]


def dense_names(src, dst, *more):
    """``(src', dst', names)``: the sorted distinct names of ``src``, ``dst`` and ``more``
    (vertices without edges), and the positions in it."""
    both = np.concatenate([np.asarray(src), np.asarray(dst), *(np.asarray(x) for x in more)])
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if both.dtype.kind == "O" and (pd is None or pd.api.types.infer_dtype(both, skipna=False)
                                   not in ("string", "bytes")):
        bad = next((x for x in both if not isinstance(x, (str, bytes))), None)
        if bad is not None:
            raise TypeError(f"vertex names must all be str or bytes; found {bad!r} ({type(bad).__name__})")
    if pd is None:
        names, codes = np.unique(both, return_inverse=True)
    else:
        # hashing: far faster than np.unique's sort of Python strings
        codes, names = pd.factorize(both, sort=True)
        names = np.asarray(names)
    dt = id_dtype(names.size)
    codes = codes.astype(dt, copy=False)
    return codes[:len(src)], codes[len(src):len(src) + len(dst)], names
