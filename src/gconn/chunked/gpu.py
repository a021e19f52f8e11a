"""The chunked route on the GPU: union-find over host edges copied to the
device in chunks, and the decision of when a call takes it.

Chunk ``i + 1`` is copied (through a ring of small pinned pieces, on a copy
stream) while chunk ``i`` is unioned by ``coo_ops``, through ``BUFFERS``
device buffers: device memory is O(n + BUFFERS * chunk) whatever m is.

Raw host arrays that fit one chunk (and no budget) skip the feed's streams,
events and bounds rows: staged with their bounds, one copy, the union kernel,
all on the caller's stream (``_one_chunk``).

Which calls take the route (``run()``):

* raw host edges -- ``(src, dst)`` NumPy integer arrays, an ``(m, 2)``
  array, a ``.gcb``/``.npy`` path, an iterator of ``(src, dst)`` chunks --
  and a text edge list that ``gconn.io.chunks.of_file`` reads in chunks,
  whenever the variant is union-find without sampling (the automatic
  choice included);
* a host ``Graph`` or SciPy matrix whose automatic choice is union-find
  without sampling;
* any host input whose resident arrays would not fit the device memory
  budget (``device_memory=`` or ``GCONN_DEVICE_MEMORY``, never more than
  what is free), with the requested union-find finish, else
  :data:`CHUNKED_VARIANT`.  ``Stats.chunked`` says so.

>>> import numpy as np
>>> parse_bytes("1.5 GB"), parse_bytes("64MiB"), parse_bytes(4096)
(1500000000, 67108864, 4096)
>>> raw_edges((np.array([0, 1]), np.array([1, 2]))) is not None
True
>>> raw_edges(([0, 1], [1, 2])) is None    # lists are built as a Graph
True
"""
from __future__ import annotations

import itertools
import os
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from threading import Lock

import numpy as np

from gconn import design
from gconn.design import UNION_FIND, Plan, Variant
from gconn.graph import Graph
from gconn.graph.ids import INT32_MAX, check_pair, id_dtype
from gconn.graph.memory import check_vertices, parse_bytes
from gconn.graph.relabel import AUTO_MIN_RANGE, AUTO_RATIO
from gconn.pipeline.stats import Stats
from gconn.io.chunks import mapped_arrays, of_file
from gconn.backends.gpu import graph as _kernels, memory  # noqa: F401  (graph: csr_rows, csr_order)
from gconn.backends.gpu._compat import SIM, view, xp
from gconn.backends.gpu.launch import BLOCK, WARP, direct, dtypes_key, dummy, get, launch, persistent_grid
from gconn.backends.gpu.staging import SHARES, Ring, cold, fill, landing
from gconn.backends.gpu.unionfind import OP_UNION, TRACK_BOUNDS, flat_roots
from gconn.chunked.gpu_feed import (NAMES, _A, _ARRIVED, _BLOCK, _CALL, _CAP, _CHUNK, _COMPUTE, _CONTROL, _COPY,
                                    _DEVB, _DIRECT, _ERR, _GRIDS, _HOSTB, _ISZ, _KERNEL, _LIMIT, _M, _NOT_BACK, _PIECE,
                                    _PIECES, _PTRS, _ROW, _ROWS, _SHARES, _SLOT, _SRC, _TOP, _TURN, _WATCH, _WHOLE,
                                    _pump, addresses, handle)


#: device buffers that take turns: one being unioned, one copied into, one waiting
BUFFERS = 3
CHUNK_EDGES = 1 << 22
#: pinned staging pieces and their bytes: a piece holds a whole chunk of int32 ids (the fills then
#: keep pace with the copy: 97% of the pinned copy rate on an H200 host, 82% with 8 MiB pieces;
#: python -m gconn.bench.devices)
RING = 4
PIECE_BYTES = 1 << 24
ENV = "GCONN_DEVICE_MEMORY"
#: labels of at least this many bytes get a :func:`~gconn.backends.gpu.staging.landing`
LAND_BYTES = 1 << 22


def _size(nbytes: int) -> str:
    return f"{nbytes} bytes" if nbytes < 2**20 else memory.gib(nbytes)


def budget(device_memory=None) -> int:
    """The device memory gconn may use: the argument, else ``GCONN_DEVICE_MEMORY``, at most what is free."""
    what = "device_memory"
    if device_memory is None:
        device_memory, what = os.environ.get(ENV, "").strip() or None, ENV
    free = memory.free_bytes()
    return free if device_memory is None else min(free, parse_bytes(device_memory, what))


# -- host edges as chunks -----------------------------------------------------

def _id_dtype(a, where: str) -> np.dtype:
    if a.dtype.kind not in "iu":
        raise TypeError(f"{where} has dtype {a.dtype}; vertex ids must be integers")
    return a.dtype if a.dtype in (np.dtype(np.int32), np.dtype(np.int64)) else np.dtype(np.int64)


class HostEdges:
    """Host edges to send in chunks: ``(src, dst)`` arrays (NumPy, memory-mapped
    included), an ``(m, 2)`` array, a ``.gcb`` or ``.npy`` path (memory
    mapped), or an iterable of ``(src, dst)`` chunks; or, from
    :meth:`of_csr`, a matrix's CSR (each stored entry an edge).

    >>> e = HostEdges((np.arange(5), np.arange(1, 6)))
    >>> e.m, [(s, a.tolist()) for s, a, _ in e.chunks(2)]
    (5, [(0, [0, 1]), (2, [2, 3]), (4, [4])])
    """

    src = dst = _iter = indptr = n = dtype = m = None
    #: where these edges start in the input (a share of another HostEdges, :meth:`part`)
    base = 0

    def __init__(self, source):
        if isinstance(source, (str, os.PathLike)):
            *source, self.n = mapped_arrays(os.fspath(source))
            source = tuple(source)
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
        else:
            raise TypeError("chunked edges come from (src, dst) NumPy arrays, an (m, 2) array, a .gcb or .npy "
                            f"path, or an iterable of (src, dst) chunks; got {type(source).__name__}")

    @classmethod
    def of_csr(cls, indptr: np.ndarray, indices: np.ndarray, n: int) -> "HostEdges":
        """The entries of an n x n CSR as edges (row, column); rows are found on the device from ``indptr``.

        >>> e = HostEdges.of_csr(np.array([0, 2, 3, 3]), np.array([1, 2, 0]), 3)
        >>> e.m, [(o, s, d.tolist()) for o, s, d in e.chunks(2)]
        (3, [(0, None, [1, 2]), (2, None, [0])])
        """
        e = cls.__new__(cls)
        e.n = int(n)
        if indptr.ndim != 1 or indptr.size != e.n + 1:
            raise ValueError(f"indptr has {indptr.size} offsets; an n x n CSR with n={n} has {e.n + 1}")
        e.indptr, e.dst = indptr, indices
        e.m = int(indices.size)
        if int(indptr[0]) != 0 or int(indptr[-1]) != e.m:
            raise ValueError(f"indptr runs from {int(indptr[0])} to {int(indptr[-1])}; a CSR's runs from 0 "
                             f"to the number of entries, {e.m}")
        e.dtype = _id_dtype(indices, "indices")
        return e

    def part(self, a: int, b: int) -> "HostEdges":
        """Edges ``a .. b - 1`` of re-readable (src, dst) arrays, numbered from ``a`` in errors.

        >>> e = HostEdges((np.arange(5), np.arange(1, 6))).part(2, 4)
        >>> e.m, e.base, e.piece(0, 9)[1].tolist()
        (2, 2, [3, 4])
        """
        if self.src is None:
            raise TypeError("only (src, dst) arrays are cut into parts")
        e = HostEdges((self.src[a:b], self.dst[a:b]))
        e.n, e.dtype, e.base = self.n, self.dtype, self.base + a
        return e

    @property
    def rereadable(self) -> bool:
        """Whether a chunk can be read again (not an iterable)."""
        return self._iter is None

    def chunks(self, size: int):
        """``(offset, src, dst)`` host pieces of at most ``size`` edges (``src`` None for a CSR)."""
        if self._iter is None:
            for a in range(0, self.m, size):
                yield (a,) + self.piece(a, size)
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

    def piece(self, offset: int, size: int):
        """``(src, dst)`` of edges ``offset .. offset + size - 1`` (``src`` None for a CSR)."""
        src = None if self.src is None else self.src[offset:offset + size]
        return src, self.dst[offset:offset + size]

    def rows(self, offset: int, size: int) -> tuple[int, int]:
        """The rows (clamped to 0..n-1) of a CSR's entries ``offset`` and ``offset + size - 1``."""
        # needles of the offsets' type: others make NumPy cast all of indptr, every call
        at = np.array([offset, offset + size - 1], self.indptr.dtype)
        first, last = np.clip(np.searchsorted(self.indptr, at, side="right") - 1, 0, max(self.n - 1, 0))
        return int(first), int(last)


