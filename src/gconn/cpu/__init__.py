"""The CPU backend (numba).  Same interface as :mod:`gconn.gpu`."""
from __future__ import annotations

import numpy as np

from .incremental import IncrementalState
from .backend import hb_coverage
from .backend import run as static_run
from . import unionfind as _K

NAME = "cpu"

__all__ = ["NAME", "IncrementalState", "static_run", "hb_coverage", "to_backend", "compact",
           "min_representatives", "count_roots", "collect_forest", "sync", "asarray", "concatenate"]


def to_backend(graph):
    """The graph with host arrays (copied back if it lives on the GPU)."""
    return graph.to_host()


def compact(roots: np.ndarray):
    """(k, labels 0..k-1 in scipy's order) from any root array."""
    k, labels = _K.compact(roots)
    return int(k), labels


def min_representatives(roots: np.ndarray) -> np.ndarray:
    return _K.min_representatives(roots)


def count_roots(roots: np.ndarray) -> int:
    return int(np.count_nonzero(roots == np.arange(roots.size, dtype=roots.dtype)))


def collect_forest(fa: np.ndarray, fb: np.ndarray):
    keep = fa >= 0
    return fa[keep], fb[keep]


def sync() -> None:
    """Nothing to wait for on the CPU."""


def asarray(x, dtype=None):
    return np.ascontiguousarray(x, dtype=dtype)


def concatenate(parts):
    return np.concatenate(parts)


def validate_device_ids(src, dst):
    raise TypeError("the CPU backend takes NumPy arrays, not CuPy arrays; use backend='gpu'")
