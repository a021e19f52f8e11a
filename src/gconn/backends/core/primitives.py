"""The contract between target-independent algorithm bodies and a backend: a
backend hands a :class:`Primitives` to the factories in ``gconn.backends.core``,
which compile the bodies with ``jit`` for it (GConn's C++ templates)."""
from __future__ import annotations

import types
from dataclasses import dataclass, fields
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
    #: peek(a, i): a cheaper read that may be older than ``load``'s, never older than the
    #: kernel's start (GPU: the SM's L1); None: ``load``
    peek: Callable | None = None
    #: reread(a, i): a read never merged with an earlier one nor hoisted (for re-reads that
    #: must see a newer value; ordered after an atomic only by a fence); None: ``load``
    reread: Callable | None = None


def namespace(pr: Primitives, name: str, made: dict) -> types.ModuleType:
    """A factory's compiled bodies (``made``: its ``locals()``; names with ``_`` left out) as a
    module, whose functions a kernel calls as attributes (numba resolves a module's, not a
    SimpleNamespace's)."""
    mod = types.ModuleType(name)
    given = [getattr(pr, f.name) for f in fields(pr)]
    vars(mod).update((k, v) for k, v in made.items()
                     if callable(v) and k[0] != "_" and not any(v is g for g in given))
    return mod