# -- the union ---------------------------------------------------------------

class WiderIds(ValueError):
    """A chunk after the first holds ids wider than the first's type."""


class SparseIds(WiderIds):
    """Under ``relabel="auto"``, ids too sparse (:data:`gconn.graph.relabel.AUTO_RATIO`) to size a parent array by."""


class ChunkedUnion:
    """Union-find over chunks of host edges: :meth:`feed` them, then :meth:`result`.
    ``n`` fixes the vertex count; ``limit``: the device memory budget in bytes;
    ``copy_threads`` caps the threads that fill the staging pieces.

    Re-readable edges are checked by the kernel (each chunk's smallest and largest id
    into a bounds row); once the feed settles, bad ids raise and chunks that met a
    parent array too small are unioned again."""

    def __init__(self, plan: Plan, *, n: int | None = None, forest: bool = False, chunk_edges: int | None = None,
                 limit: int | None = None, copy_threads: int | None = None, land: bool = False,
                 sparse: bool = False):
        if plan.family != UNION_FIND or plan.sampling != "none":
            raise ValueError(f"the chunked route runs a union-find variant without sampling, not {plan.name}")
        self.plan, self.n, self.forest = plan, n, forest
        self.limit = memory.free_bytes() if limit is None else int(limit)
        self.want_chunk = int(chunk_edges or CHUNK_EDGES)
        if self.want_chunk < 1:
            raise ValueError(f"chunk_edges must be >= 1; got {chunk_edges}")
        if copy_threads is not None and copy_threads < 1:
            raise ValueError(f"copy_threads must be >= 1; got {copy_threads}")
        self.copy_threads = copy_threads
        self.sparse = sparse
        #: a share of a call on several GPUs (``gconn.chunked.devices``): named so in errors
        self.share = None
        self.base = 0
        self.landing = None
        self._land_wanted = land
        self.cap = self.chunks = self.again = self.edges = self.chunk_edges = self._slot = 0
        self.max_id = -1
        #: how a CSR's rows were found: "whole" (one pass) or "chunks"
        self.csr_rows = None
        self.seconds = 0.0
        self._ready = False
        #: ids below this need smaller edge buffers (set by a chunk, acted on after it)
        self._short_of = None
        #: what :meth:`settle` checks of the last feed: (edges, bounds rows, CSR)
        self._pending = None

    def _vertex_bytes(self, idt) -> int:
        pb = 8 if self.plan.jtb else idt.itemsize
        return pb * (2 if self.plan.aux else 1) + (2 * idt.itemsize if self.forest else 0)

    def _setup(self, edges: HostEdges) -> None:
        """The chunk size that fits the budget beside the parent array, then the buffers."""
        # a declared vertex count beyond int32 needs int64 ids whatever the first chunk holds
        self.idt = np.dtype(np.int64) if self.n is not None and self.n > INT32_MAX + 1 else np.dtype(edges.dtype)
        self.p_dtype = np.dtype(np.int64) if self.plan.jtb else self.idt
        ptr = edges.indptr
        self.dtypes = dtypes_key(self.idt, self.idt if ptr is None else ptr.dtype, self.p_dtype)
        if self.n is not None:
            vertex_part = self.n * self._vertex_bytes(self.idt) + (0 if ptr is None else ptr.nbytes)
            if vertex_part > self.limit:
                raise MemoryError(
                    f"union-find over n={self.n} vertices needs {_size(vertex_part)} of GPU memory "
                    f"(O(n)), more than the device memory budget of {_size(self.limit)}")
            spare = self.limit - vertex_part
        else:
            spare = self.limit // 4   # the rest is kept for a parent array of unknown size
        #: the smallest chunk: buffers shrink back to it (bounds rows are counted with it)
        self._floor = int(min(self.want_chunk, spare // self._edge_bytes()))
        if self._floor < 1:
            raise MemoryError(f"the device memory budget of {_size(self.limit)} leaves no room for "
                              f"edge buffers beside the union-find arrays (n={self.n})")
        # one kernel for both: chunks checked on the host skip no pair (ids in range)
        self._kern = get("coo_ops", (self.plan.fin, self.plan.fopt, self.plan.sopt, TRACK_BOUNDS), self.dtypes)
        self.P = self.H = xp.empty(0, self.p_dtype)
        self.fa = self.fb = xp.empty(0, self.idt)
        self._Pv = self._Hv = dummy(self.p_dtype)
        self._fav = self._fbv = dummy(self.idt)
        self._buffers(self._floor)
        self._none = (dummy(np.int8), dummy(np.bool_), dummy(np.int64))
        self._pipe = _SimPipe(self) if SIM else _CudaPipe(self)
        self._ready = True
        if self.n is not None:
            self._grow(self.n)
        # else the first chunk, checked on the host (_put), sizes the arrays: one allocation, not two

    def _edge_bytes(self) -> int:
        return 2 * self.idt.itemsize * BUFFERS

    def _buffers(self, c: int) -> None:
        self.chunk_edges = int(c)
        self._dev = [(xp.empty(c, self.idt), xp.empty(c, self.idt)) for _ in range(BUFFERS)]
        # views of whole buffers are made once (a view costs ~10 us)
        self._devv = [(view(a), view(b)) for a, b in self._dev]

    def _widen(self, left: int) -> None:
        """Edge buffers as large as the budget allows once the first chunk sized
        the parent array; copies into them wait for the work launched so far,
        as their memory may be the old buffers'."""
        room = self.limit - self.cap * self._vertex_bytes(self.idt)
        c = min(self.want_chunk, room // self._edge_bytes(), max(left, self._floor))
        if c > self.chunk_edges + self.chunk_edges // 4:
            self._pipe.copies_after_compute()
            self._buffers(c)

    def _fits(self, need: int, extra: int = 0) -> bool:
        """Whether the union-find arrays for ids below ``need`` (and ``extra`` bytes) fit beside the buffers."""
        return need * self._vertex_bytes(self.idt) + self._edge_bytes() * self.chunk_edges + extra <= self.limit

    def _make_room(self, need: int) -> None:
        """Between chunks: shrink the edge buffers, grow the union-find arrays, widen the buffers again."""
        self._pipe.sync()
        if self.chunk_edges > self._floor:
            self._buffers(self._floor)
        self._grow(need)
        self._widen(self.want_chunk)

    def _grow(self, need: int) -> None:
        """Union-find arrays for ids below ``need``, at least doubling where the budget allows."""
        if need <= self.cap:
            return
        if self.n is not None:
            cap = max(self.n, 1)
        else:
            if self.sparse and need >= AUTO_MIN_RANGE and \
                    need > AUTO_RATIO * 2 * (self.edges + max(self.chunk_edges, self.want_chunk)):
                raise SparseIds(f"vertex id {need - 1} after {self.edges} edges: sparse ids")
            # the labels come back to the host: ids as sparse as 3000000000 fail here as for a Graph
            check_vertices(need, "the largest id of the chunked edges", vertex_id=need - 1, per_vertex=8)
            top = np.iinfo(self.idt).max + 1
            cap = min(max(1 << max(int(need) - 1, 0).bit_length(), 2 * self.cap), top)    # a power of two
        if not self._fits(cap):
            cap = need
        if not self._fits(cap):
            raise MemoryError(
                f"union-find over the ids seen so far (n={need}) needs "
                f"{_size(cap * self._vertex_bytes(self.idt))} of GPU memory (O(n)) beside "
                f"{_size(self._edge_bytes() * self.chunk_edges)} of edge buffers, more than the "
                f"device memory budget of {_size(self.limit)}")
        # no wait for the unions in flight: the new arrays are filled after them on their stream, and
        # CuPy's pool hands the old arrays' memory only to later work on that stream
        old = self.cap
        with memory.guard(f"growing the parent array to {cap} vertices"):
            P = xp.empty(cap, self.p_dtype)
            launch(get("init_parents", (), self.dtypes), cap, view(P), cap, persistent=True)
            if old:
                P[:old] = self.P[:old]
            if self.plan.aux:
                H = xp.full(cap, -1 if self.plan.aux == "hooks" else 0, self.p_dtype)
                if old:
                    H[:old] = self.H[:old]
            else:
                H = xp.zeros(1, self.p_dtype)
            if self.forest:
                fa, fb = xp.full(cap, -1, self.idt), xp.full(cap, -1, self.idt)
                if old:
                    fa[:old], fb[:old] = self.fa[:old], self.fb[:old]
            else:
                fa = fb = self.fa
        self.P, self.H, self.fa, self.fb, self.cap = P, H, fa, fb, cap
        self._Pv, self._Hv = view(P), view(H)
        self._fav, self._fbv = (view(fa), view(fb)) if self.forest else (dummy(self.idt), dummy(self.idt))

    def _check(self, index: int, offset: int, hs, hd, lo: int, hi: int) -> None:
        """Raise for negative ids, or ids >= n, naming the chunk and the first offending edge."""
        if lo < 0:
            bad = lambda a: a < 0                                      # noqa: E731
            why = "negative vertex id {v} ({w}[{i}]); ids must be >= 0"
        elif self.n is not None and hi >= self.n:
            bad = lambda a: a >= self.n                                # noqa: E731
            why = "vertex id {v} ({w}[{i}]) is out of range for n=" + str(self.n)
        else:
            return
        self._pipe.sync()
        offset += self.base
        where = f"edges {offset}..{offset + hd.size - 1}"
        where = f"chunk {index} ({where})" if self.share is None else f"{where} ({self.share})"
        named = (("indices", hd),) if hs is None else (("src", hs), ("dst", hd))
        for w, a in named:
            hits = np.flatnonzero(bad(np.asarray(a)))
            if hits.size:
                i = int(hits[0])
                raise ValueError(f"{where}: " + why.format(v=int(a[i]), w=w, i=offset + i))
        raise RuntimeError(f"chunk {index}: the device saw ids in {lo}..{hi}, which the host does not find")

    def feed(self, edges: HostEdges, settle: bool = True) -> None:
        """Union every edge of ``edges``, chunk by chunk, overlapped.

        ``settle=False`` with a known n returns once the last chunk is
        queued (the labels' kernels queue while copies are in flight);
        :meth:`settle` then waits and checks the ids."""
        self.settle()
        t0 = time.perf_counter()
        self.base = edges.base
        pieces = edges.chunks(self.want_chunk)
        if not self._ready:
            if self.n is None and edges.n is not None:
                self.n = edges.n
            if edges.dtype is None:     # an iterable: its first chunk says
                first = next(pieces, None)
                if first is None:
                    return
                pieces = itertools.chain([first], pieces)
            self._setup(edges)
        # chunks checked by the device, by bounds row: (chunk, offset, size, capacity at its union)
        rows: list = []
        on_device = edges.rereadable
        if on_device:
            self._pipe.bounds(-(-edges.m // self._floor))
        csr = None
        if edges.indptr is not None:
            if self.n != edges.n:
                raise ValueError(f"a CSR of n={edges.n} fed to a chunked union of n={self.n}")
            csr = _Csr(edges, self)
            self.csr_rows = "chunks" if csr.whole is None else "whole"
        try:
            with self._pipe.open():
                if csr is not None:
                    csr.send(self._pipe)
                if on_device:
                    pumps = self._pipe.pumps(edges, csr)
                    a = 0
                    while a < edges.m:
                        # native code up to a chunk that needs a larger parent array (and every PUMP_CHUNKS)
                        if pumps and self._sized:
                            a = self._pipe.pump(edges, a, rows, csr)
                            if a >= edges.m:
                                break
                        # cut as they are read: the chunk size changes when the buffers do
                        hs, hd = edges.piece(a, self.chunk_edges)
                        self._chunk(edges, a, hs, hd, rows, csr)
                        a += hd.size
                else:
                    for offset, hs, hd in pieces:
                        e = self.chunk_edges
                        for a in range(0, hd.size, e):
                            self._chunk(edges, offset + a, None if hs is None else hs[a:a + e], hd[a:a + e], rows,
                                        csr)
                if self._land_wanted:
                    self._land()
        except BaseException:
            self._pipe.sync()
            raise
        self._pending = (edges, rows, csr)
        if settle or self.n is None:
            self.settle()
        self.seconds += time.perf_counter() - t0

    def settle(self) -> None:
        """Wait for the last :meth:`feed`, raise its ids' errors and union again
        the chunks that met a parent array too small."""
        if self._pending is None:
            return
        edges, rows, csr = self._pending
        self._pending = None
        self._pipe.sync()
        self._verify(edges, rows, csr)

    @property
    def _sized(self) -> bool:
        """Whether n was given or the first chunk sized the parent array."""
        return self.n is not None or self.max_id >= 0

    def _chunk(self, edges: HostEdges, offset: int, hs, hd, rows: list, csr) -> None:
        """One chunk of :meth:`feed` through :meth:`_put`, then room for its ids or wider buffers."""
        on_device = edges.rereadable
        host = not (on_device and self._sized)
        row = None if host else len(rows)
        cap = self._put(offset, hs, hd, row, csr)
        if row is not None:
            rows.append((self.chunks, offset, hd.size, cap))
        self.chunks += 1
        if self._short_of is not None:
            self._make_room(self._short_of)
            self._short_of = None
        elif host and on_device:
            self._widen(edges.m - (offset + hd.size))

    def _land(self) -> None:
        """The labels' host memory (:func:`~gconn.backends.gpu.staging.landing`), written as the GPU works."""
        self._land_wanted = False
        size = self.n if self.n is not None else self.cap
        dtype = np.dtype(id_dtype(size))
        if size * dtype.itemsize >= LAND_BYTES:
            self.landing = landing(size, dtype)

    def _verify(self, edges: HostEdges, rows: list, csr) -> None:
        """Check the device's bounds; union again the chunks that met a parent array too small."""
        if csr is not None:
            why = csr.check()
            if why is not None:
                raise ValueError(why)
        if not edges.rereadable:
            return
        b = self._pipe.read_bounds(len(rows))
        again = []
        for row, (index, offset, size, cap) in enumerate(rows):
            lo, hi = int(b[row, 0]), int(b[row, 1])
            if lo < 0 or self.n is not None and hi >= self.n:
                self._check(index, offset, *edges.piece(offset, size), lo, hi)
            self.max_id = max(self.max_id, hi)
            if hi >= cap:
                again.append((offset, size))
        if again:
            if self._fits(self.max_id + 1):
                self._grow(self.max_id + 1)
            else:
                self._make_room(self.max_id + 1)
            try:
                with self._pipe.open():
                    for offset, size in again:
                        for a in range(offset, offset + size, self.chunk_edges):
                            self._put(a, *edges.piece(a, min(self.chunk_edges, offset + size - a)), None, csr,
                                      checked=True)
            finally:
                self._pipe.sync()
            self.again += len(again)

    def _put(self, offset: int, hs, hd, row, csr, checked: bool = False) -> int:
        """Stage, copy and union one chunk, its ids checked by the device into bounds ``row``
        or (``row`` None) on the host unless ``checked``; returns the capacity its unions saw."""
        s = self._slot % BUFFERS
        self._slot += 1
        hs = None if hs is None else self._cast(hs)
        hd = self._cast(hd)
        if row is None and not checked:
            lo, hi = self._pipe.copy_in(s, hs, hd, bounds=True)
            self._check(self.chunks, offset, hs, hd, lo, hi)
            self.max_id = max(self.max_id, hi)
            self._grow(hi + 1)
        else:
            self._pipe.copy_in(s, hs, hd, bounds=False)
            if row is not None and self.n is None:
                seen = self._pipe.seen()
                if seen >= self.cap:
                    if self._fits(seen + 1):
                        self._grow(seen + 1)
                    else:
                        # after this chunk (its buffer is in use): its ids
                        # beyond the parent array are unioned again at the end
                        self._short_of = seen + 1
        k = int(hd.size)
        ds, dd = self._dev[s]
        dsv, ddv = self._devv[s] if k == self.chunk_edges else (view(ds[:k]), view(dd[:k]))
        if csr is not None:
            dsv = csr.rows(offset, k, dsv)
        self._union(dsv, ddv, k, row)
        self._pipe.after_union(s, row)
        if not checked:
            self.edges += k
        return self.cap

    def _union(self, dsv, ddv, k: int, row=None) -> None:
        """UnionAsync (the plan's union) of ``k`` device edges, their bounds into ``row`` unless None."""
        none = self._none
        launch(self._kern, k, self._Pv, self._Hv, dsv, ddv, none[0], k, OP_UNION, int(self.forest), self._fav,
               self._fbv, none[1], self.cap, self._pipe.bv if row is not None else none[2],
               -1 if row is None else row, WARP, persistent=True)

    def take(self, src, dst, max_id: int) -> None:
        """Union edges held by a device (this one or another: copied here through the edge
        buffers), ids at most ``max_id``, after a settled :meth:`feed`; as the feed, with the
        forest's slots where it tracks a forest."""
        if self._pending is not None or not self._ready:
            raise RuntimeError("take() follows a settled feed")
        if max_id >= self.cap:
            self._make_room(max_id + 1)
        self.max_id = max(self.max_id, max_id)
        k = self.chunk_edges
        for a in range(0, int(src.size), k):
            s = self._slot % BUFFERS
            self._slot += 1
            ds, dd = self._dev[s]
            c = min(k, int(src.size) - a)
            self._pipe.device_copy(ds, src[a:a + c])
            self._pipe.device_copy(dd, dst[a:a + c])
            self._union(*(self._devv[s] if c == k else (view(ds[:c]), view(dd[:c]))), c)
        self._pipe.sync()

    def _release(self) -> None:
        """Drop the edge buffers before the feed settles, for later work on the compute stream."""
        self._dev = self._devv = None
        csr = self._pending[2]
        if csr is not None:
            csr.dptr = csr.ptrv = csr.whole = None

    def _cast(self, a):
        """A later chunk of an iterable whose ids are wider than the first's."""
        if not np.can_cast(a.dtype, self.idt, "safe") and a.size and int(a.max()) > np.iinfo(self.idt).max:
            raise WiderIds(f"vertex id {int(a.max())} does not fit the {self.idt} ids of the first chunk; "
                           "pass int64 chunks from the start")
        return a

    def result(self):
        """(roots, forest_src, forest_dst, n) on the device."""
        n = self.n if self.n is not None else self.max_id + 1
        out = np.dtype(id_dtype(n))
        if not self._ready or not self.cap:     # no edges: nothing sized the arrays
            return xp.arange(n, dtype=out), xp.empty(0, out), xp.empty(0, out), n
        if self._pending is None:
            self._pipe.sync()
            seen = self.max_id + 1
        else:
            # unsettled, so n is known: ids not seen are roots of their own
            seen = n
            self._release()
        jtb = self.plan.jtb
        roots = flat_roots(get("compress", (jtb,), self.dtypes), seen, self.P, self._Pv, jtb, self.idt)
        fa, fb = self.fa[:seen], self.fb[:seen]
        if seen < n or roots.dtype != out:
            full = xp.arange(n, dtype=out)
            full[:seen] = roots
            roots = full
        if self.forest and fa.dtype != out:
            fa, fb = fa.astype(out), fb.astype(out)
        return roots, fa, fb, n


class _Csr:
    """A CSR sent in chunks: offsets on the device, entries' rows found there (all at
    once into ``whole`` where the budget allows, else per chunk), offsets checked."""

    def __init__(self, edges: HostEdges, st: ChunkedUnion):
        self.edges = edges
        ptr = edges.indptr
        with memory.guard(f"copying the offsets of a CSR with n={edges.n} to the GPU"):
            self.dptr = xp.empty(ptr.size, ptr.dtype)
        self.ptrv = view(self.dptr)
        self.kern, self.order = get("csr_rows", (), st.dtypes), get("csr_order", (), st.dtypes)
        self.pipe = st._pipe
        self.ordered = False
        self.whole = None
        if edges.m and st._fits(st.cap, ptr.nbytes + edges.m * st.idt.itemsize):
            with memory.guard(f"finding the rows of a CSR's {edges.m} entries"):
                self.whole = xp.empty(edges.m, st.idt)

    def send(self, pipe) -> None:
        """The offsets ahead of the first chunk; then ``whole``'s rows and the offsets' check."""
        pipe.send_whole(self.dptr, self.edges.indptr)
        if self.whole is None:
            return
        pipe.compute_after_copies()
        m = self.edges.m
        launch(self.kern, m, self.ptrv, 0, m, 0, max(self.edges.n - 1, 0), view(self.whole), persistent=True)
        self._check_order()

    def rows(self, offset: int, k: int, outv):
        """The device view of the rows of entries ``offset .. offset + k - 1`` (into ``outv`` unless ``whole``)."""
        if self.whole is not None:
            return view(self.whole[offset:offset + k])
        r0, r1 = self.edges.rows(offset, k)
        launch(self.kern, k, self.ptrv, offset, k, r0, r1, outv, persistent=True)
        if not self.ordered:
            # after the first chunk's copy, so after the offsets'; its flag comes back with the bounds
            self._check_order()
        return outv

    def _check_order(self) -> None:
        self.ordered = True
        rows = self.dptr.size - 1
        if rows > 0:
            pipe = self.pipe
            launch(self.order, rows, self.ptrv, rows, pipe.bv, 2 * pipe.rows + 1, persistent=True)
            pipe.back(pipe.rows)

    def check(self) -> str | None:
        """Where the offsets decrease, as an error message."""
        if not (self.ordered and self.pipe.flagged()):
            return None
        ptr = self.edges.indptr
        bad = np.flatnonzero(np.diff(ptr) < 0)
        where = f" from {int(ptr[bad[0]])} to {int(ptr[bad[0] + 1])} at row {int(bad[0])}" if bad.size else ""
        return f"indptr decreases{where}; a CSR's offsets never decrease"


class _SimPipe:
    """The simulator's transfers: plain copies, nothing asynchronous; the base of :class:`_CudaPipe`."""

    def __init__(self, st: ChunkedUnion):
        # a proxy: a cycle with the ChunkedUnion would keep its device buffers until the garbage collector ran
        self.st = weakref.proxy(st)
        self.b = self.bv = self.host = None

    def open(self):
        return _threads(self.st.copy_threads)

    def copy_in(self, s, hs, hd, bounds: bool):
        """Stage the chunk into slot ``s``'s buffers (dst alone for a CSR); the ids' bounds when asked for."""
        acc = None
        ds, dd = self.st._dev[s]
        for dev, arr in ((dd, hd),) if hs is None else ((ds, hs), (dd, hd)):
            acc = self._send(dev, arr, bounds, acc)
        return acc

    def _send(self, dev, arr, bounds: bool, acc):
        return fill(dev, arr, bounds, acc)

    def send_whole(self, dev, host) -> None:
        dev[:] = host

    def device_copy(self, dev, other) -> None:
        """The device array ``other`` (any device) into the front of ``dev``, in order with the unions."""
        dev[:other.size] = other

    def _nothing(self, *args) -> None:
        """Nothing to order or wait for: the simulator's copies and kernels run in turn."""

    compute_after_copies = copies_after_compute = back = after_union = sync = _nothing

    def bounds(self, rows: int) -> None:
        self.rows = rows
        self.b = self.bv = self.host = _clear_bounds(np.empty(2 * (rows + 1), np.int64))

    def seen(self) -> int:
        return int(self.b[1:2 * self.rows:2].max(initial=-1))

    def read_bounds(self, rows: int):
        return self.b[:2 * rows].reshape(rows, 2)

    def flagged(self) -> bool:
        """Whether a kernel set the flag pair (waits for the streams)."""
        self.sync()
        return bool(self.host[2 * self.rows + 1] > 0)

    def pumps(self, edges, csr) -> bool:
        return False


def _clear_bounds(b, largest: int = -1):
    """Every (smallest, largest) pair of the flat ``b`` set to (int64 max, ``largest``)."""
    b[0::2] = np.iinfo(np.int64).max
    b[1::2] = largest
    return b


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


#: pinned memory kept between runs (cudaHostAlloc is slow), [(bytes in all, memory, event after its last copy)]:
#: the staging pieces (bytes a piece, ``RING`` pieces) and the chunks' bounds; up to ``KEEP`` blocks
#: each, for the feeds that run at once (one a GPU, ``gconn.chunked.devices``)
_PINNED: list = []
_BOUNDS: list = []
_PINNED_LOCK = Lock()
KEEP = 8


def _take(kept: list, nbytes: int, times: int = 1) -> tuple[int, object]:
    """(bytes of each, memory) of ``times`` blocks of at least ``nbytes``: a kept one, else a new one."""
    with _PINNED_LOCK:
        fits = [i for i, b in enumerate(kept) if b[0] >= times * nbytes]
        block = kept.pop(fits[-1]) if fits else None    # the smallest that fits (sorted largest first)
    if block is None:
        return nbytes, xp.cuda.alloc_pinned_memory(times * nbytes)
    if block[2] is not None:
        block[2].synchronize()      # the last copy out of it
    return block[0] // times, block[1]


def _keep(kept: list, size: int, mem, done=None) -> None:
    """Keep this block, dropping the smallest kept one beyond ``KEEP``."""
    with _PINNED_LOCK:
        kept.append((size, mem, done))
        kept.sort(key=lambda b: -b[0])
        dropped = kept.pop() if len(kept) > KEEP else None
    if dropped is not None and dropped[2] is not None:
        dropped[2].synchronize()      # before its memory is freed


class _CudaPipe(_SimPipe):
    """Copies on a non-blocking copy stream, unions on CuPy's current stream.

    A chunk's copy waits for the last union of its device buffer and its
    union for the copy (CUDA events); the host waits only before refilling
    a staging piece.  Each chunk's bounds follow its union back to pinned
    memory (:meth:`seen`)."""

    def __init__(self, st: ChunkedUnion):
        super().__init__(st)
        cp = xp
        self.copy_stream = cp.cuda.Stream(non_blocking=True)
        self.compute = cp.cuda.get_current_stream()
        ev = lambda: cp.cuda.Event(disable_timing=True)   # noqa: E731
        self.copied = [ev() for _ in range(BUFFERS)]
        self.unioned = [ev() for _ in range(BUFFERS)]
        self.ring = None
        self.arrived = 0
        self.top = -1

    @contextmanager
    def open(self):
        """One feed, its staging pieces taken from the kept ones and given back after."""
        st = self.st
        isz = st.idt.itemsize
        # sized for the chunks asked for, not the first chunk of a budget (slower pieces), and at
        # least 4 KiB: a CSR's offsets go through them too
        piece = max(min(PIECE_BYTES // isz, max(st.chunk_edges, st.want_chunk)), 4096 // isz)
        size, mem = _take(_PINNED, piece * isz, RING)
        self.block = np.frombuffer(mem, st.idt, RING * (size // isz)).reshape(RING, size // isz)
        self.ring = Ring([row[:piece] for row in self.block])
        try:
            with _threads(st.copy_threads):
                yield
        finally:
            done = xp.cuda.Event(disable_timing=True)
            done.record(self.copy_stream)
            self.ring = self.block = None
            _keep(_PINNED, RING * size, mem, done)

    def copy_in(self, s, hs, hd, bounds: bool):
        self.copy_stream.wait_event(self.unioned[s])    # the buffer's last union is done
        acc = super().copy_in(s, hs, hd, bounds)
        self.copied[s].record(self.copy_stream)
        self.compute.wait_event(self.copied[s])
        return acc

    def _send(self, dev, arr, bounds: bool, acc):
        return self.ring.send(dev.data.ptr, arr, self.copy_stream, bounds, acc)

    def send_whole(self, dev, host) -> None:
        """``host`` into the device array ``dev`` on the copy stream."""
        self.ring.send(dev.data.ptr, host, self.copy_stream, raw=True)

    def device_copy(self, dev, other) -> None:
        if other.size:
            rt = xp.cuda.runtime
            rt.memcpyAsync(dev.data.ptr, other.data.ptr, other.nbytes, rt.memcpyDefault, self.compute.ptr)

    def compute_after_copies(self) -> None:
        """Later compute work waits for the copies started so far."""
        _after(self.compute, self.copy_stream)

    def copies_after_compute(self) -> None:
        """Later copies wait for the compute work so far, and so for every use of memory freed before."""
        _after(self.copy_stream, self.compute)

    def bounds(self, rows: int) -> None:
        """Slots for ``rows`` chunks' bounds and a flag pair, on the device and pinned (kept between runs)."""
        size = 2 * (rows + 1)
        self.rows = rows
        self.kept = kept = _take(_BOUNDS, max(16 * size, 4096))
        pinned = np.frombuffer(kept[1], np.int64, 2 * size)
        self.host, start = _clear_bounds(pinned[:size], _NOT_BACK), _clear_bounds(pinned[size:])
        self.b = xp.empty(size, np.int64)
        rt = xp.cuda.runtime
        # the image is rewritten only after the run's last wait (read_bounds)
        rt.memcpyAsync(self.b.data.ptr, start.ctypes.data, 8 * size, rt.memcpyHostToDevice, self.compute.ptr)
        self.bv = view(self.b)
        self.arrived = 0
        self.top = -1

    def seen(self) -> int:
        """The largest id of the chunks whose bounds are back (no wait: pairs land in order)."""
        h = self.host
        while self.arrived < self.rows and h[2 * self.arrived + 1] != _NOT_BACK:
            self.top = max(self.top, int(h[2 * self.arrived + 1]))
            self.arrived += 1
        return self.top

    def read_bounds(self, rows: int):
        self.sync()
        out = self.host[:2 * rows].reshape(rows, 2).copy()
        _keep(_BOUNDS, *self.kept)
        self.host = self.kept = None
        return out

    def back(self, row: int) -> None:
        """Pair ``row`` back to pinned memory after the compute work so far."""
        rt = xp.cuda.runtime
        rt.memcpyAsync(self.host.ctypes.data + 16 * row, self.b.data.ptr + 16 * row, 16,
                       rt.memcpyDeviceToHost, self.compute.ptr)

    def after_union(self, s, row) -> None:
        if row is not None:
            self.back(row)
        self.unioned[s].record(self.compute)

    def sync(self) -> None:
        self.copy_stream.synchronize()
        self.compute.synchronize()

    def pumps(self, edges: HostEdges, csr) -> bool:
        """Whether :meth:`pump` can take this feed: contiguous arrays of the ids' type (or a whole
        CSR), a directly launchable kernel, and numba's CPU kernels loaded (``staging.cold()``)."""
        st = self.st
        sides = (edges.dst,) if edges.src is None else (edges.src, edges.dst)
        return (PUMP and not cold() and edges.rereadable and (csr is None or csr.whole is not None)
                and all(a.dtype == st.idt and a.flags.c_contiguous for a in sides)
                and addresses() is not None and bool(direct(st._kern)))

    def pump(self, edges: HostEdges, a: int, rows: list, csr) -> int:
        """At most ``PUMP_CHUNKS`` checked chunks from edge ``a`` by :func:`_pump`; returns where it stopped."""
        st = self.st
        d = direct(st._kern)
        none = st._none
        k = st.chunk_edges
        params = np.array([d.values((st._Pv, st._Hv, ds, dd, none[0], k, OP_UNION, int(st.forest), st._fav,
                                     st._fbv, none[1], st.cap, self.bv, 0, WARP)) for ds, dd in st._devv],
                          np.int64)
        # what a chunk rewrites (feed._AT_*): coo_ops's m (argument 5), the sizes and shapes of src (2) and
        # dst (3), src's data (a CSR's rows) and the bounds row (13)
        at = np.array([d.field(5), d.field(2) + 2, d.field(2) + 5, d.field(2) + 4, d.field(3) + 2, d.field(3) + 5,
                       d.field(13)], np.int64)
        ptrs = (np.arange(params.size, dtype=np.int64) * 8 + params.ctypes.data).reshape(params.shape)
        events = np.array([e.ptr for e in self.ring.freed + self.copied + self.unioned], np.int64)
        dbuf = np.array([(ds.data.ptr, dd.data.ptr) for ds, dd in st._dev], np.int64)
        c = np.zeros(_CONTROL, np.int64)
        c[_A], c[_M], c[_CHUNK], c[_ROW], c[_ROWS] = a, edges.m, k, len(rows), self.rows
        c[_ARRIVED], c[_TOP], c[_CAP], c[_WATCH] = self.arrived, self.top, st.cap, st.n is None
        c[_TURN], c[_SLOT], c[_PIECE], c[_PIECES] = self.ring.turn, st._slot, self.ring.piece, self.block.ctypes.data
        c[_ISZ], c[_SHARES], c[_SRC] = st.idt.itemsize, SHARES, edges.src is not None
        c[_WHOLE] = 0 if csr is None else csr.whole.data.ptr
        c[_COPY], c[_COMPUTE], c[_KERNEL] = self.copy_stream.ptr, self.compute.ptr, handle(d.handle)
        c[_GRIDS], c[_BLOCK], c[_PTRS] = persistent_grid(), BLOCK, ptrs.ctypes.data
        c[_HOSTB], c[_DEVB], c[_LIMIT] = self.host.ctypes.data, self.b.data.ptr, PUMP_CHUNKS
        src = edges.dst[:0] if edges.src is None else edges.src
        c[_DIRECT] = all(pinned(x) for x in (src, edges.dst) if x.size)
        _pump(addresses(), src, edges.dst, self.block, events, dbuf, params, at, self.host, c)
        for o in range(a, int(c[_A]), k):
            rows.append((st.chunks, o, min(k, edges.m - o), st.cap))
            st.chunks += 1
            st.edges += min(k, edges.m - o)
        self.ring.turn, st._slot = int(c[_TURN]), int(c[_SLOT])
        self.arrived, self.top = int(c[_ARRIVED]), int(c[_TOP])
        if c[_ERR]:
            self.sync()
            raise RuntimeError(f"{NAMES[int(c[_CALL])]} failed with CUDA error {int(c[_ERR])} in the chunked "
                               f"feed (edges from {int(c[_A])})")
        return int(c[_A])


_HOST_MEMORY = 1      # cudaMemoryTypeHost


def pinned(a: np.ndarray) -> bool:
    """Whether the host array ``a`` lies in page-locked memory (``cudaHostAlloc``, ``cudaHostRegister``),
    from which the GPU copies at its link's rate with no staging."""
    if SIM or a.size == 0:
        return False
    rt = xp.cuda.runtime
    try:
        return all(rt.pointerGetAttributes(p).type == _HOST_MEMORY
                   for p in (a.ctypes.data, a.ctypes.data + a.nbytes - 1))
    except rt.CUDARuntimeError:
        return False


def _after(waiting, stream) -> None:
    """Later work on ``waiting`` runs after the work on ``stream`` so far (no host wait)."""
    done = xp.cuda.Event(disable_timing=True)
    done.record(stream)
    waiting.wait_event(done)


# -- the native feed (gconn.chunked.gpu_feed) ------------------------------------------------

#: whether :meth:`_CudaPipe.pump` runs (False: every chunk through :meth:`ChunkedUnion._put`)
PUMP = True
#: chunks a pump runs before it returns to the host (so that a Ctrl-C is seen)
PUMP_CHUNKS = 64


def chunked_union(edges, variant="none+union-async+find-halve", *, n=None, forest=False, chunk_edges=None,
                  device_memory=None, copy_threads=None):
    """Union-find over host ``edges`` (:class:`HostEdges`) sent to the GPU in chunks; returns the
    :class:`ChunkedUnion` (``st.result()`` -> roots, forest slots, n)."""
    v = variant if isinstance(variant, Variant) else Variant.parse(variant, "forest" if forest else "cc")
    st = ChunkedUnion(Plan.of(v), n=n, forest=forest, chunk_edges=chunk_edges,
                      limit=budget(device_memory), copy_threads=copy_threads)
    st.feed(edges if isinstance(edges, HostEdges) else HostEdges(edges))
    return st


#: the variant of an automatic choice that streams
CHUNKED_VARIANT = "none+union-async+find-halve"


def asked_variant(algorithm, problem: str, params: dict) -> tuple[Variant, bool]:
    """The variant asked for (:data:`CHUNKED_VARIANT` for an automatic choice), and whether it was automatic."""
    design.check_param_names(params)
    auto = design.is_auto(algorithm)
    return Variant.parse(CHUNKED_VARIANT if auto else algorithm, problem), auto


def _int_array(a) -> bool:
    # uint64 ids may not fit int64: the resident path says which one
    return isinstance(a, np.ndarray) and a.ndim == 1 and (
        a.dtype.kind == "i" or (a.dtype.kind == "u" and a.dtype.itemsize < 8))


def raw_edges(obj):
    """``obj`` as a chunked source when it is raw host edges, else None."""
    raw = (isinstance(obj, tuple) and len(obj) == 2 and all(_int_array(a) for a in obj)
           or isinstance(obj, np.ndarray) and obj.ndim == 2 and obj.shape[1] == 2 and obj.shape[0] != 2
           and _int_array(obj[:, 0])
           or isinstance(obj, (str, os.PathLike)) and os.fspath(obj).endswith((".gcb", ".npy"))
           or isinstance(obj, Iterator))
    return obj if raw else None


def _one_chunk(src, dst, plan: Plan, forest: bool, land: bool, sparse: bool):
    """Host edges that fit one chunk (``(src, dst)`` contiguous arrays of one integer type, at most
    ``CHUNK_EDGES``) through one stream: staged with their bounds into pinned memory, one copy, a parent
    array sized by the bounds, the union kernel.  (roots, forest slots, n, seconds, landing), or None
    for :class:`ChunkedUnion` (other arrays, an id to name, a plan with auxiliary arrays): a feed's
    streams, events, ring and bounds rows cost a small input more than its copy."""
    m = src.size
    idt = src.dtype
    if not (0 < m <= CHUNK_EDGES and dst.size == m and dst.dtype == idt and idt in (np.int32, np.int64)
            and src.ndim == dst.ndim == 1 and src.flags.c_contiguous and dst.flags.c_contiguous
            and not plan.aux and not plan.jtb):
        return None
    t0 = time.perf_counter()
    isz = idt.itemsize
    if SIM:
        edges = xp.empty(2 * m, idt)
        host = edges
    else:
        size, mem = _take(_PINNED, 2 * m * isz)
        host = np.frombuffer(mem, idt, 2 * m)
    lo, hi = fill(host[:m], src, True)
    lo, hi = fill(host[m:], dst, True, (lo, hi))
    n = hi + 1
    # ChunkedUnion names the first negative id, and declines ids as sparse as its first chunk's would be
    if lo < 0 or sparse and n >= AUTO_MIN_RANGE and n > AUTO_RATIO * 2 * CHUNK_EDGES:
        if not SIM:
            _keep(_PINNED, size, mem)
        return None
    check_vertices(n, "the largest id of the chunked edges", vertex_id=hi, per_vertex=8)
    dtypes = dtypes_key(idt, idt, idt)
    with memory.guard(f"union-find over {m} host edges and n={n} vertices"):
        if not SIM:
            edges = xp.empty(2 * m, idt)
            stream = xp.cuda.get_current_stream()
            rt = xp.cuda.runtime
            rt.memcpyAsync(edges.data.ptr, host.ctypes.data, 2 * m * isz, rt.memcpyHostToDevice, stream.ptr)
            done = xp.cuda.Event(disable_timing=True)
            done.record(stream)
            _keep(_PINNED, size, mem, done)
        P = xp.empty(n, idt)
        Pv = view(P)
        launch(get("init_parents", (), dtypes), n, Pv, n, persistent=True)
        if forest:
            fa, fb = xp.full(n, -1, idt), xp.full(n, -1, idt)
            fav, fbv = view(fa), view(fb)
        else:
            fa = fb = xp.empty(0, idt)
            fav = fbv = dummy(idt)
        kern = get("coo_ops", (plan.fin, plan.fopt, plan.sopt, TRACK_BOUNDS), dtypes)
        launch(kern, m, Pv, dummy(idt), view(edges[:m]), view(edges[m:]), dummy(np.int8), m, OP_UNION, int(forest),
               fav, fbv, dummy(np.bool_), n, dummy(np.int64), -1, WARP, persistent=True)
        roots = flat_roots(get("compress", (False,), dtypes), n, P, Pv, False, idt)
    out = np.dtype(id_dtype(n))
    if roots.dtype != out:
        roots, fa, fb = roots.astype(out), fa.astype(out), fb.astype(out)
    wanted = None
    if land and n * out.itemsize >= LAND_BYTES:
        wanted = landing(n, out)
    return roots, fa, fb, n, time.perf_counter() - t0, wanted


def _settled() -> None:
    """A feed with nothing left to check."""


def _resident_bytes(obj, plan: Plan, forest: bool) -> int:
    """Device bytes of a resident run: the graph's arrays and the plan's."""
    if isinstance(obj, Graph):
        n, m, ib = obj.n, obj.m_input, obj.id_dtype.itemsize
        arrays = 2 * m * ib if plan.needs == "edges" else (n + 1) * 8 + 2 * m * ib
        return arrays + plan.device_bytes(n, m, ib, 8, forest, 1)
    if isinstance(obj, (str, os.PathLike)):
        size = os.path.getsize(obj)
        return 2 * size + plan.device_bytes(0, size // 8, 4, 8, forest, 1)
    if isinstance(obj, tuple):
        m, ib = obj[0].size, max(obj[0].itemsize, 4)
    else:
        m, ib = obj.shape[0], max(obj.itemsize, 4)
    # n <= 2m; indptr, indices (2m), src, dst
    return 2 * m * 8 + 4 * m * ib + plan.device_bytes(2 * m, m, ib, 8, forest, 1)


def run(graph, algorithm, problem: str, params: dict, *, device_memory, return_stats: bool, info=None, relabel=False):
    """Run ``graph`` by the chunked route when it should (module docstring):
    ``(plan, stats, roots, forest_src, forest_dst, landing, settle)``, or None
    for the resident route.  Call ``settle()`` once later work has been
    waited for: it raises the input's errors."""
    forest = problem == "forest"
    if type(graph).__module__.startswith("scipy.sparse") and hasattr(graph, "tocsr"):
        graph = Graph.from_scipy(graph)
    src = raw_edges(graph)
    text = src is None and isinstance(graph, (str, os.PathLike))
    if src is None and not text and not (isinstance(graph, Graph) and not graph.on_gpu):
        return None
    asked, auto = asked_variant(algorithm, problem, params)
    edges_only = asked.sampling == "none" and asked.is_union_find
    if text:
        # a streamable text edge list (``info``: its FileInfo)
        src = of_file(info) if edges_only and info is not None and info.format == "edgelist" else None
        if src is None or isinstance(src, str):
            return None
    limit = None
    chosen = False
    if isinstance(graph, Graph) and auto:
        # a host graph: the automatic choice it would get resident (a named variant runs resident)
        asked = design.choose(graph, problem, backend="gpu", chunked=True)
        chosen = asked.sampling == "none" and asked.is_union_find
    if src is not None and edges_only or chosen:
        v = asked.with_params(**params)
    elif isinstance(graph, Iterator) or \
            _resident_bytes(graph, Plan.of(asked), forest) > (limit := budget(device_memory)):
        # sampling options do not apply to it
        if asked.is_union_find and (problem == "cc" or asked.root_based):
            v = Variant("none", asked.finish, asked.find, asked.splice)
        else:
            v = Variant.parse(CHUNKED_VARIANT, problem)
    else:
        return None
    if isinstance(graph, Graph):
        # a matrix's CSR streams as it is, else the edge list
        f = graph._forms
        csr = "input-csr" in f and not ("edges" in f or "canonical" in f)
        src = HostEdges.of_csr(*f["input-csr"], graph.n) if csr else graph.edges()
    plan = Plan.of(v)
    # raw edges (n unknown: their bounds size the parents) under no budget
    if type(src) is tuple and not isinstance(graph, Graph) and device_memory is None \
            and not os.environ.get(ENV, "").strip():
        one = _one_chunk(*src, plan, forest, land=not forest, sparse=relabel == "auto")
        if one is not None:
            roots, fa, fb, n, seconds, land = one
            m = int(src[0].size)
            stats = _stats(plan, n, m, 1, m, seconds) if return_stats else None
            return plan, stats, roots, fa, fb, land, _settled
    # a file's declared vertex count (EdgeChunks.n) keeps its isolated vertices
    n = graph.n if isinstance(graph, Graph) else getattr(src, "n", None)
    st = ChunkedUnion(plan, n=n, forest=forest, limit=budget(device_memory) if limit is None else limit,
                      land=not forest, sparse=relabel == "auto")
    try:
        st.feed(src if isinstance(src, HostEdges) else HostEdges(src), settle=False)
    except SparseIds:
        return None     # sparse ids under relabel="auto": the resident route relabels them
    except WiderIds:
        if not text:
            raise
        return None     # a file's ids outgrow int32 after its first chunk: it is loaded whole
    roots, fa, fb, n = st.result()
    if isinstance(graph, Graph) and roots.dtype != graph.id_dtype:
        roots, fa, fb = (a.astype(graph.id_dtype) for a in (roots, fa, fb))
    stats = _stats(plan, n, st.edges, st.chunks, st.chunk_edges, st.seconds) if return_stats else None
    return plan, stats, roots, fa, fb, st.landing, st.settle


def _stats(plan: Plan, n: int, m: int, chunks: int, chunk_edges: int, seconds: float) -> Stats:
    stats = Stats(variant=plan.name, backend="gpu", n=n, m=m, chunked=True, chunks=chunks, chunk_edges=chunk_edges)
    stats.phase_times["chunked"] = seconds
    stats.edge_inspections["finish"] = m
    return stats
