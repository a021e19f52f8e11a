"""The CPU backend (numba): the steps of :mod:`gconn.pipeline` and the
operations the API needs, over NumPy arrays.  Same interface as
:mod:`gconn.backends.gpu`.

>>> from gconn.backends import cpu
>>> cpu.compact(cpu.asarray([0, 0, 2]))
(2, array([0, 0, 1]))
"""
from __future__ import annotations

import numpy as np

from gconn.backends.cpu.backend import (again, collect_forest, compact, compress, count_roots, finalize, finish, gather, init, lmax, min_representatives, number, replayed, sample, sample_stats, scope, sync)
from gconn.backends.cpu.incremental import IncrementalState
from gconn.backends.cpu.sampling import hb_coverage

NAME = "cpu"

__all__ = ["NAME", "IncrementalState", "hb_coverage", "to_backend", "compact", "min_representatives",
           "count_roots", "collect_forest", "replayed", "again", "sync", "asarray", "concatenate", "validate_device_ids",
           "scope", "init", "sample", "compress", "lmax", "gather", "sample_stats", "finish", "finalize", "number"]


def to_backend(graph):
    """The graph with host arrays (copied back if it lives on the GPU)."""
    return graph.to_host()


def asarray(x, dtype=None):
    return np.ascontiguousarray(x, dtype=dtype)


def concatenate(parts):
    return np.concatenate(parts)


def validate_device_ids(src, dst):
    raise TypeError("the CPU backend takes NumPy arrays, not CuPy arrays; use backend='gpu'")
