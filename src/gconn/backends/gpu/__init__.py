"""The GPU backend (numba-cuda kernels, CuPy arrays): the interface of
:mod:`gconn.backends.cpu`, loaded on first use.  Importing it never fails:
:func:`available` says whether the backend can run.

>>> from gconn.backends import gpu
>>> ok, reason = gpu.available()
>>> isinstance(ok, bool) and isinstance(reason, str)
True
"""
from __future__ import annotations

import os
import sys
from functools import cache

NAME = "gpu"

_STEPS = ("scope", "init", "sample", "compress", "lmax", "gather", "sample_stats", "finish", "finalize", "number", "sync")

#: name -> the module (loaded on first use) that defines it
_LAZY = {name: module for module, names in (
    ("backend", _STEPS), ("incremental", ("IncrementalState",)), ("replay", ("replayed", "again")),
    ("ops", ("to_backend", "compact", "min_representatives", "count_roots", "collect_forest", "asarray",
             "concatenate", "validate_device_ids"))) for name in names}

__all__ = ["NAME", "available", *_LAZY]

#: device nodes of an NVIDIA driver (/dev/dxg: WSL2): without them the probe imports nothing
DEVICE_NODES = ("/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg")


@cache
def _probe():
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0"):
        return "sim", "the CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"
    import importlib.util
    if importlib.util.find_spec("cupy") is None:
        return None, "CuPy is not installed; install gconn[gpu]"
    if sys.platform.startswith("linux") and not any(os.path.exists(p) for p in DEVICE_NODES):
        return None, f"no NVIDIA driver device ({', '.join(DEVICE_NODES)} are missing)"
    try:
        import cupy
    except ImportError as e:
        return None, f"CuPy is not installed ({e}); install gconn[gpu]"
    try:
        from gconn.backends.gpu._compat import cuda
    except Exception as e:  # a broken numba-cuda must not break gconn
        return None, f"numba-cuda cannot be imported: {type(e).__name__}: {e}"
    try:
        if not cuda.is_available():
            return None, "numba-cuda finds no CUDA GPU (or no CUDA driver)"
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, "CuPy finds no CUDA GPU"
        name = cuda.get_current_device().name
        name = name.decode() if isinstance(name, bytes) else name
    except Exception as e:
        return None, f"the CUDA driver failed: {type(e).__name__}: {e}"
    return "gpu", f"CUDA GPU {name}"


def available(simulator_ok: bool = True):
    """``(True, description)`` when the backend can run, else ``(False,
    reason)``.  numba's simulator (NUMBA_ENABLE_CUDASIM=1) counts only when
    ``simulator_ok``.

    >>> available(simulator_ok=False)[0] in (True, False)
    True
    """
    kind, why = _probe()
    if kind == "sim":
        return (True, why) if simulator_ok else (False, f"{why} is only used for backend='gpu'")
    return kind is not None, why


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
