"""CUDA graphs: a static run on a resident graph, captured once and replayed.

On small graphs launching a run's five to eight kernels from Python costs
the host as much as the kernels take, so the second call of a run with
the same key on the same graph is captured (``cuStreamBeginCapture``,
relaxed mode, on a private stream) and every later call replays it with
one ``cuGraphLaunch`` on the caller's stream.

* The first call runs as usual: it compiles the kernels and builds what
  the graph caches, none of which may happen inside a capture.
* Every array allocated while capturing is kept with the capture, so a
  replay never writes memory CuPy has handed to someone else; an array
  from :func:`zeroed` is zeroed once, before the first replay.
* A replay hands back fresh copies of the outputs and reads 0-d ones as
  ints; a :class:`Deferred` output is made after the replay by one kernel
  writing a fresh array (the labels of a compaction).
* A run that reads a value back (BFS sampling, SV's rounds) fails its
  capture and runs as usual, every call.
* A replay holds the capture's lock; a second thread arriving meanwhile,
  or while another records a capture, runs as usual.
* A run that reads only the edge list is kept under the list's device
  addresses, length, n and id width, so ``connected_components((src,
  dst))`` on the same CuPy arrays replays though each call builds a new
  Graph; other runs are kept with the Graph.  A caller may keep a
  ``handle`` that :func:`again` replays without a lookup.
* At most ``KEEP`` captures are kept per graph and under edge addresses,
  the least recently used dropped first.

``GCONN_GPU_LAUNCH=numba`` and the simulator never capture.

>>> from gconn.backends.gpu import replay
>>> replay.KEEP
4
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

import numpy as np

from gconn.backends.gpu._compat import SIM, cuda, view, xp
from gconn.backends.gpu import launch as _launch

#: captured runs kept per graph
KEEP = 4

_SEEN = "seen"
_CACHE_KEY = "gpu_replays"
#: runs that read only an edge list, by the list's addresses (see above)
_BY_EDGES: OrderedDict = OrderedDict()
#: runs seen once or found not capturable, kept under edge addresses
_MARKS = 256
_STREAM: list = []
_DRIVER: list = []
#: one capture at a time (they share the capture stream); a thread that
#: finds one under way runs its call as usual
_CAPTURING = threading.Lock()
#: held while the stores are read or changed (threads share them)
_STATE = threading.Lock()
_TLS = threading.local()


def capturing() -> bool:
    """Whether this thread is recording a capture: buffers a run would share
    through the graph's cache are then its own (kept by the capture), so
    that replays never share them with other runs."""
    return getattr(_TLS, "on", False)


def zeroed(size: int, dtype):
    """A device array of zeros.  One made while capturing is zeroed once,
    when the capture is made, not by the captured run: a run that clears
    it after use finds it zero at every replay without a node to set it."""
    if not capturing():
        return xp.zeros(size, dtype)
    a = xp.empty(size, dtype)
    _TLS.zero.append(a)
    return a


class Deferred:
    """An output of a run made by ``make(*args)`` (one launch into a fresh
    array) after the run's other work: after a replay, outside its capture
    (see the module's text).  Runs make one only where :func:`deferring`."""

    __slots__ = ("make", "args")

    def __init__(self, make, *args):
        self.make, self.args = make, args

    def __call__(self):
        return self.make(*self.args)


def deferring() -> bool:
    """Whether this thread runs a function for :func:`replayed`, which
    makes the :class:`Deferred` outputs it returns."""
    return getattr(_TLS, "defer", False)


def _call(fn) -> tuple:
    _TLS.defer = True
    try:
        return tuple(fn())
    finally:
        _TLS.defer = False


def _driver():
    if not _DRIVER:
        from cuda.bindings import driver
        _DRIVER.append(driver)
    return _DRIVER[0]


def _check(result, what: str):
    drv = _driver()
    if result[0] != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed: {result[0]!r}")
    return result[1] if len(result) > 1 else None


def _stream():
    """The stream captures are recorded on (never the legacy stream, on
    which capture is not allowed); replays run on the caller's stream."""
    if not _STREAM:
        _STREAM.append(xp.cuda.Stream(non_blocking=True))
    return _STREAM[0]


class Captured:
    """A captured run: its executable CUDA graph, the device arrays it
    returns (written by every replay) and every array it allocated."""

    __slots__ = ("graph", "exec", "outputs", "kept", "scalars", "lock", "__weakref__")

    def __init__(self, graph, exec_, outputs, kept, scalars):
        self.graph, self.exec, self.outputs, self.kept = graph, exec_, outputs, kept
        #: per output, the pinned host copy the replay writes of a 0-d one, or None
        self.scalars = scalars
        self.lock = threading.Lock()

    def results(self) -> tuple:
        """The outputs of the replay just launched: Deferred ones made, arrays
        copied, 0-d ones read as ints from their pinned copies once the stream
        is done."""
        out = tuple(a() if isinstance(a, Deferred) else a if a.ndim == 0 else a.copy() for a in self.outputs)
        self.wait()
        return tuple(a if h is None else int(h[0]) for a, h in zip(out, self.scalars))

    def wait(self) -> None:
        """Wait for the current stream, on which the replay was launched."""
        xp.cuda.get_current_stream().synchronize()

    def replay(self) -> tuple | None:
        """:meth:`launch`, then :meth:`results`; None where another thread
        is replaying this capture (it holds the lock until its results are
        made)."""
        if not self.lock.acquire(blocking=False):
            return None
        try:
            self.launch()
            # waits for the stream, copies included, before the lock goes
            return self.results()
        finally:
            self.lock.release()

    def launch(self) -> None:
        """Replay the run on the current stream (asynchronously)."""
        _check(_driver().cuGraphLaunch(self.exec, xp.cuda.get_current_stream().ptr), "cuGraphLaunch")

    def __del__(self):
        try:
            drv = _driver()
            drv.cuGraphExecDestroy(self.exec)
            drv.cuGraphDestroy(self.graph)
        except Exception:       # interpreter shutdown: the driver is gone already
            pass


def capture(fn) -> Captured:
    """Record the device work of ``fn()`` (which must launch on the current
    stream and return a tuple of device arrays) as a CUDA graph, without
    running it.  Raises whatever ``fn`` raises, or RuntimeError when the
    driver refuses the capture (``fn`` read a value back, say)."""
    drv = _driver()
    stream = _stream()
    pool = xp.get_default_memory_pool()
    kept = []

    def keep(nbytes):
        p = pool.malloc(nbytes)
        kept.append(p)
        return p

    relaxed = drv.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
    _scalar_out()       # built (or loaded) before the capture, not inside it
    with _CAPTURING, stream, xp.cuda.using_allocator(keep):
        _check(drv.cuStreamBeginCapture(stream.ptr, relaxed), "cuStreamBeginCapture")
        _TLS.on = True
        _TLS.zero = zero = []
        try:
            outputs = _call(fn)
            scalars = _copied_out(outputs)
        except BaseException:
            err, g = drv.cuStreamEndCapture(stream.ptr)   # leave capture mode; drop what was recorded
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
    for a in zero:      # on the caller's stream, where replays are launched
        a.fill(0)
    return Captured(g, exec_, outputs, kept, scalars)


@_launch.kernel("scalar_out", lambda t: (t.i8, t.i8, t.I64), offsets=False)
def make_scalar_out():
    """``out[:nbytes] = a[:nbytes]`` by one thread: a captured run's 0-d
    output written into pinned host memory (unified addressing); as the last
    node a kernel costs a replay less than a copy node."""

    def scalar_out(a, out, nbytes):
        if cuda.grid(1) == 0:
            for i in range(nbytes):
                out[i] = a[i]

    return scalar_out


def _scalar_out():
    return _launch.get("scalar_out", (), _launch.dtypes_key(np.int8, np.int8, np.int8))


def _copied_out(outputs) -> tuple:
    """The 0-d device outputs written into pinned host memory by kernels
    launched (so recorded) on the current stream, the capture's; per
    output the host copy or None."""
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


def _host(outputs) -> tuple:
    """Deferred outputs made, then 0-d outputs read as ints, the others as
    they are."""
    made = tuple(a() if isinstance(a, Deferred) else a for a in outputs)
    return tuple(int(a) if getattr(a, "ndim", 0) == 0 else a for a in made)


def _as_usual(fn) -> tuple:
    """``fn()`` run as usual (not captured), its outputs made and read."""
    return _host(_call(fn))


def _edges_key(graph) -> tuple:
    src, dst = graph.form("edges")
    return (src.data.ptr, dst.data.ptr, int(src.size), graph.n, src.dtype.itemsize)


def _store(graph, key, edges_only: bool):
    """The dict a run's capture is kept in, and its key there."""
    if edges_only:
        return _BY_EDGES, key + _edges_key(graph)
    runs = graph._cache.get(_CACHE_KEY)
    if runs is None:
        runs = graph._cache[_CACHE_KEY] = OrderedDict()
    return runs, key


def _bound(runs) -> None:
    held = [k for k, v in runs.items() if isinstance(v, Captured)]
    for k in held[:-KEEP]:
        del runs[k]
    marks = [k for k, v in runs.items() if not isinstance(v, Captured)]
    for k in marks[:-_MARKS]:
        del runs[k]


def _put(runs, key, value) -> None:
    """Set, mark most recently used and bound a store, under ``_STATE``."""
    with _STATE:
        runs[key] = value
        runs.move_to_end(key)
        _bound(runs)


def replayed(graph, key, fn, edges_only: bool = False, handle: list | None = None) -> tuple:
    """``fn()``'s outputs (a tuple of device arrays; 0-d ones come back as
    ints), replayed from a capture of ``fn`` on ``graph`` kept under ``key``
    where there is one (see the module's text); ``key`` None runs ``fn`` as
    usual.  ``key`` must name everything that decides what ``fn`` launches
    besides the graph; ``edges_only``: ``fn`` reads nothing of the graph
    but its edge list, n and id type.  ``handle``: a list, kept by the
    caller with this graph and key, that a replay fills for :func:`again`."""
    if key is None or SIM or not _launch.DIRECT:
        return _as_usual(fn)
    with _STATE:
        runs, key = _store(graph, key, edges_only)
        c = runs.get(key)
        # a replay of the most recent run need not reorder the store
        latest = type(c) is Captured and next(reversed(runs)) == key
    if c is None:
        _put(runs, key, _SEEN)
        return _as_usual(fn)
    if c is False:
        return _as_usual(fn)
    if c is _SEEN:
        if _CAPTURING.locked():     # another thread is capturing
            return _as_usual(fn)
        try:
            c = capture(fn)
        except Exception:
            _put(runs, key, False)
            return _as_usual(fn)
    if not latest:
        _put(runs, key, c)
    if handle is not None:
        handle[:] = [weakref.ref(c), runs, key]
    out = c.replay()
    return _as_usual(fn) if out is None else out


def again(handle: list) -> tuple | None:
    """The outputs of another replay of the capture a :func:`replayed` call put in
    ``handle``, without finding it in its store; None where it has been dropped
    or another thread is replaying it: then call :func:`replayed`. The capture
    becomes the most recent."""
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
            # the store's own key object, so that the test above is one of identity
            handle[2] = next(reversed(runs))
    return c.replay()


def captured(graph) -> dict:
    """The state of ``graph``'s runs: key -> "captured", "seen" (ran once)
    or "not capturable", those kept under its edge list's addresses
    included."""
    with _STATE:
        runs = dict(graph._cache.get(_CACHE_KEY) or {})
        if graph.has_form("edges"):
            tail = _edges_key(graph)
            runs.update((k[:-len(tail)], v) for k, v in _BY_EDGES.items() if k[-len(tail):] == tail)
    return {k: "captured" if isinstance(v, Captured) else "not capturable" if v is False else "seen"
            for k, v in runs.items()}
