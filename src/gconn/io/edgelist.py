"""Edge lists (SNAP, plain, CSV/TSV): one 'u v [extra fields]' line per edge.

'#' and '%' lines are comments.  The first other line decides the rest:

* its delimiter: a tab, else a comma, else a semicolon, else runs of
  spaces;
* whether it is a header: it is when one of the two edge fields is not an
  integer (``header=None``), or as ``header=True``/``False`` says; a
  header names the columns, and ``source=``/``target=`` pick the edge
  columns by name (default: the first two);
* whether ids are integers (0-based, used as they are) or names: names
  when the first edge's fields are not both integers; names are mapped to
  0..k-1 in sorted order and kept in ``graph.nodes``.  A header line is
  needed to tell a first edge of names from a header: a file of names
  without one needs ``header=False``.

Integer edges in the first two columns of a comma, tab or space separated
file go through gconn's numba parser; anything else through pyarrow's CSV
reader.  gconn writes a first line '# gconn edge list: n=N m=M' and reads N
back from it, so isolated vertices after the largest id survive a round
trip.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import VertexRangeError
from ..graph import Graph
from ._parsers import K
from ._files import quote, read_bytes
from .arrays import RELABEL_HINT

_HEADER = re.compile(rb"#[ \t]*gconn edge list:[^\n]*?\bn=(\d+)")
_CHUNK = 1 << 20


_COMMENT = re.compile(rb"[ \t]*(?:[#%][^\n]*)?\r?(?:\n|$)")
_INTEGER = re.compile(r"[+-]?\d+")


def _first_line(buf: np.ndarray, pos: int, line: int):
    """(line number, start, end) of the first line at or after ``pos`` that
    is neither blank nor a comment, or None."""
    raw = memoryview(buf)
    size = buf.size
    while pos < size:
        m = _COMMENT.match(raw, pos)
        if m is None or m.end() == pos:
            end = K.line_end(buf, pos)
            return line, pos, end
        pos = m.end()
        line += 1
    return None


def _split(text: str, delimiter: str) -> list:
    fields = text.split() if delimiter == " " else text.split(delimiter)
    return [f.strip().strip('"').strip() for f in fields]


def _sniff(buf, pos, header, source, target, path):
    """How to read the file: (delimiter, column names or None, the chosen
    columns' positions, first data byte, its line number, names?)."""
    first = _first_line(buf, pos, 1)
    if first is None:
        if source is not None or target is not None:
            raise ValueError(f"{path.name}: the file has no header line to find source=/target= columns in")
        return " ", None, (0, 1), pos, 1, False
    line, start, end = first
    text = bytes(buf[start:end]).decode("utf-8", "replace").rstrip("\r")
    delimiter = next((d for d in ("\t", ",", ";") if d in text), " ")
    fields = _split(text, delimiter)
    if header is None:
        header = source is not None or target is not None or not all(
            _INTEGER.fullmatch(f) for f in fields[:2])
    if not header:
        if source is not None or target is not None:
            raise ValueError(f"{path.name}: source=/target= name header columns, but header=False")
        return delimiter, None, (0, 1), start, line, len(fields) >= 2 and not all(
            _INTEGER.fullmatch(f) for f in fields[:2])
    if len(fields) < 2:
        raise ValueError(f"{path.name}, line {line}: expected a header of two or more columns or two vertex "
                         f"ids, got {quote(text.encode())}")
    cols = []
    for given, default, option in ((source, 0, "source"), (target, 1, "target")):
        if given is None:
            cols.append(default)
        elif str(given) in fields:
            cols.append(fields.index(str(given)))
        else:
            raise ValueError(f"{path.name}, line {line}: {option}={given!r} is not a column of the header; "
                           f"its columns: {fields}")
    data = _first_line(buf, end + 1, line + 1)
    named = False
    if data is not None:
        row = _split(bytes(buf[data[1]:data[2]]).decode("utf-8", "replace").rstrip("\r"), delimiter)
        named = any(c < len(row) and not _INTEGER.fullmatch(row[c]) for c in cols)
    return delimiter, fields, tuple(cols), end + 1, line + 1, named


def read(path: Path, n: int | None, relabel=False, source=None, target=None, header=None, build=None):
    """The graph of an edge-list file.  ``build(src, dst, n, relabel)``, when
    given, replaces ``Graph.from_edges`` on the ids of the integer parser,
    and files that need pyarrow's reader then give None."""
    buf = read_bytes(path)
    gconn_header = _HEADER.match(bytes(buf[:200]))
    declared = int(gconn_header.group(1)) if gconn_header else None
    limit = n if n is not None else (None if relabel is True else declared)
    # Spreadsheet exports often begin with a UTF-8 byte order mark.
    pos = 3 if bytes(buf[:3]) == b"\xef\xbb\xbf" else 0
    delimiter, names, cols, pos, first_line, named = _sniff(buf, pos, header, source, target, path)
    if named or cols != (0, 1) or delimiter == ";":
        if build is not None:
            return None
        from .delimited import read_columns
        from ..inputs.tables import graph_from_pair
        if _first_line(buf, pos, first_line) is None:  # a header and no edges
            src = dst = np.zeros(0, np.int64)
        else:
            src, dst = read_columns(buf[pos:], path, delimiter, names, cols, first_line, named)
        if limit is not None:
            relabel = False
        try:
            return graph_from_pair(src, dst, limit, relabel)
        except (ValueError, TypeError) as e:
            raise type(e)(f"{path.name}: {e}") from None
    cap = K.count_lines(buf)
    src = np.empty(cap, np.int64)
    dst = np.empty(cap, np.int64)
    k, status, line, start, end, value = K.parse_pairs(
        buf, pos, first_line, 0, -1 if limit is None else limit, 2, -1, src, dst)
    if status != K.OK:
        raise parse_error(path, status, line, buf[start:end], value, limit,
                          "given" if n is not None else "declared on line 1")
    if limit is not None:
        relabel = False  # a declared or given n keeps every vertex, isolated ones too
    try:
        return (build or Graph.from_edges)(src[:k], dst[:k], limit, relabel=relabel)
    except VertexRangeError as e:
        if e.vertex_id is None:
            if n is not None:
                raise
            raise e.at(f"{path.name}, line 1: the header's n={declared}", None, RELABEL_HINT) from None
        # Parse again with the offending id just out of range to find its line.
        _, _, line, _, _, _ = K.parse_pairs(buf, pos, first_line, 0, e.vertex_id, 2, -1, src, dst)
        raise e.at(f"{path.name}, line {line}", e.vertex_id) from None


_SEPARATORS = b" \t\r,"
_INT64_MAX = np.iinfo(np.int64).max


def _column(raw: bytes, status: int, value: int) -> int:
    """1-based column of the field :func:`K.parse_pairs` stopped at on the
    line ``raw`` (the same walk, in Python: only errors take it)."""
    i = 0
    while i < len(raw) and raw[i] in b" \t\r":
        i += 1
    for f in range(2):
        commas = []
        while i < len(raw) and raw[i] in _SEPARATORS:
            if raw[i] == ord(","):
                commas.append(i)
            i += 1
        if len(commas) > (f > 0):  # an empty field: where it would begin
            return commas[f > 0] + 1
        if i == len(raw):
            return i + 1
        j = i
        while j < len(raw) and raw[j] not in _SEPARATORS:
            j += 1
        token = raw[i:j]
        if not re.fullmatch(rb"\d+", token) or int(token) > _INT64_MAX or \
                (status == K.OUT_OF_RANGE and int(token) == value):
            return i + 1
        i = j
    return 1


def parse_error(path: Path, status: int, line: int, raw, value: int, limit, limit_origin: str) -> ValueError:
    """The error for a bad data line of an edge list: file, line, column and what is wrong."""
    raw = bytes(raw)
    where = f"{path.name}, line {line}, column {_column(raw, status, value)}"
    if status == K.NEGATIVE:
        return ValueError(f"{where}: negative vertex id {value}; ids must be >= 0")
    if status == K.OVERFLOW:
        return ValueError(f"{where}: vertex id too large (beyond int64) in {quote(raw)}")
    if status == K.OUT_OF_RANGE:
        return ValueError(f"{where}: vertex id {value} is out of range for n={limit} ({limit_origin})")
    return ValueError(f"{where}: expected two integer vertex ids, got {quote(raw)}")


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
