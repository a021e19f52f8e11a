"""Build :mod:`gconn.backends._aot` with numba's ``pycc``: what a one-off run
needs, serial (pycc has no ``parallel=True``), from the JIT backends' bodies:
``core.unionfind``'s UnionRemCAS with HalveAtomicOne (``aot.VARIANT``) on
one-thread primitives, compression, ``cpu.backend._compact`` (SciPy's
numbering) and the forest's ``record_edge``; and the text parsers of
:mod:`gconn.io._kernels`.  ``pip install`` builds it; in a checkout::

    PYTHONPATH=src python -m gconn.backends.aot_build"""
from __future__ import annotations

import os
import warnings

from numba import njit
from numba.core.errors import NumbaPendingDeprecationWarning

with warnings.catch_warnings():
    # pycc is "pending deprecation"; if it goes, setup.py installs without _aot and the JIT does the work
    warnings.simplefilter("ignore", NumbaPendingDeprecationWarning)
    from numba.pycc import CC

from gconn.backends.aot import VARIANT
from gconn.backends.core.primitives import Primitives
from gconn.backends.core.unionfind import build
from gconn.backends.cpu.backend import _compact
from gconn.backends.cpu.unionfind import record_edge
from gconn.design import Plan, Variant
from gconn.io import _kernels as K

# serially, UnionRemCAS + HalveAtomicOne beats UnionAsync + FindHalve (797e30a:BENCHMARKS.md)
_PLAN = Plan.of(Variant.parse(VARIANT))
_FIND, _SPLICE = _PLAN.fopt, _PLAN.sopt
_load = njit(inline="always")(lambda a, i: a[i])
_fence = njit(inline="always")(lambda: None)


@njit(inline="always")
def _store(a, i, v):
    a[i] = v


@njit(inline="always")
def _cas(a, i, old, new):
    seen = a[i]
    if seen == old:
        a[i] = new
    return seen


#: One thread, so the atomics are plain reads and writes (union-find uses no atomic_min, atomic_add).
SERIAL = Primitives(jit=njit, load=_load, store=_store, cas=_cas, atomic_min=None, atomic_add=None,
                    fence=_fence)
UF = build(SERIAL)


@njit
def _unite(src, dst, P, fa, fb):
    for v in range(P.size):
        P[v] = v
    for i in range(src.size):
        r = UF.UnionRemCAS(P, src[i], dst[i], _FIND, _SPLICE)
        record_edge(fa, fb, r, src[i], dst[i])
    for v in range(P.size):
        P[v] = UF.FindNaive(P, v)


def components(src, dst, P):
    """(k, labels) of the graph on P.size vertices: SciPy's labels."""
    _unite(src, dst, P, P[:0], P[:0])
    return _compact(P)


def roots(src, dst, P):
    """Each vertex's root, its component's smallest vertex."""
    _unite(src, dst, P, P[:0], P[:0])


def forest(src, dst, P, fa, fb):
    """Spanning forest: fa[r], fb[r] = the edge that linked root r (fa, fb of -1s, length P.size)."""
    _unite(src, dst, P, fa, fb)


#: (edge id type, vertex id type); int64 edges with int32 vertices: lists and files under 2^31 vertices
ID_TYPES = (("i4", "i4"), ("i8", "i4"), ("i8", "i8"))


def make_cc(output_dir: str | None = None) -> CC:
    cc = CC("_aot", source_module=__name__)
    cc.verbose = False
    if output_dir is not None:
        cc.output_dir = output_dir
    for e, v in ID_TYPES:
        cc.export(f"components_{e}{v}", f"Tuple((i8, {v}[:]))({e}[:], {e}[:], {v}[::1])")(components)
        cc.export(f"roots_{e}{v}", f"void({e}[:], {e}[:], {v}[::1])")(roots)
        cc.export(f"forest_{e}{v}", f"void({e}[:], {e}[:], {v}[::1], {v}[::1], {v}[::1])")(forest)
    # The parsers go in through their dispatchers (a lambda calling each): pycc's own typing of
    # their bodies rejects the literal status codes.  entries_ok and arc_imbalance, parallel in the
    # JIT, are serial here.
    buf = "u1[:]"
    cc.export("line_end", f"i8({buf}, i8)")(lambda b, pos: K.line_end(b, pos))
    cc.export("count_lines", f"i8({buf})")(lambda b: K.count_lines(b))
    cc.export("line_start", f"i8({buf}, i8)")(lambda b, line: K.line_start(b, line))
    cc.export("parse_pairs", f"UniTuple(i8, 6)({buf}, i8, i8, i8, i8, i8, i8, i8[:], i8[:])")(
        lambda b, pos, line, base, limit, nfields, expect, src, dst:
        K.parse_pairs(b, pos, line, base, limit, nfields, expect, src, dst))
    cc.export("parse_edges", f"UniTuple(i8, 7)({buf}, i8, i8, i8, i8, i8, i8, b1, i8, i8[:], i8[:])")(
        lambda b, pos, line, delim, nfields, ca, cb, numbers, limit, src, dst:
        K.parse_edges(b, pos, line, delim, nfields, ca, cb, numbers, limit, src, dst))
    cc.export("check_entries", f"UniTuple(i8, 4)({buf}, i8, i8, i8, i8, i8)")(
        lambda b, pos, line, nidx, nvals, kind: K.check_entries(b, pos, line, nidx, nvals, kind))
    cc.export("entries_ok", f"b1({buf}, i8, i8, i8, i8, i8)")(
        lambda b, pos, nidx, nvals, kind, chunks: K.check_entries(b, pos, 1, nidx, nvals, kind)[0] == K.OK)
    cc.export("parse_metis", f"UniTuple(i8, 7)({buf}, i8, i8, i8, i8, b1, i8[:], i8[:])")(
        lambda b, pos, line, n, skip, edge_weights, src, dst:
        K.parse_metis(b, pos, line, n, skip, edge_weights, src, dst))
    cc.export("arc_imbalance", "u8(i8[:], i8[:])")(lambda src, dst: K.arc_imbalance_serial(src, dst))
    return cc


if __name__ == "__main__":
    make_cc(os.path.dirname(os.path.abspath(__file__))).compile()
