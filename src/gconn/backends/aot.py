"""One-off runs without numba: the seam to :mod:`gconn.backends._aot`, built
by :mod:`gconn.backends.aot_build` with ``numba.pycc``: serial union-find over
the raw edges and the text parsers of :mod:`gconn.io._kernels`, without numba's
second of start-up.  :mod:`gconn.api.dispatch` (route ``compiled``) sends plain
calls on small host edges and files here when :func:`chosen` says so.

>>> import numpy as np
>>> e = raw(np.array([0, 2]), np.array([1, 3]), None)
>>> e.n
4
>>> module() is None or components_of(e)[1].tolist() == [0, 0, 1, 1]
True
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from gconn.graph import _check_ids, numba_free, relabel as R
from gconn.graph.ids import INT32_MAX, id_range

#: The variant of the compiled module (built by :mod:`gconn.backends.aot_build`).
VARIANT = "none+union-rem-cas+find-naive+halve-one"

#: Largest input (edges) for the compiled serial union-find once numba is
#: loaded (above it the parallel JIT wins), and while it is not (it costs ~1 s).
WARM_MAX_EDGES = 1 << 18
COLD_MAX_EDGES = 1 << 24

#: Seconds of compiled-route calls above WARM_MAX_EDGES (with the call at hand, at the rate of the
#: last) after which a process counts as a long-running one, whose such calls load numba's parallel
#: kernels: about what loading them costs (numba's import and its cache: 0.5-0.7 s on 2 cores,
#: BENCHMARKS.md "Files and first calls").  As in ski rental, a process then spends at most about
#: twice what the better choice, made knowing its later calls, would have; a first call never moves.
LOAD_SECONDS = 0.6
#: [seconds spent, seconds per edge of the last such call]
_spent = [0.0, 0.0]


@functools.cache
def module():
    """:mod:`gconn.backends._aot`, or None where it was not built
    (``PYTHONPATH=src python -m gconn.backends.aot_build`` builds it in a checkout)."""
    try:
        from gconn.backends import _aot
    except ImportError:
        return None
    return _aot


def chosen(m: int) -> bool:
    """Whether an input of ``m`` edges runs on the compiled module."""
    if module() is None:
        return False
    if not numba_free() or _spent[0] + _spent[1] * m >= LOAD_SECONDS:
        return m <= WARM_MAX_EDGES
    return m <= COLD_MAX_EDGES


def charge(m: int, seconds: float) -> None:
    """Count a compiled-route call of ``m`` edges that took ``seconds`` towards :data:`LOAD_SECONDS`."""
    if m > WARM_MAX_EDGES:
        _spent[0] += seconds
        _spent[1] = seconds / m


#: Largest file read whole for the compiled path; larger ones go chunked
#: (:mod:`gconn.chunked.cpu`, O(n + chunk) memory).
MAX_FILE_BYTES = 64 << 20


#: Most edges relabelled by NumPy's sort where the ids' range is too large for a mark table; above,
#: numba's hash table pays for its loading (the call goes to the resident route)
SORT_MAX_EDGES = 1 << 20


class Edges(NamedTuple):
    src: np.ndarray
    dst: np.ndarray
    n: int
    #: the ids of vertices 0..n-1 where relabelled, else None
    ids: np.ndarray | None = None


def raw(src, dst, n, relabel=False) -> Edges | None:
    """The edges after ``Graph.from_edges``'s checks and relabelling (``n``: a file's declared count,
    which relabel=True ignores as ``gconn.io.graph_of`` does); None where numba's hash table would
    relabel them."""
    if relabel is True or relabel == "auto" and n is None and src.size:
        hi = id_range(src, dst) if src.size else -1
        how = R.decide(src, dst, hi) if relabel == "auto" else True
        if how is not None:
            out = R.dense_ids(src, dst, how, hashed=_sorted)
            return None if out is None else Edges(out[0], out[1], out[2].size, out[2])
    return Edges(src, dst, _check_ids(src, dst, n))


def _sorted(src, dst):
    return R.sorted_ids(src, dst) if src.size <= SORT_MAX_EDGES else None


def _typed(e: Edges):
    """(suffix, src, dst, parent array) for the module's signatures."""
    vdt = np.int32 if e.n <= INT32_MAX else np.int64
    if e.src.dtype == np.int32 and e.dst.dtype == np.int32 and vdt == np.int32:
        return "i4i4", e.src, e.dst, np.empty(e.n, vdt)
    src = e.src.astype(np.int64, copy=False)
    dst = e.dst.astype(np.int64, copy=False)
    return ("i8i4" if vdt == np.int32 else "i8i8"), src, dst, np.empty(e.n, vdt)


def components_of(e: Edges, compact: bool = True):
    """(k, labels) of checked edges: SciPy's labels, or with ``compact=False``
    each component's smallest vertex."""
    kind, src, dst, P = _typed(e)
    if compact:
        k, labels = getattr(module(), f"components_{kind}")(src, dst, P)
        return int(k), labels
    getattr(module(), f"roots_{kind}")(src, dst, P)
    return int(np.count_nonzero(P == np.arange(P.size, dtype=P.dtype))), P


def forest_of(e: Edges):
    """(src, dst) of a spanning forest of checked edges."""
    kind, src, dst, P = _typed(e)
    fa = np.full(P.size, -1, P.dtype)
    fb = np.full(P.size, -1, P.dtype)
    getattr(module(), f"forest_{kind}")(src, dst, P, fa, fb)
    keep = fa >= 0
    return fa[keep], fb[keep]
