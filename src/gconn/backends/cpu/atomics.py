"""Atomic primitives for numba's CPU target as llvmlite intrinsics.  ``cas``
returns the value it found (like atomicCAS).  Reads of arrays that other
threads write use ``load``: LLVM may hoist a plain load out of a retry loop."""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from gconn.graph.build import prefetch  # noqa: F401 -- with the host forms, the lowest layer that uses it


def _item_pointer(context, builder, arrty, arr, idx):
    ary = make_array(arrty)(context, builder, arr)
    return cgutils.get_item_pointer(context, builder, arrty, ary, [idx], wraparound=False)


def _check_array(arr):
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
        raise TypeError("atomics need an integer array")


@intrinsic
def cas(typingctx, arr, idx, old, new):
    """Compare-and-swap ``arr[idx]`` from ``old`` to ``new``; returns the value seen."""
    _check_array(arr)

    def codegen(context, builder, sig, args):
        arrty, _, oldty, newty = sig.args
        a, i, o, n = args
        ptr = _item_pointer(context, builder, arrty, a, i)
        o = context.cast(builder, o, oldty, arrty.dtype)
        n = context.cast(builder, n, newty, arrty.dtype)
        res = builder.cmpxchg(ptr, o, n, "seq_cst", "seq_cst")
        return builder.extract_value(res, 0)

    return arr.dtype(arr, idx, old, new), codegen


def _rmw(op):
    def impl(typingctx, arr, idx, val):
        _check_array(arr)

        def codegen(context, builder, sig, args):
            arrty, _, valty = sig.args
            a, i, v = args
            ptr = _item_pointer(context, builder, arrty, a, i)
            v = context.cast(builder, v, valty, arrty.dtype)
            kind = op
            if op in ("min", "max") and not arrty.dtype.signed:
                kind = "u" + op
            return builder.atomic_rmw(kind, ptr, v, "seq_cst")

        return arr.dtype(arr, idx, val), codegen

    return intrinsic(impl)


atomic_min = _rmw("min")
atomic_add = _rmw("add")


@intrinsic
def load(typingctx, arr, idx):
    """A relaxed atomic load of ``arr[idx]`` (a plain mov on x86)."""
    _check_array(arr)

    def codegen(context, builder, sig, args):
        arrty = sig.args[0]
        ptr = _item_pointer(context, builder, arrty, args[0], args[1])
        return builder.load_atomic(ptr, "monotonic", arrty.dtype.bitwidth // 8)

    return arr.dtype(arr, idx), codegen


@intrinsic
def store(typingctx, arr, idx, val):
    """A relaxed atomic store, so LLVM keeps it where the algorithm put it."""
    _check_array(arr)

    def codegen(context, builder, sig, args):
        arrty, _, valty = sig.args
        ptr = _item_pointer(context, builder, arrty, args[0], args[1])
        v = context.cast(builder, args[2], valty, arrty.dtype)
        builder.store_atomic(v, ptr, "monotonic", arrty.dtype.bitwidth // 8)
        return context.get_dummy_value()

    return types.void(arr, idx, val), codegen


@intrinsic
def fence(typingctx):
    """A sequentially consistent fence."""

    def codegen(context, builder, sig, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen
