"""Incremental connectivity: :class:`IncrementalConnectivity`, batches of
edge insertions and queries over a vertex set that grows."""
from __future__ import annotations

import threading

import numpy as np

from gconn import pipeline
from gconn.api.dispatch import backend_module as _backend_module, out_array as _out, variant_of as _variant
from gconn.design import Plan, Variant
from gconn.errors import VertexRangeError
from gconn.graph import INT32_MAX, _as_id_array, _is_cupy
from gconn.graph.ids import check_pair, id_range, one_pair
from gconn.graph.memory import check_vertices
from gconn.inputs import id_graph


_KIND_NAMES = {"insert": 0, "query": 1, "i": 0, "q": 1, "+": 0, "?": 1}


class IncrementalConnectivity:
    """Connectivity under batches of edge insertions and queries.

    ``mode`` sets what a query in a mixed batch sees: ``"phased"`` (default, deterministic) the
    batch's inserts first, then its queries; ``"sequential"`` exactly the inserts before it;
    ``"concurrent"`` (the paper's) inserts and queries run together: true if connected before the
    batch, false if not after it, else either (Rem's algorithms with SpliceAtomic run phased).
    Methods may be called from several threads: each call takes the structure's lock.

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
        g = id_graph(graph, "IncrementalConnectivity") if graph is not None else None
        self._be = _backend_module(backend, g is not None and g.on_gpu)
        self.variant = _variant(algorithm, "incremental", None, self._be, {})
        self.mode = mode
        self._n = 0
        self._lock = threading.Lock()
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
        self._small_below = getattr(self._state, "small_below", 0)
        self._phased = mode == "phased" or (mode == "concurrent" and self.variant.phase_separated)

    @property
    def n(self) -> int:
        """The number of vertices seen so far (largest id + 1, or n)."""
        return self._n

    @property
    def n_components(self) -> int:
        """The number of connected components among vertices 0..n-1."""
        # roots() compresses the forest and reads P, which a growing call replaces; CUDA's simulator
        # runs one kernel at a time
        with self._lock:
            return int(self._be.count_roots(self._state.roots(self._n)))

    def labels(self, compact: bool = True):
        """Current labels of vertices 0..n-1 (scipy numbering when compact)."""
        with self._lock:  # as in n_components
            roots = self._state.roots(self._n)
            if compact:
                labels = self._be.compact(roots, min_rooted=self.variant.min_rooted)[1]
            else:
                labels = roots if self.variant.min_rooted else self._be.min_representatives(roots)
        return _out(labels, self._device_io)

    def insert(self, src, dst) -> None:
        """Insert edges (src[i], dst[i]), or the one edge (src, dst); unseen ids grow the vertex set."""
        _, src, dst = one_pair(src, dst)
        if self._small_below:
            s, d = _small_ids(src, self._small_below), _small_ids(dst, self._small_below)
            if s is not None and d is not None:
                with self._lock:
                    end = self._state.small_insert(s, d)
                    if end >= 0:
                        if end > self._n:
                            self._n = end
                        return
        s, d, hi = self._ids(src, dst)
        if s.size:
            with self._lock:
                self._grow_to(hi, s, d)
                self._state.insert(s, d)

    def connected(self, u, v):
        """Whether u[i] and v[i] are connected now, as a bool array (a bool for two single ids).

        >>> ic = IncrementalConnectivity(backend="cpu")
        >>> ic.insert(0, 1); ic.insert([1, 5], [2, 6])
        >>> ic.connected(0, 2), ic.connected([0, 0], [2, 5]).tolist()
        (True, [True, False])
        """
        one, u, v = one_pair(u, v)
        out = self._connected(u, v)
        return bool(out[0]) if one else out

    def _connected(self, u, v):
        if self._small_below:
            s, d = _small_ids(u, self._small_below), _small_ids(v, self._small_below)
            if s is not None and d is not None:
                out = np.empty(s.size, np.bool_)
                with self._lock:
                    end = self._state.small_query(s, d, out)
                    if end >= 0:
                        if end > self._n:
                            self._n = end
                        return out
        s, d, hi = self._ids(u, v)
        if s.size:
            with self._lock:
                self._grow_to(hi, s, d)
                out = self._state.query(s, d)
        else:
            out = self._empty_bool()
        return _out(out, _is_cupy(u) or _is_cupy(v))

    def process(self, kinds, src=None, dst=None):
        """Process a mixed batch (``kinds[i]`` 0 or 'insert', 1 or 'query'; or one ``(m, 3)`` array of
        ``[kind, u, v]`` rows); returns the answers of its queries in order."""
        if self._small_below and src is not None and dst is not None:
            below = self._small_below
            k, s, d = _small_ids(kinds, below), _small_ids(src, below), _small_ids(dst, below)
            if k is not None and s is not None and d is not None:
                out = np.empty(k.size, np.bool_)
                with self._lock:
                    end, answers = self._state.small_process(k, s, d, self._phased, out)
                    if end >= 0:
                        if end > self._n:
                            self._n = end
                        return out[:answers]
        device_io = _is_cupy(src) or _is_cupy(dst) or (src is None and _is_cupy(kinds))
        kinds, src, dst = self._batch(kinds, src, dst)
        s, d, hi = self._ids(src, dst)
        if s.size == 0:
            return _out(self._empty_bool(), device_io)
        with self._lock:        # one lock for the whole batch: no other thread's inserts in between
            self._grow_to(hi, s, d)
            out = self._run(kinds, s, d)
        return _out(out, device_io)

    def _run(self, kinds, s, d):
        is_query = kinds == 1
        if self.mode == "concurrent" and not self._phased:
            out = self._state.mixed(self._be.asarray(kinds), s, d)
            return out[self._be.asarray(is_query)]
        if self._phased:
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
        return self._be.concatenate(answers) if answers else self._empty_bool()

    def _empty_bool(self):
        return self._be.asarray(np.zeros(0, np.bool_))

    def _grow(self, n: int, origin=None) -> None:
        if n > self._n:
            if self._be.NAME == "cpu":
                _check_growth(self._state, n, origin)
            if n > INT32_MAX and self._state.id_dtype == np.int32:
                raise ValueError(f"vertex id {n - 1} needs 64-bit ids; create IncrementalConnectivity(n={n}) "
                                 "up front so it starts with int64 ids")
            self._state.reserve(n)
            self._n = n

    def _grow_to(self, hi: int, s, d) -> None:
        """Grow to hold id ``hi``."""
        self._grow(hi + 1, lambda: _position_of(hi, s, d))

    def _ids(self, src, dst):
        """Checked ids in the state's dtype and the largest (-1 if none); runs outside the lock."""
        if _is_cupy(src) or _is_cupy(dst):
            s, d, hi = self._be.validate_device_ids(src, dst)
        else:
            s = _as_id_array(src, "src")
            d = _as_id_array(dst, "dst")
            check_pair(s, d)
            hi = id_range(s, d) if s.size else -1
        if hi >= INT32_MAX and self._state.id_dtype == np.int32:
            self._grow_to(hi, s, d)     # raises before the cast below would wrap the id around
        dt = self._state.id_dtype
        return self._be.asarray(s, dt), self._be.asarray(d, dt), hi

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
                deletes = str(e.args[0]) in ("delete", "d", "-", "2")
                raise ValueError(f"unknown operation kind {e.args[0]!r}; use 0/'insert'/'+' or 1/'query'/'?'"
                                 + ("; deletions need gconn.DynamicConnectivity" if deletes else "")) from None
        elif k.dtype.kind == "f":
            raise TypeError("operation kinds must be integers or booleans (0 insert, 1 query)")
        k = k.astype(np.int8)
        if k.ndim != 1:
            raise ValueError("kinds must be 1-D")
        if k.size and (k.min() < 0 or k.max() > 1):
            raise ValueError("operation kinds must be 0 (insert) or 1 (query)"
                             + ("; deletions (2) need gconn.DynamicConnectivity" if int(k.max()) == 2 else ""))
        n_src = src.shape[0] if hasattr(src, "shape") else len(src)
        if k.size != n_src:
            raise ValueError(f"kinds has {k.size} entries but the batch has {n_src} edges")
        return k, src, dst


def _small_ids(x, below: int):
    """``x`` as a 1-D signed int array of fewer than ``below`` entries for the one-call path, else
    None; the kernel hands anything wrong back to the checked path, which names it."""
    t = type(x)
    if t is list or t is tuple:
        if len(x) >= below:
            return None
        try:
            a = np.array(x)
        except (ValueError, TypeError, OverflowError):
            return None
        return a if a.dtype.kind == "i" and a.ndim == 1 else None
    if t is np.ndarray and x.ndim == 1 and x.dtype.kind == "i" and x.size < below and x.flags.c_contiguous:
        return x
    return None


def _position_of(value: int, src, dst) -> str:
    """'src[i]' or 'dst[i]': where ``value`` first occurs (for messages)."""
    for name, arr in (("src", src), ("dst", dst)):
        hits = np.flatnonzero(np.asarray(arr) == value)
        if hits.size:
            return f"{name}[{int(hits[0])}]"
    return "the batch"


def _check_growth(state, n: int, locate) -> None:
    """Check host memory for growing the state to ``n`` vertices, where it must reallocate."""
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
