"""CUDA graphs: a static run on a resident graph, captured once and replayed.

Launching a small run's kernels from Python costs the host as much as the
kernels take, so the second call of a run with the same key on the same graph
is captured (on a private stream) and every later call replays it with one
``cuGraphLaunch``.  The first call runs as usual (compiling, filling the
graph's caches).  Arrays allocated while capturing are kept with the capture;
outputs come back as fresh copies, 0-d ones as ints, a :class:`Deferred` one
made after the replay.  A run that reads a value back fails its capture and
runs as usual; so does a thread that finds the capture busy.  A run reading
only the edge list is kept under the list's addresses, others with the Graph,
at most ``KEEP`` each (least recently used dropped).  ``GCONN_GPU_LAUNCH=numba``
and the simulator never capture.

>>> from gconn.backends.gpu import replay
>>> replay.KEEP
4
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from contextlib import suppress
from functools import cache, partial

import numpy as np

from gconn.backends.gpu._compat import SIM, cuda, view, xp
from gconn.backends.gpu import launch as _launch

#: captured runs kept per graph
KEEP = 4

_SEEN = "seen"
#: seen, but only ``launched`` ran (see :func:`replayed`)
_OTHER = "seen, another run"
_CACHE_KEY = "gpu_replays"
#: runs that read only an edge list, by the list's addresses
_BY_EDGES: OrderedDict = OrderedDict()
#: runs seen once or found not capturable, kept per store
_MARKS = 256
#: one capture at a time (they share the capture stream)
_CAPTURING = threading.Lock()
#: held while the stores are read or changed
_STATE = threading.Lock()
_TLS = threading.local()


def capturing() -> bool:
    """Whether this thread is recording a capture."""
    return getattr(_TLS, "on", False)


def zeroed(size: int, dtype):
    """Device zeros; made while capturing, zeroed once when the capture is made."""
    if not capturing():
        return xp.zeros(size, dtype)
    a = xp.empty(size, dtype)
    _TLS.zero.append(a)
    return a


class Deferred(partial):
    """An output made by ``Deferred(make, *args)()`` after the run, outside a capture."""


def deferring() -> bool:
    """Whether this thread runs a function for :func:`replayed`."""
    return getattr(_TLS, "defer", False)


def _call(fn) -> tuple:
    _TLS.defer = True
    try:
        return tuple(fn())
    finally:
        _TLS.defer = False


def _driver():
    _launch._bindings()         # imports the driver binding once
    return _launch._driver


def _check(result, what: str):
    drv = _driver()
    if result[0] != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed: {result[0]!r}")
    return result[1] if len(result) > 1 else None


@cache
def _stream():
    return xp.cuda.Stream(non_blocking=True)


class Captured:
    """A captured run: its CUDA graph, outputs and every array it allocated."""

    __slots__ = ("graph", "exec", "outputs", "kept", "scalars", "lock", "__weakref__")

    def __init__(self, graph, exec_, outputs, kept, scalars):
        self.graph, self.exec, self.outputs, self.kept = graph, exec_, outputs, kept
        #: per output, the pinned host copy of a 0-d one, or None
        self.scalars = scalars
        self.lock = threading.Lock()

    def results(self) -> tuple:
        """The outputs of the replay just launched."""
        out = tuple(a() if isinstance(a, Deferred) else a if a.ndim == 0 else a.copy() for a in self.outputs)
        self.wait()
        return tuple(a if h is None else int(h[0]) for a, h in zip(out, self.scalars))

    def wait(self) -> None:
        xp.cuda.get_current_stream().synchronize()

    def replay(self) -> tuple | None:
        """``launch()``, then :meth:`results`; None where another thread is replaying it."""
        if not self.lock.acquire(blocking=False):
            return None
        try:
            self.launch()
            return self.results()
        finally:
            self.lock.release()

    def launch(self) -> None:
        _check(_driver().cuGraphLaunch(self.exec, xp.cuda.get_current_stream().ptr), "cuGraphLaunch")

    def __del__(self):
        with suppress(Exception):       # interpreter shutdown
            drv = _driver()
            drv.cuGraphExecDestroy(self.exec)
            drv.cuGraphDestroy(self.graph)


def capture(fn) -> Captured:
    """Record ``fn()``'s device work as a CUDA graph, without running it (RuntimeError if refused)."""
    drv = _driver()
    stream = _stream()
    pool = xp.get_default_memory_pool()
    kept = []

    def keep(nbytes):
        p = pool.malloc(nbytes)
        kept.append(p)
        return p

    relaxed = drv.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
    _scalar_out()       # built before the capture, not inside it
    with _CAPTURING, stream, xp.cuda.using_allocator(keep):
        _check(drv.cuStreamBeginCapture(stream.ptr, relaxed), "cuStreamBeginCapture")
        _TLS.on = True
        _TLS.zero = zero = []
        try:
            outputs = _call(fn)
            scalars = _copied_out(outputs)
        except BaseException:
            err, g = drv.cuStreamEndCapture(stream.ptr)
            if err == drv.CUresult.CUDA_SUCCESS:
                drv.cuGraphDestroy(g)
            raise
        finally:
            _TLS.on = False
        g = _check(drv.cuStreamEndCapture(stream.ptr), "cuStreamEndCapture")
    try:
        for a in outputs:
            if not isinstance(a, (xp.ndarray, Deferred)):
                raise TypeError(f"a captured run returns device arrays, not {type(a).__name__}")
        exec_ = _check(drv.cuGraphInstantiate(g, 0), "cuGraphInstantiate")
    except BaseException:
        drv.cuGraphDestroy(g)
        raise
    for a in zero:      # on the caller's stream, where replays run
        a.fill(0)
    return Captured(g, exec_, outputs, kept, scalars)


