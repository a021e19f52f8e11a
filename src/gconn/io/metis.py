"""METIS graph files: a header 'n m [fmt [ncon]]', then line i lists vertex i's neighbours, 1-based.

fmt's 0/1 digits: a vertex size field, ``ncon`` vertex weights, a weight after every neighbour
(sizes and weights are checked to be integers, then ignored).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from gconn.io._files import FileEdges, check_declared, cr_lines, next_line, quote, read_bytes
from gconn.io import _parsers as K

_CHUNK = 1 << 20


def read_header(path: Path, buf: np.ndarray):
    """(n, m, fmt, ncon, header line number, body offset)."""
    found = next_line(buf, 0, 1)
    if found is None:
        raise ValueError(f"{path.name}: empty METIS file; expected a header line 'n m [fmt [ncon]]'")
    pos, end, line = found
    fields = bytes(buf[pos:end]).split()
    valid = (2 <= len(fields) <= 4 and all(f.isdigit() for f in fields)
             and (len(fields) < 3 or (len(fields[2]) <= 3 and set(fields[2].decode()) <= {"0", "1"})))
    if not valid:
        raise ValueError(f"{path.name}, line {line}: expected a METIS header 'n m [fmt [ncon]]' "
                         f"with fmt of up to three 0/1 digits, got {quote(buf[pos:end])}")
    n, m = int(fields[0]), int(fields[1])
    fmt = fields[2].decode().zfill(3) if len(fields) > 2 else "000"
    ncon = int(fields[3]) if len(fields) > 3 else 1
    return n, m, fmt, ncon, line, end + 1


def read(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of a METIS file."""
    path = info.path
    name = path.name
    buf = cr_lines(read_bytes(path))
    n_file, m, fmt, ncon, hline, body = read_header(path, buf)
    check_declared(name, n, n_file, hline, f"{name}, line {hline}: n={n_file}", relabelled)
    skip = (fmt[0] == "1") + (ncon if fmt[1] == "1" else 0)
    edge_weights = fmt[2] == "1"
    # each neighbour takes two bytes or more: a bound where the header's m is wrong
    cap = min(2 * m, buf.size // 2 + 1)
    src = np.empty(cap, np.int64)
    dst = np.empty(cap, np.int64)
    k, v, status, line, start, end, value = K.parse_metis(
        buf, body, hline + 1, n_file, skip, edge_weights, src, dst)
    if status != K.OK:
        where = f"{name}, line {line}"
        text = quote(buf[start:end])
        if status == K.TOO_MANY and v == n_file:
            raise ValueError(f"{where}: more vertex lines than the n={n_file} declared on line {hline}")
        if status == K.TOO_MANY:
            raise ValueError(f"{where}: more neighbour entries than the 2m={2 * m} that m={m} "
                             f"on line {hline} allows (each edge is listed twice)")
        if status == K.OUT_OF_RANGE:
            raise ValueError(f"{where}: neighbour id {value} of vertex {v + 1} is out of range 1..{n_file}")
        if status == K.TOO_FEW:
            raise ValueError(f"{where}: vertex {v + 1} needs {skip} leading size/weight fields "
                             f"(fmt {fmt}, ncon {ncon}), got {text}")
        if status == K.ODD_PAIRS:
            raise ValueError(f"{where}: vertex {v + 1}: expected neighbour/edge-weight pairs "
                             f"(fmt {fmt}), got {text}")
        raise ValueError(f"{where}: expected non-negative integers on the line of vertex {v + 1}, "
                         f"got {text}")
    if v < n_file:
        raise ValueError(f"{name}, line {K.count_lines(buf)}: file ends after {v} of the "
                         f"{n_file} vertex lines declared on line {hline}")
    if k != 2 * m:
        raise ValueError(f"{name}, line {hline}: the header declares m={m} edges, but the vertex "
                         f"lines list {k} neighbour entries (expected 2m={2 * m}, each edge twice)")
    src, dst = src[:k], dst[:k]
    if K.arc_imbalance(src, dst):
        raise ValueError(f"{name}: {_unmatched(src, dst)}; a METIS file lists each edge at both of its ends")
    return FileEdges(src, dst, n_file)


def _unmatched(src, dst) -> str:
    """Which vertex lists a neighbour more often than that neighbour lists it (1-based)."""
    forward = np.lexsort((dst, src))
    backward = np.lexsort((src, dst))
    fs, fd, bs, bd = src[forward], dst[forward], dst[backward], src[backward]
    differ = np.flatnonzero((fs != bs) | (fd != bd))
    if differ.size == 0:
        return "its vertex lines are not symmetric"     # not reached but for a hash collision
    i = int(differ[0])
    # the smaller pair at the first difference is listed more often one way than the other
    u, v = (int(fs[i]), int(fd[i])) if (fs[i], fd[i]) < (bs[i], bd[i]) else (int(bd[i]), int(bs[i]))
    there = int(np.count_nonzero((src == u) & (dst == v)))
    back = int(np.count_nonzero((src == v) & (dst == u)))
    times = lambda c: "once" if c == 1 else "twice" if c == 2 else f"{c} times"      # noqa: E731
    if back == 0:
        return f"vertex {u + 1} lists {v + 1} as a neighbour, but vertex {v + 1} does not list {u + 1}"
    return f"vertex {u + 1} lists {v + 1} {times(there)}, but vertex {v + 1} lists {u + 1} {times(back)}"


def write(graph, f) -> None:
    f.write(f"{graph.n} {graph.m}\n".encode())
    indptr, indices = graph.indptr, graph.indices
    width = len(str(graph.n)) + 1
    v0 = 0
    while v0 < graph.n:
        v1 = int(np.searchsorted(indptr, indptr[v0] + _CHUNK, side="right")) - 1
        v1 = min(max(v1, v0 + 1), v0 + _CHUNK, graph.n)
        out = np.empty(int(indptr[v1] - indptr[v0]) * width + (v1 - v0), np.uint8)
        used = K.format_adjacency(indptr, indices, v0, v1, out)
        f.write(memoryview(out[:used]))
        v0 = v1
