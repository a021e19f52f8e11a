"""The native feed: the chunked route's loop compiled for the host
(``gconn.chunked.gpu._CudaPipe.pump``), CUDA driver calls with no Python between them.

Driver functions are called through addresses passed in as integers, so
that numba's on-disk cache can keep the loop (a compiled-in address would
be wrong in the next process).  No GPU kernel is imported, so ``gconn
warmup`` compiles it without numba-cuda.

>>> NAMES[LAUNCH], SIGNATURES["cuStreamWaitEvent"]
('cuLaunchKernel', (64, 64, 32))
>>> _CONTROL, _NOT_BACK == np.iinfo(np.int64).min
(29, True)
"""
from __future__ import annotations

import ctypes
from functools import cache

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

from gconn.backends.gpu.staging import BLOCK, _memcpy


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
    """An intrinsic ``call(address, (args...))`` of a C function returning int32, of ``widths``-bit args."""

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


# call_copy makes copies both ways: (dst, src, bytes, stream)
call_sync, call_record, call_wait, call_copy, _, call_launch = (_caller(w) for w in SIGNATURES.values())

@cache
def addresses() -> np.ndarray | None:
    """The driver functions' addresses (int64, in :data:`NAMES`' order), or None without ``libcuda``."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        return np.array([ctypes.cast(getattr(lib, name), ctypes.c_void_p).value for name in NAMES], np.int64)
    except (OSError, AttributeError):
        return None


def handle(obj) -> int:
    """The integer value of a driver handle (CUfunction, ctypes pointer or int)."""
    value = getattr(obj, "value", obj)
    return value if isinstance(value, int) else int(obj)


#: a pinned bounds slot whose chunk's pair has not come back yet
_NOT_BACK = np.iinfo(np.int64).min


# the slots of a pump's control array (int64): its state in and out, the
# handles and addresses it works with
(_A, _M, _CHUNK, _ROW, _ROWS, _ARRIVED, _TOP, _CAP, _WATCH, _TURN, _SLOT, _PIECE, _PIECES, _ISZ, _SHARES, _SRC,
 _WHOLE, _COPY, _COMPUTE, _KERNEL, _GRIDS, _BLOCK, _PTRS, _HOSTB, _DEVB, _LIMIT, _ERR, _CALL, _DIRECT) = range(29)
_CONTROL = 29
# the kernel parameters a pump writes for each chunk, as indices into ``at``
_AT_M, _AT_SRC_SIZE, _AT_SRC_SHAPE, _AT_SRC_DATA, _AT_DST_SIZE, _AT_DST_SHAPE, _AT_ROW = range(7)


@njit(parallel=True, nogil=True, cache=True)
def _pump(fns, src, dst, pieces, events, dbuf, params, at, hostb, c):
    """Checked chunks as :meth:`ChunkedUnion._put` makes them, from edge ``c[_A]``
    until ``c[_M]``, ``c[_LIMIT]`` chunks, or (``c[_WATCH]``) an id beyond the
    parent array.  ``c[_DIRECT]``: the arrays are pinned, each chunk is copied from
    them as it is (no staging).  ``events``: the ring's, then ``copied`` and ``unioned`` per
    buffer; ``params[s]``: buffer s's kernel parameters, fields ``at``
    rewritten per chunk.  A failed call stops it (``c[_ERR]``, ``c[_CALL]``)."""
    ring = pieces.shape[0]
    buffers = dbuf.shape[0]
    fields = params.shape[1]
    isz, piece = c[_ISZ], c[_PIECE]
    stride = pieces.shape[1] * isz
    done = 0
    while c[_A] < c[_M] and done < c[_LIMIT]:
        if c[_WATCH] != 0:
            while c[_ARRIVED] < c[_ROWS] and hostb[2 * c[_ARRIVED] + 1] != _NOT_BACK:
                c[_TOP] = max(c[_TOP], hostb[2 * c[_ARRIVED] + 1])
                c[_ARRIVED] += 1
            if c[_TOP] >= c[_CAP]:
                return
        o = c[_A]
        k = min(c[_CHUNK], c[_M] - o)
        s = c[_SLOT] % buffers
        copied, unioned = events[ring + s], events[ring + buffers + s]
        err, where = call_wait(fns[WAIT], (c[_COPY], unioned, 0)), WAIT   # the buffer's last union is done
        for side in range(2):
            # the chunk's ids into the buffer, piece by piece through the pinned ring, on the copy stream
            a = src if side == 0 else dst
            p = k if side == 0 and c[_SRC] == 0 else 0
            if err == 0 and p < k and c[_DIRECT] != 0:
                err, where = call_copy(fns[TO_DEVICE], (dbuf[s, side], a.ctypes.data + o * isz, k * isz,
                                                        c[_COPY])), TO_DEVICE
                p = k
            while err == 0 and p < k:
                j = c[_TURN] % ring
                c[_TURN] += 1
                err, where = call_sync(fns[SYNC], (events[j],)), SYNC       # the piece's last copy is done
                if err != 0:
                    break
                cnt = min(piece, k - p)
                out, part = pieces[j, :cnt], a[o + p:o + p + cnt]
                # staging.copy_shares written out: calling it crashed when loaded from numba's disk cache,
                # and an inlined share loop stays serial
                parts = max(min(c[_SHARES], cnt // BLOCK), 1)
                step = (cnt + parts - 1) // parts
                for t in prange(parts):
                    lo = t * step
                    hi = min(lo + step, cnt)
                    if hi > lo:
                        _memcpy(out, part, lo, hi - lo)
                err, where = call_copy(fns[TO_DEVICE], (dbuf[s, side] + p * isz, c[_PIECES] + j * stride, cnt * isz,
                                                        c[_COPY])), TO_DEVICE
                if err == 0:
                    err, where = call_record(fns[RECORD], (events[j], c[_COPY])), RECORD
                p += cnt
        if err == 0:
            err, where = call_record(fns[RECORD], (copied, c[_COPY])), RECORD
        if err == 0:
            err, where = call_wait(fns[WAIT], (c[_COMPUTE], copied, 0)), WAIT
        if err == 0:
            par = params[s]
            for f in (_AT_M, _AT_SRC_SIZE, _AT_SRC_SHAPE, _AT_DST_SIZE, _AT_DST_SHAPE):
                par[at[f]] = k
            par[at[_AT_ROW]] = c[_ROW]
            if c[_WHOLE] != 0:          # a CSR's rows, found for every entry before the feed
                par[at[_AT_SRC_DATA]] = c[_WHOLE] + o * c[_ISZ]
            grid = min((k + c[_BLOCK] - 1) // c[_BLOCK], c[_GRIDS])
            err, where = call_launch(fns[LAUNCH], (c[_KERNEL], grid, 1, 1, c[_BLOCK], 1, 1, 0, c[_COMPUTE],
                                                   c[_PTRS] + s * fields * 8, 0)), LAUNCH
        if err == 0:
            err, where = call_copy(fns[TO_HOST], (c[_HOSTB] + 16 * c[_ROW], c[_DEVB] + 16 * c[_ROW], 16,
                                                  c[_COMPUTE])), TO_HOST
        if err == 0:
            err, where = call_record(fns[RECORD], (unioned, c[_COMPUTE])), RECORD
        if err != 0:
            c[_ERR] = err
            c[_CALL] = where
            return
        c[_ROW] += 1
        c[_SLOT] += 1
        c[_A] = o + k
        done += 1


def warm() -> None:
    """Compile (or load) :func:`_pump` for the chunked route's id types (no GPU needed)."""
    z = lambda *shape: np.zeros(shape, np.int64)                # noqa: E731
    for dt in (np.int32, np.int64):
        for writeable in (True, False):     # read-only: a memory-mapped .npy or .gcb
            ids = np.zeros(0, dt)
            ids.flags.writeable = writeable
            _pump(z(len(NAMES)), ids, ids, np.zeros((1, 1), dt), z(1), z(1, 2), z(1, 1), z(7), z(2), z(_CONTROL))
