"""Load and save graphs: Matrix Market, edge lists (CSV/TSV), METIS, NumPy, Parquet, Feather, gconn's .gcb.

A file is identified once (:func:`gconn.io.identify.identify`, its guesses in
``FileInfo.notes``), then read by its format's one reader; errors name the
file and, for text formats, the 1-based line and column.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from gconn.errors import VertexRangeError, note
from gconn.graph import Graph, coerce, graph_from_pair, relabel_option
from gconn.graph.ids import check_n
from gconn.io import binary, dimacs, edgelist, metis, mtx
from gconn.io._files import RELABEL_HINT, FileEdges, atomic_write
from gconn.io.chunks import edge_chunks, line_of_id
from gconn.io.identify import (EXTENSIONS as FORMATS_BY_EXTENSION, FORMATS, FileInfo, as_path, check_format,
                               check_compressed, identify, split_name, supported)

__all__ = ["load", "save", "edge_chunks", "identify", "read_edges", "FileInfo", "FileEdges", "FORMATS"]

_READERS = {"edgelist": edgelist.read_file, "mtx": mtx.read, "metis": metis.read, "dimacs": dimacs.read,
            "npy": binary.read_npy, "npz": binary.read_npz, "gcb": binary.read_gcb, "parquet": binary.read_parquet,
            "feather": binary.read_parquet}
_WRITERS = {"mtx": mtx.write, "metis": metis.write, "dimacs": dimacs.write, "npy": binary.write_npy,
            "npz": binary.write_npz, "gcb": binary.write_gcb, "parquet": binary.write_parquet,
            "feather": lambda graph, f: binary.write_parquet(graph, f, "feather")}
_SEPARATORS = {".tsv": "\t", ".csv": ","}


def check_options(n, relabel):
    """``relabel`` checked (returned as :func:`gconn.graph.relabel_option` gives it) against ``n``."""
    relabel = relabel_option(relabel)
    check_n(n)
    if relabel is True and n is not None:
        raise ValueError("n cannot be combined with relabel=True: a relabelled graph has one vertex per "
                         "distinct id that occurs")
    return relabel


def read_edges(info: FileInfo, n: int | None = None, relabel=False) -> FileEdges:
    """The edges of the file ``info`` describes (see :func:`gconn.io.identify.identify`).

    ``n`` bounds the ids; ``relabel=True`` skips the memory check of a declared count.

    >>> import os, tempfile
    >>> from gconn.io.identify import identify
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> with open(path, "w") as f:
    ...     _ = f.write("0 1\\n2 4\\n")
    >>> e = read_edges(identify(path))
    >>> e.src.tolist(), e.dst.tolist(), e.n
    ([0, 2], [1, 4], None)
    """
    fe = _READERS[info.format](info, n, relabel is True)
    if info.format == "edgelist":
        fe = edgelist.snap_count(info, fe, n, relabel)
    if n is not None and fe.n is not None and n < fe.n:
        raise ValueError(f"{info.name}: n={n} is smaller than the {fe.n} vertices the file declares")
    return fe._replace(notes=info.notes + fe.notes)


def graph_of(info: FileInfo, fe: FileEdges, n: int | None = None, relabel=False) -> Graph:
    """The graph of a file's edges: ``n`` vertices where given, else the
    file's declared count, else the largest id + 1; ``relabel`` is
    :meth:`gconn.Graph.from_edges`'s."""
    relabel = check_options(n, relabel)
    name = info.name
    if fe.names is not None:
        if n is not None and n != fe.names.size:
            raise ValueError(f"{name}: n={n} was given, but the file's vertices are {fe.names.size:,} names")
        g = Graph.from_edges(fe.src, fe.dst, fe.names.size)
        g.nodes = fe.names
        return g
    if fe.canonical is not None and relabel is not True and (n is None or n == fe.n):
        return Graph(fe.n, *fe.canonical, fe.src, fe.dst)
    count = n if n is not None else (None if relabel is True else fe.n)
    if count is not None:
        relabel = False     # a given or declared n keeps every vertex, isolated ones too
    try:
        return Graph.from_edges(fe.src, fe.dst, count, relabel=relabel)
    except VertexRangeError as e:
        raise _located(info, fe, e, n) from None
    except (ValueError, TypeError) as e:
        raise type(e)(f"{name}: {e}") from None


def _located(info: FileInfo, fe: FileEdges, e: VertexRangeError, n) -> VertexRangeError:
    """A memory error naming the file and the line or row that asked for the memory."""
    name = info.name
    if e.vertex_id is None:
        if n is not None:
            return e
        d = info.dialect if info.format == "edgelist" else None
        where = f"{name}: the n={fe.n} stored in the file" if d is None else \
            f"{name}, line 2: KONECT's count n={fe.n}" if d.base and d.declared_n is not None else \
            f"{name}, line 1: the header's n={fe.n}" if d.declared_n is not None else \
            f"{name}, line {d.snap_line}: the {fe.n:,} nodes its header counts"
        return e.at(where, None, RELABEL_HINT)
    if info.format == "edgelist" and info.dialect.parsed:
        return e.at(f"{name}, line {line_of_id(info, e.vertex_id)}", e.vertex_id)
    origin = e.origin
    if origin[:4] in ("src[", "dst["):
        row = origin[4:-1]
        origin = f"row {row}, column {0 if origin[0] == 's' else 1}" if info.format == "npy" else \
            f"{'src' if origin[0] == 's' else 'dst'}[{row}]"
    return e.at(f"{name}: {origin}", e.vertex_id, e.hint)


