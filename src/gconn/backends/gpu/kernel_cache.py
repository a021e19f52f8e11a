"""The disk cache of compiled GPU kernels.

Each kernel's cubin is kept on disk, named by a digest of all it is built
from (gconn's sources, numba-cuda, ``NUMBA_*`` settings, compute capability,
the kernel's kind, key and dtypes); stale files are left behind (``gconn cache
--clear``).  The directory: ``GCONN_KERNEL_CACHE`` (``off`` or ``0``: no
cache), else ``$XDG_CACHE_HOME/gconn/kernels``, else ``~/.cache/gconn/kernels``.
Files are written whole and renamed; an unreadable one counts as a miss.

>>> import os, tempfile
>>> from gconn.backends.gpu import kernel_cache
>>> os.environ["GCONN_KERNEL_CACHE"] = tempfile.mkdtemp()
>>> kernel_cache.save("ab12", "my_kernel", b"image")
True
>>> kernel_cache.load("ab12")
('my_kernel', b'image')
>>> kernel_cache.load("cd34") is None
True
>>> del os.environ["GCONN_KERNEL_CACHE"]
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import warnings
from contextlib import suppress
from functools import cache
from pathlib import Path

#: First bytes of a cache file; a change of layout changes it.
MAGIC = b"gconn-kernel-1\n"
SUFFIX = ".cubin"
OFF = ("off", "0", "false", "no", "none")

#: What this process did: kernels found on disk, compiled, and written.
COUNTS = {"loaded": 0, "compiled": 0, "saved": 0}

_WARNED: list = []


def directory() -> Path | None:
    """The cache directory (maybe not there yet), or None when it is off."""
    env = os.environ.get("GCONN_KERNEL_CACHE", "")
    if env.strip():
        return None if env.strip().lower() in OFF else Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "gconn" / "kernels"


@cache
def sources_digest() -> str:
    """A digest of gconn's Python sources (paths and contents), once a process."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _toolchain() -> str:
    import numba
    try:
        from numba import cuda
        nc = getattr(sys.modules.get("numba_cuda"), "__version__", None) or cuda.__file__
    except Exception:           # pragma: no cover
        nc = "?"
    settings = sorted((k, v) for k, v in os.environ.items() if k.startswith("NUMBA_"))
    return repr((numba.__version__, nc, settings))


def name(kind: str, key: tuple, dtypes: tuple, cc: tuple) -> str:
    """The file name of kernel ``kind`` for ``key``, ``dtypes`` and compute capability ``cc``."""
    h = hashlib.sha256()
    h.update(repr((sources_digest(), _toolchain(), tuple(cc), kind, key, tuple(dtypes))).encode())
    return h.hexdigest()[:40]


def load(key: str):
    """``(entry name, image)`` of the file named ``key``, or None."""
    d = directory()
    with suppress(OSError, UnicodeDecodeError):
        data = b"" if d is None else (d / (key + SUFFIX)).read_bytes()
        entry, sep, image = data[len(MAGIC):].partition(b"\n")
        if data.startswith(MAGIC) and sep and entry and image:
            return entry.decode("ascii"), image
    return None


def save(key: str, entry: str, image: bytes) -> bool:
    """Write ``image`` under ``key``; False (warning once) where it cannot be written."""
    d = directory()
    if d is None:
        return False
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=d)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + entry.encode("ascii") + b"\n" + bytes(image))
            os.replace(tmp, d / (key + SUFFIX))
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as e:
        if not _WARNED:
            _WARNED.append(True)
            warnings.warn(f"gconn cannot write its GPU kernel cache in {d} ({e.strerror or e}); kernels will be "
                          "compiled again in every process. Set GCONN_KERNEL_CACHE to a writable directory, "
                          "or to 'off'.", RuntimeWarning, stacklevel=3)
        return False
    COUNTS["saved"] += 1
    return True


def files() -> list:
    """The cache's files."""
    d = directory()
    if d is None or not d.is_dir():
        return []
    return sorted(p for p in d.iterdir() if p.suffix == SUFFIX and p.is_file())


def clear() -> int:
    """Remove the cache's files; returns how many were removed."""
    n = 0
    for p in files():
        with suppress(OSError):
            p.unlink()
            n += 1
    return n
