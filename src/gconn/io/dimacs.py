"""DIMACS graph files, ids counted from 1: 'c' comment lines, one problem line 'p KIND n m', then
an edge a line: 'a u v w' (the 9th DIMACS challenge's shortest paths, 'p sp': its road networks
list each road as two arcs), 'e u v' (graph colouring, 'p edge' or 'p col') or 'u v' (PACE's
'p tw' and the like).  The problem line's n is the vertex count: vertices without edges count.
"""
from __future__ import annotations

import io
import re

import numpy as np

from gconn.io._files import FileEdges, check_declared, cr_lines, quote, read_bytes
from gconn.io import _parsers as K
from gconn.io.edgelist import parse_text, write_pairs

#: the problem line: its kind, n and m
_PROBLEM = re.compile(rb"p[ \t]+([A-Za-z]\w*)[ \t]+(\d+)[ \t]+(\d+)[ \t]*$")
#: bytes of the file marked at a time (line starts, their letters)
_BLOCK = 1 << 26


def problem_line(head: bytes):
    """``(kind, n, m, line number)`` where ``head`` opens with 'c' comment lines (or blank ones)
    and then a problem line 'p KIND n m', else None.

    >>> problem_line(b"c USA roads\\np sp 5 4\\na 1 2 7\\n")
    ('sp', 5, 4, 2)
    >>> problem_line(b"1 2\\n") is None
    True
    """
    pos, number = 0, 1
    while pos < len(head):
        end = head.find(b"\n", pos)
        end = len(head) if end < 0 else end
        text = head[pos:end].strip()
        if text and text != b"c" and text[:2] not in (b"c ", b"c\t"):
            found = _PROBLEM.match(text)
            return (found.group(1).decode(), int(found.group(2)), int(found.group(3)), number) if found else None
        pos, number = end + 1, number + 1
    return None


def _mark(buf: np.ndarray) -> None:
    """In place: 'c' lines and the 'p' line become '#' comments, and the 'a' or 'e' that opens an
    edge line a blank, so that the edge-list parser reads the rest ('u v [w]')."""
    for b in range(0, buf.size, _BLOCK):
        part = buf[b:b + _BLOCK + 1]
        start = np.empty(part.size, np.bool_)
        start[0] = b == 0 or buf[b - 1] == 10
        start[1:] = part[:-1] == 10
        blank_after = np.zeros(part.size, np.bool_)
        blank_after[:-1] = (part[1:] == 32) | (part[1:] == 9)
        letter = start & blank_after
        part[letter & ((part == ord("a")) | (part == ord("e")))] = 32
        part[start & ((part == ord("c")) | (part == ord("p")))] = ord("#")


def read(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of a DIMACS file (ids from 0: each id less one)."""
    path = info.path
    name = path.name
    buf = cr_lines(read_bytes(path))
    found = problem_line(bytes(buf[:1 << 16]))
    if found is None:
        raise ValueError(f"{name}: expected 'c' comment lines, then a DIMACS problem line 'p KIND n m' "
                         "(e.g. 'p sp 264346 733846')")
    kind, n_file, m, pline = found
    check_declared(name, n, n_file, pline, f"{name}, line {pline}: n={n_file}", relabelled)
    if not buf.flags.writeable:
        buf = buf.copy()
    _mark(buf)
    head = bytes(buf[:1 << 16])
    first = next((ln for ln in head.split(b"\n") if ln.strip() and not ln.lstrip().startswith(b"#")), None)
    fields = len(first.split()) if first is not None else 2
    # blanks, the fields, ids below n + 1
    src, dst, k, status, line, start, end, value, _ = parse_text(buf, 0, 1, (0, fields, 0, 1, True, n_file + 1))
    if status != K.OK:
        where = f"{name}, line {line}"
        if status == K.OUT_OF_RANGE:
            raise ValueError(f"{where}: vertex id {value} is beyond the n={n_file} of the problem line (line "
                             f"{pline}); DIMACS ids run from 1 to n")
        if status in (K.TOO_FEW, K.EXTRA_FIELDS):
            raise ValueError(f"{where}: expected an edge line like the first ('{first.decode().strip()}'), got "
                             f"{quote(buf[start:end])}")
        raise ValueError(f"{where}: expected an edge line 'a u v w', 'e u v' or 'u v' of ids from 1 to "
                         f"{n_file}, got {quote(buf[start:end])}")
    src, dst = src[:k], dst[:k]
    if k and min(int(src.min()), int(dst.min())) < 1:
        i = int(np.flatnonzero((src == 0) | (dst == 0))[0])
        raise ValueError(f"{name}: edge {i + 1} ({int(src[i])}, {int(dst[i])}) has the id 0; DIMACS ids run "
                         f"from 1 to n={n_file} (line {pline})")
    notes = () if k == m else (f"{name}, line {pline}: its problem line counts {m:,} "
                               f"{'arcs' if kind == 'sp' else 'edges'}, and the file lists {k:,}",)
    return FileEdges(src - 1, dst - 1, n_file, notes=notes)


def write(graph, f) -> None:
    """The graph as DIMACS graph colouring writes it: 'p edge n m', then 'e u v' lines (ids from 1)."""
    f.write(f"c written by gconn\np edge {graph.n} {graph.m}\n".encode())
    step = 1 << 20
    for i in range(0, graph.m, step):
        part = io.BytesIO()
        write_pairs(part, graph.src[i:i + step], graph.dst[i:i + step], 1, " ")
        lines = np.frombuffer(part.getvalue(), np.uint8)
        # 'e ' before each line: every byte moves 2 places further for each line before and at it
        ends = lines == 10
        shift = 2 * (np.cumsum(ends) - ends + 1)
        out = np.empty(lines.size + 2 * int(ends.sum()), np.uint8)
        out[np.arange(lines.size) + shift] = lines
        heads = np.flatnonzero(np.r_[True, ends[:-1]]) + shift[np.r_[True, ends[:-1]]] - 2
        out[heads], out[heads + 1] = ord("e"), ord(" ")
        f.write(memoryview(out))
