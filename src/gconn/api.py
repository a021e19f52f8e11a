"""Public entry points: static connectivity, spanning forest, incremental.

A call states what it asks for (:class:`gconn.dispatch.Call`), describes
its input once (:func:`gconn.inputs.describe`) and runs on the route
:mod:`gconn.dispatch` chooses; what comes back is shaped here (labels,
input ids, a table, statistics).
"""
from __future__ import annotations

import numpy as np

from . import dispatch, pipeline
from .adjacency import strong_requested
from .design import Plan, Variant
from .dispatch import Call
from .graph import INT32_MAX, _as_id_array, _is_cupy, relabel_option
from .ids import check_pair, id_range
from .inputs import as_graph, describe
from .inputs.tables import labels_table, output_option

BACKENDS = dispatch.BACKENDS
# the incremental structure below chooses its backend and variant as a call does
_backend_module = dispatch.backend_module
_variant = dispatch.variant_of


def _out(arr, like_device: bool, landing=None):
    """Results follow the input: CuPy for a graph on the GPU, NumPy
    otherwise (fetched into the host memory ``landing`` where it fits, see
    :func:`gconn.gpu.staging.fetch`)."""
    if _is_cupy(arr) and not like_device:
        from .gpu.staging import fetch
        return fetch(arr, landing)
    return arr


def _the_graph(graph, csgraph):
    if graph is not None and csgraph is not None:
        raise TypeError("connected_components() takes the graph once, as graph (first argument) or csgraph=, "
                        "not both")
    if graph is None and csgraph is None:
        raise TypeError("connected_components() needs a graph: the first argument (or csgraph=) is None")
    return csgraph if graph is None else graph


def _with_input(stats, src) -> None:
    """Put what the input was, and the guesses made reading it, into ``stats``."""
    if stats is None:
        return
    stats.input = {"kind": src.kind, "notes": list(src.notes) + list(src.read_notes)}
    if src.kind == "file":
        stats.input.update(format=src.file.format, decided_by=src.file.how)
        if src.file.dialect is not None:
            stats.input["dialect"] = src.file.dialect.describe()


