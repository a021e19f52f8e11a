"""GPU memory: estimate before allocating, and turn CuPy's out-of-memory
error into a MemoryError that says how much was needed.

>>> from gconn.backends.gpu.memory import gib
>>> gib(3 * 2**30)
'3.00 GiB'
"""
from __future__ import annotations

from contextlib import contextmanager
from functools import cache

from gconn.backends.gpu._compat import SIM, xp


def gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.2f} GiB"


def free_bytes() -> int:
    """Free device memory, CuPy's pool's free blocks included."""
    if SIM:
        return 1 << 62
    free, _ = xp.cuda.runtime.memGetInfo()
    return int(free) + int(xp.get_default_memory_pool().free_bytes())


@cache
def _total(dev: int) -> int:
    return int(xp.cuda.runtime.memGetInfo()[1])


def small(needed: int) -> bool:
    """Whether ``needed`` bytes are at most 1/64 of the device's memory: too few to ask the driver
    about before a run (asking and walking CuPy's pool cost a launched run tens of microseconds); an
    allocation that still fails is named by :func:`guard`."""
    return SIM or needed <= _total(xp.cuda.runtime.getDevice()) >> 6


def check(needed: int, what: str) -> None:
    """Raise MemoryError before allocating ``needed`` bytes that do not fit."""
    if not SIM and needed <= xp.get_default_memory_pool().free_bytes():
        return      # CuPy's pool holds it: no driver query
    free = free_bytes()
    if needed > free:
        raise MemoryError(
            f"{what} needs about {gib(needed)} of GPU memory but only {gib(free)} is free; "
            "use backend='cpu' or a GPU with more memory")


@contextmanager
def guard(what: str):
    """Re-raise CuPy's OutOfMemoryError as a MemoryError naming ``what``."""
    try:
        yield
    except () if SIM else xp.cuda.memory.OutOfMemoryError as e:
        raise ran_out(what, e) from None


def ran_out(what: str, error) -> MemoryError:
    """The MemoryError for CuPy's ``error`` while doing ``what``, its pool's blocks freed."""
    xp.get_default_memory_pool().free_all_blocks()
    return MemoryError(f"{what} ran out of GPU memory ({error}); free: {gib(free_bytes())}")
