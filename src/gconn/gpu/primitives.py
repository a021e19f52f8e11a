"""CUDA primitives for :mod:`gconn.core` and the union-find bodies built with them.

Loads of arrays that other threads write go through ``ld.global.cg`` (cached
in L2 only, which is coherent across SMs; NVVM treats the inline asm as a
memory access and does not hoist it out of a retry loop).  The simulator has
no cache hints and locks each kind of atomic with its own lock, so there
``atomic_min``/``atomic_add`` are CAS loops: then only CAS ever touches an
array that a CAS also touches.

>>> from gconn.gpu.primitives import UF
>>> callable(UF.union_any)
True
"""
from __future__ import annotations

from ..core.primitives import Primitives
from ..core.unionfind import build
from ._compat import SIM, cuda

device = cuda.jit(device=True)

if SIM:
    @device
    def load(a, i):
        return a[i]

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
else:
    @device
    def load(a, i):
        return cuda.ldcg(a, i)

    @device
    def atomic_min(a, i, v):
        return cuda.atomic.min(a, i, v)

    @device
    def atomic_add(a, i, v):
        return cuda.atomic.add(a, i, v)


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
                 atomic_add=atomic_add, fence=fence, target="cudasim" if SIM else "cuda")

#: UnionAsync .. UnionJTB and the finds, compiled as CUDA device functions.
UF = build(GPU)