def connected_components(graph=None, directed=True, connection="weak", return_labels=True, *, csgraph=None,
                         algorithm="auto", backend="auto", compact=True, return_stats=False, seed=0, relabel=False,
                         source=None, target=None, output="array", device_memory=None, **params):
    """Connected components, scipy-compatible.

    Returns ``(n_components, labels)`` with labels 0..k-1 numbered like
    ``scipy.sparse.csgraph.connected_components``; with ``compact=False``
    each label is instead the smallest vertex id of the component (no
    relabelling pass).  ``return_stats=True`` appends a :class:`~gconn.stats.Stats`.

    ``directed``, ``connection`` and ``return_labels`` (also positional) and
    ``csgraph=`` (another name for ``graph``) mean what they mean in SciPy:
    ``connection='strong'`` with ``directed=True`` gives the strongly
    connected components of directed input (see :mod:`gconn.scc`; the
    labels are SciPy's on the CPU), anything else the components of the
    undirected graph.  For SciPy's input rules exactly (dense arrays,
    explicit zeros, masked arrays) use :mod:`gconn.csgraph`.

    ``relabel`` (edge arrays, tables and files): ``True`` counts only the
    ids that occur, so sparse ids such as ``3000000000`` cost nothing;
    ``"auto"`` does so when they are sparse (see :mod:`gconn.relabel`).
    The result is then ``(n_components, labels, ids)``: ``labels[i]`` is
    the component of input id ``ids[i]``, ``ids`` sorted ascending
    (int64, every id 0..n-1 when "auto" kept the ids as they are); with
    ``compact=False`` labels are smallest input ids.  ``Stats.relabelled``
    says whether ids were relabelled.  Ids that are not integers (names)
    need ``relabel=True``; ``ids`` then holds the names (see
    :mod:`gconn.inputs.tables`).

    ``source=``/``target=`` name the edge columns of a table or edge file
    (pandas, polars, pyarrow, cuDF, CSV, Parquet; default: the first two).

    ``device_memory`` (bytes or e.g. ``"4GB"``; default: the environment
    variable ``GCONN_DEVICE_MEMORY``, else all that is free) bounds what
    the GPU backend may use: host edges whose graph would not fit are
    streamed to the GPU in chunks (see :mod:`gconn.streaming`).

    ``output="pandas"`` or ``"polars"`` returns ``(n_components, table)``
    instead: one row per vertex, columns ``vertex`` (its input id or name)
    and ``component`` (its label, as above); names need no ``relabel``
    then, since the table carries them.

    >>> import gconn
    >>> gconn.connected_components(([0, 2], [1, 3]), backend="cpu")
    (2, array([0, 0, 1, 1], dtype=int32))
    >>> gconn.connected_components(([0, 1, 2], [1, 2, 1]), connection="strong", backend="cpu")
    (2, array([1, 0, 0], dtype=int32))
    >>> k, labels, ids = gconn.connected_components(([7, 3000000000], [9, 5]), backend="cpu",
    ...                                             relabel=True)
    >>> k, labels.tolist(), ids.tolist()
    (2, [0, 1, 1, 0], [5, 7, 9, 3000000000])
    >>> import pandas as pd
    >>> edges = pd.DataFrame({"a": ["x", "y", "p"], "b": ["y", "z", "q"]})
    >>> k, labels, names = gconn.connected_components(edges, backend="cpu", relabel=True)
    >>> k, labels.tolist(), names.tolist()
    (2, [0, 0, 1, 1, 1], ['p', 'q', 'x', 'y', 'z'])
    >>> k, table = gconn.connected_components(edges, backend="cpu", output="pandas")
    >>> table.to_dict("list")
    {'vertex': ['p', 'q', 'x', 'y', 'z'], 'component': [0, 0, 1, 1, 1]}
    """
    graph = _the_graph(graph, csgraph)
    if strong_requested(directed, connection):
        if params or algorithm not in ("auto", None) or relabel is not False or output != "array" \
                or source is not None or target is not None:
            raise TypeError("algorithm=, relabel=, source=, target=, output= and variant options apply to "
                            "undirected components; strong components have one method per backend (see gconn.scc)")
        from .scc import strong_components
        return strong_components(graph, backend=backend, compact=compact, return_labels=return_labels,
                                 return_stats=return_stats)
    relabel = relabel_option(relabel)
    table = output_option(output, return_labels)
    numbered = compact or not return_labels
    call = Call("cc", backend, algorithm, params, relabel, numbered, return_stats, seed, device_memory, table)
    if call.plain and relabel is False and device_memory is None:
        again = dispatch.replay(graph, backend, algorithm, numbered, seed)
        if again is not None:
            return again if return_labels else again[0]
    src = describe(graph, source=source, target=target)
    out = dispatch.run(src, call)
    _with_input(out.stats, src)
    k, labels = out.result
    labels = _out(labels, out.on_gpu, out.landing)
    if out.settle is not None:
        out.settle()        # the labels have been waited for: now the input's errors
    result = (int(k), labels) if return_labels else (int(k),)
    if relabel is not False and return_labels:
        ids = _input_ids(out.nodes, labels, out.on_gpu)
        if not compact and out.nodes is not None:
            labels = ids[labels]
        result = (int(k), labels, ids)
    if table:
        ids = _input_ids(out.nodes, labels, out.on_gpu)
        if not compact and out.nodes is not None and relabel is False:
            labels = ids[labels]
        result = (int(k), labels_table(output, ids, labels))
    if return_stats:
        result = result + (out.stats,)
    return result if len(result) > 1 else result[0]


def _input_ids(nodes, labels, on_gpu: bool):
    """The input id of each vertex: ``nodes``, or 0..n-1 where the ids were
    used as they are."""
    if nodes is not None:
        return nodes
    if on_gpu:
        import cupy
        return cupy.arange(labels.size, dtype=cupy.int64)
    return np.arange(labels.size, dtype=np.int64)


def spanning_forest(graph, *, algorithm="auto", backend="auto", return_stats=False, seed=0, relabel=False,
                    source=None, target=None, device_memory=None, **params):
    """A spanning forest: ``(src, dst)`` arrays of n - k edges of the input
    that form a tree on every component.

    Any root-based variant works (``gconn.variants("forest")``).
    ``relabel``, ``source``, ``target`` and ``device_memory`` are as in
    :func:`connected_components`; the edges are returned in input ids (or
    names) either way.

    >>> import gconn
    >>> src, dst = gconn.spanning_forest(([0, 1, 0], [1, 2, 2]), backend="cpu")
    >>> len(src)
    2
    """
    if graph is None:
        raise TypeError("spanning_forest() needs a graph: the first argument is None")
    relabel = relabel_option(relabel)
    call = Call("forest", backend, algorithm, params, relabel, True, return_stats, seed, device_memory)
    src = describe(graph, source=source, target=target)
    out = dispatch.run(src, call)
    _with_input(out.stats, src)
    fa, fb = (_out(a, out.on_gpu) for a in out.result)
    if out.settle is not None:
        out.settle()
    if relabel is not False and out.nodes is not None:
        fa, fb = out.nodes[fa], out.nodes[fb]
    return (fa, fb, out.stats) if return_stats else (fa, fb)