@_launch.kernel("scalar_out", lambda t: (t.i8, t.i8, t.I64), offsets=False)
def make_scalar_out():
    """``out[:nbytes] = a[:nbytes]`` by one thread: a 0-d output into pinned host memory."""

    def scalar_out(a, out, nbytes):
        if cuda.grid(1) == 0:
            for i in range(nbytes):
                out[i] = a[i]

    return scalar_out


def _scalar_out():
    return _launch.get("scalar_out", (), _launch.dtypes_key(np.int8, np.int8, np.int8))


def _copied_out(outputs) -> tuple:
    """Per output, the pinned host copy that a kernel recorded now writes of a 0-d one, or None."""
    zero_d = [i for i, a in enumerate(outputs) if isinstance(a, xp.ndarray) and a.ndim == 0]
    if not zero_d:
        return (None,) * len(outputs)
    size = 8 * len(outputs)
    mem = xp.cuda.alloc_pinned_memory(size)
    at = xp.ndarray((size,), np.int8,
                    xp.cuda.MemoryPointer(xp.cuda.UnownedMemory(mem.ptr, size, mem, xp.cuda.Device().id), 0))
    host = [None] * len(outputs)
    for i in zero_d:
        a = outputs[i]
        if a.itemsize > 8:
            raise TypeError(f"a captured run's 0-d output of {a.dtype} does not fit its 8-byte slot")
        host[i] = np.frombuffer(mem, a.dtype, 1, offset=8 * i)
        _launch.launch(_scalar_out(), 1, view(a.reshape(1).view(np.int8)), view(at[8 * i:8 * i + a.itemsize]),
                       a.itemsize)
    return tuple(host)


def _as_usual(fn) -> tuple:
    """``fn()`` run as usual: Deferred outputs made, 0-d ones read as ints."""
    made = tuple(a() if isinstance(a, Deferred) else a for a in _call(fn))
    return tuple(int(a) if getattr(a, "ndim", 0) == 0 else a for a in made)


def _edges_key(graph) -> tuple:
    src, dst = graph.form("edges")
    return (src.data.ptr, dst.data.ptr, int(src.size), graph.n, src.dtype.itemsize)


def _store(graph, key, edges_only: bool):
    if edges_only:
        return _BY_EDGES, key + _edges_key(graph)
    runs = graph._cache.get(_CACHE_KEY)
    if runs is None:
        runs = graph._cache[_CACHE_KEY] = OrderedDict()
    return runs, key


def _put(runs, key, value) -> None:
    with _STATE:
        runs[key] = value
        runs.move_to_end(key)
        # at most KEEP captures and _MARKS other entries, the least recently used dropped
        for captures, most in ((True, KEEP), (False, _MARKS)):
            for k in [k for k, v in runs.items() if isinstance(v, Captured) is captures][:-most]:
                del runs[k]


def replayed(graph, key, fn, edges_only: bool = False, handle: list | None = None, launched=None) -> tuple:
    """``fn()``'s outputs (0-d ones as ints), replayed from a capture kept under ``key`` (None:
    run as usual), which names all that decides what ``fn`` launches besides the graph;
    ``edges_only``: ``fn`` reads only the edge list; ``handle``: filled for :func:`again`;
    ``launched``: what runs instead of ``fn`` where it is not replayed (the same outputs, in
    fewer launches); ``fn`` then runs once as usual before its capture, filling the caches a
    capture cannot (a form copied from the host, kernels loaded)."""
    other = launched is not None
    launched = launched or fn
    if key is None or SIM or not _launch.DIRECT:
        return _as_usual(launched)
    with _STATE:
        runs, key = _store(graph, key, edges_only)
        c = runs.get(key)
        latest = type(c) is Captured and next(reversed(runs)) == key
    if c is None:
        _put(runs, key, _OTHER if other else _SEEN)
        return _as_usual(launched)
    if c is _OTHER:
        _put(runs, key, _SEEN)
        return _as_usual(fn)
    if c is False:
        return _as_usual(launched)
    if c is _SEEN:
        if _CAPTURING.locked():
            return _as_usual(launched)
        try:
            c = capture(fn)
        except Exception:
            _put(runs, key, False)
            return _as_usual(launched)
    if not latest:
        _put(runs, key, c)
    if handle is not None:
        handle[:] = [weakref.ref(c), runs, key]
    out = c.replay()
    return _as_usual(launched) if out is None else out


def again(handle: list) -> tuple | None:
    """Another replay of the capture in ``handle``, without a lookup; None where dropped or busy."""
    if not handle:
        return None
    ref, runs, key = handle
    c = ref()
    if c is None:
        return None
    with _STATE:
        if next(reversed(runs)) is not key:
            if runs.get(key) is not c:
                return None
            runs.move_to_end(key)
            # the store's own key object: the test above is one of identity
            handle[2] = next(reversed(runs))
    return c.replay()


def captured(graph) -> dict:
    """``graph``'s runs: key -> "captured", "seen" or "not capturable"."""
    with _STATE:
        runs = dict(graph._cache.get(_CACHE_KEY) or {})
        if graph.has_form("edges"):
            tail = _edges_key(graph)
            runs.update((k[:-len(tail)], v) for k, v in _BY_EDGES.items() if k[-len(tail):] == tail)
    return {k: "captured" if isinstance(v, Captured) else "not capturable" if v is False else "seen"
            for k, v in runs.items()}
