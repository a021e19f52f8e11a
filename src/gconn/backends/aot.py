"""One-off runs without numba: :mod:`gconn.backends._aot` and when to use it.

This module is the seam to the compiled module (built by
:mod:`gconn.backends.aot_build` with ``numba.pycc``, which is deprecated):
:func:`module` loads it and the run functions below call it; the file
readers take its parsers by its name (:data:`gconn.io._parsers.COMPILED`).
Another ahead-of-time build replaces it by providing the same functions
(``components_*``, ``roots_*``, ``forest_*`` and the parsers of
:mod:`gconn.io._kernels`) as a module of that name.

numba costs every new process about a second before its first kernel runs
(import, CPU target initialisation, loading each cached kernel), more than
SciPy's whole one-off run on a 1M-edge file.  ``gconn.backends._aot`` holds, compiled
at install time, what a plain call needs: serial union-find over the raw
edges (see :mod:`gconn.backends.aot_build`) and the text parsers.

The dispatcher (:mod:`gconn.api.dispatch`, route ``compiled``) sends the API's
(and ``gconn cc FILE``'s) plain calls on small host edge arrays and files
here -- the automatic variant, no statistics, no relabelling -- when
:func:`chosen` says so.  The labels are SciPy's, exactly as the JIT
backends give them.

>>> import numpy as np
>>> e = raw(np.array([0, 2]), np.array([1, 3]), None)
>>> e.n
4
>>> module() is None or components_of(e)[1].tolist() == [0, 0, 1, 1]
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gconn.graph import _check_ids, numba_free, relabel as R
from gconn.graph.ids import INT32_MAX, id_range

#: The variant of the compiled module (built by :mod:`gconn.backends.aot_build`).
VARIANT = "none+union-rem-cas+find-naive+halve-one"

#: Largest input (edges) given to the compiled serial union-find once numba
#: is loaded: above it the JIT path's parallel union-find wins.
WARM_MAX_EDGES = 1 << 18
#: ... while numba is not loaded, which adds ~1 s to the JIT path.
COLD_MAX_EDGES = 1 << 24

_MODULE: list = []


def module():
    """:mod:`gconn.backends._aot`, or None where it was not built (numba's JIT then
    does everything; ``PYTHONPATH=src python -m gconn.backends.aot_build`` builds it
    in a development checkout)."""
    if not _MODULE:
        try:
            from gconn.backends import _aot
        except ImportError:
            _aot = None
        _MODULE.append(_aot)
    return _MODULE[0]


def chosen(m: int) -> bool:
    """Whether an input of ``m`` edges runs on the compiled module."""
    if module() is None:
        return False
    return m <= (COLD_MAX_EDGES if numba_free() else WARM_MAX_EDGES)


#: Largest file read whole for the compiled path: larger ones go to the
#: streamed path (:mod:`gconn.chunked.cpu`), which parses and unites them in
#: O(n + chunk) memory instead of reading every edge first.  64 MB is a few
#: million edges of text, well inside :data:`COLD_MAX_EDGES`' range.
MAX_FILE_BYTES = 64 << 20


class Edges(NamedTuple):
    src: np.ndarray
    dst: np.ndarray
    n: int


def raw(src, dst, n, relabel=False) -> Edges | None:
    """The edges as they are, after the checks ``Graph.from_edges`` makes
    (None where it would relabel them)."""
    if relabel is True:
        return None
    if relabel == "auto" and n is None and src.size:
        if R.decide(src, dst, id_range(src, dst)) is not None:
            return None
    return Edges(src, dst, _check_ids(src, dst, n))


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
