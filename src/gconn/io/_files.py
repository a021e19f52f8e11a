"""File plumbing shared by the formats: reading bytes, atomic writes, messages."""
from __future__ import annotations

import contextlib
import bz2
import gzip
import lzma
import os
import secrets
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from gconn.graph.memory import check_vertices
from gconn.io import _parsers as K

#: The advice when a file's declared vertex count does not fit in memory.
RELABEL_HINT = "pass relabel=True (gconn cc --relabel) to count only the vertices that have edges"


#: Column names read as an edge's two ends where ``source=`` and ``target=`` are not given, in any
#: case: NetworkX's and pandas' source/target, cuGraph's source/destination, src/dst, from/to, u/v.
EDGE_NAMES = (("source", "target"), ("source", "destination"), ("src", "dst"), ("from", "to"), ("u", "v"),
              ("source", "dest"), ("src", "dest"), ("origin", "destination"), ("origin", "dest"))
#: Column names of an edge's data, never read as vertex ids by position ('src' beside 'weight').
DATA_NAMES = frozenset(("weight", "weights", "w", "cost", "distance", "dist", "length", "time", "timestamp", "ts",
                        "date", "value", "label", "type", "capacity", "count", "rating", "score", "sign"))


def default_columns(names, where: str) -> tuple[tuple[int, int], str | None]:
    """The positions of the edge columns among a table's or a header's ``names`` where neither
    ``source=`` nor ``target=`` is given, and a note where that was a choice: a pair of
    :data:`EDGE_NAMES`, else the only two columns, else the first two (noted).

    >>> default_columns(["weight", "Src", "dst"], "t.csv")
    ((1, 2), "t.csv: the edges are columns 'Src' and 'dst', by their names (source= and target= pick others)")
    >>> default_columns(["a", "b"], "t")
    ((0, 1), None)
    >>> default_columns(["src", "weight"], "t")
    Traceback (most recent call last):
    ...
    ValueError: t: the first two columns, the edges by position, include 'weight', a name of an edge's data (of ['src', 'weight']); pick the two columns with source= and target=
    >>> default_columns(["a", "b", "c"], "t")[1]
    "t: the edges are columns 'a' and 'b', the first two of 3 (source= and target= pick others)"
    """
    names = [str(c) for c in names]
    if len(names) >= 3 and names[0] == "":
        # pandas' index, unnamed (DataFrame.to_csv): never an end of an edge
        (s, t), note = default_columns(names[1:], where)
        return (s + 1, t + 1), note
    low = [c.lower() for c in names]
    found = [(low.index(a), low.index(b)) for a, b in EDGE_NAMES if a in low and b in low]
    if len(found) > 1:
        pairs = " and ".join(f"({names[s]!r}, {names[t]!r})" for s, t in found)
        raise ValueError(f"{where}: the columns {pairs} could each be the edges; pick them with source= and "
                         "target=")
    if found:
        s, t = found[0]
        return (s, t), None if (s, t) == (0, 1) else (
            f"{where}: the edges are columns {names[s]!r} and {names[t]!r}, by their names (source= and target= "
            "pick others)")
    data = [names[i] for i in (0, 1) if i < len(low) and low[i] in DATA_NAMES]
    if data:
        # 'src' beside 'weight': taken by position, the weights would be vertex ids
        raise ValueError(f"{where}: the first two columns, the edges by position, include "
                         f"{' and '.join(map(repr, data))}, a name of an edge's data (of {names}); pick the two "
                         "columns with source= and target=")
    if len(names) > 2:
        return (0, 1), (f"{where}: the edges are columns {names[0]!r} and {names[1]!r}, the first two of "
                        f"{len(names)} (source= and target= pick others)")
    return (0, 1), None


def partner(names, given, role: str) -> int | None:
    """Where only one of ``source=``/``target=`` is given (``role``), the position of its partner in a
    pair of :data:`EDGE_NAMES` among ``names`` (``src`` -> ``dst``, ``to`` -> ``from``), or None.

    >>> partner(["w", "src", "dst"], "src", "source"), partner(["from", "w", "to"], "to", "target")
    (2, 0)
    """
    low = [str(c).lower() for c in names]
    side, other = (0, 1) if role == "source" else (1, 0)
    for pair in EDGE_NAMES:
        if str(given).lower() == pair[side] and pair[other] in low:
            return low.index(pair[other])
    return None


def column_defaults(names, source, target, where: str) -> tuple[tuple[int, int], str | None]:
    """The positions the edge columns take where ``source=`` or ``target=`` (or both) are not given,
    and a note where that was a choice: :func:`default_columns` for both, else the given one's
    :func:`partner`, else the first two positions.

    >>> column_defaults(["w", "src", "dst"], "src", None, "t"), column_defaults(["a", "b"], None, "b", "t")
    (((0, 2), None), ((0, 1), None))
    """
    if source is None and target is None:
        return default_columns(names, where)
    if source is None:
        return (partner(names, target, "target") or 0, 1), None
    found = partner(names, source, "source") if target is None else None
    return (0, 1 if found is None else found), None


def same_column(where: str, a, b) -> None:
    """The error where ``source=`` and ``target=`` come to one column (every edge a self loop)."""
    if a == b:
        raise ValueError(f"{where}: source and target are the same column {a!r}; name both with source= and "
                         "target=")


