"""Edges in chunks: a graph file read piece by piece, in bounded memory.

Edge lists are read in blocks cut at a line end and parsed under their
dialect, with :func:`gconn.load`'s errors (pyarrow's streaming CSV reader is
slower and knows neither comments nor runs of spaces); ``.gcb`` and ``.npy``
are memory-mapped.  Ids are int32 while they fit, int64 from the block that
holds a larger one.
"""
from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np

from gconn.io import _parsers as K
from gconn.io._files import open_binary
from gconn.io.edgelist import bound_origin, check_count_line, from_base, parse_error, without_nx_data
from gconn.io.binary import edge_array, layout
from gconn.io.identify import FileInfo, identify

__all__ = ["edge_chunks", "EdgeChunks", "DEFAULT_CHUNK_EDGES", "of_file"]

#: Edges per chunk by default: 32 MB of int32 pairs.
DEFAULT_CHUNK_EDGES = 1 << 22
#: Bytes read from a text file at a time (at most; a line is never split).
BLOCK_BYTES = 1 << 24
_INT32_LIMIT = int(np.iinfo(np.int32).max) + 1
_CHUNKED = ("edgelist", "gcb", "npy")


class EdgeChunks:
    """The chunks of one file (see :func:`edge_chunks`), iterable any number
    of times; ``n``: the vertex count the file declares, or None."""

    def __init__(self, path: Path, fmt: str, chunk_edges: int, n: int | None, reader):
        self.path, self.format, self.chunk_edges, self.n = path, fmt, chunk_edges, n
        self._reader = reader
        #: an edge list's FileInfo where its SNAP header counts its nodes (and it declares no n)
        self.snap = None

    def __iter__(self):
        return self._reader()

    def __repr__(self) -> str:
        return f"EdgeChunks({str(self.path)!r}, format={self.format!r}, chunk_edges={self.chunk_edges})"


def edge_chunks(path, chunk_edges: int | None = None, *, format: str | None = None, header=None,
                source=None, target=None, names=None) -> EdgeChunks:
    """The edges of a graph file as ``(src, dst)`` chunks of at most
    ``chunk_edges`` edges (default :data:`gconn.io.chunks.DEFAULT_CHUNK_EDGES`).

    Each chunk is two int32 (or int64 once an id needs it) arrays in file
    order, duplicates and self loops kept (``.gcb``: read-only views).  The
    vertex count is ``.n`` where the file declares one, else the largest id
    + 1.  Formats: edge lists, ``.gcb`` and ``.npy``; the keywords are
    :func:`gconn.load`'s.

    >>> import gconn.io, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("from,to\\n0,1\\n# a comment\\n1,2\\n5,4\\n")
    >>> [(s.tolist(), d.tolist()) for s, d in gconn.io.edge_chunks(path, chunk_edges=2)]
    [([0, 1], [1, 2]), ([5], [4])]
    """
    if chunk_edges is None:
        chunk_edges = DEFAULT_CHUNK_EDGES
    if isinstance(chunk_edges, bool) or not isinstance(chunk_edges, (int, np.integer)) or chunk_edges < 1:
        raise ValueError(f"chunk_edges must be a positive integer; got {chunk_edges!r}")
    info = identify(path, format, header=header, source=source, target=target, names=names)
    chunks = of_file(info, int(chunk_edges))
    if isinstance(chunks, str):
        raise ValueError(chunks)
    return chunks


def of_file(info: FileInfo, chunk_edges: int | None = None):
    """:class:`EdgeChunks` of the file ``info`` describes, or a sentence saying why it is read whole."""
    chunk_edges = chunk_edges or DEFAULT_CHUNK_EDGES
    fmt, name = info.format, info.name
    if fmt not in _CHUNKED:
        return f"{name}: {fmt} files are read whole, not in chunks (in chunks: {', '.join(_CHUNKED)})"
    if fmt == "gcb":
        return _gcb(info.path, chunk_edges)
    if fmt == "npy":
        return _npy(info.path, chunk_edges)
    d = info.dialect
    if d.names:
        return f"{name}: the vertex ids are names, not integers"
    if not d.parsed:
        return f"{name}: the fields are quoted"
    if d.listed:
        return f"{name}: its vertices are the ids that occur (gconn's header says vertices=listed)"
    chunks = EdgeChunks(info.path, "edgelist", chunk_edges, d.declared_n, lambda: _blocks(info, chunk_edges))
    chunks.snap = info if d.snap_nodes is not None else None
    return chunks


