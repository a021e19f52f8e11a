"""Host memory: how much there is, and whether a vertex count fits in it.

A graph's per-vertex arrays are sized by its largest id, so one stray id
(``0 3000000000`` in an edge list) asks for gigabytes.  The builders call
:func:`check_vertices` first, so such an input ends in a
:class:`gconn.VertexRangeError` rather than in the kernel's OOM killer.

The available memory is the smallest of /proc/meminfo's MemAvailable, the
cgroup limit minus its usage (containers), and ``GCONN_MEMORY_LIMIT``
(bytes, or with a k/M/G/T suffix) when set; elsewhere it falls back to
``os.sysconf``.  When none of them is known, nothing is checked.  A check
may answer from a reading of the system's figures up to ``REUSE_SECONDS``
old when the request is below half of it; nearer the limit it reads them
again, so a refusal always rests on a fresh reading.

>>> human_bytes(3 * 10**9)
'3.0 GB'
>>> parse_size("1.5G")
1500000000
"""
from __future__ import annotations

import os
import time
from threading import Lock

from gconn.errors import VertexRangeError, human_bytes

#: Peak bytes per vertex of building a Graph and then running connected
#: components or a spanning forest on it (measured with ru_maxrss on 2e7
#: vertices: the build's int64 degree and offset arrays peak at 28 B; with
#: 64-bit ids the parent and label arrays of the run double, to about 36 B).
BYTES_PER_VERTEX = {4: 28, 8: 36}

#: Requests up to this size are not checked: reading the limits costs
#: ~50 us, more than building a small graph, and a process that cannot get
#: 64 MiB more is failing anyway.
SMALL = 64 << 20

#: Seconds a reading of the system's available memory may answer the checks
#: of requests below half of it.  On the GPU machine's host, reading
#: /proc/meminfo and the cgroup files took 90-190 us, twice in each streamed
#: call from host arrays of 8-13 ms (BENCHMARKS.md, nineteenth session).
REUSE_SECONDS = 1.0
#: the last reading: (time.monotonic() when taken, bytes or None)
_READING: list = []
_READING_LOCK = Lock()

_SUFFIXES = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}


def parse_size(text: str) -> int:
    """Bytes in '8G', '512M', '1.5GB', '1000000' (decimal units)."""
    s = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = s[-1:] if s[-1:] in _SUFFIXES and s[-1:] else ""
    number = s[:-1] if unit else s
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"GCONN_MEMORY_LIMIT={text!r}: expected bytes, e.g. 8G or 512M") from None
    if not value >= 0:
        raise ValueError(f"GCONN_MEMORY_LIMIT={text!r}: must be >= 0")
    return int(value * _SUFFIXES[unit])


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # 'max' (v2) means no limit


def _cgroup_available() -> int | None:
    # v2 first, then v1; v1 reports 'no limit' as a huge number.
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit = _read_int(limit_file)
        if limit is not None and limit < 1 << 60:
            usage = _read_int(usage_file) or 0
            return max(limit - usage, 0)
    return None


def _sysconf_available() -> int | None:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _system_available() -> int | None:
    """The system's figure: the smaller of MemAvailable and the cgroup's
    room, else sysconf's; None when none is known."""
    known = [x for x in (_meminfo_available(), _cgroup_available()) if x is not None]
    if not known:
        return _sysconf_available()
    return min(known)


def available_bytes(max_age: float = 0.0) -> int | None:
    """Memory this process may still allocate, or None when unknown.
    ``max_age``: seconds an earlier reading of the system's figures may
    serve (0: read them now).

    >>> a = available_bytes(max_age=60.0)
    >>> a is None or a > 0
    True
    """
    now = time.monotonic()
    with _READING_LOCK:
        if max_age > 0 and _READING and now - _READING[0][0] <= max_age:
            system = _READING[0][1]
        else:
            system = _system_available()
            _READING[:] = [(now, system)]
    known = [] if system is None else [system]
    override = os.environ.get("GCONN_MEMORY_LIMIT")
    if override:
        known.append(parse_size(override))
    return min(known) if known else None


def vertex_bytes(n: int) -> int:
    """Estimated peak bytes for a graph of ``n`` vertices (its per-vertex
    arrays only; edges are already in memory when this is asked)."""
    return n * BYTES_PER_VERTEX[4 if n <= 2**31 - 1 else 8]


def check_vertices(n: int, origin: str, vertex_id: int | None = None, per_vertex: int | None = None,
                   hint: str | None = None) -> None:
    """Raise :class:`gconn.VertexRangeError` when ``n`` vertices do not fit.

    ``origin`` says where the count came from ('dst[7]', 'n=...'), and
    ``vertex_id`` is the id that asked for it; ``per_vertex`` overrides the
    bytes per vertex of a graph build (e.g. for incremental state); ``hint``
    replaces the advice that ends the message.

    >>> check_vertices(10, "n")
    >>> try:
    ...     check_vertices(2**60, "n=1152921504606846976")
    ... except ValueError as e:
    ...     print(type(e).__name__, e.origin)
    VertexRangeError n=1152921504606846976
    """
    needed = n * per_vertex if per_vertex is not None else vertex_bytes(n)
    if needed <= SMALL:
        return
    avail = available_bytes(REUSE_SECONDS)
    if avail is not None and needed > avail // 2:
        avail = available_bytes()       # near the limit: a fresh reading decides
    if avail is not None and needed > avail:
        raise VertexRangeError(origin, vertex_id=vertex_id, n=n, needed=needed, available=avail, hint=hint)
