"""numba kernel of :mod:`gconn.graph.relabel`: an open-addressing hash table from vertex id to dense index."""
from __future__ import annotations

import numpy as np
from numba import njit

_EMPTY = -1
# Fibonacci hashing: multiply by 2^64 / golden ratio, keep the top bits.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def _slot(x, shift):
    return np.int64((np.uint64(x) * _GOLDEN) >> np.uint64(shift))


@njit(cache=True)
def _grow(keys, vals, bits):
    new_keys = np.full(keys.size * 2, _EMPTY, np.int64)
    new_vals = np.empty(keys.size * 2, np.int64)
    mask = new_keys.size - 1
    shift = 64 - (bits + 1)
    for j in range(keys.size):
        x = keys[j]
        if x != _EMPTY:
            h = _slot(x, shift)
            while new_keys[h] != _EMPTY:
                h = (h + 1) & mask
            new_keys[h] = x
            new_vals[h] = vals[j]
    return new_keys, new_vals


@njit(cache=True)
def map_ids(keys, vals, order, k, bits, src, dst, out_src, out_dst):
    """Number the distinct ids (>= 0) of src then dst into ``out_*`` in order of first appearance, over a
    table kept between calls (``k`` ids, load <= 1/2); returns its new state."""
    for part in range(2):
        arr = src if part == 0 else dst
        out = out_src if part == 0 else out_dst
        for i in range(arr.size):
            x = np.int64(arr[i])
            mask = keys.size - 1
            h = _slot(x, 64 - bits)
            while keys[h] != _EMPTY and keys[h] != x:
                h = (h + 1) & mask
            if keys[h] == x:
                out[i] = vals[h]
                continue
            keys[h] = x
            vals[h] = k
            out[i] = k
            if k == order.size:
                bigger = np.empty(order.size * 2, np.int64)
                bigger[:k] = order
                order = bigger
            order[k] = x
            k += 1
            if 2 * k > keys.size:
                keys, vals = _grow(keys, vals, bits)
                bits += 1
    return keys, vals, order, k, bits


class IdTable:
    """Ids numbered 0, 1, ... in the order they first arrive, over any
    number of calls of :meth:`map`; memory grows with the distinct ids.

    >>> t = IdTable()
    >>> [a.tolist() for a in t.map(np.array([10, 3000000000]), np.array([10, 7]))]
    [[0, 1], [0, 2]]
    >>> t.map(np.array([7]), np.array([5]))[1].tolist(), t.ids.tolist()
    ([3], [10, 3000000000, 7, 5])
    """

    def __init__(self):
        self._bits = 16
        self._keys = np.full(1 << self._bits, _EMPTY, np.int64)
        self._vals = np.empty(1 << self._bits, np.int64)
        self._order = np.empty(1024, np.int64)
        self.count = 0

    def map(self, src, dst):
        """Dense numbers of the ids of ``src`` and ``dst`` (int64 arrays)."""
        out_s, out_d = np.empty(src.size, np.int64), np.empty(dst.size, np.int64)
        self._keys, self._vals, self._order, self.count, self._bits = map_ids(
            self._keys, self._vals, self._order, self.count, self._bits, src, dst, out_s, out_d)
        return out_s, out_d

    @property
    def ids(self) -> np.ndarray:
        """The ids in the order they were numbered."""
        return self._order[:self.count]
