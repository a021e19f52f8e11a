"""Matrix Market: coordinate (or dense array) adjacency matrices, 1-based.

The header is read here.  A coordinate file's entries (pattern, real or complex) are read by the
edge-list parser, which checks each line as Matrix Market writes it; where it finds a line it does not
take (or the file is of integers, or dense), fast_matrix_market reads the entries after a syntax pass
(it reads some malformed entries leniently), and gconn's parser names the line it rejects.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gconn.io._files import (DECOMPRESS_ERRORS, FileEdges, check_declared, compression, cr_lines, next_line,
                             open_binary, quote, read_bytes)
from gconn.io import _parsers as K
from gconn.io.edgelist import parse_text, write_pairs

_FORMATS = ("coordinate", "array")
_FIELDS = {"pattern": 2, "integer": 3, "real": 3, "complex": 4}
_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
_ENTRY = {2: "'row col'", 3: "'row col value'", 4: "'row col real imag'"}


@dataclass
class _Header:
    format: str
    field: str      # pattern, integer, real or complex
    fields: int     # fields per coordinate entry line
    rows: int
    cols: int
    nnz: int
    size_line: int  # 1-based number of the 'rows cols [nnz]' line


def _fail(name: str, line: int, what: str, raw: bytes):
    raise ValueError(f"{name}, line {line}: {what}, got {quote(raw)}")


def _read_header(name: str, buf: np.ndarray) -> _Header:
    banner = bytes(buf[:K.line_end(buf, 0)])
    parts = banner.decode("utf-8", "replace").lower().split()
    if len(parts) != 5 or parts[0] != "%%matrixmarket":
        _fail(name, 1, "not a Matrix Market file: expected a banner "
              "'%%MatrixMarket matrix <format> <field> <symmetry>'", banner)
    _, obj, fmt, field, symmetry = parts
    if obj != "matrix" or fmt not in _FORMATS or field not in _FIELDS or symmetry not in _SYMMETRIES:
        _fail(name, 1, f"unsupported Matrix Market banner: expected 'matrix', one of {_FORMATS}, "
              f"one of {tuple(_FIELDS)} and one of {_SYMMETRIES}", banner)
    found = next_line(buf, len(banner) + 1, 2)
    if found is None:
        raise ValueError(f"{name}, line {K.count_lines(buf)}: file ends before the Matrix Market size line")
    pos, end, lineno = found
    raw = bytes(buf[pos:end])
    sizes = raw.split()
    want = 3 if fmt == "coordinate" else 2
    if len(sizes) != want or not all(s.isdigit() for s in sizes):
        _fail(name, lineno, f"expected the size line '{'rows cols nnz' if want == 3 else 'rows cols'}'", raw)
    rows, cols = int(sizes[0]), int(sizes[1])
    if rows != cols:
        raise ValueError(f"{name}, line {lineno}: the matrix is {rows} x {cols}; "
                         "an adjacency matrix must be square")
    nnz = int(sizes[2]) if want == 3 else rows * cols
    return _Header(fmt, field, _FIELDS[field], rows, cols, nnz, lineno)


def read(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of a Matrix Market file."""
    path = info.path
    raw = read_bytes(path)
    buf = cr_lines(raw)
    header = _read_header(path.name, buf)
    check_declared(path.name, n, header.rows, header.size_line, f"{path.name}, line {header.size_line}: the "
                   f"{header.rows} x {header.cols} matrix", relabelled)
    if header.format == "coordinate" and header.field != "integer":
        entries = _entries(buf, header)
        if entries is not None:
            return FileEdges(*entries, header.rows)
    _check_syntax(path, header, buf)
    import fast_matrix_market as fmm  # here: gconn's build (setup.py) imports the readers without it
    # fast_matrix_market picks a decompression by the name: a stream where name and content might disagree
    try:
        if buf is not raw:
            (data, (row, col)), _ = fmm.read_coo(io.BytesIO(buf.tobytes()), generalize_symmetry=False)
        elif compression(path) or path.suffix in (".gz", ".bz2", ".xz"):
            with open_binary(path) as f:
                (data, (row, col)), _ = fmm.read_coo(f, generalize_symmetry=False)
        else:
            (data, (row, col)), _ = fmm.read_coo(str(path), generalize_symmetry=False)
    except (ValueError, OverflowError, RuntimeError, *DECOMPRESS_ERRORS) as e:
        raise _describe_error(path, header, buf, e) from None
    if header.format == "array":
        keep = data != 0
        row, col = row[keep], col[keep]
    return FileEdges(row, col, header.rows)


_HASH = ord("#")