class _ReadAhead:
    """A file read one block ahead by a thread (zlib and the parser release the GIL)."""

    def __init__(self, f, size: int):
        from concurrent.futures import ThreadPoolExecutor
        self.f, self.size = f, size
        self.pool = ThreadPoolExecutor(1)
        self.pending = self.pool.submit(f.read, size)
        self.rest = memoryview(b"")

    def readinto(self, view) -> int:
        if not self.rest:
            data = self.pending.result()
            if not data:
                return 0
            self.pending = self.pool.submit(self.f.read, self.size)
            self.rest = memoryview(data)
        n = min(len(view), len(self.rest))
        view[:n] = self.rest[:n]
        self.rest = self.rest[n:]
        return n

    def close(self) -> None:
        self.pool.shutdown(wait=True)  # the read under way ends first


def _fill(f, buf: bytearray, start: int) -> int:
    """Read into ``buf[start:]`` until it is full or the file ends; bytes held."""
    view = memoryview(buf)
    end = start
    while end < len(buf):
        got = f.readinto(view[end:])
        if not got:
            break
        end += got
    return end


def _line_blocks(info: FileInfo):
    """An edge list's data as uint8 arrays of whole lines, about BLOCK_BYTES each (or one longer line)."""
    with open_binary(info.path) as raw:
        if info.dialect.start:
            raw.seek(info.dialect.start)
        f = _ReadAhead(raw, BLOCK_BYTES) if info.compressed else raw
        try:
            yield from map(without_nx_data, _split(f, info.cr)) if info.dialect.nx_data else _split(f, info.cr)
        finally:
            if info.compressed:
                f.close()


def _split(f, cr: bool = False):
    buf = bytearray(BLOCK_BYTES)
    held = 0
    while True:
        used = _fill(f, buf, held)
        if cr:
            buf[held:used] = buf[held:used].replace(b"\r", b"\n")
        at_end = used < len(buf)
        cut = used if at_end else buf.rfind(b"\n", 0, used) + 1
        if cut == 0 and not at_end:  # one line longer than the buffer: read more of it
            buf.extend(bytes(len(buf)))
            held = used
            continue
        yield np.frombuffer(buf, np.uint8)[:cut]
        if at_end:
            return
        # The cut-off last line moves to the front of the buffer.
        held = used - cut
        buf[:held] = buf[cut:used]


def _blocks(info: FileInfo, chunk_edges: int):
    """The chunks of an edge list, parsed a block at a time."""
    import numba
    d = info.dialect
    pieces = 4 * numba.get_num_threads()
    line, declared = d.line, d.declared_n
    dtype = np.int32
    # ids counted from d.base (KONECT's 1) run to declared + base - 1
    bound = declared + d.base if declared is not None else None
    limit = bound if bound is not None and bound <= _INT32_LIMIT else _INT32_LIMIT
    src, dst, fill = np.empty(chunk_edges, dtype), np.empty(chunk_edges, dtype), 0
    block_src = block_dst = np.empty(0, dtype)
    # the first edge while it may be a count line 'n m' (edgelist.check_count_line), the edges so far, and
    # whether the others hold the id n and the id 0 (both: not n vertices from 0 nor from 1)
    first, edges, top, zero = (None if d.count_line else False), 0, False, False
    for data in _line_blocks(info):
        while True:
            k, status, next_line, start, end, value, field = K.parse_block(
                data, 0, line, *d.parser_args, limit, pieces, block_src, block_dst)
            if status == K.NEED_SPACE:
                block_src, block_dst = np.empty(k, dtype), np.empty(k, dtype)
            elif status == K.OUT_OF_RANGE and limit == _INT32_LIMIT and dtype == np.int32 \
                    and (bound is None or value < bound):
                # An id beyond int32: this block and all after it in int64.
                dtype = np.int64
                limit = bound if bound is not None else -1
                src, dst = src.astype(dtype), dst.astype(dtype)
                block_src, block_dst = block_src.astype(dtype), block_dst.astype(dtype)
            elif status != K.OK:
                raise parse_error(info.path, d, status, next_line, data[start:end], value, field, declared,
                                  bound_origin(d))
            else:
                break
        if d.base:
            from_base(info.path.name, d, data, line, block_src[:k], block_dst[:k])
        line = next_line
        if first is not False and k:
            if first is None:
                first = int(block_src[0]), int(block_dst[0])
            a, b = first
            rest = slice(1 if edges == 0 else 0, k)
            if edges + k > b + 1 or (block_src[rest] > a).any() or (block_dst[rest] > a).any():
                first = False
            else:
                top = top or bool((block_src[rest] == a).any() or (block_dst[rest] == a).any())
                zero = zero or bool((block_src[rest] == 0).any() or (block_dst[rest] == 0).any())
        edges += k
        i = 0
        while i < k:
            take = min(chunk_edges - fill, k - i)
            src[fill:fill + take] = block_src[i:i + take]
            dst[fill:fill + take] = block_dst[i:i + take]
            fill += take
            i += take
            if fill == chunk_edges:
                yield src, dst
                src, dst, fill = np.empty(chunk_edges, dtype), np.empty(chunk_edges, dtype), 0
    if first:
        a = first[0]
        check_count_line(info.path.name, d, *first, edges, a if top else a - 1, 0 if zero else 1)
    if fill:
        yield src[:fill], dst[:fill]


