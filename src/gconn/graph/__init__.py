"""``gconn.Graph``: an undirected graph that keeps its input and builds the
other forms of its edges on first use, so a run pays only for the form its
variant needs (``Plan.needs``): ``"edges"`` (:meth:`~gconn.Graph.edges`, the
input as given), ``"adjacency"`` (:meth:`~gconn.Graph.adjacency`, a symmetric
CSR) and ``"canonical"`` (:meth:`~gconn.Graph.canonical`, the simple graph;
``g.m``, ``g.indptr`` and the like read it, and once built it serves every form).
Ids and offsets are int32 unless they need int64.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from gconn.errors import VertexRangeError
from gconn.graph import relabel as R
from gconn.graph.ids import INT32_MAX, check_n, id_range, offset_dtype, id_dtype as _id_dtype  # noqa: F401
from gconn.graph.memory import check_vertices
from gconn.graph.relabel import dense_names

#: The forms of a graph's edges, weakest first (see the module docstring).
FORMS = ("edges", "adjacency", "canonical")


def _no_device_forms():
    raise RuntimeError("no GPU backend is installed for device graphs (gconn/__init__ installs it)")


#: Loads ``gconn.backends.gpu.graph``, which builds a device graph's forms (set by ``gconn/__init__``:
#: this layer sits below it).
DEVICE_FORMS = _no_device_forms


def _is_cupy(x) -> bool:
    return type(x).__module__.split(".")[0] in ("cupy", "cupyx")


class Graph:
    """An undirected graph with ``n`` vertices, from ``(src, dst)`` arrays, an
    ``(m, 2)`` array, a scipy.sparse matrix (directed: weak connectivity), a
    networkx graph, or CuPy input (then it lives on the GPU).  Self loops and
    duplicates do not count in ``m`` (see :mod:`gconn.graph`).

    >>> g = Graph.from_edges([0, 1, 3, 1], [1, 2, 4, 0])
    >>> g.n, g.m_input, g.has_form("canonical")
    (5, 4, False)
    >>> g.m
    3
    >>> g.indptr.tolist(), g.indices.tolist()
    ([0, 1, 3, 4, 5, 6], [1, 0, 2, 1, 4, 3])
    """

    __slots__ = ("n", "nodes", "device", "_cache", "_forms", "_m_input", "_ids", "_origin")

    def __init__(self, n, indptr, indices, src, dst, nodes=None, device="cpu"):
        """A graph from its canonical arrays."""
        self._init(n, device, nodes, src.shape[0], indices.dtype, {"canonical": (indptr, indices, src, dst)})

    def _init(self, n, device, nodes, m_input, ids, forms) -> "Graph":
        self.n = int(n)
        self.nodes = nodes
        self.device = device
        self._cache = {}
        self._forms = forms
        self._m_input = int(m_input)
        self._ids = np.dtype(ids)
        self._origin = None
        return self

    @classmethod
    def _of(cls, n, device="cpu", nodes=None, *, edges=None, input_csr=None) -> "Graph":
        """A lazy graph over checked edges or a matrix's directed CSR, of the id dtype."""
        g = cls.__new__(cls)
        if edges is not None:
            return g._init(n, device, nodes, edges[0].shape[0], edges[0].dtype, {"edges": edges})
        return g._init(n, device, nodes, int(input_csr[0][-1]), input_csr[1].dtype, {"input-csr": input_csr})

    def has_form(self, name: str) -> bool:
        """Whether ``form(name)`` is there without building anything.

        >>> g = Graph.from_edges([0], [1])
        >>> [g.has_form(f) for f in FORMS]
        [True, False, False]
        """
        _check_form(name)
        f = self._forms
        if "canonical" in f or name in f or (name == "edges" and "input-csr" in f):
            return True
        return self._origin is not None and self._origin.has_form(name)

    def form(self, name: str):
        """The arrays of form ``name`` (one of :data:`~gconn.graph.FORMS`), built on first use."""
        _check_form(name)
        return getattr(self, name)()

    def edges(self):
        """``(src, dst)``: the input's edges as given (the canonical COO once built).

        >>> [a.tolist() for a in Graph.from_edges([1, 2, 2], [0, 2, 1]).edges()]
        [[1, 2, 2], [0, 2, 1]]
        """
        return self._form("edges", slice(2, 4))

    def adjacency(self):
        """``(indptr, indices)``: a symmetric CSR, duplicates kept, self loops dropped,
        each row's smallest neighbour first.

        >>> [a.tolist() for a in Graph.from_edges([1, 2, 2], [0, 2, 1]).adjacency()]
        [[0, 1, 3, 4], [1, 0, 2, 1]]
        """
        return self._form("adjacency", slice(0, 2))

    def canonical(self):
        """``(indptr, indices, src, dst)``: the simple graph, a sorted symmetric CSR and a COO with u < v."""
        c = self._forms.get("canonical")
        if c is None:
            c = self._forms["canonical"] = self._build("canonical")
            self._forms.pop("adjacency", None)
        return c

    def _form(self, name: str, part: slice):
        """Form ``name``: its part of the canonical form where that is built, else its own, built once."""
        f = self._forms
        if "canonical" in f:
            return f["canonical"][part]
        if name not in f:
            f[name] = self._build(name)
        return f[name]

    def _build(self, name: str):
        if self.on_gpu:
            return getattr(DEVICE_FORMS(), f"device_{name}")(self)
        from gconn.graph import build
        if name == "edges":
            indptr, indices = self._forms["input-csr"]
            return build.rows_of(indptr, self._ids), indices
        src, dst = self.edges()
        if name == "adjacency":
            return build.adjacency_csr(src, dst, self.n)
        uptr, ucol = build.upper_csr(src, dst, self.n, self._ids)
        indptr, indices = build.symmetric_csr(uptr, ucol, offset_dtype(ucol.size))
        return indptr, indices, build.rows_of(uptr, self._ids), ucol

    @property
    def indptr(self):
        """Offsets of the canonical CSR."""
        return self.canonical()[0]

    @property
    def indices(self):
        """Neighbours of the canonical CSR (sorted within each row)."""
        return self.canonical()[1]

    @property
    def src(self):
        """Smaller ends of the canonical COO (each edge once, src < dst)."""
        return self.canonical()[2]

    @property
    def dst(self):
        """Larger ends of the canonical COO."""
        return self.canonical()[3]

    @property
    def m(self) -> int:
        """Number of edges of the simple graph (builds the canonical form)."""
        return int(self.src.shape[0])

    @property
    def m_input(self) -> int:
        """Number of edges of the input as given (``m`` once the canonical form is built)."""
        c = self._forms.get("canonical")
        return int(c[2].shape[0]) if c is not None else self._m_input

    @property
    def id_dtype(self):
        return self._ids

    @property
    def on_gpu(self) -> bool:
        return self.device == "gpu"

    def degrees(self):
        """Each vertex's number of neighbours other than itself (the adjacency has no loops or multi-edges).

        >>> Graph.from_edges([0, 1], [1, 2]).degrees().tolist()
        [1, 2, 1]
        """
        return self.indptr[1:] - self.indptr[:-1]

    def ids_local(self, sample: int = 1024) -> bool:
        """Whether most of ``sample`` rows' first neighbours lie within n / 64 (a grid numbered along it).

        >>> from gconn.graph import generators as gen
        >>> s, d, n = gen.grid_road_edges(128, keep=1.0)
        >>> p = np.random.default_rng(0).permutation(n)
        >>> Graph.from_edges(s, d, n).ids_local(), Graph.from_edges(p[s], p[d], n).ids_local()
        (True, False)
        """
        has, near, _ = self._row_probe(sample)
        return 2 * near > has

    def hb_roots(self, sample: int = 1024) -> float:
        """The share of ``sample`` rows that HB's first step leaves as roots (smallest neighbour larger).

        >>> from gconn.graph import generators as gen
        >>> s, d, n = gen.path_edges(5000)
        >>> p = np.random.default_rng(0).permutation(n)
        >>> Graph.from_edges(s, d, n).hb_roots() < 0.01 < Graph.from_edges(p[s], p[d], n).hb_roots()
        True
        """
        has, _, low = self._row_probe(sample)
        return low / has if has else 1.0

    def _row_probe(self, sample: int) -> tuple[int, int, int]:
        """(rows with a neighbour, with the first within n / 64, with the first larger), kept."""
        hit = self._cache.get(("row probe", sample))
        if hit is None:
            indptr, indices = self.adjacency()
            n = self.n
            if self.on_gpu:
                hit = DEVICE_FORMS().ids_local_counts(indptr, indices, n, sample)
            else:
                rows = np.arange(0, n, max(n // sample, 1), dtype=np.int64)
                first = indptr[rows].astype(np.int64)
                with_one = indptr[rows + 1] > first
                rows, first = rows[with_one], indices[first[with_one]].astype(np.int64)
                hit = (rows.size, int(np.count_nonzero(np.abs(first - rows) <= n // 64)),
                       int(np.count_nonzero(first > rows)))
            self._cache[("row probe", sample)] = hit
        return hit

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

    @classmethod
    def from_edges(cls, src, dst=None, n: int | None = None, *, relabel=False) -> "Graph":
        """From ``(src, dst)`` id arrays or one ``(m, 2)`` array; ``n`` defaults to the
        largest id + 1 (too large for memory: :class:`gconn.VertexRangeError`).
        ``relabel=True`` numbers the distinct ids 0..k-1 in order, kept in ``graph.nodes``;
        ``relabel="auto"`` only when the ids are sparse and ``n`` is not given.

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
            arr = src if _is_cupy(src) else _as_id_array(src, "edges", allow_2d=True)
            if arr.ndim != 2 or arr.shape[1] != 2:
                raise edge_shape_error(arr.shape)
            src, dst = arr[:, 0], arr[:, 1]
        if _is_cupy(src) or _is_cupy(dst):
            return DEVICE_FORMS().device_graph(src, dst, n, relabel)
        named = _names(src, dst)
        if named is not None:
            if relabel is False:
                raise TypeError("the vertex ids are names, not integers: pass relabel=True to number them "
                                "0..k-1 in sorted order (graph.nodes keeps the names)")
            return graph_from_pair(*named, n)
        src = _as_id_array(src, "src")
        dst = _as_id_array(dst, "dst")
        if src.shape[0] != dst.shape[0]:
            raise ValueError(f"src and dst have different lengths ({src.shape[0]} and {dst.shape[0]})")
        if relabel is True or (relabel == "auto" and src.size):
            hi = id_range(src, dst) if src.size else -1
            how = R.decide(src, dst, hi) if relabel == "auto" else True
            if how is not None:
                s, d, ids = R.dense_ids(src, dst, how)
                return cls._lazy(s, d, ids.size, ids)
        n = _check_ids(src, dst, n)
        return cls._lazy(src, dst, n)

    @classmethod
    def from_scipy(cls, A) -> "Graph":
        """From a scipy.sparse matrix or array; stored entries (explicit zeros too) are edges.

        >>> import scipy.sparse as sp
        >>> Graph.from_scipy(sp.csr_matrix(np.eye(3))).m
        0
        """
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"the adjacency matrix must be square; got shape {A.shape}")
        n = int(A.shape[0])
        check_vertices(n, f"the matrix's shape {A.shape}")
        dt = _id_dtype(n)
        if A.format == "coo":
            return cls._of(n, edges=(np.ascontiguousarray(A.row, dt), np.ascontiguousarray(A.col, dt)))
        if A.format not in ("csr", "csc"):
            A = A.tocsr()
        # a CSC matrix's columns are a CSR of its transpose: the same graph
        nnz = int(A.indptr[-1])
        return cls._of(n, input_csr=(A.indptr, np.ascontiguousarray(A.indices[:nnz], dt)))

    @classmethod
    def from_networkx(cls, G) -> "Graph":
        """From a networkx graph; ``graph.nodes`` keeps the labels in ``G.nodes`` order.

        >>> import networkx as nx
        >>> g = Graph.from_networkx(nx.path_graph(["a", "b", "c"]))
        >>> g.nodes, g.m
        (['a', 'b', 'c'], 2)
        """
        nodes = list(G.nodes)
        n = len(nodes)
        index = {v: i for i, v in enumerate(nodes)}
        pairs = np.array([(index[a], index[b]) for a, b in G.edges()], _id_dtype(n)).reshape(-1, 2)
        return cls._lazy(pairs[:, 0], pairs[:, 1], n, nodes)

    @classmethod
    def from_igraph(cls, G) -> "Graph":
        """From an igraph graph: its vertices 0..vcount-1, as igraph numbers them.

        >>> import igraph
        >>> g = Graph.from_igraph(igraph.Graph([(0, 1), (3, 2)], n=5))
        >>> g.n, g.m
        (5, 2)
        """
        n = G.vcount()
        pairs = np.array(G.get_edgelist(), _id_dtype(n)).reshape(-1, 2)
        return cls._lazy(pairs[:, 0], pairs[:, 1], n)

    @classmethod
    def from_networkit(cls, G) -> "Graph":
        """From a NetworKit graph: its node ids; where nodes were removed, the nodes left, in id order
        (``graph.nodes`` holds their ids: the removed ones are no vertices).

        >>> import networkit
        >>> G = networkit.Graph(4); _ = G.addEdge(0, 1); G.removeNode(2)
        >>> g = Graph.from_networkit(G)
        >>> g.n, g.nodes.tolist()
        (3, [0, 1, 3])
        """
        bound = G.upperNodeIdBound()
        ends = np.fromiter((x for e in G.iterEdges() for x in e), np.int64, 2 * G.numberOfEdges())
        if G.numberOfNodes() == bound:
            return cls._lazy(ends[0::2], ends[1::2], bound)
        nodes = np.fromiter(G.iterNodes(), np.int64, G.numberOfNodes())
        index = np.full(bound, -1, np.int64)
        index[nodes] = np.arange(nodes.size)
        return cls._lazy(index[ends[0::2]], index[ends[1::2]], nodes.size, nodes)

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
    def _lazy(cls, src: np.ndarray, dst: np.ndarray, n: int, nodes=None) -> "Graph":
        """A graph over checked host edges, cast to the id dtype."""
        dt = _id_dtype(n)
        return cls._of(n, nodes=nodes, edges=(np.ascontiguousarray(src, dtype=dt),
                                              np.ascontiguousarray(dst, dtype=dt)))

    def to_host(self) -> "Graph":
        """This graph with host arrays: the forms built on the GPU, copied."""
        if self.device == "cpu":
            return self
        if self._origin is not None:
            return self._origin
        forms = {k: tuple(a.get() for a in v) for k, v in self._forms.items()}
        return Graph.__new__(Graph)._init(self.n, "cpu", self.nodes, self._m_input, self._ids, forms)

    def to_device(self) -> "Graph":
        """This graph on the GPU; each form is copied (or built there) on first use."""
        if self.device == "gpu":
            return self
        DEVICE_FORMS().require_device("moving a graph to the GPU")
        g = Graph.__new__(Graph)._init(self.n, "gpu", self.nodes, self.m_input, self._ids, {})
        g._origin = self
        return g

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


def is_named(values) -> bool:
    """Whether an id array holds names rather than integers."""
    kind = getattr(values, "dtype", np.dtype(np.int64)).kind
    if kind in "SU":
        return True
    if kind != "O" or values.size == 0:
        return False
    first = values.flat[0]
    return not isinstance(first, (int, np.integer))


def graph_from_pair(src, dst, n=None, relabel=False):
    """A Graph from id arrays that may hold names (see :func:`dense_names`) instead of integers."""
    named = is_named(src), is_named(dst)
    if not any(named):
        return Graph.from_edges(src, dst, n, relabel=relabel)
    if not all(named) and np.asarray(src if not named[0] else dst).size:
        raise TypeError("src and dst must both hold names or both integer ids; got "
                        f"{'names' if named[0] else 'integers'} and {'names' if named[1] else 'integers'}")
    if n is not None:
        raise ValueError("n cannot be given with named vertices: the graph has one vertex per distinct name")
    if len(src) != len(dst):
        raise ValueError(f"src and dst have different lengths ({len(src)} and {len(dst)})")
    s, d, names = dense_names(src, dst)
    return Graph._lazy(s, d, names.size, names)


def numba_free() -> bool:
    """Whether this process has not imported numba (see :mod:`gconn.backends.aot`)."""
    return "numba" not in sys.modules


def _check_form(name: str) -> None:
    if name not in FORMS:
        raise ValueError(f"unknown graph form {name!r}; one of {', '.join(FORMS)}")


def coerce(obj: Any, n: int | None = None) -> Graph:
    """A Graph from an object in memory (:func:`gconn.as_graph` adds files and matrices)."""
    if isinstance(obj, Graph):
        return obj
    mod = type(obj).__module__.split(".")[0]
    if mod == "cupyx" and hasattr(obj, "tocoo"):
        return DEVICE_FORMS().device_sparse_graph(obj)
    if mod == "scipy":
        return Graph.from_scipy(obj)
    if mod == "networkx":
        return Graph.from_networkx(obj)
    if mod == "igraph":
        return Graph.from_igraph(obj)
    if mod == "networkit":
        return Graph.from_networkit(obj)
    if isinstance(obj, tuple) and len(obj) == 2:
        return Graph.from_edges(obj[0], obj[1], n)
    if isinstance(obj, (np.ndarray, list)) or _is_cupy(obj):
        return Graph.from_edges(obj, None, n)
    raise TypeError(f"cannot build a graph from {type(obj).__name__}; pass a gconn.Graph, (src, dst) arrays, "
                    "an (m, 2) array, a square adjacency matrix, a scipy.sparse matrix, a NetworkX, igraph or "
                    "NetworKit graph or a file path")


def edge_shape_error(shape) -> ValueError:
    """The error of an edge array that is not (m, 2); a (2, m) one (PyG's ``edge_index``) and an (m, 3)
    one (weighted edges) are told how.

    >>> str(edge_shape_error((2, 5)))
    "an edge array must have shape (m, 2); got (2, 5): for 2 rows of ids (PyG's edge_index) pass (a[0], a[1]) or a.T"
    >>> str(edge_shape_error((4, 3)))
    'an edge array must have shape (m, 2); got (4, 3): for rows (u, v, w) of weighted edges pass (a[:, 0], a[:, 1])'
    """
    shape = tuple(int(d) for d in shape)
    hints = []
    if len(shape) == 2 and shape[0] == 2:
        hints.append("for 2 rows of ids (PyG's edge_index) pass (a[0], a[1]) or a.T")
    if len(shape) == 2 and shape[1] == 3:
        hints.append("for rows (u, v, w) of weighted edges pass (a[:, 0], a[:, 1])")
    return ValueError(f"an edge array must have shape (m, 2); got {shape}" + (": " + "; ".join(hints) if hints else ""))


AMBIGUOUS_2X2 = (
    "a 2 x 2 array could be 2 edges or the adjacency matrix of 2 vertices; say which: "
    "gconn.Graph.from_edges(a) or (a[:, 0], a[:, 1]) for edges, scipy.sparse.csr_array(a) "
    "or gconn.integrations.csgraph.connected_components(a) for an adjacency matrix")


def _is_square(obj) -> bool:
    """Whether an array is square (an adjacency matrix); 2 x 2 is ambiguous and raises."""
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
    no_masked(x, what)
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


def no_masked(x, what: str) -> None:
    """A NumPy masked array with masked ids is an error (``np.asarray`` would read the hidden values).

    >>> no_masked(np.ma.array([0, 1], mask=[0, 1]), "src")
    Traceback (most recent call last):
    ...
    ValueError: src has 1 masked (missing) vertex id(s); drop or fill them first
    """
    ma = sys.modules.get("numpy.ma")     # not np.ma: importing it costs a call 8 ms
    if ma is not None and isinstance(x, ma.MaskedArray):
        hidden = int(np.count_nonzero(ma.getmaskarray(x)))
        if hidden:
            raise ValueError(f"{what} has {hidden} masked (missing) vertex id(s); drop or fill them first")


def _names(src, dst):
    """``(src, dst)`` as arrays when they hold names (str or bytes), else None."""
    if not all(isinstance(a, (np.ndarray, list, tuple)) for a in (src, dst)):
        return None
    a, b = np.asarray(src), np.asarray(dst)
    kinds = {x.dtype.kind for x in (a, b) if x.size}
    if not kinds & {"U", "S", "O"}:
        return None
    if "O" in kinds:
        first = next((x.flat[0] for x in (a, b) if x.size and x.dtype.kind == "O"), None)
        if not isinstance(first, (str, bytes)):
            return None
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"src and dst have different lengths ({a.shape[0]} and {b.shape[0]})")
    return a, b


def _check_ids(src: np.ndarray, dst: np.ndarray, n: int | None) -> int:
    check_n(n)
    if src.size and not numba_free():
        from gconn.graph.build import id_bounds
        lo, hi = id_bounds(src, dst)
    elif src.size:   # the compiled one-off path (gconn.backends.aot) must not load numba
        lo = min(int(src.min()), int(dst.min()))
        hi = max(int(src.max()), int(dst.max()))
    else:
        lo, hi = 0, -1
    if lo < 0:
        id_range(src, dst)  # names the first negative id
    if n is None:
        try:
            check_vertices(hi + 1, "edges", hi)
        except VertexRangeError as e:
            where, arr = ("src", src) if int(src.max()) == hi else ("dst", dst)
            raise e.at(f"{where}[{int(np.argmax(arr == hi))}]", hi) from None
        return hi + 1
    if hi >= n:
        where, arr = ("src", src) if int(src.max()) >= n else ("dst", dst)
        i = int(np.argmax(arr >= n))
        raise ValueError(f"vertex id {int(arr[i])} ({where}[{i}]) is out of range for n={n}")
    check_vertices(int(n), f"n={n}")
    return int(n)
