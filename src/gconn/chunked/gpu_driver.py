"""CUDA driver calls from numba-compiled host code, so that a loop of copies
and launches (the streamed feed, :mod:`gconn.chunked.gpu_union`) runs without
returning to Python between them.

A call goes through the function's address, passed in as an integer: an
address fixed at compile time would be wrong in the next process, and
numba's on-disk cache could not keep the loop.  :func:`addresses` reads the
addresses from ``libcuda`` (``None`` where there is no driver), in the
order of :data:`NAMES`; a test may pass its own functions instead.

>>> NAMES[LAUNCH], SIGNATURES["cuStreamWaitEvent"]
('cuLaunchKernel', (64, 64, 32))
"""
from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

#: the driver functions, with the width in bits of each argument (handles,
#: pointers and sizes 64, ``unsigned int`` 32); each returns a CUresult
SIGNATURES = {
    "cuEventSynchronize": (64,),
    "cuEventRecord": (64, 64),
    "cuStreamWaitEvent": (64, 64, 32),
    "cuMemcpyHtoDAsync_v2": (64, 64, 64, 64),
    "cuMemcpyDtoHAsync_v2": (64, 64, 64, 64),
    "cuLaunchKernel": (64, 32, 32, 32, 32, 32, 32, 32, 64, 64, 64),
}
NAMES = tuple(SIGNATURES)
SYNC, RECORD, WAIT, TO_DEVICE, TO_HOST, LAUNCH = range(len(NAMES))


def _caller(widths: tuple):
    """An intrinsic ``call(address, (args...))`` of a C function returning
    int32 whose integer arguments have ``widths`` bits."""

    @intrinsic
    def call(typingctx, fn, args):
        if not (isinstance(fn, types.Integer) and isinstance(args, types.BaseTuple) and len(args) == len(widths)
                and all(isinstance(t, types.Integer) for t in args)):
            return None

        def codegen(context, builder, signature, llargs):
            fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(w) for w in widths])
            addr = context.cast(builder, llargs[0], signature.args[0], types.uint64)
            f = builder.inttoptr(addr, fnty.as_pointer())
            values = []
            for i, (w, t) in enumerate(zip(widths, signature.args[1])):
                v = context.cast(builder, builder.extract_value(llargs[1], i), t, types.uint64)
                values.append(v if w == 64 else builder.trunc(v, ir.IntType(w)))
            return builder.call(f, values)

        return types.int32(fn, args), codegen

    return call


call_sync = _caller(SIGNATURES["cuEventSynchronize"])
call_record = _caller(SIGNATURES["cuEventRecord"])
call_wait = _caller(SIGNATURES["cuStreamWaitEvent"])
call_copy = _caller(SIGNATURES["cuMemcpyHtoDAsync_v2"])     # both directions: (dst, src, bytes, stream)
call_launch = _caller(SIGNATURES["cuLaunchKernel"])

_ADDRESSES: list = []


def addresses() -> np.ndarray | None:
    """The driver functions' addresses (int64, in :data:`NAMES`' order), or
    None where ``libcuda`` cannot be loaded."""
    if not _ADDRESSES:
        try:
            lib = ctypes.CDLL("libcuda.so.1")
            found = np.array([ctypes.cast(getattr(lib, name), ctypes.c_void_p).value for name in NAMES], np.int64)
        except (OSError, AttributeError):
            found = None
        _ADDRESSES.append(found)
    return _ADDRESSES[0]


def handle(obj) -> int:
    """The integer value of a driver handle (a CUfunction of the NVIDIA
    bindings, a ctypes pointer, or an int)."""
    if isinstance(obj, int):
        return obj
    value = getattr(obj, "value", None)
    if isinstance(value, int):
        return value
    return int(obj)
