"""CUDA primitives for :mod:`gconn.backends.core` and the union-find bodies built with them.

``load`` is ``ld.global.cg`` (L2, coherent across SMs), which NVVM may merge
with an earlier read of the same address: used where an earlier value is still
correct.  ``reread`` is a volatile load, made every time (inside
UnionRemLock's lock).  ``peek`` is a plain load (L1, maybe stale), where a
stale parent is still correct.  In the simulator, which locks each kind of
atomic apart, ``atomic_min``/``atomic_add`` are CAS loops.  ``load4``/``store4``
move four items in 16-byte accesses.

>>> from gconn.backends.gpu.primitives import UF
>>> callable(UF.union_any)
True
"""
from __future__ import annotations

import numpy as np

from gconn.backends.core.primitives import Primitives
from gconn.backends.core.unionfind import build
from gconn.backends.gpu._compat import SIM, cuda

device = cuda.jit(device=True)

if SIM:
    @device
    def load(a, i):
        return a[i]

    reread = load

    @device
    def atomic_min(a, i, v):
        old = a[i]
        while v < old:
            seen = cuda.atomic.cas(a, i, old, v)
            if seen == old:
                break
            old = seen
        return old

    @device
    def atomic_add(a, i, v):
        old = a[i]
        while True:
            seen = cuda.atomic.cas(a, i, old, old + v)
            if seen == old:
                return old
            old = seen

    @device
    def load4(a, i):
        return a[i], a[i + 1], a[i + 2], a[i + 3]

    @device
    def store4(a, i, x0, x1, x2, x3):
        a[i] = x0
        a[i + 1] = x1
        a[i + 2] = x2
        a[i + 3] = x3
