"""The contract between target-independent algorithm bodies and a backend.

A backend hands a :class:`Primitives` to the factories in ``gconn.backends.core``; the
factories return the algorithm's functions compiled with ``jit`` for that
target.  This is how one Python body serves numba's CPU target and CUDA
(the role C++ templates play in GConn)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Primitives:
    #: decorator compiling a helper for the target (njit / cuda.jit(device=True))
    jit: Callable
    #: load(a, i): a read of a[i] that other threads may be writing; the
    #: compiler may merge it with an earlier read of the same address
    load: Callable
    #: store(a, i, v): a write of a[i] that other threads may be reading
    store: Callable
    #: cas(a, i, old, new) -> the value found at a[i] (equal to old on success)
    cas: Callable
    #: atomic_min(a, i, v) -> old value
    atomic_min: Callable
    #: atomic_add(a, i, v) -> old value
    atomic_add: Callable
    #: fence(): order this thread's earlier reads and writes before its later ones
    fence: Callable
    #: peek(a, i): a cheaper read of a[i] that may return an older value than
    #: ``load`` would, never one older than the kernel's start (GPU: cached in
    #: the SM's L1, which is not coherent across SMs); None: ``load``
    peek: Callable | None = None
    #: reread(a, i): a read of a[i] made where it stands, every time: never
    #: merged with an earlier read of the same address nor hoisted out of a
    #: loop (for re-reads that must see a newer value; after an atomic, only
    #: a fence orders it, as after taking a lock); None: ``load``
    reread: Callable | None = None
