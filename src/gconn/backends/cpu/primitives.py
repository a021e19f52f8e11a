"""The CPU primitives for :mod:`gconn.backends.core` and the union-find bodies built
with them.

The variant is a set of runtime codes (finish, find, splice), so one cached
compilation per id width serves the whole design space; the branch on the
codes is predictable and costs little next to the cache misses of a union.

A ``prange`` index starting at 0 is typed uint64 by numba; mixed with int32
ids it would unify to float64, so loops rebind it as a signed ``v``.

Spanning forests: ``fa``/``fb`` are length-n arrays (or length 0 when not
wanted); the thread that links root r writes the edge at slot r
(:func:`record_edge`).

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
    """Spanning forest: the link of root r used edge (u, v)."""
    if r >= 0 and fa.size > 0:
        fa[r] = u
        fb[r] = v
