"""``.gcb``: gconn's binary graph, the Graph arrays as they are in memory.

Layout (little-endian): a 64-byte header (magic, version u16, id and offset item sizes u8 each,
4 reserved bytes, n u64, m u64, zero padding), then ``indptr``, ``indices``, ``src`` and ``dst``.
"""
from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

from gconn.graph import INT32_MAX
from gconn.io._files import FileEdges, check_declared

# PNG-style: exposes text-mode or 7-bit mangling too
MAGIC = b"\x89GCB\r\n\x1a\n"
VERSION = 1
HEADER_SIZE = 64
_FIELDS = struct.Struct("<8sHBB4xQQ")


def _dtype(size: int) -> np.dtype:
    return np.dtype(f"<i{size}")


def _header(f, name: str):
    """(id size, offset size, n, m) of an open .gcb file, checked against its size."""
    head = f.read(HEADER_SIZE)
    if head[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{name}: not a gconn .gcb file (bad magic bytes {head[:8]!r})")
    if len(head) < HEADER_SIZE:
        raise ValueError(f"{name}: truncated .gcb file: {len(head)} bytes, shorter than "
                         f"the {HEADER_SIZE}-byte header")
    _, version, id_size, ptr_size, n_file, m = _FIELDS.unpack_from(head)
    if version != VERSION:
        raise ValueError(f"{name}: .gcb version {version} is not supported (this gconn "
                         f"reads version {VERSION})")
    if id_size not in (4, 8) or ptr_size not in (4, 8) or (n_file > INT32_MAX and id_size == 4) \
            or (2 * m > INT32_MAX and ptr_size == 4):
        raise ValueError(f"{name}: corrupt .gcb header (n={n_file}, m={m}, id size {id_size}, "
                         f"offset size {ptr_size})")
    expected = HEADER_SIZE + (n_file + 1) * ptr_size + 4 * m * id_size
    actual = os.fstat(f.fileno()).st_size
    if actual != expected:
        raise ValueError(f"{name}: truncated or corrupt .gcb file: the header (n={n_file}, "
                         f"m={m}) needs {expected} bytes, the file has {actual}")
    return id_size, ptr_size, n_file, m


def layout(path: Path):
    """(n, m, id dtype, byte offset of src, byte offset of dst) of a .gcb file."""
    with open(path, "rb") as f:
        id_size, ptr_size, n, m = _header(f, path.name)
    src_at = HEADER_SIZE + (n + 1) * ptr_size + 2 * m * id_size
    return n, m, _dtype(id_size), src_at, src_at + m * id_size


def edge_arrays(path):
    """(src, dst, n) of a .gcb file, memory-mapped.

    >>> import gconn, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.gcb")
    >>> gconn.save(gconn.Graph.from_edges([0, 2], [1, 3]), path)
    >>> src, dst, n = edge_arrays(path)
    >>> src.tolist(), dst.tolist(), n
    ([0, 2], [1, 3], 4)
    """
    n, m, ids, src_at, dst_at = layout(Path(path))
    src = np.memmap(path, ids, "r", src_at, (m,)) if m else np.zeros(0, ids)
    dst = np.memmap(path, ids, "r", dst_at, (m,)) if m else np.zeros(0, ids)
    return src, dst, int(n)


def read(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of a .gcb file, with its canonical arrays."""
    path = info.path
    name = path.name
    with open(path, "rb") as f:
        id_size, ptr_size, n_file, m = _header(f, name)
        check_declared(name, n, n_file, None, f"{name}: the n={n_file} stored in the file", relabelled)
        ids = _dtype(id_size)
        indptr = np.fromfile(f, _dtype(ptr_size), n_file + 1)
        indices = np.fromfile(f, ids, 2 * m)
        src = np.fromfile(f, ids, m)
        dst = np.fromfile(f, ids, m)
    if indptr[0] != 0 or indptr[-1] != 2 * m:
        raise ValueError(f"{name}: corrupt .gcb file: indptr runs from {indptr[0]} to "
                         f"{indptr[-1]}, expected 0 to 2m={2 * m}")
    indptr, indices, src, dst = (a.astype(a.dtype.newbyteorder("="), copy=False)
                                 for a in (indptr, indices, src, dst))
    return FileEdges(src, dst, n_file, canonical=(indptr, indices))


def write(graph, f) -> None:
    ids = _dtype(graph.indices.dtype.itemsize)
    offsets = _dtype(graph.indptr.dtype.itemsize)
    f.write(_FIELDS.pack(MAGIC, VERSION, ids.itemsize, offsets.itemsize,
                         graph.n, graph.m).ljust(HEADER_SIZE, b"\0"))
    for a, dtype in ((graph.indptr, offsets), (graph.indices, ids), (graph.src, ids), (graph.dst, ids)):
        f.write(memoryview(np.ascontiguousarray(a, dtype)))
