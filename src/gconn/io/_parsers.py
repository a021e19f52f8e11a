"""The byte-level parsers without importing numba when it can be avoided.

``K`` stands for :mod:`gconn.io._kernels`: its status codes (from ``gconn.io._codes``), and
its functions come from the ahead-of-time compiled :mod:`gconn.backends._aot` while
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

from gconn.io import _codes

_CODES = {k: v for k, v in vars(_codes).items() if k.isupper()}


class _Kernels:
    def __getattr__(self, name):
        if name in _CODES:
            return _CODES[name]
        from gconn.backends import aot
        compiled = aot.module() if aot.numba_free() else None
        if compiled is not None and hasattr(compiled, name):
            return getattr(compiled, name)
        from gconn.io import _kernels
        return getattr(_kernels, name)


K = _Kernels()
