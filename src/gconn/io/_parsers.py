"""The byte-level parsers' status codes and value kinds (from :mod:`gconn.io._codes`), and
:mod:`gconn.io._kernels`'s functions as this module's attributes: from the ahead-of-time compiled
module (:data:`COMPILED`) while numba is not loaded (a one-off ``gconn cc FILE`` never imports it),
else the numba kernels.

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
from gconn.io._codes import (BAD_EXTRA, BAD_FIELD, BAD_OP, EMPTY_FIELD, EXTRA_FIELDS, NEGATIVE,  # noqa: F401
                             ODD_PAIRS, OK, OUT_OF_RANGE, OVERFLOW, TOO_FEW, TOO_MANY, VALUE_INTEGER,
                             VALUE_REAL, VALUE_REAL_COMMA)

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
