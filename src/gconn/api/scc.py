"""Strongly connected components (``connection='strong'``): iterative Tarjan on the CPU (SciPy's
numbering), coloring with trimming after ECL-SCC on the GPU (numbered by smallest vertex).  Directed
input only: arrays are arcs src -> dst, matrices read as SciPy reads them, networkx DiGraphs by their
arcs; a gconn.Graph, a file or an undirected networkx graph is an error, never the weak components.

>>> from gconn.api.scc import strong_components
>>> strong_components(([0, 1, 2], [1, 2, 1]), backend="cpu")   # 0 -> 1 <-> 2
(2, array([1, 0, 0], dtype=int32))
"""
from __future__ import annotations

import os
import time

import numpy as np

from gconn.api.dispatch import backend_name
from gconn.errors import note
from gconn.inputs import AS_MATRIX_3X3
from gconn.inputs.adjacency import Adjacency, adjacency
from gconn.graph import INT32_MAX, Graph, _as_id_array, _check_ids, _is_cupy, _is_square, edge_shape_error
from gconn.pipeline.stats import Stats

__all__ = ["strong_components", "directed_adjacency"]

_NO_DIRECTION = (
    "connection='strong' needs directed input, and {what} has no edge directions; pass "
    "(src, dst) arrays, an (m, 2) array, an adjacency matrix (scipy.sparse or dense) or a "
    "networkx DiGraph (or ask for connection='weak')")


def directed_adjacency(obj):
    """The directed graph ``obj`` describes, as a :class:`gconn.inputs.adjacency.Adjacency`."""
    if isinstance(obj, Adjacency):
        return obj
    if isinstance(obj, Graph):
        raise ValueError(_NO_DIRECTION.format(what="a gconn.Graph (always undirected)"))
    if isinstance(obj, (str, os.PathLike)):
        raise ValueError(_NO_DIRECTION.format(what=f"the file {os.fspath(obj)!r}, which gconn.load reads "
                                              "as an undirected graph,"))
    mod = type(obj).__module__.split(".")[0]
    if mod == "networkx":
        if not obj.is_directed():
            raise ValueError(_NO_DIRECTION.format(what="an undirected networkx graph"))
        index = {v: i for i, v in enumerate(obj.nodes)}
        arcs = np.array([(index[a], index[b]) for a, b in obj.edges()], np.int64).reshape(-1, 2)
        return _from_arcs(arcs[:, 0], arcs[:, 1], len(index))
    if isinstance(obj, tuple) and len(obj) == 2:
        return _from_arcs(obj[0], obj[1], None)
    if isinstance(obj, (list, np.ndarray)) or _is_cupy(obj):
        arcs = isinstance(obj, list) and obj and all(isinstance(e, tuple) for e in obj)    # (u, v) pairs
        if arcs or not (np.ma.isMaskedArray(obj) or _is_square(obj)):
            shape = obj.shape if _is_cupy(obj) else np.shape(obj)
            if len(shape) != 2 or shape[1] != 2:
                raise edge_shape_error(shape)
            arr = obj if _is_cupy(obj) else _as_id_array(obj, "edges", allow_2d=True)
            return _from_arcs(arr[:, 0], arr[:, 1], None)
        if np.shape(obj) == (3, 3) and getattr(obj, "dtype", None) != np.bool_:
            note([AS_MATRIX_3X3], stacklevel=5)
    return adjacency(obj)


def _from_arcs(src, dst, n):
    """Arcs src[i] -> dst[i] as the CSR of SciPy's ``coo_matrix((1, (src, dst)))``."""
    if _is_cupy(src) or _is_cupy(dst):
        import cupy
        import cupyx.scipy.sparse as csp
        src, dst = cupy.asarray(src), cupy.asarray(dst)
        if src.shape != dst.shape or src.ndim != 1:
            raise ValueError("src and dst must be 1-D arrays of the same length")
        if src.size and int(min(src.min(), dst.min())) < 0:
            raise ValueError("negative vertex id; ids must be >= 0")
        n = int(max(src.max(), dst.max())) + 1 if src.size else 0
        A = csp.coo_matrix((cupy.ones(src.size, cupy.float32), (src, dst)), shape=(n, n)).tocsr()
        return Adjacency(n, A.indptr, A.indices, True)
    import scipy.sparse as sp
    src, dst = _as_id_array(src, "src"), _as_id_array(dst, "dst")
    if src.shape != dst.shape:
        raise ValueError(f"src and dst have different lengths ({src.shape[0]} and {dst.shape[0]})")
    n = _check_ids(src, dst, n)
    if n > INT32_MAX:
        raise ValueError(f"strongly connected components take up to {INT32_MAX} vertices; got {n}")
    A = sp.coo_matrix((np.ones(src.size, bool), (src, dst)), shape=(n, n)).tocsr()
    return Adjacency(n, A.indptr, A.indices, False)


def strong_components(graph, *, backend="auto", compact=True, return_labels=True, return_stats=False):
    """``(k, labels)`` of the strongly connected components of ``graph``; ``backend='auto'``: the GPU
    for input already there, else the CPU.  ``compact=False`` labels each vertex by its component's
    smallest vertex; ``return_stats`` appends a :class:`gconn.pipeline.stats.Stats`."""
    adj = directed_adjacency(graph)
    if backend == "auto":
        backend = "gpu" if adj.on_gpu else "cpu"
    on_gpu = backend_name(backend) == "gpu"
    if not on_gpu and adj.on_gpu:
        adj = Adjacency(adj.n, adj.indptr.get(), adj.indices.get(), False)
    stats = Stats(variant="scc-coloring" if on_gpu else "scc-tarjan", backend="gpu" if on_gpu else "cpu",
                  n=adj.n, m=int(adj.indices.size))
    start = time.perf_counter()
    if adj.n == 0:
        k, labels = 0, np.zeros(0, np.int32)
    elif on_gpu:
        from gconn.backends.gpu import scc as gpu
        k, labels = gpu.strong_components(adj.indptr, adj.indices, adj.n, compact=compact)
    else:
        from gconn.backends.cpu import scc as cpu
        k, labels = cpu.tarjan(adj.indptr, adj.indices, adj.n)
        if not compact:
            labels = cpu.smallest_members(labels, k)[labels]
    if on_gpu and not adj.on_gpu and _is_cupy(labels):
        labels = labels.get()   # results follow the input, as elsewhere in gconn
    stats.phase_times["scc"] = time.perf_counter() - start
    result = (k, labels) if return_labels else (k,)
    if return_stats:
        result += (stats,)
    return result if len(result) > 1 else result[0]