class FileEdges(NamedTuple):
    """A file's edges: ``src``/``dst`` ids, the vertex count ``n`` the file declares (or None), and
    ``names`` the vertices carry (then ``src``/``dst`` index them)."""

    src: np.ndarray
    dst: np.ndarray
    n: int | None = None
    names: np.ndarray | None = None
    #: a .gcb file's (indptr, indices), with src/dst its canonical COO
    canonical: tuple | None = None
    notes: tuple = ()


def check_declared(name: str, n, declared: int, line, origin: str, relabelled: bool) -> None:
    """Check a given ``n`` against the vertex count a file declares (on ``line``) and that it fits memory."""
    if n is not None and n < declared and line is not None:
        raise ValueError(f"{name}: n={n} is smaller than the {declared} vertices declared on line {line}")
    if not relabelled:
        if n is not None and n > declared:
            check_vertices(n, f"n={n}")
        check_vertices(declared, origin, None, hint=RELABEL_HINT)


def without_edges(graph) -> np.ndarray:
    has_edge = np.zeros(graph.n, np.bool_)
    has_edge[graph.src] = True
    has_edge[graph.dst] = True
    return np.flatnonzero(~has_edge)


DECOMPRESS_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error, lzma.LZMAError)
#: the compressions a text file may have, by their first bytes: (magic, module, name, suffix)
COMPRESSIONS = ((b"\x1f\x8b", gzip, "gzip", ".gz"), (b"BZh", bz2, "bzip2", ".bz2"),
                (b"\xfd7zXZ\x00", lzma, "xz", ".xz"))


def compression(path: Path):
    """The (magic, module, name, suffix) of ``path``'s compression, or None."""
    with open(path, "rb") as f:
        head = f.read(6)
    return next((c for c in COMPRESSIONS if head.startswith(c[0])), None)


@contextlib.contextmanager
def open_binary(path: Path):
    """``path`` opened to read its bytes, decompressed where it is compressed; a corrupt stream is
    a ValueError naming the file."""
    kind = compression(path)
    try:
        with kind[1].open(path, "rb") if kind else open(path, "rb") as f:
            yield f
    except DECOMPRESS_ERRORS as e:
        raise ValueError(f"{path.name}: corrupt or truncated {kind[2] if kind else 'compressed'} data ({e})") \
            from None


def text_size(path: Path, compressed: bool) -> int | None:
    """The bytes of ``path``'s text: its size, or a gzip stream's own count of them (the last four bytes,
    modulo 2^32), taken only where the stream is at least as long (else None, as for bzip2 and xz: a
    file of several gzip streams counts only its last)."""
    size = os.path.getsize(path)
    if not compressed:
        return size
    if compression(path)[2] != "gzip" or size < 18:
        return None
    with open(path, "rb") as f:
        f.seek(-4, os.SEEK_END)
        text = int.from_bytes(f.read(4), "little")
    return text if text >= size else None


def read_bytes(path: Path) -> np.ndarray:
    """The (decompressed) content of ``path``, uint8."""
    if compression(path) is None:
        return np.fromfile(path, np.uint8)
    with open_binary(path) as f:
        return np.frombuffer(f.read(), np.uint8)


#: bytes looked at before a whole text is searched for LF
_CR_HEAD = 1 << 16


def cr_lines(text):
    """``text`` (bytes or uint8) with each CR made LF where its lines end in CR alone, as classic
    Mac OS and some spreadsheet exports write them (the readers end lines at LF, and take a CR
    before it as blank: a file of CR-ended lines would read as one line).

    >>> cr_lines(b"1 2\\r2 3\\r"), cr_lines(b"1 2\\r\\n2 3\\r\\n")
    (b'1 2\\n2 3\\n', b'1 2\\r\\n2 3\\r\\n')
    """
    if isinstance(text, bytes):
        return text.replace(b"\r", b"\n") if b"\r" in text and b"\n" not in text else text
    head = text[:_CR_HEAD]
    if not (head == 13).any() or (head == 10).any() or (text == 10).any():
        return text
    return np.where(text == 13, np.uint8(10), text)


def next_line(buf: np.ndarray, pos: int, line: int):
    """(start, end, number) of the first line from byte ``pos`` (line ``line``) on that is neither blank
    nor a '%' comment, or None."""
    while pos < buf.size:
        end = K.line_end(buf, pos)
        text = bytes(buf[pos:end]).strip()
        if text and not text.startswith(b"%"):
            return pos, end, line
        pos, line = end + 1, line + 1
    return None


def quote(raw) -> str:
    """A line's bytes (bytes or uint8) quoted for a message, shortened if long."""
    text = bytes(raw).decode("utf-8", "replace").strip()
    return repr(text[:60] + "..." if len(text) > 60 else text)


@contextlib.contextmanager
def atomic_write(path: Path, compress: str = ""):
    """A temporary file beside ``path`` (compressed where ``compress`` is a suffix of
    :data:`COMPRESSIONS`: .gz, .bz2, .xz) that replaces it on success."""
    # same directory: os.replace stays atomic; "xb", not mkstemp: the usual umask
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with open(tmp, "xb") as raw:
            if compress == ".gz":
                # level 1: several times faster than 9
                with gzip.GzipFile(filename=path.name, mode="wb", fileobj=raw, compresslevel=1) as gz:
                    yield gz
            elif compress:
                with {".bz2": bz2, ".xz": lzma}[compress].open(raw, "wb") as packed:
                    yield packed
            else:
                yield raw
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
