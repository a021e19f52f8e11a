"""Union-find over host edges streamed to the GPU in chunks (issue 11).

The edges never sit on the device as a whole: chunk ``i + 1`` is copied
host-to-device on a copy stream while chunk ``i`` is unioned on the
compute stream, through ``BUFFERS`` device buffers that take turns.  A
chunk's unions are an incremental batch (paper Sec. 3.6) run by the same
``coo_ops`` kernel as the static COO finish and the incremental inserts,
which records the spanning forest the same way (the edge that linked a
root).  Device memory is O(n + BUFFERS * chunk), whatever m is, so graphs
larger than the GPU are unioned without an out-of-memory error.

Host memory reaches the copy engine through pinned staging buffers, filled
by :func:`gconn.gpu.staging.stage` on all cores; the fill also reads each
chunk's smallest and largest id, so the ids are checked, and the parent
array sized, on the host before the chunk's unions are launched, with no
read-back from the device.  (Pinning the user's arrays in place with
``cudaHostRegister`` measured 3x slower on the H100: 14-16 ms to pin
0.54 GB and 9.5 ms to unpin, against 10.5 ms for the whole staged copy.)
Under the CUDA simulator there are no streams or pinned memory: chunks are
copied into the simulator's arrays and the same chunking, growth and
validation logic runs.

The vertex count may be unknown (an iterator of chunks, or arrays whose
largest id nobody has computed): the parent array is sized from the first
chunk's largest id and grows (to the next power of two, at least
doubling, copying the old) when a later chunk holds a larger one.
Duplicate edges and self loops are harmless to union-find.

>>> import numpy as np
>>> from gconn.gpu import stream
>>> stream.parse_bytes("1.5 GB"), stream.parse_bytes("64MiB"), stream.parse_bytes(4096)
(1500000000, 67108864, 4096)
"""
from __future__ import annotations

import os
import re
import time
import weakref
from collections.abc import Iterable
from contextlib import contextmanager
from threading import Lock

import numpy as np

from ..design import UNION_FIND, Plan, Variant
from ..ids import INT32_MAX, check_pair
from ..memory import check_vertices
from . import memory
from ._compat import SIM, view, xp
from .launch import dtypes_key, dummy, get, launch
from .staging import stage
from .unionfind import OP_UNION

#: device buffers (and pinned staging buffers) that take turns: one being
#: unioned, one in flight, one being filled on the host
BUFFERS = 3
#: edges per chunk (H100 sweeps: BENCHMARKS.md, issue 11; 2^21-2^22 with
#: three buffers staged in 10.3-10.7 ms, 2^20 in 11.1, 2^23 in 12.8)
CHUNK_EDGES = 1 << 22
#: first capacity of a parent array of unknown size (small in the
#: simulator, so that tests grow it)
FIRST_CAP = 16 if SIM else 1 << 16
#: the environment variable of the device memory budget
ENV = "GCONN_DEVICE_MEMORY"

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def _size(nbytes: int) -> str:
    return f"{nbytes} bytes" if nbytes < 2**20 else memory.gib(nbytes)