def _entries(buf: np.ndarray, header: _Header):
    """A coordinate file's (row, col), 0-based, in one pass of the edge-list parser (in parallel pieces
    where numba is loaded): the two indices, then the values as numbers.  None where a line is not such
    an entry, an index is 0 or past the size line's, or the entries are not as many as it declares:
    :func:`_check_syntax` and fast_matrix_market then name the line.  (The syntax pass and
    fast_matrix_market took 74 ms of a 1M-entry file, this pass 30: BENCHMARKS.md.)  An integer
    file's values must be integers, which this pass does not check."""
    body = K.line_start(buf, header.size_line + 1)
    if (buf[body:] == _HASH).any():         # no comment in Matrix Market, as it is in an edge list
        return None
    src, dst, k, status, *_ = parse_text(buf, body, header.size_line + 1,
                                         (0, header.fields, 0, 1, header.fields > 2, header.rows + 1))
    if status != K.OK or k != header.nnz:
        return None
    src, dst = src[:k], dst[:k]
    if k and min(int(src.min()), int(dst.min())) < 1:
        return None
    return src - 1, dst - 1


def _check_syntax(path: Path, header: _Header, buf: np.ndarray) -> None:
    """Reject what fast_matrix_market reads leniently: '3 1.5' as '3 1', extra fields, a real as integer."""
    body = K.line_start(buf, header.size_line + 1)
    kind = K.VALUE_INTEGER if header.field == "integer" else K.VALUE_REAL
    nvals = header.fields - 2
    nidx = 2 if header.format == "coordinate" else 0
    if nidx == 0 and nvals == 0:
        raise ValueError(f"{path.name}, line 1: a dense 'array' file cannot have the 'pattern' field")
    if K.entries_ok(buf, body, nidx, nvals, kind, 64):
        return
    status, line, start, end = K.check_entries(buf, body, header.size_line + 1, nidx, nvals, kind)
    if nidx:
        value = {"pattern": "", "integer": " and an integer value", "real": " and a real value",
                 "complex": " and a real and an imaginary part"}[header.field]
        expected = f"an entry {_ENTRY[header.fields]} with integer indices{value}"
    else:
        expected = f"one {header.field} value per line" if nvals == 1 else "one 'real imag' pair per line"
    raise ValueError(f"{path.name}, line {line}: expected {expected}, got {quote(buf[start:end])}")


def _describe_error(path: Path, header: _Header, buf: np.ndarray, error: Exception) -> ValueError:
    """The error for a file fmm rejected, naming the bad line."""
    name = path.name
    if header.format == "coordinate":
        body = K.line_start(buf, header.size_line + 1)
        cap = min(header.nnz, K.count_lines(buf))
        src = np.empty(cap, np.int64)
        dst = np.empty(cap, np.int64)
        k, status, line, start, end, value = K.parse_pairs(
            buf, body, header.size_line + 1, 1, header.rows, header.fields, header.nnz, src, dst)
        where = f"{name}, line {line}"
        declared = f"declared on line {header.size_line}"
        if status in (K.BAD_FIELD, K.TOO_FEW):
            return ValueError(f"{where}: expected an entry {_ENTRY[header.fields]} with integer "
                              f"indices, got {quote(buf[start:end])}")
        if status in (K.NEGATIVE, K.OUT_OF_RANGE, K.OVERFLOW):
            return ValueError(f"{where}: entry {quote(buf[start:end])} is outside the "
                              f"{header.rows} x {header.cols} matrix {declared} (indices are 1-based)")
        if status == K.TOO_MANY:
            return ValueError(f"{where}: more entries than the {header.nnz} {declared}")
        if k < header.nnz:
            return ValueError(f"{name}, line {K.count_lines(buf)}: file ends after {k} of the "
                              f"{header.nnz} entries {declared}")
    # fmm words the rest, as 'Line N: Message.' where it knows the line
    message = str(error).strip().rstrip(".")
    if message.startswith("Line "):
        number, _, message = message[5:].partition(":")
        message = message.strip()
    elif message.startswith("Truncated file"):
        number = str(K.count_lines(buf))
    else:
        return ValueError(f"{name}: {message[:1].lower()}{message[1:]}")
    return ValueError(f"{name}, line {number}: {message[:1].lower()}{message[1:]}")


def write(graph, f) -> None:
    f.write(b"%%MatrixMarket matrix coordinate pattern symmetric\n% written by gconn\n")
    f.write(f"{graph.n} {graph.n} {graph.m}\n".encode())
    # 'symmetric' stores the lower triangle: row > col, i.e. (dst, src).
    write_pairs(f, graph.dst, graph.src, 1, " ")
