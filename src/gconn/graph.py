"""``gconn.Graph``: an undirected simple graph in CSR and COO form.

The CSR is symmetric (each edge in both directions) with sorted neighbour
lists, as the CSR-based samplers and finishes need; the COO holds each
undirected edge once as (u, v) with u < v, as the edge-centric finishes and
incremental batches need.  Ids are int32 unless n needs int64; offsets are
int64 only when 2m needs it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .ids import INT32_MAX, check_n, check_pair, id_range, id_dtype as _id_dtype


def _is_cupy(x) -> bool:
    return type(x).__module__.split(".")[0] in ("cupy", "cupyx")


class Graph:
    """An undirected graph with ``n`` vertices, built from common inputs.

    Build it from ``(src, dst)`` arrays, an ``(m, 2)`` array, any
    scipy.sparse matrix (a directed matrix means weak connectivity), a
    networkx graph, or CuPy arrays / a CuPy sparse matrix (then the graph
    lives on the GPU).  Self loops and duplicate edges are dropped.

    >>> g = Graph.from_edges([0, 1, 3], [1, 2, 4])
    >>> g.n, g.m
    (5, 3)
    >>> g.indptr.tolist(), g.indices.tolist()
    ([0, 1, 3, 4, 5, 6], [1, 0, 2, 1, 4, 3])
    """

    __slots__ = ("n", "indptr", "indices", "src", "dst", "nodes", "device", "_cache")

    def __init__(self, n, indptr, indices, src, dst, nodes=None, device="cpu"):
        self.n = int(n)
        self.indptr = indptr
        self.indices = indices
        self.src = src
        self.dst = dst
        self.nodes = nodes
        self.device = device
        self._cache = {}

    # -- sizes ------------------------------------------------------------
    @property
    def m(self) -> int:
        """Number of undirected edges (each counted once)."""
        return int(self.src.shape[0])

    @property
    def id_dtype(self):
        return self.indices.dtype

    @property
    def on_gpu(self) -> bool:
        return self.device == "gpu"

    def degrees(self):
        return self.indptr[1:] - self.indptr[:-1]

    def __repr__(self) -> str:
        where = "" if self.device == "cpu" else f", device={self.device!r}"
        return f"Graph(n={self.n}, m={self.m}{where})"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        a, b = self.to_host(), other.to_host()
        return (a.n == b.n and np.array_equal(a.indptr, b.indptr)
                and np.array_equal(a.indices, b.indices))

    __hash__ = None

    # -- constructors -----------------------------------------------------
    @classmethod
    def from_edges(cls, src, dst=None, n: int | None = None, *, relabel=False) -> "Graph":
        """From ``(src, dst)`` id arrays or one ``(m, 2)`` array.

        ``n`` defaults to the largest id + 1; ids must lie in [0, n).  An id
        range too large for the available memory raises
        :class:`gconn.VertexRangeError` before anything is allocated.

        ``relabel=True`` makes the graph's vertices the distinct ids that
        occur, numbered 0..k-1 in increasing order; ``graph.nodes`` holds
        the original ids (int64, sorted), so vertex ``i`` is id
        ``graph.nodes[i]``.  ``relabel="auto"`` does so only when the ids
        are sparse (see :mod:`gconn.relabel`) and ``n`` is not given;
        ``graph.nodes`` is None when it did not.

        >>> Graph.from_edges(np.array([[0, 1], [1, 2]])).m
        2
        >>> g = Graph.from_edges([5, 3000000000], [7, 5], relabel=True)
        >>> g.n, g.nodes.tolist()
        (3, [5, 7, 3000000000])
        """
        relabel = relabel_option(relabel)
        if n is not None and relabel == "auto":
            relabel = False  # a given n keeps every vertex, isolated ones too
        if relabel is True and n is not None:
            raise ValueError("n cannot be combined with relabel=True: a relabelled graph has one vertex "
                             "per distinct id that occurs")
        if dst is None:
            if _is_cupy(src):
                if src.ndim != 2 or src.shape[1] != 2:
                    raise ValueError(f"an edge array must have shape (m, 2); got {tuple(src.shape)}")
                src, dst = src[:, 0], src[:, 1]
            else:
                arr = _as_id_array(src, "edges", allow_2d=True)
                if arr.ndim != 2 or arr.shape[1] != 2:
                    raise ValueError(f"an edge array must have shape (m, 2); got {arr.shape}")
                src, dst = arr[:, 0], arr[:, 1]
        if _is_cupy(src) or _is_cupy(dst):
            from .gpu.graph import device_graph_from_edges
            if relabel is not False:
                return _device_relabelled(src, dst, relabel,
                                          lambda s, d, n: cls(*device_graph_from_edges(s, d, n), device="gpu"))
            return cls(*device_graph_from_edges(src, dst, n), device="gpu")
        src = _as_id_array(src, "src")
        dst = _as_id_array(dst, "dst")
        if src.shape[0] != dst.shape[0]:
            raise ValueError(f"src and dst have different lengths ({src.shape[0]} and {dst.shape[0]})")
        if relabel is True or (relabel == "auto" and src.size):
            from . import relabel as R
            hi = id_range(src, dst) if src.size else -1
            how = R.decide(src, dst, hi) if relabel == "auto" else True
            if how is not None:
                s, d, ids = R.dense_ids(src, dst, how)
                g = cls._build(s, d, ids.size)
                g.nodes = ids
                return g
        n = _check_ids(src, dst, n)
        return cls._build(src, dst, n)

    @classmethod
    def from_scipy(cls, A) -> "Graph":
        """From any scipy.sparse matrix or array; stored entries are edges
        (explicit zeros too, as in scipy.sparse.csgraph), direction ignored.

        >>> import scipy.sparse as sp
        >>> Graph.from_scipy(sp.csr_matrix(np.eye(3))).m
        0
        """
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"the adjacency matrix must be square; got shape {A.shape}")
        n = int(A.shape[0])
        from .memory import check_vertices
        check_vertices(n, f"the matrix's shape {A.shape}")
        coo = A.tocoo()
        dt = _id_dtype(n)
        return cls._build(coo.row.astype(dt, copy=False), coo.col.astype(dt, copy=False), n)

    @classmethod
    def from_networkx(cls, G) -> "Graph":
        """From a networkx graph; node labels map to 0..n-1 in ``G.nodes``
        order and are kept in ``graph.nodes``.

        >>> import networkx as nx
        >>> g = Graph.from_networkx(nx.path_graph(["a", "b", "c"]))
        >>> g.nodes, g.m
        (['a', 'b', 'c'], 2)
        """
        nodes = list(G.nodes)
        n = len(nodes)
        index = {v: i for i, v in enumerate(nodes)}
        dt = _id_dtype(n)
        m = G.number_of_edges()
        src = np.empty(m, dt)
        dst = np.empty(m, dt)
        for i, (a, b) in enumerate(G.edges()):
            src[i] = index[a]
            dst[i] = index[b]
        g = cls._build(src, dst, n)
        g.nodes = nodes
        return g

    @classmethod
    def from_csr(cls, indptr, indices, n: int | None = None) -> "Graph":
        """From CSR arrays of any (possibly directed, unsorted) adjacency."""
        indptr = np.asarray(indptr)
        if indptr.ndim != 1 or indptr.size == 0:
            raise ValueError("indptr must be a non-empty 1-D array")
        rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
        n = indptr.size - 1 if n is None else n
        return cls.from_edges(rows, indices, n)

    @classmethod
    def _build(cls, src: np.ndarray, dst: np.ndarray, n: int) -> "Graph":
        from .cpu.build import rows_of, symmetric_csr, upper_csr
        dt = _id_dtype(n)
        src = np.ascontiguousarray(src, dtype=dt)
        dst = np.ascontiguousarray(dst, dtype=dt)
        uptr, ucol = upper_csr(src, dst, n, dt)
        m = ucol.size
        ptr_dt = np.int32 if 2 * m <= INT32_MAX else np.int64
        indptr, indices = symmetric_csr(uptr, ucol, ptr_dt)
        return cls(n, indptr, indices, rows_of(uptr, dt), ucol)

    # -- conversions ------------------------------------------------------
    def to_host(self) -> "Graph":
        if self.device == "cpu":
            return self
        g = Graph(self.n, self.indptr.get(), self.indices.get(), self.src.get(), self.dst.get(),
                  self.nodes, "cpu")
        return g

    def to_device(self) -> "Graph":
        """A copy of this graph with its arrays on the GPU (CuPy)."""
        if self.device == "gpu":
            return self
        from .gpu.graph import device_csr_coo
        return Graph(*device_csr_coo(self), nodes=self.nodes, device="gpu")

    def to_scipy(self):
        """The symmetric adjacency as a scipy.sparse.csr_matrix."""
        import scipy.sparse as sp
        h = self.to_host()
        data = np.ones(h.indices.size, np.int8)
        return sp.csr_matrix((data, h.indices, h.indptr), shape=(h.n, h.n))

    def node_labels(self, values) -> dict:
        """Map a per-vertex array back to the original node labels.

        >>> import networkx as nx
        >>> g = Graph.from_networkx(nx.Graph([("x", "y")]))
        >>> g.node_labels(np.array([0, 0]))
        {'x': 0, 'y': 0}
        """
        values = values.get() if _is_cupy(values) else np.asarray(values)
        keys = self.nodes if self.nodes is not None else range(self.n)
        return {k: v.item() for k, v in zip(keys, values)}


def coerce(obj: Any, n: int | None = None, *, relabel=False) -> Graph:
    """A Graph from an object in memory: a Graph, a scipy.sparse or
    cupyx matrix, a networkx graph, ``(src, dst)`` arrays or an ``(m, 2)``
    array (:func:`gconn.as_graph` adds files and adjacency matrices).
    ``relabel`` (edge arrays only) is :meth:`Graph.from_edges`'s.

    >>> coerce(([0, 1], [1, 2])).n
    3
    """
    edges = isinstance(obj, (tuple, np.ndarray, list)) or _is_cupy(obj)
    if relabel is not False and not edges:
        raise TypeError(f"relabel applies to edge arrays, not to a {type(obj).__name__}; build the graph "
                        "with gconn.Graph.from_edges(..., relabel=True) or gconn.load(..., relabel=True)")
    if isinstance(obj, Graph):
        return obj
    mod = type(obj).__module__.split(".")[0]
    if mod == "scipy" or (mod == "cupyx" and hasattr(obj, "tocoo")):
        if mod == "cupyx":
            from .gpu.graph import device_graph_from_sparse
            return Graph(*device_graph_from_sparse(obj), device="gpu")
        return Graph.from_scipy(obj)
    if mod == "networkx":
        return Graph.from_networkx(obj)
    if isinstance(obj, tuple) and len(obj) == 2:
        return Graph.from_edges(obj[0], obj[1], n, relabel=relabel)
    if isinstance(obj, (np.ndarray, list)) or _is_cupy(obj):
        return Graph.from_edges(obj, None, n, relabel=relabel)
    raise TypeError(
        f"cannot build a graph from {type(obj).__name__}; pass a gconn.Graph, (src, dst) arrays, "
        "an (m, 2) array, a square adjacency matrix, a scipy.sparse matrix, a networkx graph "
        "or a file path"
    )


AMBIGUOUS_2X2 = (
    "a 2 x 2 array could be 2 edges or the adjacency matrix of 2 vertices; say which: "
    "gconn.Graph.from_edges(a) or (a[:, 0], a[:, 1]) for edges, scipy.sparse.csr_array(a) "
    "or gconn.csgraph.connected_components(a) for an adjacency matrix")


def _is_square(obj) -> bool:
    """Whether an array(-like) is square (an adjacency matrix), failing
    for 2 x 2, which reads as an edge list as well."""
    shape = tuple(obj.shape) if hasattr(obj, "shape") else np.shape(obj)
    if len(shape) != 2 or shape[0] != shape[1]:
        return False
    if shape[0] == 2:
        raise ValueError(AMBIGUOUS_2X2)
    return True


def relabel_option(value):
    """``relabel=`` checked: False, True or "auto"."""
    if value is False or value is True or value == "auto":
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"relabel must be False, True or 'auto'; got {value!r}")


def _as_id_array(x, what: str, allow_2d: bool = False) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.int64)
        except (TypeError, ValueError):
            raise TypeError(f"{what} must hold integer vertex ids") from None
    if arr.ndim != 1 and not (allow_2d and arr.ndim == 2):
        raise ValueError(f"{what} must be a 1-D array of vertex ids; got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int32) if arr.ndim == 1 else arr.reshape(0, 2).astype(np.int32)
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise ValueError(f"{what} contains NaN; vertex ids must be integers")
        raise TypeError(f"{what} has float dtype {arr.dtype}; vertex ids must be integers")
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iu":
        raise TypeError(f"{what} has dtype {arr.dtype}; vertex ids must be integers")
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{what} has ids beyond the int64 range")
    return arr


def _check_ids(src: np.ndarray, dst: np.ndarray, n: int | None) -> int:
    from .errors import VertexRangeError
    from .memory import check_vertices
    check_n(n)
    if src.size == 0:
        if n is not None:
            check_vertices(int(n), f"n={n}")
        return 0 if n is None else int(n)
    hi = id_range(src, dst)
    if n is None:
        try:
            check_vertices(hi + 1, "edges", hi)
        except VertexRangeError as e:
            # Only now find where the largest id is: a pass over the edges.
            where = "src" if int(src.max()) == hi else "dst"
            i = int(np.argmax((src if where == "src" else dst) == hi))
            raise e.at(f"{where}[{i}]", hi) from None
        return hi + 1
    if hi >= n:
        where = "src" if int(src.max()) >= n else "dst"
        arr = src if where == "src" else dst
        i = int(np.argmax(arr >= n))
        raise ValueError(f"vertex id {int(arr[i])} ({where}[{i}]) is out of range for n={n}")
    check_vertices(int(n), f"n={n}")
    return int(n)


def _device_relabelled(src, dst, relabel, build) -> Graph:
    """``Graph.from_edges`` with relabelling, for CuPy arrays."""
    import cupy
    from . import relabel as R
    src, dst = cupy.asarray(src), cupy.asarray(dst)
    check_pair(src, dst)
    if src.size == 0:
        g = build(src, dst, None)
        if relabel is True:
            g.nodes = src.astype("int64")
        return g
    span = max(int(src.max()), int(dst.max())) + 1
    if relabel == "auto" and span < R.AUTO_MIN_RANGE:
        return build(src, dst, None)
    s, d, ids = R.dense_ids(src, dst)
    if relabel == "auto" and span <= R.AUTO_RATIO * ids.size:
        return build(src, dst, None)
    if int(ids[0]) < 0:
        raise ValueError(f"negative vertex id {int(ids[0])}; ids must be >= 0")
    g = build(s, d, int(ids.size))
    g.nodes = ids
    return g
