"""``K``: :mod:`gconn.io._kernels`'s functions from the ahead-of-time compiled module
(:data:`COMPILED`) while numba is not loaded (a one-off ``gconn cc FILE`` never imports it),
else the numba kernels.

>>> K.TOO_FEW
2
>>> import numpy as np
>>> K.count_lines(np.frombuffer(b"1 2\\n3 4", np.uint8))
2
"""
from __future__ import annotations

import importlib

from gconn.graph import numba_free
from gconn.io import _codes

_CODES = {k: v for k, v in vars(_codes).items() if k.isupper()}
#: The compiled module (built by :mod:`gconn.backends.aot`, a layer above this one).
COMPILED = "gconn.backends._aot"
_LOADED: list = []


def compiled():
    """The compiled module, or None where it was not built."""
    if not _LOADED:
        try:
            _LOADED.append(importlib.import_module(COMPILED))
        except ImportError:
            _LOADED.append(None)
    return _LOADED[0]


class _Kernels:
    def __getattr__(self, name):
        if name in _CODES:
            return _CODES[name]
        module = compiled() if numba_free() else None
        if module is not None and hasattr(module, name):
            return getattr(module, name)
        from gconn.io import _kernels
        return getattr(_kernels, name)


K = _Kernels()
