"""The one place where the GPU backend imports numba-cuda and chooses its arrays.

* numba-cuda 0.30 registers an overload for ``np.row_stack``, which NumPy 2.5
  removed; importing numba.cuda then fails.  The alias below must run before
  anything in gconn imports numba.cuda, so every gpu module imports ``cuda``
  from here.
* Under ``NUMBA_ENABLE_CUDASIM=1`` the kernels run in numba's simulator on
  host arrays: ``xp`` is NumPy there and CuPy on a real GPU, and ``view``
  turns an ``xp`` array into what a kernel takes.

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

#: True when numba runs CUDA kernels in its Python simulator.
SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")

from numba import cuda  # noqa: E402  (after the alias)

if SIM:
    xp = np
else:
    try:
        import cupy as xp
    except ImportError:  # the backend is unavailable; available() says why
        xp = None

#: Warp intrinsics (shuffles, ballots) exist on devices, not in the simulator.
WARP_INTRINSICS = not SIM


def _fast_view_class():
    """A stand-in for numba's DeviceNDArray made straight from a CuPy array.

    numba-cuda 0.30 launches read an array argument's ``_numba_type_`` (to
    type it) and ``_strided_memory_view_shim`` (pointer, shape, strides);
    this class provides just those.  ``cuda.as_cuda_array`` goes through the
    CUDA Array Interface, a driver pointer query and a DeviceNDArray, tens of
    microseconds per array and run.  None where numba-cuda lacks the shims."""
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
            self.owner = a      # keeps the memory alive while the view is
            # numba's kernel ABI of a 1-D array: meminfo, parent, size,
            # itemsize, data, shape, stride (gconn.backends.gpu.launch's direct launch)
            self.abi = (0, 0, a.size, a.itemsize, a.data.ptr, a.size, a.itemsize)

        @property
        def _strided_memory_view_shim(self):
            # made only where numba's dispatcher launches (the direct launch
            # reads ``abi``): it costs more than the rest of the view
            a = self.owner
            layout = _StridedLayoutShim(strides_in_bytes=a.strides, is_contiguous_c=True,
                                        is_contiguous_f=True, is_contiguous_any=True)
            return _StridedMemoryViewShim(ptr=a.data.ptr, shape=a.shape, dtype=a.dtype, size=a.size,
                                          _layout=layout)

    return KernelArray


_FAST: list = []
_DISPATCHER_TAKES_FAST: list = []


def _fast_views_work(cls) -> bool:
    """Launch a tiny kernel through numba's dispatcher with the light view
    once: it relies on numba-cuda internals, so another numba-cuda gets its
    own arrays instead (:func:`for_dispatcher`)."""
    try:
        @cuda.jit("void(int32[::1])")
        def iota(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = i

        import warnings
        a = xp.zeros(4, xp.int32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # one block: numba's low-occupancy warning
            iota[1, 32](cls(a))
        return a.tolist() == [0, 1, 2, 3]
    except Exception:
        return False


def view(a):
    """What a kernel launch takes for the ``xp`` array ``a``: ``a`` itself in the
    simulator; on a GPU a light view sharing CuPy's memory."""
    if SIM:
        return a
    if not _FAST:
        _FAST.append(_fast_view_class())
    if _FAST[0] is not None and a.size:
        return _FAST[0](a)
    return cuda.as_cuda_array(a, sync=False)


def for_dispatcher(args: tuple) -> tuple:
    """``args`` as numba's dispatcher takes them.  The direct launch reads
    only a light view's own fields; the dispatcher reads numba-cuda
    internals, so the first launch through it tries one (compiling a probe
    kernel, about a second, which a process that launches directly never
    pays), and where that fails the views become numba's arrays."""
    if not _DISPATCHER_TAKES_FAST:
        cls = _FAST[0] if _FAST else None
        _DISPATCHER_TAKES_FAST.append(cls is None or _fast_views_work(cls))
    if _DISPATCHER_TAKES_FAST[0]:
        return args
    cls = _FAST[0]
    return tuple(cuda.as_cuda_array(a.owner, sync=False) if type(a) is cls else a for a in args)