def parse_bytes(value, what: str = "device_memory") -> int:
    """Bytes from an int or a string such as ``"4GB"``, ``"512 MiB"``."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        nbytes = int(value)
    elif isinstance(value, str):
        hit = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", value)
        if hit is None or hit.group(2).lower() not in _UNITS:
            raise ValueError(f"{what}={value!r} is not a size; use bytes or e.g. '4GB', '512MiB'")
        nbytes = int(float(hit.group(1)) * _UNITS[hit.group(2).lower()])
    else:
        raise TypeError(f"{what} must be a number of bytes or a string such as '4GB'; got {value!r}")
    if nbytes <= 0:
        raise ValueError(f"{what}={value!r} must be positive")
    return nbytes


def budget(device_memory=None) -> int:
    """The device memory gconn may use: the argument, else the environment
    variable ``GCONN_DEVICE_MEMORY``, never more than what is free."""
    free = memory.free_bytes()
    if device_memory is None:
        env = os.environ.get(ENV, "").strip()
        if not env:
            return free
        return min(free, parse_bytes(env, ENV))
    return min(free, parse_bytes(device_memory))


# -- host edges as chunks -----------------------------------------------------

def _id_dtype(a, where: str) -> np.dtype:
    if a.dtype.kind == "b" or a.dtype.kind not in "iu":
        raise TypeError(f"{where} has dtype {a.dtype}; vertex ids must be integers")
    # int32 and int64 go over as they are; other integer types become int64
    return a.dtype if a.dtype in (np.dtype(np.int32), np.dtype(np.int64)) else np.dtype(np.int64)


class HostEdges:
    """Host edges to stream: ``(src, dst)`` arrays (NumPy, memory-mapped
    included), an ``(m, 2)`` array, a ``.gcb`` or ``.npy`` path (memory
    mapped), or an iterable of ``(src_chunk, dst_chunk)``.

    >>> e = HostEdges((np.arange(5), np.arange(1, 6)))
    >>> e.m, [(s, a.tolist()) for s, a, _ in e.chunks(2)]
    (5, [(0, [0, 1]), (2, [2, 3]), (4, [4])])
    """

    def __init__(self, source):
        self.src = self.dst = self._iter = None
        self.n = None
        if isinstance(source, (str, os.PathLike)):
            source = _mapped(source)
            if isinstance(source, tuple) and len(source) == 3:
                self.n = source[2]
                source = source[:2]
        if isinstance(source, np.ndarray) and source.ndim == 2 and source.shape[1] == 2:
            source = (source[:, 0], source[:, 1])
        if isinstance(source, tuple) and len(source) == 2 and all(isinstance(a, np.ndarray) for a in source):
            src, dst = source
            check_pair(src, dst)
            self.src, self.dst = src, dst
            self.dtype = np.result_type(_id_dtype(src, "src"), _id_dtype(dst, "dst"))
            self.m = int(src.size)
        elif isinstance(source, Iterable) and not isinstance(source, (tuple, list, np.ndarray)):
            self._iter = iter(source)
            self.dtype = None
            self.m = None
        else:
            raise TypeError("stream edges from (src, dst) NumPy arrays, an (m, 2) array, a .gcb or .npy "
                            f"path, or an iterable of (src, dst) chunks; got {type(source).__name__}")

    @property
    def contiguous(self) -> bool:
        """Whether both id arrays are contiguous and can be copied as they are."""
        return self.src is not None and all(
            a.flags.c_contiguous and a.dtype == self.dtype for a in (self.src, self.dst))

    def chunks(self, size: int):
        """``(offset, src, dst)`` host pieces of at most ``size`` edges."""
        if self.src is not None:
            for a in range(0, self.m, size):
                yield a, self.src[a:a + size], self.dst[a:a + size]
            return
        offset = 0
        for i, piece in enumerate(self._iter):
            if not (isinstance(piece, (tuple, list)) and len(piece) == 2):
                raise TypeError(f"chunk {i} of the edge iterable is a {type(piece).__name__}, "
                                "not a (src, dst) pair")
            s, d = np.asarray(piece[0]), np.asarray(piece[1])
            try:
                check_pair(s, d)
            except (TypeError, ValueError) as e:
                raise type(e)(f"chunk {i} of the edge iterable (edges from {offset}): {e}") from None
            dt = np.result_type(_id_dtype(s, f"chunk {i} src"), _id_dtype(d, f"chunk {i} dst"))
            self.dtype = dt if self.dtype is None else np.result_type(self.dtype, dt)
            for a in range(0, s.size, size):
                yield offset + a, s[a:a + size], d[a:a + size]
            offset += s.size


def _mapped(path):
    """The edge arrays of a ``.gcb`` (src, dst, n) or an ``.npy`` (m, 2)
    file, memory-mapped: nothing is read before it is streamed."""
    name = os.fspath(path)
    if name.endswith(".gcb"):
        from ..io.gcb import edge_arrays
        return edge_arrays(name)
    if name.endswith(".npy"):
        arr = np.load(name, mmap_mode="r")
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise ValueError(f"{name}: an edge .npy holds an (m, 2) array; got shape {arr.shape}")
        return arr
    raise ValueError(f"{name}: only .gcb and .npy files are streamed from a path")


# -- the streamer ---------------------------------------------------------------

class WiderIds(ValueError):
    """A chunk after the first holds ids wider than the first's type (the
    id type, and the device arrays, are chosen from the first chunk)."""


def _next_pow2(x: int) -> int:
    return 1 << max(int(x) - 1, 0).bit_length()


class Streamer:
    """Incremental union-find over streamed chunks: :meth:`feed` host
    edges, then :meth:`result`.  ``n`` (optional) fixes the vertex count
    (ids must be below it); ``limit`` is the device memory budget in bytes;
    ``copy_threads`` caps the threads that fill the staging buffers
    (default: numba's, every core).

    >>> from gconn.design import Variant, Plan
    >>> s = Streamer(Plan.of(Variant.parse("none+union-async+find-halve")), limit=1 << 20)  # doctest: +SKIP
    >>> s.feed(HostEdges((np.array([0, 2]), np.array([1, 3])))); s.result()[3]  # doctest: +SKIP
    4
    """

    def __init__(self, plan: Plan, *, n: int | None = None, forest: bool = False, chunk_edges: int | None = None,
                 limit: int | None = None, copy_threads: int | None = None):
        if plan.family != UNION_FIND or plan.sampling != "none":
            raise ValueError(f"streaming runs a union-find variant without sampling, not {plan.name}")
        self.plan, self.n, self.forest = plan, n, forest
        self.limit = memory.free_bytes() if limit is None else int(limit)
        self.want_chunk = int(chunk_edges or CHUNK_EDGES)
        if self.want_chunk < 1:
            raise ValueError(f"chunk_edges must be >= 1; got {chunk_edges}")
        if copy_threads is not None and copy_threads < 1:
            raise ValueError(f"copy_threads must be >= 1; got {copy_threads}")
        self.copy_threads = copy_threads
        self.cap = 0
        self.max_id = -1
        self.chunks = 0
        self.edges = 0
        self.chunk_edges = 0
        self.seconds = 0.0
        self._ready = False

    # per-vertex bytes of the union-find arrays (parents, aux, forest slots)
    def _vertex_bytes(self, idt) -> int:
        pb = 8 if self.plan.jtb else idt.itemsize
        return pb * (2 if self.plan.aux else 1) + (2 * idt.itemsize if self.forest else 0)

    def _setup(self, dtype) -> None:
        """Buffers for ids of ``dtype``: the chunk size that fits the budget
        beside the parent array, then the device and staging buffers."""
        # a declared vertex count beyond int32 needs int64 ids whatever the first chunk holds
        self.idt = np.dtype(np.int64) if self.n is not None and self.n > INT32_MAX + 1 else np.dtype(dtype)
        self.p_dtype = np.dtype(np.int64) if self.plan.jtb else self.idt
        self.dtypes = dtypes_key(self.idt, self.idt, self.p_dtype)
        per_vertex = self._vertex_bytes(self.idt)
        if self.n is not None:
            vertex_part = self.n * per_vertex
            if vertex_part > self.limit:
                raise MemoryError(
                    f"union-find over n={self.n} vertices needs {_size(vertex_part)} of GPU memory "
                    f"(O(n)), more than the device memory budget of {_size(self.limit)}")
            spare = self.limit - vertex_part
        else:
            spare = self.limit // 4   # the rest is kept for a parent array of unknown size
        per_edge = 2 * self.idt.itemsize * BUFFERS
        self.chunk_edges = int(min(self.want_chunk, spare // per_edge))
        if self.chunk_edges < 1:
            raise MemoryError(f"the device memory budget of {_size(self.limit)} leaves no room for "
                              f"edge buffers beside the union-find arrays (n={self.n})")
        self._kern = get("coo_ops", (self.plan.fin, self.plan.fopt, self.plan.sopt), self.dtypes)
        self.P = xp.empty(0, self.p_dtype)
        self.H = xp.empty(0, self.p_dtype)
        self.fa = self.fb = xp.empty(0, self.idt)
        c = self.chunk_edges
        self._dev = [(xp.empty(c, self.idt), xp.empty(c, self.idt)) for _ in range(BUFFERS)]
        self._pipe = _SimPipe(self) if SIM else _CudaPipe(self)
        self._ready = True
        self._grow(self.n if self.n is not None else FIRST_CAP)

    def _grow(self, need: int) -> None:
        """Parent (and aux, forest) arrays for ids below ``need``: at least
        doubling, to a power of two where the budget allows."""
        if need <= self.cap:
            return
        if self.n is not None:
            cap = max(self.n, 1)
        else:
            # the labels come back to the host: ids as sparse as 3000000000
            # fail here as they do when a Graph is built
            check_vertices(need, "the largest id of the streamed edges", vertex_id=need - 1, per_vertex=8)
            top = np.iinfo(self.idt).max + 1
            cap = min(max(_next_pow2(need), 2 * self.cap), top)
        per_vertex = self._vertex_bytes(self.idt)
        buffers = BUFFERS * 2 * self.idt.itemsize * self.chunk_edges
        if cap * per_vertex + buffers > self.limit:
            cap = need
        if cap * per_vertex + buffers > self.limit:
            raise MemoryError(
                f"union-find over the ids seen so far (n={need}) needs {_size(cap * per_vertex)} "
                f"of GPU memory (O(n)) beside {_size(buffers)} of edge buffers, more than the "
                f"device memory budget of {_size(self.limit)}")
        # no wait for the unions in flight: the new arrays are filled on the
        # stream that runs them, after them, and CuPy's pool hands the old
        # arrays' memory only to later work on that stream
        old = self.cap
        with memory.guard(f"growing the parent array to {cap} vertices"):
            P = xp.arange(cap, dtype=self.p_dtype)
            P[:old] = self.P[:old]
            if self.plan.aux:
                H = xp.full(cap, -1 if self.plan.aux == "hooks" else 0, self.p_dtype)
                H[:old] = self.H[:old]
            else:
                H = xp.zeros(1, self.p_dtype)
            if self.forest:
                fa, fb = xp.full(cap, -1, self.idt), xp.full(cap, -1, self.idt)
                fa[:old], fb[:old] = self.fa[:old], self.fb[:old]
            else:
                fa = fb = xp.empty(0, self.idt)
        self.P, self.H, self.fa, self.fb, self.cap = P, H, fa, fb, cap
        self._Pv, self._Hv = view(P), view(H)
        self._fav, self._fbv = (view(fa), view(fb)) if self.forest else (dummy(self.idt), dummy(self.idt))

    def _check(self, index: int, offset: int, hs, hd, lo: int, hi: int) -> None:
        """Negative ids, and ids >= n, are errors naming the chunk and the
        first offending edge (found only once the bounds say there is one)."""
        if lo < 0:
            bad = lambda a: a < 0                                      # noqa: E731
            why = "negative vertex id {v} ({w}[{i}]); ids must be >= 0"
        elif self.n is not None and hi >= self.n:
            bad = lambda a: a >= self.n                                # noqa: E731
            why = "vertex id {v} ({w}[{i}]) is out of range for n=" + str(self.n)
        else:
            return
        self._pipe.sync()
        for w, a in (("src", hs), ("dst", hd)):
            hits = np.flatnonzero(bad(np.asarray(a)))
            if hits.size:
                i = int(hits[0])
                raise ValueError(f"chunk {index} (edges {offset}..{offset + hs.size - 1}): "
                                 + why.format(v=int(a[i]), w=w, i=offset + i))

    def feed(self, edges: HostEdges) -> None:
        """Union every edge of ``edges`` (chunk by chunk, overlapped)."""
        t0 = time.perf_counter()
        pieces = edges.chunks(self.want_chunk)
        if not self._ready:
            if self.n is None and edges.n is not None:
                self.n = edges.n
            if edges.dtype is None:     # an iterable: its first chunk says
                first = next(pieces, None)
                if first is None:
                    return
                pieces = _chain([first], pieces)
            self._setup(edges.dtype)
        try:
            with self._pipe.open():
                for offset, hs, hd in pieces:
                    # pieces are cut before the budget has set the chunk size
                    for a in range(0, hs.size, self.chunk_edges):
                        self._put(offset + a, hs[a:a + self.chunk_edges], hd[a:a + self.chunk_edges])
        finally:
            self._pipe.sync()
        self.seconds += time.perf_counter() - t0

    def _put(self, offset: int, hs, hd) -> None:
        s = self.chunks % BUFFERS
        hs, hd = self._cast(hs), self._cast(hd)
        lo, hi = self._pipe.copy_in(s, hs, hd)
        self._check(self.chunks, offset, hs, hd, lo, hi)
        self.max_id = max(self.max_id, hi)
        self._grow(hi + 1)
        k = int(hs.size)
        ds, dd = self._dev[s]
        launch(self._kern, k, self._Pv, self._Hv, view(ds[:k]), view(dd[:k]), dummy(np.int8), k, OP_UNION,
               int(self.forest), self._fav, self._fbv, dummy(np.bool_), persistent=True)
        self._pipe.after_union(s)
        self.chunks += 1
        self.edges += k

    def _cast(self, a):
        """A later chunk of an iterable whose ids are wider than the first's."""
        if a.dtype == self.idt or np.can_cast(a.dtype, self.idt, "safe"):
            return a
        if a.size and (int(a.max()) > np.iinfo(self.idt).max):
            raise WiderIds(f"vertex id {int(a.max())} does not fit the {self.idt} ids of the first chunk; "
                           "pass int64 chunks from the start")
        return a

    def result(self):
        """(roots, forest_src, forest_dst, n): each vertex's root (0..n-1)
        and the forest slots, on the device."""
        n = self.n if self.n is not None else self.max_id + 1
        if not self._ready:
            idt = np.int64 if n > np.iinfo(np.int32).max else np.int32
            empty = xp.empty(0, idt)
            return xp.arange(n, dtype=idt), empty, empty, n
        self._pipe.sync()
        seen = self.max_id + 1
        jtb = self.plan.jtb
        comp = get("compress", (jtb,), self.dtypes)
        if jtb:
            roots = xp.empty(seen, self.idt)
            launch(comp, seen, self._Pv, seen, view(roots) if seen else dummy(self.idt), 1, persistent=True)
        else:
            roots = self.P[:seen]
            launch(comp, seen, self._Pv, seen, dummy(self.idt), 0, persistent=True)
        fa, fb = self.fa[:seen], self.fb[:seen]
        out = np.dtype(np.int32) if n <= np.iinfo(np.int32).max else np.dtype(np.int64)
        if seen < n or roots.dtype != out:
            full = xp.arange(n, dtype=out)
            full[:seen] = roots
            roots = full
        if self.forest and fa.dtype != out:
            fa, fb = fa.astype(out), fb.astype(out)
        return roots, fa, fb, n


def _chain(*parts):
    for p in parts:
        yield from p


class _SimPipe:
    """The simulator's transfers: plain copies, nothing asynchronous."""

    def __init__(self, st: Streamer):
        # a proxy: a cycle with the Streamer would keep its device buffers
        # until the garbage collector ran
        self.st = weakref.proxy(st)

    def open(self):
        return _threads(self.st.copy_threads)

    def copy_in(self, s, hs, hd):
        ds, dd = self.st._dev[s]
        lo1, hi1 = stage(ds, hs)
        lo2, hi2 = stage(dd, hd)
        return min(lo1, lo2), max(hi1, hi2)

    def after_union(self, s) -> None:
        pass

    def sync(self) -> None:
        pass


@contextmanager
def _threads(k: int | None):
    """At most ``k`` numba threads for the staging fills (None: numba's)."""
    if k is None:
        yield
        return
    import numba
    before = numba.get_num_threads()
    numba.set_num_threads(min(k, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


#: the pinned staging buffers kept between runs: [(bytes each, buffers)]
_PINNED: list = []
_PINNED_LOCK = Lock()


def _take_pinned(nbytes: int) -> tuple[int, list]:
    """``BUFFERS`` pinned staging buffers of at least ``nbytes``: the kept
    ones, else new ones (allocating them, cudaHostAlloc of 96 MB, took
    36-52 ms of every 57-108 ms run on the H100).  A run in another thread
    that finds them taken gets its own."""
    with _PINNED_LOCK:
        if _PINNED and _PINNED[0][0] >= nbytes:
            return _PINNED.pop()
    return nbytes, [xp.cuda.alloc_pinned_memory(nbytes) for _ in range(BUFFERS)]


def _give_back_pinned(size: int, mems: list) -> None:
    """Keep the larger of these buffers and the kept ones."""
    with _PINNED_LOCK:
        if not _PINNED or _PINNED[0][0] < size:
            _PINNED[:] = [(size, mems)]


class _CudaPipe:
    """Copies on a non-blocking copy stream, unions on CuPy's current stream:
    the copy of a chunk waits for the union that last used its buffer, the
    union waits for its copy (CUDA events, no host wait); the host waits
    only before refilling a staging buffer, for the copy that last read it."""

    def __init__(self, st: Streamer):
        # a proxy: a cycle with the Streamer would keep its device buffers
        # until the garbage collector ran
        self.st = weakref.proxy(st)
        cp = xp
        self.copy_stream = cp.cuda.Stream(non_blocking=True)
        # the stream the unions are launched on (CuPy's current one)
        self.compute = cp.cuda.get_current_stream()
        ev = lambda: cp.cuda.Event(disable_timing=True)   # noqa: E731
        self.copied = [ev() for _ in range(BUFFERS)]
        self.unioned = [ev() for _ in range(BUFFERS)]
        self.staged = None

    @contextmanager
    def open(self):
        """One feed: at most ``copy_threads`` threads fill the staging
        buffers, which are taken from the kept ones and given back once the
        last copy out of them is done."""
        st = self.st
        c = st.chunk_edges * st.idt.itemsize
        size, mems = _take_pinned(2 * c)
        self.staged = [(np.frombuffer(m, st.idt, st.chunk_edges, 0),
                        np.frombuffer(m, st.idt, st.chunk_edges, c)) for m in mems]
        try:
            with _threads(st.copy_threads):
                yield
        finally:
            self.sync()
            self.staged = None
            _give_back_pinned(size, mems)

    def copy_in(self, s, hs, hd):
        """Stage the chunk into slot ``s`` and start its copy; the ids' bounds."""
        rt = xp.cuda.runtime
        ds, dd = self.st._dev[s]
        k = hs.size
        self.copy_stream.wait_event(self.unioned[s])    # the buffer's last union is done
        self.copied[s].synchronize()                    # the staging buffer's last copy is done
        a, b = self.staged[s]
        lo1, hi1 = stage(a, hs)
        lo2, hi2 = stage(b, hd)
        nbytes = k * self.st.idt.itemsize
        for dev, host in ((ds, a), (dd, b)):
            rt.memcpyAsync(dev.data.ptr, host.ctypes.data, nbytes, rt.memcpyHostToDevice, self.copy_stream.ptr)
        self.copied[s].record(self.copy_stream)
        self.compute.wait_event(self.copied[s])
        return min(lo1, lo2), max(hi1, hi2)

    def after_union(self, s) -> None:
        self.unioned[s].record(self.compute)

    def sync(self) -> None:
        self.copy_stream.synchronize()
        self.compute.synchronize()


def stream_union(edges, variant="none+union-async+find-halve", *, n=None, forest=False, chunk_edges=None,
                 device_memory=None, copy_threads=None):
    """Union-find over host ``edges`` (see :class:`HostEdges`) streamed to
    the GPU; returns the :class:`Streamer` after :meth:`Streamer.result`
    is ready (``st.result()`` -> roots, forest slots, n).

    >>> import numpy as np
    >>> st = stream_union((np.array([0, 2]), np.array([1, 3])), chunk_edges=1)  # doctest: +SKIP
    >>> st.result()[3], st.chunks  # doctest: +SKIP
    (4, 2)
    """
    v = variant if isinstance(variant, Variant) else Variant.parse(variant, "forest" if forest else "cc")
    st = Streamer(Plan.of(v), n=n, forest=forest, chunk_edges=chunk_edges,
                  limit=budget(device_memory), copy_threads=copy_threads)
    st.feed(edges if isinstance(edges, HostEdges) else HostEdges(edges))
    return st
