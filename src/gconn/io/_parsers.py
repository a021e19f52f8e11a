"""The byte-level parsers' status codes and value kinds; :mod:`gconn.io._kernels`'s functions as this
module's attributes: from the ahead-of-time compiled module (:data:`COMPILED`) while numba is not loaded
(a one-off ``gconn cc FILE`` never imports it), else the numba kernels.

>>> from gconn.io import _parsers as K
>>> K.TOO_FEW
2
>>> import numpy as np
>>> K.count_lines(np.frombuffer(b"1 2\\n3 4", np.uint8))
2
"""
from __future__ import annotations

import functools
import importlib

from gconn.graph import numba_free

OK = 0
BAD_FIELD = 1      # a field that must be a non-negative integer is not one
TOO_FEW = 2        # fewer fields on the line than required
NEGATIVE = 3       # a vertex id with a minus sign
OVERFLOW = 4       # an integer beyond int64
OUT_OF_RANGE = 5   # an id outside [base, base + limit)
TOO_MANY = 6       # more records than the file declares
ODD_PAIRS = 7      # METIS with edge weights: a neighbour without its weight
EXTRA_FIELDS = 8   # an edge-list line with more fields than the file's lines have
BAD_EXTRA = 9      # a field besides the ids that must be a number is not one
EMPTY_FIELD = 10   # nothing between two delimiters

# Value kinds of a Matrix Market entry
VALUE_INTEGER = 0
VALUE_REAL = 1

#: The compiled module (built by :mod:`gconn.backends.aot`, a layer above this one).
COMPILED = "gconn.backends._aot"


@functools.cache
def compiled():
    """The compiled module, or None where it was not built."""
    try:
        return importlib.import_module(COMPILED)
    except ImportError:
        return None


def __getattr__(name):
    module = compiled() if numba_free() else None
    if module is not None and hasattr(module, name):
        return getattr(module, name)
    from gconn.io import _kernels
    return getattr(_kernels, name)