def load(path, *, format: str | None = None, n: int | None = None, relabel=False, source=None, target=None,
         header=None, names=None, return_names=False):
    """Read a graph file, or a list of files (partitions of one graph's edges).

    Formats (``format=``, else the content or extension): ``mtx`` (.mtx,
    1-based), ``edgelist`` (.txt .el .tsv .csv .edges, see
    :mod:`gconn.io.edgelist`), ``metis`` (.graph), ``dimacs`` (.gr .col,
    1-based, 'p sp'/'p edge'), ``npy`` ((m, 2) edges),
    ``npz`` (src+dst or indptr+indices, optional n and nodes), ``gcb``
    (gconn's binary), ``parquet`` (.parquet .pq), ``feather`` (.feather
    .arrow, Arrow IPC); text formats may be gzipped.

    ``source=``/``target=`` name the edge columns; ``header`` and ``names``:
    whether an edge list's first line names the columns and whether its ids
    are names (None: decide).  Names become ``graph.nodes``;
    ``return_names=True`` returns ``(graph, names)``.  ``n``: the vertex
    count; ``relabel``: :meth:`gconn.Graph.from_edges`'s.

    >>> import gconn.io, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.el")
    >>> with open(path, "w") as f:
    ...     _ = f.write("# a path\\n0 1\\n1 2\\n")
    >>> gconn.io.load(path, n=5)
    Graph(n=5, m=2)
    >>> with open(path, "w") as f:
    ...     _ = f.write("from,to\\nann,bob\\n")
    >>> g, names = gconn.io.load(path, return_names=True)
    >>> g.n, names.tolist()
    (2, ['ann', 'bob'])
    """
    relabel = check_options(n, relabel)
    check_format(format)
    options = dict(header=header, source=source, target=target, names=names)
    if isinstance(path, (list, tuple)):
        g = _load_parts(path, format, n, relabel, options)
    else:
        info = identify(path, format, **options)
        fe = read_edges(info, n, relabel)
        note(fe.notes)
        g = graph_of(info, fe, n, relabel)
    if return_names:
        return g, (g.nodes if g.nodes is not None else np.arange(g.n, dtype=np.int64))
    return g


def _load_parts(paths, format, n, relabel, options) -> Graph:
    """Partitions read one by one, their edges (in input ids) made one graph."""
    if not paths:
        raise ValueError("an empty list of files")
    srcs, dsts, sizes = [], [], []
    for p in paths:
        fe = read_edges(identify(p, format, **options), None, relabel is True)
        note(fe.notes, stacklevel=4)
        ids = fe.names
        srcs.append(ids[fe.src] if ids is not None else np.asarray(fe.src).astype(np.int64))
        dsts.append(ids[fe.dst] if ids is not None else np.asarray(fe.dst).astype(np.int64))
        sizes.append(fe.n if ids is None and fe.n is not None else 0)
    kinds = {a.dtype.kind in "OSU" for a in srcs if a.size}
    if len(kinds) > 1:
        raise TypeError(f"the files {[str(p) for p in paths]} mix integer ids and names")
    src, dst = np.concatenate(srcs), np.concatenate(dsts)
    if n is None and relabel is False and kinds != {True} and max(sizes) > 0:
        # Isolated vertices a part declares beyond its largest id survive.
        hi = max(int(src.max()), int(dst.max())) + 1 if src.size else 0
        n = max(max(sizes), hi)
    return graph_from_pair(src, dst, n, relabel)


def save(graph, path) -> None:
    """Write ``graph`` to ``path`` in the format its extension names.

    ``load`` gives back the same graph (n, isolated vertices, ``graph.nodes``),
    or ``save`` refuses a format that cannot hold it; the file appears
    complete or not at all.

    >>> import gconn.io, tempfile, os
    >>> from gconn.graph import Graph
    >>> g = Graph.from_edges([0, 1], [1, 2], n=4)
    >>> path = os.path.join(tempfile.mkdtemp(), "g.mtx.gz")
    >>> gconn.io.save(g, path)
    >>> gconn.io.load(path) == g
    True
    """
    graph = coerce(graph).to_host()
    path = as_path(path)
    ext, packed = split_name(path)
    fmt = FORMATS_BY_EXTENSION.get(ext)
    if fmt is None:
        shown = f"'{ext}'" if ext else "no extension"
        raise ValueError(f"{path.name}: unsupported file extension ({shown}); {supported()}")
    check_compressed(path, fmt, packed)
    _check_storable(graph, path, fmt)
    with atomic_write(path, compress=packed) as f:
        if fmt == "edgelist":
            edgelist.write(graph, f, _SEPARATORS.get(ext, " "))
        else:
            _WRITERS[fmt](graph, f)


def _check_storable(graph: Graph, path: Path, fmt: str) -> None:
    """Refuse a format that would lose part of ``graph`` on the way back."""
    nodes = graph.nodes
    if nodes is not None and not isinstance(nodes, np.ndarray):
        nodes = graph.nodes = np.asarray(nodes)
    if nodes is not None and fmt not in ("npz", "parquet", "feather", "edgelist"):
        keeps = "save it as .npz, .parquet, .feather or an edge list, which keep them"
        if nodes.dtype.kind in "OSU":
            raise ValueError(f"{path.name}: the graph's vertices are names (graph.nodes), which {fmt} cannot "
                             f"store; {keeps}")
        raise ValueError(f"{path.name}: the graph is relabelled (graph.nodes holds its input ids), which {fmt} "
                         f"cannot store; {keeps}, or set graph.nodes = None to write it in dense ids")
    if fmt == "npy":
        hi = int(max(graph.src.max(), graph.dst.max())) + 1 if graph.m else 0
        if graph.n > hi:
            where = f"after its largest id with an edge ({hi - 1})" if hi else "(it has no edges)"
            raise ValueError(f"{path.name}: .npy holds edges only, and the graph's {graph.n - hi:,} vertices "
                             f"{where} would be lost; save it as .npz, .gcb or an edge list, which keep n")