else:
    from llvmlite import ir
    from numba import types
    from numba.cuda import cgutils
    from numba.cuda.extending import intrinsic

    @device
    def load(a, i):
        return cuda.ldcg(a, i)

    class _VolatileLoad(ir.LoadInstr):     # llvmlite has no volatile loads
        def descr(self, buf):
            [ptr] = self.operands
            buf.append(f"load volatile {self.type}, {ptr.type} {ptr.get_reference()}, align {self.align}"
                       f"{self._stringify_metadata(leading_comma=True)}\n")

    @intrinsic
    def reread(typingctx, a, i):
        """``a[i]`` (``i >= 0``) of a 1-D integer array by one volatile load."""
        if not (isinstance(a, types.Array) and a.ndim == 1 and isinstance(a.dtype, types.Integer)
                and isinstance(i, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            aty, ity = sig.args
            arr = context.make_array(aty)(context, builder, args[0])
            idx = context.cast(builder, args[1], ity, types.intp)
            ptr = cgutils.get_item_pointer(context, builder, aty, arr, [idx], wraparound=False)
            ld = _VolatileLoad(builder.block, ptr, typ=context.get_value_type(aty.dtype))
            ld.align = aty.dtype.bitwidth // 8
            builder._insert(ld)
            return ld

        return a.dtype(a, i), codegen

    def _vectors(context, builder, aty, array, index, ity):
        arr = context.make_array(aty)(context, builder, array)
        idx = context.cast(builder, index, ity, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aty, arr, [idx], wraparound=False)
        width = 128 // aty.dtype.bitwidth
        vector = ir.VectorType(context.get_value_type(aty.dtype), width)
        return builder.bitcast(ptr, vector.as_pointer()), width

    def _four(a):
        return isinstance(a, types.Array) and a.ndim == 1 and isinstance(a.dtype, types.Integer) \
            and a.dtype.bitwidth in (32, 64)

    @intrinsic
    def load4(typingctx, a, i):
        """``a[i:i + 4]`` of a 1-D int32/int64 array, ``&a[i]`` 16-byte aligned."""
        if not (_four(a) and isinstance(i, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            ptr, width = _vectors(context, builder, sig.args[0], args[0], args[1], sig.args[1])
            items = []
            for part in range(4 // width):
                vec = builder.load(builder.gep(ptr, [ir.Constant(ir.IntType(32), part)]), align=16)
                items += [builder.extract_element(vec, ir.Constant(ir.IntType(32), k)) for k in range(width)]
            return context.make_tuple(builder, sig.return_type, items)

        return types.UniTuple(a.dtype, 4)(a, i), codegen

    @intrinsic
    def store4(typingctx, a, i, x0, x1, x2, x3):
        """``a[i:i + 4] = x0, x1, x2, x3``, ``&a[i]`` 16-byte aligned."""
        if not (_four(a) and all(isinstance(t, types.Integer) for t in (i, x0, x1, x2, x3))):
            return None

        def codegen(context, builder, sig, args):
            aty = sig.args[0]
            ptr, width = _vectors(context, builder, aty, args[0], args[1], sig.args[1])
            values = [context.cast(builder, args[2 + k], sig.args[2 + k], aty.dtype) for k in range(4)]
            for part in range(4 // width):
                vec = ir.Constant(ptr.type.pointee, ir.Undefined)
                for k in range(width):
                    vec = builder.insert_element(vec, values[part * width + k], ir.Constant(ir.IntType(32), k))
                builder.store(vec, builder.gep(ptr, [ir.Constant(ir.IntType(32), part)]), align=16)
            return context.get_dummy_value()

        return types.none(a, i, x0, x1, x2, x3), codegen

    @device
    def atomic_min(a, i, v):
        return cuda.atomic.min(a, i, v)

    @device
    def atomic_add(a, i, v):
        return cuda.atomic.add(a, i, v)

if SIM:
    peek = load
else:
    @device
    def peek(a, i):
        return a[i]


@device
def store(a, i, v):
    a[i] = v


@device
def cas(a, i, old, new):
    return cuda.atomic.cas(a, i, old, new)


@device
def fence():
    cuda.threadfence()


GPU = Primitives(jit=device, load=load, store=store, cas=cas, atomic_min=atomic_min,
                 atomic_add=atomic_add, fence=fence, peek=peek, reread=reread)

UF = build(GPU)

U64 = np.uint64


@device
def mix32(x):
    # lowbias32 on uint64 values below 2**32: the products never overflow
    h = x & U64(0xFFFFFFFF)
    h ^= h >> U64(16)
    h = (h * U64(0x7FEB352D)) & U64(0xFFFFFFFF)
    h ^= h >> U64(15)
    h = (h * U64(0x846CA68B)) & U64(0xFFFFFFFF)
    h ^= h >> U64(16)
    return h


@device
def rand64(a, b):
    """A reproducible random uint64 for the non-negative pair (a, b)."""
    ua = U64(a)
    x1 = mix32((ua & U64(0xFFFFFFFF)) ^ mix32(U64(b) & U64(0xFFFFFFFF)))
    x2 = mix32(x1 ^ (ua >> U64(32)) ^ U64(0x5BD1E995))
    return (x1 << U64(32)) | x2


#: a forest's hook recorded in the slot of the root it hooked (one per root: any kernel may write it)
RECORD_ROOT = 1
#: ... in the slot of the edge the thread reads, past the n roots': one pass writes each such slot
#: (-1 where it hooked nothing), coalesced; with scattered ids the roots' slots are scattered stores
#: that evict the parents from L2 (design.forest_by_position)
RECORD_POSITION = 2


@device
def record_edge(record, fa, fb, r, u, v):
    """Spanning forest: root r's link (-1: none) used edge (u, v)."""
    if record and r >= 0:
        fa[r] = u
        fb[r] = v


@device
def record_position(fa, fb, slot, r, u, v):
    """Spanning forest, RECORD_POSITION: ``slot`` holds (u, v) if the link hooked a root (r >= 0), else -1."""
    if r >= 0:
        fa[slot] = u
        fb[slot] = v
    else:
        fa[slot] = -1
