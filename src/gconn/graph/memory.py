"""Host memory: whether a vertex count fits (one stray id asks for gigabytes of
per-vertex arrays: a :class:`gconn.VertexRangeError`, not the OOM killer).
Available: the smallest of MemAvailable, the cgroup's room and ``GCONN_MEMORY_LIMIT``
(else ``os.sysconf``; unknown: no check).
"""
from __future__ import annotations

import os
import re
import time
from threading import Lock

import numpy as np

from gconn.errors import VertexRangeError

#: Peak bytes per vertex of building a Graph and running on it (ru_maxrss), by id size.
BYTES_PER_VERTEX = {4: 28, 8: 36}

#: Requests up to this size are not checked (reading the limits costs more than a small build).
SMALL = 64 << 20

#: Seconds a reading may answer the checks of requests below half of it (a refusal reads afresh).
REUSE_SECONDS = 1.0
#: the last reading: (time.monotonic() when taken, bytes or None)
_READING: list = []
_READING_LOCK = Lock()

_SUFFIXES = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}


def parse_size(text: str) -> int:
    """Bytes in '8G', '512M', '1.5GB', '1000000' (decimal units).

    >>> parse_size("1.5G")
    1500000000
    """
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
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
    except (OSError, ValueError, IndexError, StopIteration):
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


def _system_available() -> int | None:
    """The smaller of MemAvailable and the cgroup's room, else sysconf's, else None."""
    known = [x for x in (_meminfo_available(), _cgroup_available()) if x is not None]
    if known:
        return min(known)
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def available_bytes(max_age: float = 0.0) -> int | None:
    """Memory this process may still allocate, or None; ``max_age``: seconds an earlier reading may serve."""
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
    """Estimated peak bytes of a graph's per-vertex arrays."""
    return n * BYTES_PER_VERTEX[4 if n <= 2**31 - 1 else 8]


def check_vertices(n: int, origin: str, vertex_id: int | None = None, per_vertex: int | None = None,
                   hint: str | None = None) -> None:
    """Raise :class:`gconn.VertexRangeError` when ``n`` vertices do not fit; ``origin``: where the
    count came from ('dst[7]'), ``vertex_id`` the id that asked, ``hint`` the message's advice."""
    needed = n * per_vertex if per_vertex is not None else vertex_bytes(n)
    if needed <= SMALL:
        return
    avail = available_bytes(REUSE_SECONDS)
    if avail is not None and needed > avail // 2:
        avail = available_bytes()       # near the limit: a fresh reading decides
    if avail is not None and needed > avail:
        raise VertexRangeError(origin, vertex_id=vertex_id, n=n, needed=needed, available=avail, hint=hint)


_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


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
