"""Fully dynamic connectivity: :class:`DynamicConnectivity`, batches of edge insertions,
deletions and queries over a vertex set that grows (the design: :mod:`gconn.backends.cpu.dynamic`)."""
from __future__ import annotations

import threading

import numpy as np

from gconn.graph import INT32_MAX, _as_id_array, _is_cupy
from gconn.graph.ids import check_pair, id_range, one_pair
from gconn.graph.memory import check_vertices
from gconn.inputs import id_graph

#: operation kinds by name, and as update logs write them (+ insert, ? query, - delete)
_KINDS = {"insert": 0, "i": 0, "+": 0, "query": 1, "q": 1, "?": 1, "delete": 2, "d": 2, "-": 2}


class DynamicConnectivity:
    """Connectivity under batches of edge insertions, deletions and queries, each operation
    seen by the ones after it.  Edges count with multiplicity: a pair inserted twice stays
    connected after one deletion; deleting an edge that is not present is an error that names
    it, and the batch is not applied.  Ids grow the vertex set as they come (below 2^31 - 1).
    Methods may be called from several threads: each call takes the structure's lock.
    ``backend="gpu"`` keeps the structure on the GPU and runs each batch in parallel (a phase for
    each run of updates between queries); there a batch may be CuPy arrays, checked on the device,
    and the answers then stay there.  ``"auto"`` and ``"cpu"`` run it on the CPU, where batches
    of up to about 0.1% of the edges are fastest.

    >>> import gconn
    >>> dc = gconn.DynamicConnectivity()
    >>> dc.insert([0, 1, 2], [1, 2, 0])
    >>> dc.delete([0], [1])                 # the triangle stays connected
    >>> dc.connected([0], [1]).tolist()
    [True]
    >>> dc.process(["delete", "query", "insert", "query"], [1, 0, 3, 0], [2, 1, 2, 3]).tolist()
    [False, True]
    >>> dc.components()
    (2, array([0, 1, 0, 0], dtype=int32))
    """

    def __init__(self, n: int = 0, *, graph=None, backend="auto"):
        if backend not in ("auto", "cpu", "gpu"):
            raise ValueError(f"unknown backend {backend!r}; one of auto, cpu, gpu")
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise ValueError(f"n must be a non-negative integer; got {n!r}")
        if backend == "gpu":
            from gconn.api.dispatch import backend_name
            backend_name("gpu")         # a clear error where no GPU is usable
            from gconn.backends.gpu.dynamic import DynamicState
        else:
            from gconn.backends.cpu.dynamic import DynamicState
        self.backend = "gpu" if backend == "gpu" else "cpu"
        self._state = DynamicState()
        self._lock = threading.Lock()
        self._grow(int(n), 0)
        if graph is not None:
            g = id_graph(graph, "DynamicConnectivity")
            src, dst = g.edges()        # a graph on the GPU stays there for the GPU's structure
            if self.backend == "cpu":
                src, dst = (np.asarray(a.get() if _is_cupy(a) else a) for a in (src, dst))
            self._grow(g.n, 0)
            self.insert(src, dst)

    @property
    def n(self) -> int:
        """The number of vertices seen so far (largest id + 1, or n)."""
        return self._state.n

    @property
    def n_components(self) -> int:
        """The number of connected components among vertices 0..n-1."""
        with self._lock:        # not halfway through another thread's batch
            return self._state.k

    def components(self):
        """``(k, labels)``: labels 0..k-1 of vertices 0..n-1, numbered as SciPy numbers them."""
        with self._lock:
            return self._state.labels()

    def component_of(self, v):
        """The labels (as :meth:`components` numbers them) of the vertices ``v`` (host arrays), or of
        the one vertex ``v``."""
        one, v, _ = one_pair(v, 0)
        ids = _as_id_array(v.get() if _is_cupy(v) else v, "v")
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= self.n):
            bad = ids[(ids < 0) | (ids >= self.n)][0]
            raise ValueError(f"vertex {int(bad)} is not among the {self.n} vertices seen")
        labels = self.components()[1][ids]
        return int(labels[0]) if one else labels

    def edges(self):
        """``(src, dst)``: the edges present, each copy once (smaller id first)."""
        with self._lock:
            return self._state.edge_list()

    def insert(self, src, dst) -> None:
        """Insert edges (src[i], dst[i]), or the one edge (src, dst); unseen ids grow the vertex set."""
        self._batch(None, *one_pair(src, dst)[1:], 0)

    def delete(self, src, dst) -> None:
        """Delete one copy of each edge (src[i], dst[i]), in order, or of the one edge (src, dst)."""
        self._batch(None, *one_pair(src, dst)[1:], 2)

    def connected(self, u, v):
        """Whether u[i] and v[i] are connected now, as a bool array (a bool for two single ids).

        >>> dc = DynamicConnectivity(backend="cpu")
        >>> dc.insert([0, 1], [1, 2]); dc.delete(1, 2)
        >>> dc.connected(0, 2), dc.connected([0], [1]).tolist(), dc.component_of(2)
        (False, [True], 1)
        """
        one, u, v = one_pair(u, v)
        out = self._batch(None, u, v, 1)
        return bool(out[0]) if one else out

    def process(self, kinds, src=None, dst=None):
        """A mixed batch in order: ``kinds[i]`` 0 or 'insert', 1 or 'query', 2 or 'delete' (or one
        ``(m, 3)`` array of ``[kind, u, v]`` rows); returns the queries' answers in order."""
        if src is None and dst is None:
            arr = kinds if _is_cupy(kinds) else np.asarray(kinds)
            if arr.ndim != 2 or arr.shape[1] != 3:
                raise ValueError(f"a batch array must have shape (m, 3) of [kind, u, v]; got {arr.shape}")
            kinds, src, dst = arr[:, 0], arr[:, 1], arr[:, 2]
        elif src is None or dst is None:
            raise TypeError("process() takes kinds, src and dst, or one (m, 3) batch array")
        return self._batch(kinds if _is_cupy(kinds) else _kinds(kinds), src, dst, None)

    def _batch(self, kinds, src, dst, kind):
        if _is_cupy(src) or _is_cupy(dst) or _is_cupy(kinds):
            return self._device_batch(kinds, src, dst, kind)
        s, d = _as_id_array(src, "src"), _as_id_array(dst, "dst")
        check_pair(s, d)
        if kinds is None:
            kinds = np.full(s.size, kind, np.int8)
        elif kinds.size != s.size:
            raise ValueError(f"kinds has {kinds.size} entries but the batch has {s.size} edges")
        if s.size == 0:
            return np.zeros(0, np.bool_) if kind in (1, None) else None
        from gconn.graph.build import id_bounds     # numba's: loaded by the structure, not by gconn
        lo, hi = id_bounds(s, d)
        if lo < 0:
            id_range(s, d)      # raises, naming the first negative id
        if hi >= INT32_MAX:
            where, arr = ("src", s) if int(s.max()) == hi else ("dst", d)
            raise ValueError(f"vertex id {hi} ({where}[{int(np.argmax(arr == hi))}]) is beyond DynamicConnectivity's "
                             f"ids (below {INT32_MAX}); map the ids to 0..k-1 first")
        s, d = s.astype(np.int32, copy=False), d.astype(np.int32, copy=False)
        with self._lock:
            if hi + 1 > self._state.ncap:
                check_vertices(hi + 1, f"n={hi + 1}", per_vertex=40)
            # every deletion must find its edge: nothing of the batch is applied otherwise
            i, out = self._state.run(kinds, s, d, hi + 1, int(np.count_nonzero(kinds == 0)))
        if i >= 0:
            raise ValueError(f"delete ({int(s[i])}, {int(d[i])}) (operation {i} of the batch): that edge "
                             "is not present at that point; nothing of the batch was applied")
        return out if kind in (1, None) else None

    def _device_batch(self, kinds, src, dst, kind):
        """:meth:`_batch` of CuPy arrays (GPU only), read and checked on the device by one kernel;
        answers on the device.  (Host batches do not come this way: copied in from pageable
        memory, batches of 100,000 and a million updates were slower on an H200 than through
        the page-locked buffer with the host's checks.)"""
        if self.backend != "gpu":
            raise TypeError("DynamicConnectivity(backend='cpu') takes NumPy arrays, not CuPy arrays; use "
                            "backend='gpu'")
        from gconn.backends.gpu._compat import xp as cp
        for a, what in ((src, "src"), (dst, "dst")):
            if not _is_cupy(a):
                raise TypeError(f"{what} must be a CuPy array when the other operands are")
        check_pair(src, dst)
        if kinds is None:
            kinds = cp.full(src.size, kind, np.int32)
        else:
            kinds = cp.asarray(kinds if _is_cupy(kinds) else _kinds(kinds))
            if kinds.dtype.kind not in "iub":
                raise TypeError("operation kinds must be integers (0 insert, 1 query, 2 delete)")
            if kinds.ndim != 1:
                raise ValueError("kinds must be 1-D")
            if kinds.size != src.size:
                raise ValueError(f"kinds has {kinds.size} entries but the batch has {src.size} edges")
        if src.size == 0:
            return cp.zeros(0, np.bool_) if kind in (1, None) else None
        with self._lock:
            k, s, d, (kmin, kmax, lo, hi), cuts, first_query, counts = self._state.head(kinds, src, dst)
            if kmin < 0 or kmax > 2:
                raise ValueError("operation kinds must be 0 (insert), 1 (query) or 2 (delete)")
            if lo < 0:
                # a negative id raises, naming it; else unsigned ids past 2^63 wrapped in the int64
                # copy, and their greatest is beyond the ids below
                hi = id_range(src, dst)
            if hi >= INT32_MAX:
                where, arr = ("src", src) if int(src.max()) == hi else ("dst", dst)
                raise ValueError(f"vertex id {hi} ({where}[{int((arr == hi).argmax())}]) is beyond "
                                 f"DynamicConnectivity's ids (below {INT32_MAX}); map the ids to 0..k-1 first")
            if hi + 1 > self._state.ncap:
                check_vertices(hi + 1, f"n={hi + 1}", per_vertex=40)
            i, out = self._state.run_device(k, s, d, hi + 1, cuts, first_query, counts)
        if i >= 0:
            raise ValueError(f"delete ({int(src[i])}, {int(dst[i])}) (operation {i} of the batch): that edge "
                             "is not present at that point; nothing of the batch was applied")
        return out if kind in (1, None) else None

    def _grow(self, n: int, inserts: int) -> None:
        if n > self._state.ncap:
            check_vertices(n, f"n={n}", per_vertex=40)
        self._state.reserve(n, inserts)


def _kinds(kinds) -> np.ndarray:
    k = np.asarray(kinds)
    if k.dtype.kind in "US" or k.dtype == object:
        try:
            k = np.array([_KINDS[str(x).lower()] for x in k], np.int8)
        except KeyError as e:
            raise ValueError(f"unknown operation kind {e.args[0]!r}; use 0/'insert'/'+', 1/'query'/'?' or "
                             "2/'delete'/'-'") from None
    elif k.dtype.kind not in "iub":
        raise TypeError("operation kinds must be integers (0 insert, 1 query, 2 delete) or their names")
    if k.ndim != 1:
        raise ValueError("kinds must be 1-D")
    if k.size and (int(k.min()) < 0 or int(k.max()) > 2):
        raise ValueError("operation kinds must be 0 (insert), 1 (query) or 2 (delete)")
    return k.astype(np.int8, copy=False)