_KIND_NAMES = {"insert": 0, "query": 1, "i": 0, "q": 1}


class IncrementalConnectivity:
    """Connectivity under batches of edge insertions and queries.

    ``mode`` sets what a query in a mixed batch sees:

    * ``"phased"`` (default): the batch's inserts are applied first, then its
      queries are answered -- deterministic;
    * ``"sequential"``: each query sees exactly the inserts before it (the
      batch is cut into runs of inserts and runs of queries);
    * ``"concurrent"``: the paper's mode, inserts and queries run together;
      a query is true if its endpoints were connected before the batch and
      false if they are not after it, otherwise either.  (Rem's algorithms
      with SpliceAtomic are always run phased, as they require.)

    >>> import gconn
    >>> ic = gconn.IncrementalConnectivity(backend="cpu")
    >>> ic.insert([0, 2], [1, 3])
    >>> ic.connected([0, 0], [1, 3]).tolist()
    [True, False]
    >>> ic.process([0, 1], [1, 0], [2, 3]).tolist()  # insert (1,2), query (0,3)
    [True]
    """

    MODES = ("phased", "sequential", "concurrent")

    def __init__(self, n: int = 0, *, algorithm="auto", backend="auto", graph=None, mode="phased"):
        if mode not in self.MODES:
            raise ValueError(f"unknown mode {mode!r}; one of {', '.join(self.MODES)}")
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise ValueError(f"n must be a non-negative integer; got {n!r}")
        g = as_graph(graph) if graph is not None else None
        self._be = _backend_module(backend, g)
        self.variant = _variant(algorithm, "incremental", None, self._be, {})
        self.mode = mode
        self._n = 0
        # labels() answers in CuPy only when the structure was seeded on the GPU
        self._device_io = g is not None and g.on_gpu
        id_dtype = np.int64 if max(n, g.n if g is not None else 0) > INT32_MAX else np.int32
        self._state = self._be.IncrementalState(self.variant, id_dtype)
        if g is not None:
            gb = self._be.to_backend(g)
            static = Variant(self.variant.sampling, self.variant.finish, self.variant.find,
                             self.variant.splice)
            roots, _, _ = pipeline.run(gb, Plan.of(static), self._be)
            self._state.seed(roots)
            self._n = g.n
        self._grow(int(n))

    @property
    def n(self) -> int:
        """The number of vertices seen so far (largest id + 1, or n)."""
        return self._n

    @property
    def n_components(self) -> int:
        return int(self._be.count_roots(self._state.roots(self._n)))

    def labels(self, compact: bool = True):
        """Current labels of vertices 0..n-1 (scipy numbering when compact)."""
        roots = self._state.roots(self._n)
        if compact:
            labels = self._be.compact(roots, min_rooted=self.variant.min_rooted)[1]
        else:
            labels = roots if self.variant.min_rooted else self._be.min_representatives(roots)
        return _out(labels, self._device_io)

    def insert(self, src, dst) -> None:
        """Insert edges (src[i], dst[i]); unseen ids grow the vertex set."""
        s, d = self._ids(src, dst)
        if s.size:
            self._state.insert(s, d)

    def connected(self, u, v):
        """Whether u[i] and v[i] are connected now, as a bool array."""
        s, d = self._ids(u, v)
        out = self._state.query(s, d) if s.size else self._empty_bool()
        return _out(out, _is_cupy(u) or _is_cupy(v))

    def process(self, kinds, src=None, dst=None):
        """Process a mixed batch; returns the answers of its queries in order.

        ``kinds[i]`` is 0 (or 'insert') for an insertion and 1 (or 'query')
        for a query; alternatively pass one ``(m, 3)`` array of
        ``[kind, u, v]`` rows.
        """
        device_io = _is_cupy(src) or _is_cupy(dst) or (src is None and _is_cupy(kinds))
        return _out(self._process(kinds, src, dst), device_io)

    def _process(self, kinds, src, dst):
        kinds, src, dst = self._batch(kinds, src, dst)
        s, d = self._ids(src, dst)
        if s.size == 0:
            return self._empty_bool()
        is_query = kinds == 1
        mode = self.mode
        if mode == "concurrent" and self.variant.phase_separated:
            mode = "phased"
        if mode == "concurrent":
            out = self._state.mixed(self._be.asarray(kinds), s, d)
            return out[self._be.asarray(is_query)]
        if mode == "phased":
            ins = ~is_query
            if ins.any():
                self._state.insert(s[self._be.asarray(ins)], d[self._be.asarray(ins)])
            q = self._be.asarray(is_query)
            return self._state.query(s[q], d[q]) if is_query.any() else self._empty_bool()
        answers = []
        change = np.flatnonzero(np.diff(kinds)) + 1
        for a, b in zip(np.r_[0, change], np.r_[change, kinds.size]):
            if kinds[a] == 0:
                self._state.insert(s[a:b], d[a:b])
            else:
                answers.append(self._state.query(s[a:b], d[a:b]))
        if not answers:
            return self._empty_bool()
        return self._be.concatenate(answers)

    # -- helpers ----------------------------------------------------------
    def _empty_bool(self):
        return self._be.asarray(np.zeros(0, np.bool_))

    def _grow(self, n: int, origin=None) -> None:
        if n > self._n:
            if self._be.NAME == "cpu":
                _check_growth(self._state, n, origin)
            if n > INT32_MAX and self._state.id_dtype == np.int32:
                raise ValueError(
                    f"vertex id {n - 1} needs 64-bit ids; create IncrementalConnectivity(n={n}) "
                    "up front so it starts with int64 ids")
            self._state.reserve(n)
            self._n = n

    def _ids(self, src, dst):
        if _is_cupy(src) or _is_cupy(dst):
            s, d = self._be.validate_device_ids(src, dst)
        else:
            s = _as_id_array(src, "src")
            d = _as_id_array(dst, "dst")
            check_pair(s, d)
            if s.size:
                id_range(s, d)
        if s.size:
            hi = int(max(s.max(), d.max()))
            self._grow(hi + 1, lambda: _position_of(hi, s, d))
        dt = self._state.id_dtype
        return self._be.asarray(s, dt), self._be.asarray(d, dt)

    @staticmethod
    def _batch(kinds, src, dst):
        if src is None and dst is None:
            arr = np.asarray(kinds.get() if _is_cupy(kinds) else kinds)
            if arr.ndim != 2 or arr.shape[1] != 3:
                raise ValueError(f"a batch array must have shape (m, 3) of [kind, u, v]; got {arr.shape}")
            kinds, src, dst = arr[:, 0], arr[:, 1], arr[:, 2]
        elif src is None or dst is None:
            raise TypeError("process() takes kinds, src and dst, or one (m, 3) batch array")
        k = np.asarray(kinds.get() if _is_cupy(kinds) else kinds)
        if k.dtype.kind in "US" or k.dtype == object:
            try:
                k = np.array([_KIND_NAMES[str(x).lower()] for x in k], np.int8)
            except KeyError as e:
                raise ValueError(f"unknown operation kind {e.args[0]!r}; use 0/'insert' or 1/'query'") from None
        elif k.dtype.kind == "f":
            raise TypeError("operation kinds must be integers or booleans (0 insert, 1 query)")
        k = k.astype(np.int8)
        if k.ndim != 1:
            raise ValueError("kinds must be 1-D")
        if k.size and (k.min() < 0 or k.max() > 1):
            raise ValueError("operation kinds must be 0 (insert) or 1 (query)")
        n_src = src.shape[0] if hasattr(src, "shape") else len(src)
        if k.size != n_src:
            raise ValueError(f"kinds has {k.size} entries but the batch has {n_src} edges")
        return k, src, dst


def _position_of(value: int, src, dst) -> str:
    """'src[i]' or 'dst[i]': where ``value`` first occurs (for messages)."""
    for name, arr in (("src", src), ("dst", dst)):
        hits = np.flatnonzero(np.asarray(arr) == value)
        if hits.size:
            return f"{name}[{int(hits[0])}]"
    return "the batch"


def _check_growth(state, n: int, locate) -> None:
    """Host memory for growing incremental state to ``n`` vertices, checked
    only when the state must reallocate: the new parent and auxiliary
    arrays beside the old ones while copying, or labels() afterwards."""
    from .errors import VertexRangeError
    from .memory import check_vertices
    parents = getattr(state, "P", None)
    size = int(getattr(parents, "size", 0))
    if n <= size:
        return
    try:
        check_vertices(max(n, 2 * size), f"n={n}", per_vertex=4 * getattr(parents, "itemsize", 8))
    except VertexRangeError as e:
        if locate is None:
            raise
        raise e.at(locate(), n - 1, "IncrementalConnectivity uses ids as they are; map sparse ids to "
                                    "0..k-1 before inserting them") from None
