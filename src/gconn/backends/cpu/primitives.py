"""The CPU primitives for :mod:`gconn.backends.core` and the union-find bodies
built with them, on runtime codes: one cached compilation per id width
serves every variant.  A ``prange`` index is uint64 (with int32 ids it would
unify to float64), so loops rebind it as a signed ``v``.

>>> callable(UF.union_any)
True
"""
from __future__ import annotations

from numba import njit

from gconn.backends.core.primitives import Primitives
from gconn.backends.core.unionfind import build
from gconn.backends.cpu import atomics

CPU = Primitives(jit=njit, load=atomics.load, store=atomics.store, cas=atomics.cas,
                 atomic_min=atomics.atomic_min, atomic_add=atomics.atomic_add,
                 fence=atomics.fence)
UF = build(CPU)
union_any = UF.union_any
find_any = UF.find_any
parent_of = UF.parent_of
set_parent = UF.set_parent
same_set_any = UF.same_set_any


@njit(inline="always")
def record_edge(fa, fb, r, u, v):
    """Spanning forest (``fa`` of length n, or 0 for none): root r was linked by edge (u, v)."""
    if r >= 0 and fa.size > 0:
        fa[r] = u
        fb[r] = v
