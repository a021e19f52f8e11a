"""Copies between pageable host memory and the GPU through pinned buffers
filled on all cores (the driver's own staging is single-threaded): the chunked
route's chunks (``Ring``), whole arrays (:func:`put`), results (:func:`fetch`,
``landing()``).  CPU kernels: ``gconn warmup`` compiles them without a GPU.
Until a process has loaded numba's CPU kernels, the copies run on NumPy
(``cold()``): loading them costs a fresh process more than its first call's
copies.

>>> import numpy as np
>>> out = np.empty(5, np.int32)
>>> stage(out, np.array([4, 0, 9, 2, 7], np.int64)), out.tolist()
((0, 9), [4, 0, 9, 2, 7])
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
import warnings
import weakref
from contextlib import suppress
from functools import cache

import numpy as np
from numba import config, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from gconn.graph.build import PASS_SERIAL_BELOW, serial_twin

#: elements per parallel block of a copy (below this, one thread copies)
BLOCK = 1 << 16
#: the shares of :func:`copy_shares` (fixed: asking numba its thread count costs host time)
SHARES = config.NUMBA_NUM_THREADS

#: Seconds of NumPy copies after which a process loads numba's parallel ones: about what loading them
#: costs a fresh process (numba's CPU registries, which import SciPy's BLAS, and the kernels' cache:
#: 0.6 s of a first call from 2**26 host edges on an H200 host, BENCHMARKS.md "GPU: from host data").
#: As in ski rental (and :data:`gconn.backends.aot.LOAD_SECONDS`); a process that has loaded numba's
#: CPU kernels for anything takes the parallel copies at once.
LOAD_SECONDS = 0.6
#: seconds of NumPy copies so far
_spent = [0.0]


def cold() -> bool:
    """Whether host copies run on NumPy: numba's CPU kernels not loaded in this process
    (``numba.np.arraymath`` is among the modules their first load imports) and NumPy's copies so
    far cheaper than that load."""
    return _spent[0] < LOAD_SECONDS and "numba.np.arraymath" not in sys.modules


#: elements per NumPy call of a cold copy (NumPy releases the GIL in each: the shares run at once)
PART = 1 << 18
_POOL: list = []


def _pool():
    if not _POOL:
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_POOL.clear)     # a forked child has none of the threads
        from concurrent.futures import ThreadPoolExecutor
        _POOL.append(ThreadPoolExecutor(SHARES, thread_name_prefix="gconn-copy"))
    return _POOL[0]


def _numpy_share(out, a, s, e, bounds):
    lo = hi = None
    for b in range(s, e, PART):
        x = a[b:min(b + PART, e)]
        out[b:b + x.size] = x
        if bounds:
            xl, xh = int(x.min()), int(x.max())
            lo, hi = (xl, xh) if lo is None else (min(lo, xl), max(hi, xh))
    return lo, hi


def _numpy_copy(out: np.ndarray, a: np.ndarray, bounds: bool):
    """``out[:a.size] = a`` (cast) by NumPy on :data:`SHARES` threads; a's (min, max) where ``bounds``."""
    t = time.perf_counter()
    k = min(SHARES, -(-a.size // PART))
    if k <= 1:
        parts = [_numpy_share(out, a, 0, a.size, bounds)]
    else:
        cuts = [a.size * i // k for i in range(k + 1)]
        parts = list(_pool().map(lambda i: _numpy_share(out, a, cuts[i], cuts[i + 1], bounds), range(k)))
    _spent[0] += time.perf_counter() - t
    return (min(p[0] for p in parts), max(p[1] for p in parts)) if bounds else None


@njit(parallel=True, nogil=True, cache=True)
def _copy_bounds(out, a):
    """out[:] = a (cast) by blocks in parallel; returns a's (min, max)."""
    n = a.size
    blocks = (n + BLOCK - 1) // BLOCK
    lo = np.empty(blocks, np.int64)
    hi = np.empty(blocks, np.int64)
    for b in prange(blocks):
        s = b * BLOCK
        e = min(s + BLOCK, n)
        piece = a[s:e]
        out[s:e] = piece
        lo[b] = piece.min()
        hi[b] = piece.max()
    return lo.min(), hi.max()


_copy_bounds_serial = serial_twin(_copy_bounds)


def stage(out: np.ndarray, a: np.ndarray) -> tuple[int, int]:
    """Copy integer ``a`` into ``out[:a.size]`` on all cores; its (min, max), (0, -1) if empty."""
    if a.size == 0:
        return 0, -1
    if cold():
        return _numpy_copy(out, a, True)
    lo, hi = (_copy_bounds_serial if a.size < PASS_SERIAL_BELOW else _copy_bounds)(out[:a.size], a)
    return int(lo), int(hi)


def copy_into(out: np.ndarray, a: np.ndarray) -> None:
    """Copy ``a`` into ``out[:a.size]`` (cast) on all cores.

    >>> out = np.zeros(4, np.int32)
    >>> copy_into(out, np.array([3, 1], np.int64)); out.tolist()
    [3, 1, 0, 0]
    """
    if not a.size:
        return
    if a.size < PASS_SERIAL_BELOW:
        out[:a.size] = a
    elif cold():
        _numpy_copy(out, a, False)
    elif out.dtype == a.dtype and out.flags.c_contiguous and a.flags.c_contiguous:
        copy_shares(out[:a.size], a, SHARES)
    else:
        _copy(out[:a.size], a)


@intrinsic
def _memcpy(typingctx, out, a, start, count):
    """``out[start:start + count] = a[start:start + count]`` by LLVM's memcpy."""
    if not (isinstance(out, types.Array) and isinstance(a, types.Array) and out.dtype == a.dtype
            and out.layout == "C" and a.layout == "C"):
        return None
    sig = types.void(out, a, types.intp, types.intp)

    def codegen(context, builder, signature, args):
        o = context.make_array(signature.args[0])(context, builder, args[0])
        x = context.make_array(signature.args[1])(context, builder, args[1])
        size = context.get_abi_sizeof(context.get_data_type(signature.args[1].dtype))
        cgutils.raw_memcpy(builder, cgutils.gep(builder, o.data, args[2]), cgutils.gep(builder, x.data, args[2]),
                           args[3], size)
        return context.get_dummy_value()

    return sig, codegen


@njit(parallel=True, nogil=True, cache=True)
def copy_shares(out, a, threads):
    """out[:] = a (contiguous, one type): one ``memcpy`` per thread."""
    n = a.size
    parts = max(min(threads, n // BLOCK), 1)
    step = (n + parts - 1) // parts
    for t in prange(parts):
        s = t * step
        e = min(s + step, n)
        if e > s:
            _memcpy(out, a, s, e - s)


@njit(parallel=True, nogil=True, cache=True)
def _copy(out, a):
    """out[:] = a by blocks in parallel, cast (other types, strided columns)."""
    n = a.size
    for b in prange((n + BLOCK - 1) // BLOCK):
        s = b * BLOCK
        e = min(s + BLOCK, n)
        out[s:e] = a[s:e]


#: bytes per piece of :func:`put` and of :func:`fetch`, and the pieces a fetch keeps in flight
PIECE_BYTES = 1 << 25
FETCH_PIECE_BYTES = 1 << 22
FETCH_SLOTS = 6


def _pieces(size: int, dtype, piece_bytes: int = None, slots: int = 2):
    """``slots`` pinned buffers, their events, the piece length and the pieces' starts."""
    import cupy as cp
    dtype = np.dtype(dtype)
    step = max((piece_bytes or PIECE_BYTES) // dtype.itemsize, 1)
    k = min(step, size)
    starts = list(range(0, size, step))
    slots = min(slots, len(starts))
    bufs = [np.frombuffer(cp.cuda.alloc_pinned_memory(k * dtype.itemsize), dtype, k) for _ in range(slots)]
    done = [cp.cuda.Event(disable_timing=True) for _ in range(slots)]
    return bufs, done, step, starts


def fill(out: np.ndarray, a: np.ndarray, bounds: bool, acc=None):
    """``out[:a.size] = a`` on all cores; with ``bounds``, ``a``'s (min, max)
    folded into ``acc`` (None: none yet) and returned, else ``acc``.

    >>> out = np.zeros(3, np.int32)
    >>> fill(out, np.array([5, 2]), True, (3, 4)), fill(out, np.array([1]), False, (3, 4))
    ((2, 5), (3, 4))
    """
    if not bounds:
        copy_into(out, a)
        return acc
    lo, hi = stage(out, a)
    return (lo, hi) if acc is None else (min(acc[0], lo), max(acc[1], hi))


#: numba's threading layer whose loop start and join are slow: the fills are
#: many short loops (numba's choice where there is no OpenMP runtime)
SLOW_LAYER = "workqueue"
SLOW_LAYER_HINT = ("numba runs gconn's host copies to the GPU on its workqueue threading layer (numba's choice "
                   "where it finds no OpenMP runtime, libgomp.so.1, and no TBB, or NUMBA_THREADING_LAYER's): "
                   "streams from host memory take about 2.5x longer than on OpenMP.  Install the system's "
                   "OpenMP runtime, e.g. apt install libgomp1")


def threading_layer() -> str:
    """The threading layer numba runs the fills on (a tiny fill first where
    none has run yet).

    >>> threading_layer() in ("omp", "tbb", "workqueue")
    True
    """
    import numba
    try:
        return numba.threading_layer()
    except ValueError:      # numba picks the layer at the first parallel kernel
        a = np.zeros(2 * BLOCK, np.int32)
        copy_shares(np.empty_like(a), a, 2)
        return numba.threading_layer()


@cache
def warn_slow_layer() -> None:
    """Warn once per process where the fills run on :data:`SLOW_LAYER`."""
    if threading_layer() == SLOW_LAYER:
        warnings.warn(SLOW_LAYER_HINT + " ('gconn info' shows the layer)", RuntimeWarning, stacklevel=3)


class Ring:
    """Pinned pieces taking turns: one's copy runs while the next is filled."""

    def __init__(self, bufs: list):
        import cupy as cp
        if not cold():
            warn_slow_layer()
        self.bufs = bufs
        self.piece = bufs[0].size
        self.freed = [cp.cuda.Event(disable_timing=True) for _ in bufs]
        self.turn = 0

    def send(self, ptr: int, a: np.ndarray, stream, bounds: bool = False, acc=None, raw: bool = False):
        """Copy ``a`` (cast; ``raw``: as it is) to device address ``ptr``; :func:`fill`'s bounds."""
        import cupy as cp
        rt = cp.cuda.runtime
        bufs = self.bufs
        if raw and a.dtype != bufs[0].dtype:
            bufs = [np.frombuffer(b, a.dtype, b.nbytes // a.itemsize) for b in bufs]
        isz, piece = bufs[0].itemsize, bufs[0].size
        for s in range(0, a.size, piece):
            j = self.turn % len(bufs)
            self.turn += 1
            self.freed[j].synchronize()
            part = a[s:s + piece]
            acc = fill(bufs[j], part, bounds, acc)
            rt.memcpyAsync(ptr + s * isz, bufs[j].ctypes.data, part.size * isz, rt.memcpyHostToDevice,
                           stream.ptr)
            self.freed[j].record(stream)
        return acc

    def wait(self) -> None:
        for e in self.freed:
            e.synchronize()


def put(a: np.ndarray):
    """A host array on the device (CuPy), copied through a ``Ring``.

    >>> import numpy as np
    >>> put(np.arange(3)).tolist()  # doctest: +SKIP
    [0, 1, 2]
    """
    import cupy as cp
    a = np.ascontiguousarray(a)
    if a.size < BLOCK:
        return cp.asarray(a)
    dev = cp.empty(a.shape, a.dtype)
    ring = Ring(_pieces(a.size, a.dtype)[0])
    ring.send(dev.data.ptr, a.reshape(-1), cp.cuda.get_current_stream())
    ring.wait()
    return dev


#: bytes of a host page, and of the regions the threads of ``landing()`` take
PAGE = 4096
REGION = 1 << 21


@njit(parallel=True, nogil=True, cache=True)
def _touch(b):
    for r in prange((b.size + REGION - 1) // REGION):
        for i in range(r * REGION, min(b.size, (r + 1) * REGION), PAGE):
            b[i] = 0


class _Region:
    """Whole pages for labels: the first ``written`` bytes mapped, ``pinned`` registered."""

    __slots__ = ("buf", "written", "pinned")

    def __init__(self, nbytes: int):
        size = -(-max(nbytes, 1) // PAGE) * PAGE
        raw = np.empty(size + PAGE, np.uint8)
        skip = -raw.ctypes.data % PAGE
        self.buf = raw[skip:skip + size]
        self.written = 0
        self.pinned = 0

    def write(self, nbytes: int) -> None:
        if nbytes > self.written:
            if cold():
                self.buf[self.written:nbytes:PAGE] = 0
            else:
                _touch(self.buf[self.written:nbytes])
            self.written = nbytes

    def unmap_after(self, nbytes: int) -> None:
        """Give back the pages past the first ``nbytes``, unless registered."""
        if self.pinned:
            return
        start = -(-(self.buf.ctypes.data + nbytes) // PAGE) * PAGE
        end = (self.buf.ctypes.data + self.written) // PAGE * PAGE
        libc = _libc()
        if end - start >= REGION and libc is not None and libc.madvise(start, end - start, MADV_DONTNEED) == 0:
            self.written = start - self.buf.ctypes.data

    def __del__(self):
        with suppress(Exception):       # interpreter shutdown: the module is gone already
            _unpin(self)


#: the labels' memory kept for the next call: one region of at most KEEP_BYTES
_KEPT: list = []
KEEP_BYTES = 1 << 30
_KEPT_LOCK = threading.Lock()
MADV_DONTNEED = 4


@cache
def _libc():
    """The C library with ``madvise`` typed, or None (not Linux, or not found)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        lib.madvise.restype = ctypes.c_int
        return lib
    except (OSError, AttributeError):
        return None


def _keep(region: _Region) -> None:
    """Keep (and register) a region whose labels are gone, unless over KEEP_BYTES."""
    if region.written > KEEP_BYTES:
        return
    _pin(region)
    with _KEPT_LOCK:
        _KEPT[:] = [region]


@cache
def _register():
    """(cudaHostRegister, cudaHostUnregister), or None in the simulator and where they fail."""
    from gconn.backends.gpu._compat import SIM
    try:
        import cupy as cp
        rt = cp.cuda.runtime
        register = lambda address, nbytes: rt.hostRegister(address, nbytes, 0)     # noqa: E731
        return None if SIM else (register, rt.hostUnregister)
    except Exception:
        return None


def _pin(region: _Region) -> None:
    """Register a kept region's written pages with the driver (where it can)."""
    calls = _register()
    nbytes = -(-region.written // PAGE) * PAGE
    if calls is None or nbytes == 0 or region.pinned >= nbytes:
        return
    _unpin(region)
    with suppress(Exception):       # refused (no GPU in this process, say)
        calls[0](region.buf.ctypes.data, nbytes)
        region.pinned = nbytes


def _unpin(region: _Region) -> None:
    if not region.pinned:
        return
    region.pinned = 0
    with suppress(Exception):       # interpreter shutdown: the driver is gone already
        _register()[1](region.buf.ctypes.data)


class Landing:
    """Host memory, its pages already mapped, for :func:`fetch` to copy labels
    into.  The memory of labels the caller has dropped is kept, registered,
    for the next landing (one region of at most ``KEEP_BYTES``).

    >>> a = landing(5, np.int32).array(3, np.int32); a.shape, a.dtype.name, a.flags.writeable
    ((3,), 'int32', True)
    """

    def __init__(self, nbytes: int):
        with _KEPT_LOCK:
            region = _KEPT.pop() if _KEPT and _KEPT[0].buf.nbytes >= nbytes else None
        region = region or _Region(nbytes)
        region.write(nbytes)
        self.region = region
        self.nbytes, self.address = nbytes, region.buf.ctypes.data
        #: whether the array handed out is registered memory
        self.pinned = False

    def array(self, size: int, dtype) -> np.ndarray | None:
        """The labels' host array (once), or None; its memory is kept once it is gone."""
        dtype = np.dtype(dtype)
        nbytes = size * dtype.itemsize
        region = self.region
        if region is None or nbytes > region.written:
            return None
        self.region = None
        region.unmap_after(nbytes)
        self.pinned = region.pinned >= nbytes
        if nbytes == 0:
            _keep(region)
            return np.empty(0, dtype)
        # every view keeps this buffer; its end gives the region back (not at exit)
        owner = (ctypes.c_char * nbytes).from_address(region.buf.ctypes.data)
        weakref.finalize(owner, _keep, region).atexit = False
        return np.frombuffer(owner, dtype, size)

    def __del__(self):
        if self.region is not None:
            _keep(self.region)


def landing(size: int, dtype) -> Landing:
    return Landing(size * np.dtype(dtype).itemsize)


def fetch(dev, out: Landing | None = None) -> np.ndarray:
    """A device array back in host memory through pinned pieces, or into ``out`` (a
    :class:`Landing`) where it fits."""
    import cupy as cp
    shape = dev.shape
    dev = cp.ascontiguousarray(dev).reshape(-1)
    land, out = out, None if out is None else out.array(dev.size, dev.dtype)
    if out is None:
        out = np.empty(dev.size, dev.dtype)
    rt = cp.cuda.runtime
    stream = cp.cuda.get_current_stream()
    if land is not None and land.pinned and dev.size:
        rt.memcpyAsync(out.ctypes.data, dev.data.ptr, dev.nbytes, rt.memcpyDeviceToHost, stream.ptr)
        stream.synchronize()
    elif dev.size < BLOCK:
        dev.get(out=out)
    else:
        _fetch_pieces(out, dev, rt, stream)
    return out if out.shape == shape else out.reshape(shape)


def _fetch_pieces(out, dev, rt, stream) -> None:
    bufs, done, step, starts = _pieces(dev.size, dev.dtype, FETCH_PIECE_BYTES, FETCH_SLOTS)
    slots = len(bufs)

    def start(j):
        a = starts[j]
        k = min(step, dev.size - a)
        rt.memcpyAsync(bufs[j % slots].ctypes.data, dev.data.ptr + a * dev.itemsize, k * dev.itemsize,
                       rt.memcpyDeviceToHost, stream.ptr)
        done[j % slots].record(stream)

    for j in range(slots):
        start(j)
    for j, a in enumerate(starts):
        done[j % slots].synchronize()
        k = min(step, dev.size - a)
        copy_into(out[a:a + k], bufs[j % slots][:k])
        if j + slots < len(starts):
            start(j + slots)


def warm() -> None:
    """Compile (or load) the copies for the staged id types."""
    for dt in (np.int32, np.int64):
        _copy_bounds(np.empty(2, dt), np.arange(2, dtype=dt))
        _copy_bounds_serial(np.empty(2, dt), np.arange(2, dtype=dt))
        _copy(np.empty(2, dt), np.arange(2, dtype=dt))
        copy_shares(np.empty(2, dt), np.arange(2, dtype=dt), 1)
    _touch(np.empty(2, np.uint8))
    column = np.arange(4, dtype=np.int64)[::2]      # a column of an (m, 2) array
    _copy_bounds(np.empty(2, np.int64), column)
    _copy_bounds_serial(np.empty(2, np.int64), column)
    _copy(np.empty(2, np.int64), column)
