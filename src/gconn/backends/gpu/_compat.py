"""The one place where the GPU backend imports numba-cuda (after the
``np.row_stack`` alias it needs on NumPy 2.5) and chooses its arrays: ``xp``
is NumPy under ``NUMBA_ENABLE_CUDASIM=1`` and CuPy on a GPU; ``view`` makes
an ``xp`` array what a kernel takes.

>>> import numpy as np
>>> from gconn.backends.gpu import _compat
>>> hasattr(np, "row_stack")   # the alias numba-cuda needs
True
"""
from __future__ import annotations

import os

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")

from numba import cuda  # noqa: E402  (after the alias)

if SIM:
    xp = np
else:
    try:
        import cupy as xp
    except ImportError:  # available() says why
        xp = None

#: warp shuffles and ballots (not in the simulator)
WARP_INTRINSICS = not SIM


def _fast_view_class():
    """A light stand-in for numba's DeviceNDArray over a CuPy array (None where numba lacks the shims)."""
    try:
        from numba import from_dtype, types
        from numba.cuda.cudadrv.devicearray import _StridedLayoutShim, _StridedMemoryViewShim
    except ImportError:
        return None
    array_types = {}

    class KernelArray:
        __cuda_memory__ = True
        __slots__ = ("_numba_type_", "owner", "abi")

        def __init__(self, a):
            if a.ndim != 1 or not a.flags.c_contiguous:
                raise ValueError("kernels take contiguous 1-D arrays")
            t = array_types.get(a.dtype)
            if t is None:
                t = array_types[a.dtype] = types.Array(from_dtype(a.dtype), 1, "C")
            self._numba_type_ = t
            self.owner = a      # keeps the memory alive
            # numba's kernel ABI: meminfo, parent, size, itemsize, data, shape, stride
            self.abi = (0, 0, a.size, a.itemsize, a.data.ptr, a.size, a.itemsize)

        @property
        def _strided_memory_view_shim(self):
            a = self.owner      # made only for numba's dispatcher
            layout = _StridedLayoutShim(strides_in_bytes=a.strides, is_contiguous_c=True,
                                        is_contiguous_f=True, is_contiguous_any=True)
            return _StridedMemoryViewShim(ptr=a.data.ptr, shape=a.shape, dtype=a.dtype, size=a.size,
                                          _layout=layout)

    return KernelArray


_FAST: list = []
_DISPATCHER_TAKES_FAST: list = []


def _fast_views_work(cls) -> bool:
    """Whether numba's dispatcher launches a tiny kernel with the light view."""
    try:
        @cuda.jit("void(int32[::1])")
        def iota(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = i

        import warnings
        a = xp.zeros(4, xp.int32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # one block: low occupancy
            iota[1, 32](cls(a))
        return a.tolist() == [0, 1, 2, 3]
    except Exception:
        return False


def view(a):
    """What a kernel launch takes for the ``xp`` array ``a``."""
    if SIM:
        return a
    if not _FAST:
        _FAST.append(_fast_view_class())
    if _FAST[0] is not None and a.size:
        return _FAST[0](a)
    return cuda.as_cuda_array(a, sync=False)


def for_dispatcher(args: tuple) -> tuple:
    """``args`` as numba's dispatcher takes them (numba's arrays where it refused a light view)."""
    if not _DISPATCHER_TAKES_FAST:
        cls = _FAST[0] if _FAST else None
        _DISPATCHER_TAKES_FAST.append(cls is None or _fast_views_work(cls))
    if _DISPATCHER_TAKES_FAST[0]:
        return args
    cls = _FAST[0]
    return tuple(cuda.as_cuda_array(a.owner, sync=False) if type(a) is cls else a for a in args)
