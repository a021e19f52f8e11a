"""Edge arrays from a file, checked but not built into a graph: what
:mod:`gconn.aot`'s one-off runs (``gconn cc FILE``) read."""
from __future__ import annotations

from pathlib import Path

from ..aot import Edges, raw
from . import _EXTENSIONS, _split_name, edgelist, mtx


def read_edges(path, format, n, relabel) -> Edges | None:
    """The checked edges of a Matrix Market file or an integer edge list
    (None for other files, and for files that relabelling would change).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> with open(path, "w") as f:
    ...     _ = f.write("0 1\\n2 4\\n")
    >>> e = read_edges(path, None, None, "auto")
    >>> e.src.tolist(), e.dst.tolist(), e.n
    ([0, 2], [1, 4], 5)
    """
    path = Path(path)
    fmt = format or _EXTENSIONS.get(_split_name(path)[0])
    if fmt not in ("mtx", "edgelist") or not path.is_file():
        return None
    if fmt == "mtx":
        if relabel is True:
            return None
        row, col, rows = mtx.read_coo(path, n, relabel)
        return raw(row, col, rows if n is None else n)
    return edgelist.read(path, n, relabel, build=lambda s, d, limit, relabel: raw(s, d, limit, relabel))
