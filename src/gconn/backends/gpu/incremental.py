"""Incremental connectivity on the GPU (paper Sec. 3.6): batches in COO.
Capacity doubles; new vertices start as singletons, so that every parent a
batch reads, even a stale one, is a vertex."""
from __future__ import annotations

import numpy as np

from gconn.design import UNION_FIND, Plan, Variant
from gconn.pipeline.finishes import insert_batch, mixed_batch
from gconn.backends.gpu.finishes import Launches
from gconn.backends.gpu import memory
from gconn.backends.gpu._compat import view, xp
from gconn.backends.gpu.launch import WARP, dtypes_key, dummy, get, launch
from gconn.backends.gpu.unionfind import OP_MIXED, OP_QUERY, OP_UNION, compress


class IncrementalState:
    """Parent array with capacity doubling; the API layer validates input."""

    def __init__(self, variant: Variant, id_dtype=np.int32):
        self.variant = variant
        self.plan = Plan.of(variant)
        self.id_dtype = np.dtype(id_dtype)
        self.p_dtype = np.dtype(np.int64) if self.plan.jtb else self.id_dtype
        self.dtypes = dtypes_key(self.id_dtype, self.id_dtype, self.p_dtype)
        self.P = xp.empty(0, self.p_dtype)
        self.H = self._aux(0)
        self._views()

    def _aux(self, n):
        fill = {"hooks": -1, "locks": 0, "labels": 0}.get(self.plan.aux)
        return xp.full(n if fill is not None else 1, 0 if fill is None else fill, self.p_dtype)

    def _views(self):
        self._Pv = view(self.P) if self.P.size else None
        self._Hv = view(self.H)

    def reserve(self, n: int) -> None:
        if n <= self.P.size:
            return
        cap = max(n, 2 * self.P.size, 1024)
        memory.check(cap * self.P.itemsize * (2 if self.plan.aux else 1), f"growing to {cap} vertices")
        with memory.guard(f"growing to {cap} vertices"):
            P = xp.empty(cap, self.p_dtype)
            launch(get("init_parents", (), self.dtypes), cap, view(P), cap, persistent=True)
            P[: self.P.size] = self.P
            H = self._aux(cap)
            if self.plan.aux:
                H[: self.H.size] = self.H
        self.P, self.H = P, H
        self._views()

    def seed(self, roots) -> None:
        """Start from a static result: each vertex points at its root."""
        self.reserve(roots.size)
        self.P[: roots.size] = roots

    def _ops(self, src, dst, mode, kinds=None, out=None) -> None:
        m = int(src.size)
        if m == 0:
            return
        p = self.plan
        launch(get("coo_ops", (p.fin, p.fopt, p.sopt), self.dtypes), m, self._Pv, self._Hv, view(src), view(dst),
               view(kinds) if kinds is not None else dummy(np.int8), m, mode, 0,
               dummy(self.id_dtype), dummy(self.id_dtype),
               view(out) if out is not None else dummy(np.bool_), int(self.P.size), dummy(np.int64), -1, WARP,
               persistent=True)

    def insert(self, src, dst) -> None:
        if self.plan.family != UNION_FIND:
            insert_batch(Launches(self.P.dtype), self.plan, self.P, self.H, src, dst)
            return
        self._ops(src, dst, OP_UNION)

    def query(self, src, dst):
        out = xp.empty(src.size, np.bool_)
        self._ops(src, dst, OP_QUERY, out=out)
        return out

    def mixed(self, kinds, src, dst):
        """Inserts (kind 0) and queries (kind 1) of one batch; ``out[i]`` answers query i."""
        if self.plan.family != UNION_FIND:
            return mixed_batch(Launches(self.P.dtype), self.plan, self.P, self.H,
                               xp.ascontiguousarray(kinds, dtype=np.int8), src, dst, self.query)
        out = xp.zeros(kinds.size, np.bool_)
        kinds = xp.ascontiguousarray(kinds, dtype=np.int8)
        if self.variant.phase_separated:
            ins = kinds == 0
            self.insert(xp.ascontiguousarray(src[ins]), xp.ascontiguousarray(dst[ins]))
            q = xp.flatnonzero(~ins)
            out[q] = self.query(xp.ascontiguousarray(src[q]), xp.ascontiguousarray(dst[q]))
            return out
        self._ops(src, dst, OP_MIXED, kinds=kinds, out=out)
        return out

    def roots(self, n: int):
        """Each vertex's root (a fresh array); compresses the first n."""
        if n == 0:
            return xp.zeros(0, self.id_dtype)
        out = xp.empty(n, self.id_dtype)
        compress(get("compress", (self.plan.jtb,), self.dtypes), n, self._Pv, view(out), 1)
        return out
