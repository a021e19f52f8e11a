"""The byte-level parsers, and the one seam to their compiled form.

``K`` stands for :mod:`gconn.io._kernels`: its status codes (from
``gconn.io._codes``), and its functions from the ahead-of-time compiled
module while numba is not loaded in this process (the same bodies,
compiled at install time: a one-off ``gconn cc FILE`` then never pays
numba's import and target initialisation), otherwise from the numba
kernels themselves (whose ``entries_ok`` is parallel).  The compiled
module lives above this layer: :mod:`gconn.backends.aot` registers its
loader here (:func:`use_compiled`) when it is imported, which
``gconn.api.dispatch`` does, so with every ``import gconn``.

>>> K.TOO_FEW
2
>>> import numpy as np
>>> K.count_lines(np.frombuffer(b"1 2\\n3 4", np.uint8))
2
"""
from __future__ import annotations

import sys

from gconn.io import _codes

_CODES = {k: v for k, v in vars(_codes).items() if k.isupper()}
#: Returns the compiled module or None (see :func:`use_compiled`).
_COMPILED = [lambda: None]


def use_compiled(load) -> None:
    """Take the parsers from ``load()``, a compiled module or None, while
    numba is not loaded."""
    _COMPILED[0] = load


def numba_free() -> bool:
    """Whether this process has not imported numba (yet)."""
    return "numba" not in sys.modules


class _Kernels:
    def __getattr__(self, name):
        if name in _CODES:
            return _CODES[name]
        compiled = _COMPILED[0]() if numba_free() else None
        if compiled is not None and hasattr(compiled, name):
            return getattr(compiled, name)
        from gconn.io import _kernels
        return getattr(_kernels, name)


K = _Kernels()
