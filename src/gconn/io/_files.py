"""File plumbing shared by the formats: reading bytes, atomic writes, messages."""
from __future__ import annotations

import contextlib
import gzip
import os
import secrets
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

#: The advice when a file's declared vertex count does not fit in memory.
RELABEL_HINT = "pass relabel=True (gconn cc --relabel) to count only the vertices that have edges"


class FileEdges(NamedTuple):
    """A file's edges: ``src``/``dst`` ids (int64, or the id dtype of a
    binary file), the vertex count ``n`` the file declares (None: the
    largest id + 1), and ``names``, when the vertices carry names or
    original ids, with ``src``/``dst`` indices into them."""

    src: np.ndarray
    dst: np.ndarray
    n: int | None = None
    names: np.ndarray | None = None
    #: a .gcb file's (indptr, indices), with src/dst its canonical COO
    canonical: tuple | None = None
    notes: tuple = ()

GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: Path) -> bool:
    # By content, not name, so a misnamed file still reads.
    with open(path, "rb") as f:
        return f.read(2) == GZIP_MAGIC


# What a damaged .gz raises while it is read.
GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)


def gzip_error(path: Path, error: Exception) -> ValueError:
    return ValueError(f"{path.name}: corrupt or truncated gzip data ({error})")


def open_binary(path: Path, gz: bool):
    return gzip.open(path, "rb") if gz else open(path, "rb")


def read_bytes(path: Path) -> np.ndarray:
    """The (decompressed) content of ``path`` as a uint8 array."""
    if not is_gzip(path):
        return np.fromfile(path, np.uint8)
    try:
        with open_binary(path, True) as f:
            data = f.read()
    except GZIP_ERRORS as e:
        raise gzip_error(path, e) from None
    return np.frombuffer(data, np.uint8)


def quote(raw, limit: int = 60) -> str:
    """A line's bytes (bytes or a uint8 array) quoted for a message, shortened if long."""
    text = bytes(raw).decode("utf-8", "replace").strip()
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)


@contextlib.contextmanager
def atomic_write(path: Path, compress: bool = False):
    """Open a temporary file beside ``path`` for binary writing; on success it
    replaces ``path``, on any error it is removed, so ``path`` never holds a
    half-written graph.  ``compress`` wraps the file in gzip.
    """
    # A same-directory temporary keeps os.replace atomic (same filesystem);
    # opening with "xb" rather than mkstemp keeps the usual umask permissions.
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with open(tmp, "xb") as raw:
            if compress:
                # filename= puts the final name, not the temporary's, in the
                # gzip header.  Level 1 writes several times faster than the
                # default 9 for files a few percent larger.
                with gzip.GzipFile(filename=path.name, mode="wb", fileobj=raw,
                                   compresslevel=1) as gz:
                    yield gz
            else:
                yield raw
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
