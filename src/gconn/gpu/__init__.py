"""The GPU backend (numba-cuda kernels, CuPy arrays).  Being built."""
from __future__ import annotations


def available(simulator_ok: bool = True):
    return False, "the GPU backend is not built yet"
