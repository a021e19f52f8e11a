"""The byte-level parsers without importing numba when it can be avoided.

``K`` stands for :mod:`gconn.io._kernels`: its status codes live here, and
its functions come from the ahead-of-time compiled :mod:`gconn._aot` while
numba is not loaded in this process (the same bodies, compiled at install
time: a one-off ``gconn cc FILE`` then never pays numba's import and target
initialisation), otherwise from the numba kernels themselves (whose
``entries_ok`` is parallel).

>>> K.TOO_FEW
2
>>> import numpy as np
>>> K.count_lines(np.frombuffer(b"1 2\\n3 4", np.uint8))
2
"""
from __future__ import annotations

# Parser status codes.
OK = 0
BAD_FIELD = 1      # a field that must be a non-negative integer is not one
TOO_FEW = 2        # fewer fields on the line than required
NEGATIVE = 3       # a vertex id with a minus sign
OVERFLOW = 4       # an integer beyond int64
OUT_OF_RANGE = 5   # an id outside [base, base + limit)
TOO_MANY = 6       # more records than the file declares
ODD_PAIRS = 7      # METIS with edge weights: a neighbour without its weight

# Value kinds of a Matrix Market entry, for check_entries.
VALUE_INTEGER = 0
VALUE_REAL = 1

_CODES = {k: v for k, v in globals().items() if k.isupper()}


class _Kernels:
    def __getattr__(self, name):
        if name in _CODES:
            return _CODES[name]
        from .. import aot
        compiled = aot.module() if aot.numba_free() else None
        if compiled is not None and hasattr(compiled, name):
            return getattr(compiled, name)
        from . import _kernels
        return getattr(_kernels, name)


K = _Kernels()
