"""Edge lists (SNAP and plain): one 'u v [extra fields]' line per edge.

Fields are separated by spaces, tabs or commas; '#' and '%' lines are
comments; ids are 0-based and used as they are.  gconn writes a first line
'# gconn edge list: n=N m=M' and reads N back from it, so isolated vertices
after the largest id survive a round trip.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import VertexRangeError
from ..graph import Graph
from . import _kernels as K
from ._files import quote, read_bytes
from .arrays import RELABEL_HINT

_HEADER = re.compile(rb"#[ \t]*gconn edge list:[^\n]*?\bn=(\d+)")
_CHUNK = 1 << 20


def read(path: Path, n: int | None, relabel=False) -> Graph:
    buf = read_bytes(path)
    header = _HEADER.match(bytes(buf[:200]))
    declared = int(header.group(1)) if header else None
    limit = n if n is not None else (None if relabel is True else declared)
    cap = K.count_lines(buf)
    src = np.empty(cap, np.int64)
    dst = np.empty(cap, np.int64)
    # Spreadsheet exports often begin with a UTF-8 byte order mark.
    pos = 3 if bytes(buf[:3]) == b"\xef\xbb\xbf" else 0
    k, status, line, start, end, value = K.parse_pairs(
        buf, pos, 1, 0, -1 if limit is None else limit, 2, -1, src, dst)
    if status != K.OK:
        where = f"{path.name}, line {line}"
        if status == K.NEGATIVE:
            raise ValueError(f"{where}: negative vertex id {value}; ids must be >= 0")
        if status == K.OVERFLOW:
            raise ValueError(f"{where}: vertex id too large (beyond int64) in {quote(buf[start:end])}")
        if status == K.OUT_OF_RANGE:
            source = "given" if n is not None else "declared on line 1"
            raise ValueError(f"{where}: vertex id {value} is out of range for n={limit} ({source})")
        raise ValueError(f"{where}: expected two integer vertex ids, got {quote(buf[start:end])}")
    if limit is not None:
        relabel = False  # a declared or given n keeps every vertex, isolated ones too
    try:
        return Graph.from_edges(src[:k], dst[:k], limit, relabel=relabel)
    except VertexRangeError as e:
        if e.vertex_id is None:
            if n is not None:
                raise
            raise e.at(f"{path.name}, line 1: the header's n={declared}", None, RELABEL_HINT) from None
        # Parse again with the offending id just out of range to find its line.
        _, _, line, _, _, _ = K.parse_pairs(buf, pos, 1, 0, e.vertex_id, 2, -1, src, dst)
        raise e.at(f"{path.name}, line {line}", e.vertex_id) from None


def write(graph: Graph, f, sep: str) -> None:
    f.write(f"# gconn edge list: n={graph.n} m={graph.m}\n".encode())
    write_pairs(f, graph.src, graph.dst, 0, sep)


def write_pairs(f, a: np.ndarray, b: np.ndarray, add: int, sep: str) -> None:
    """Write 'a+add<sep>b+add' lines, formatted in bounded chunks."""
    if a.size == 0:
        return
    width = len(str(int(max(a.max(), b.max())) + add))
    out = np.empty(min(a.size, _CHUNK) * (2 * width + 2), np.uint8)
    for i in range(0, a.size, _CHUNK):
        used = K.format_pairs(a[i:i + _CHUNK], b[i:i + _CHUNK], add, ord(sep), out)
        f.write(memoryview(out[:used]))
