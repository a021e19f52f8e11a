"""Incremental connectivity on the CPU: a parent array that grows; the
root-based finishes that are not union-find run batches through
:mod:`gconn.pipeline.finishes`."""
from __future__ import annotations

import numpy as np

from gconn.design import UNION_FIND, Plan, Variant
from gconn.backends.cpu import unionfind as K
from gconn.backends.cpu.backend import labels_view, new_arrays
from gconn.pipeline.finishes import insert_batch, mixed_batch


class IncrementalState:
    """Parent array with capacity doubling; the API layer validates input."""

    def __init__(self, variant: Variant, id_dtype=np.int32):
        self.variant = variant
        self.plan = Plan.of(variant)
        self.id_dtype = np.dtype(id_dtype)
        self.P, self.H = new_arrays(0, self.id_dtype, self.plan)
        self._ids_typed()

    def _ids_typed(self):
        self._k = None
        self.small_below = K.SERIAL_BELOW if self.plan.family == UNION_FIND else 0
        # the small_* kernels cast ids to the empty array's dtype and take ids below its largest
        c = self.plan
        self._codes = (np.empty(0, self.id_dtype), int(np.iinfo(self.id_dtype).max), c.fin, c.fopt, c.sopt)

    def _launches(self):
        """The other finishes' launches, made once (the API's lock serializes batches)."""
        if self._k is None:
            from gconn.backends.cpu.finishes import Launches  # imported by the variants that use it
            self._k = Launches(self.id_dtype)
        return self._k

    def reserve(self, n: int) -> None:
        if n <= self.P.size:
            return
        cap = max(n, 2 * self.P.size, 1024)
        P, H = new_arrays(cap, self.id_dtype, self.plan)
        P[: self.P.size] = self.P
        if self.H.size > 1:
            H[: self.H.size] = self.H
        self.P, self.H = P, H

    def widen(self) -> None:
        """Switch to 64-bit ids (an id beyond int32 arrived); not for UnionJTB,
        whose records hold 32-bit parents."""
        self.id_dtype = np.dtype(np.int64)
        self.P, self.H = self.P.astype(np.int64), self.H.astype(np.int64)
        self._ids_typed()

    def seed(self, roots: np.ndarray) -> None:
        """Start from a static result: each vertex points at its root."""
        self.reserve(roots.size)
        self.P[: roots.size] = roots

    def insert(self, src: np.ndarray, dst: np.ndarray) -> None:
        c = self.plan
        if c.family != UNION_FIND:
            insert_batch(self._launches(), c, self.P, self.H, src, dst)
            return
        kernel = K.insert_serial if src.size < K.SERIAL_BELOW else K.insert_batch
        kernel(self.P, self.H, src, dst, c.fin, c.fopt, c.sopt)

    def query(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        out = np.empty(src.size, np.bool_)
        kernel = K.query_serial if src.size < K.SERIAL_BELOW else K.query_batch
        kernel(self.P, src, dst, self.plan.fin, self.plan.fopt, out)
        return out

    def mixed(self, kinds: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        c = self.plan
        if c.family != UNION_FIND:
            return mixed_batch(self._launches(), c, self.P, self.H, kinds, src, dst, self.query)
        out = np.zeros(kinds.size, np.bool_)
        kernel = K.mixed_serial if kinds.size < K.SERIAL_BELOW else K.mixed_batch
        kernel(self.P, self.H, kinds, src, dst, c.fin, c.fopt, c.sopt, out)
        return out

    # -- small union-find batches in one compiled call (the API's fast path):
    # -1, having done nothing, where the checked path must take the batch; else 1 + the largest id

    def small_insert(self, src: np.ndarray, dst: np.ndarray) -> int:
        return K.small_insert(src, dst, self.P, self.H, *self._codes)

    def small_query(self, src: np.ndarray, dst: np.ndarray, out: np.ndarray) -> int:
        return K.small_query(src, dst, out, self.P, self.H, *self._codes)

    def small_process(self, kinds, src, dst, phased: bool, out: np.ndarray) -> tuple:
        """(1 + largest id or -1, number of answers in ``out``)."""
        return K.small_process(kinds, src, dst, phased, out, self.P, self.H, *self._codes)

    def roots(self, n: int) -> np.ndarray:
        P = self.P[:n]
        K.compress_all(P, self.plan.fin)
        return np.array(labels_view(P, self.plan, self.id_dtype), copy=True)