def line_of_id(info: FileInfo, vertex_id: int) -> int | None:
    """The line of the first edge with an id >= ``vertex_id``, the edge list read again in bounded memory."""
    line = info.dialect.line
    scratch = np.empty(0, np.int64)
    for data in _line_blocks(info):
        if scratch.size < data.size // 2 + 2:
            scratch = np.empty(data.size // 2 + 2, np.int64)
        _, status, line, _, _, _, _ = K.parse_edges(data, 0, line, *info.dialect.parser_args,
                                                    vertex_id + info.dialect.base, scratch, scratch)
        if status == K.OUT_OF_RANGE:
            return int(line)
    return None


def mapped_arrays(path) -> tuple:
    """``(src, dst, n)`` of a ``.gcb`` file, or the columns of an ``.npy``
    (m, 2) edge array with n None, memory-mapped.

    >>> import gconn, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "e.npy")
    >>> np.save(path, np.array([[0, 1], [2, 3]]))
    >>> [a.tolist() if a is not None else a for a in mapped_arrays(path)]
    [[0, 2], [1, 3], None]
    >>> gconn.save(gconn.Graph.from_edges([0, 2], [1, 3]), path[:-4] + ".gcb")
    >>> src, dst, n = mapped_arrays(path[:-4] + ".gcb")
    >>> src.tolist(), dst.tolist(), n
    ([0, 2], [1, 3], 4)
    """
    name = str(path)
    if name.endswith(".gcb"):
        n, m, ids, src_at, dst_at = layout(Path(name))
        if m == 0:
            return np.zeros(0, ids), np.zeros(0, ids), int(n)
        return np.memmap(name, ids, "r", src_at, (m,)), np.memmap(name, ids, "r", dst_at, (m,)), int(n)
    if name.endswith(".npy"):
        arr = edge_array(Path(name), "r")
        return arr[:, 0], arr[:, 1], None
    raise ValueError(f"{name}: only .gcb and .npy files are read as mapped arrays")


def _mapped(path: Path, offset: int, dtype, count: int, chunk_edges: int):
    """Chunks of the ``count`` items of ``dtype`` at byte ``offset``: views
    of a read-only map whose consumed pages are dropped from memory."""
    if count == 0:
        return
    with open(path, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    advise = getattr(mm, "madvise", None)
    if advise is not None and hasattr(mmap, "MADV_SEQUENTIAL"):
        advise(mmap.MADV_SEQUENTIAL)
    arr = np.frombuffer(mm, dtype, count, offset)
    page = mmap.PAGESIZE
    for i in range(0, count, chunk_edges):
        j = min(i + chunk_edges, count)
        yield arr[i:j]
        if advise is not None and hasattr(mmap, "MADV_DONTNEED"):
            # consumed: its pages leave the resident set (a kept view rereads the file)
            lo = (offset + i * arr.itemsize) // page * page
            hi = (offset + j * arr.itemsize) // page * page
            if hi > lo:
                advise(mmap.MADV_DONTNEED, lo, hi - lo)


def _gcb(path: Path, chunk_edges: int):
    n, m, ids, src_at, dst_at = layout(path)

    def read():
        for s, d in zip(_mapped(path, src_at, ids, m, chunk_edges), _mapped(path, dst_at, ids, m, chunk_edges)):
            lo, hi = min(int(s.min()), int(d.min())), max(int(s.max()), int(d.max()))
            if lo < 0 or hi >= n:
                raise ValueError(f"{path.name}: corrupt .gcb file: vertex id {lo if lo < 0 else hi} is "
                                 f"outside 0..{n - 1}")
            yield s, d
    return EdgeChunks(path, "gcb", chunk_edges, n, read)


def _npy(path: Path, chunk_edges: int):
    edges = edge_array(path, "r")

    def read():
        for i in range(0, edges.shape[0], chunk_edges):
            block = edges[i:i + chunk_edges]
            s, d = np.ascontiguousarray(block[:, 0]), np.ascontiguousarray(block[:, 1])
            lo = min(int(s.min()), int(d.min()))
            if lo < 0:
                row = i + int(np.flatnonzero((s < 0) | (d < 0))[0])
                raise ValueError(f"{path.name}: row {row}: negative vertex id {lo}; ids must be >= 0")
            yield s, d
    return EdgeChunks(path, "npy", chunk_edges, None, read)
