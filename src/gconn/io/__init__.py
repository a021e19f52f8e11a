"""Load and save graphs: Matrix Market, edge lists (CSV/TSV), METIS, NumPy, Parquet, gconn's .gcb.

The format comes from the file name (a trailing ``.gz`` is set aside first)
or from ``format=``.  Text formats may be gzip-compressed; when reading,
compression is recognised by content, when writing, by the ``.gz`` suffix.
An error in a file raises ``ValueError`` naming the file and, for text formats,
the 1-based line (comment lines count).
"""
from __future__ import annotations

import numbers
import os
from pathlib import Path

import numpy as np

from ..graph import Graph, coerce, relabel_option
from . import arrays, edgelist, gcb, metis, mtx, parquet
from ._files import atomic_write

__all__ = ["load", "save", "edge_chunks", "FORMATS"]

#: format name -> file extensions it is recognised by.
FORMATS = {
    "mtx": (".mtx",),
    "edgelist": (".txt", ".el", ".tsv", ".csv", ".edges"),
    "metis": (".graph",),
    "npy": (".npy",),
    "npz": (".npz",),
    "gcb": (".gcb",),
    "parquet": (".parquet", ".pq"),
}
_TEXT = ("mtx", "edgelist", "metis")
_EXTENSIONS = {ext: fmt for fmt, exts in FORMATS.items() for ext in exts}
_READERS = {
    "mtx": mtx.read,
    "edgelist": edgelist.read,
    "metis": metis.read,
    "npy": arrays.read_npy,
    "npz": arrays.read_npz,
    "gcb": gcb.read,
    "parquet": parquet.read,
}
_WRITERS = {
    "mtx": mtx.write,
    "metis": metis.write,
    "npy": arrays.write_npy,
    "npz": arrays.write_npz,
    "gcb": gcb.write,
    "parquet": parquet.write,
}
# Edge-list writers pick the separator their extension promises.
_SEPARATORS = {".tsv": "\t", ".csv": ","}


def _supported() -> str:
    listed = "; ".join(f"{fmt} ({', '.join(exts)})" for fmt, exts in FORMATS.items())
    return f"supported: {listed}; text formats ({', '.join(_TEXT)}) may add .gz"


def _as_path(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, not {type(path).__name__}")
    return Path(path)


def _split_name(path: Path) -> tuple[str, bool]:
    """(extension, gzipped) of a file name: 'a.el.gz' -> ('.el', True)."""
    name = path.name.lower()
    gz = name.endswith(".gz")
    return Path(name[:-3] if gz else name).suffix, gz


def _format_named(path: Path, format=None) -> str:
    """``format`` where given, else the one ``path``'s name says
    (ValueError where it says none)."""
    return format if format is not None else _format_of(path, *_split_name(path))


def _format_of(path: Path, ext: str, gz: bool) -> str:
    fmt = _EXTENSIONS.get(ext)
    if fmt is None:
        shown = f"'{ext}'" if ext else "no extension"
        raise ValueError(f"{path.name}: unsupported file extension ({shown}); {_supported()}; "
                         "or pass format=")
    if gz and fmt not in _TEXT:
        raise ValueError(f"{path.name}: gzip applies to the text formats only ({', '.join(_TEXT)}), "
                         f"not {fmt}")
    return fmt


def edge_chunks(path, chunk_edges=None, **options):
    """The edges of a file in chunks: see :func:`gconn.io.chunks.edge_chunks`.

    >>> import gconn.io, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> with open(path, "w") as f:
    ...     _ = f.write("0 1\\n2 3\\n")
    >>> [s.tolist() for s, _ in gconn.io.edge_chunks(path, chunk_edges=1)]
    [[0], [2]]
    """
    from .chunks import edge_chunks as chunked
    return chunked(path, chunk_edges, **options)


def load(path, *, format: str | None = None, n: int | None = None, relabel=False, source=None, target=None,
         header=None, return_names=False):
    """Read a graph file, or a list of files (partitions of one graph's edges).

    Formats (``format=`` name: extensions): ``mtx``: .mtx, Matrix Market
    coordinate or array, 1-based; ``edgelist``: .txt .el .tsv .csv .edges,
    'u v [ignored fields]' lines, 0-based, '#'/'%' comments, an optional
    header line, the delimiter detected (see :mod:`gconn.io.edgelist`);
    ``metis``: .graph; ``npy``: an (m, 2) edge array; ``npz``: src+dst or
    indptr+indices, optional n; ``gcb``: gconn's binary; ``parquet``:
    .parquet .pq, an edge table.  Text formats may be gzipped.

    Edge lists and Parquet: ``source=``/``target=`` name the edge columns
    (default: the first two); ``header`` (edge lists) says whether the
    first line names the columns (None: when its edge fields are not
    integers).  Ids that are not integers are names: the graph's vertices
    are the distinct names in sorted order, kept in ``graph.nodes``.
    ``return_names=True`` returns ``(graph, names)``: ``names[i]`` is the
    input id of vertex ``i`` (``graph.nodes``, or ``arange(n)`` when ids
    were used as they are).

    ``n``, when given, is the vertex count: ids must be below it, and
    vertices beyond the file's largest id (or declared size) are isolated.
    A vertex count too large for the available memory raises
    :class:`gconn.VertexRangeError` naming the line (or header) it came
    from, before it is allocated.

    ``relabel=True`` makes the graph's vertices the ids that occur in the
    edges, numbered 0..k-1 in increasing order, with the ids in
    ``graph.nodes`` (0-based: a Matrix Market or METIS index i is id
    i - 1); isolated vertices a header declares are dropped.
    ``relabel="auto"`` does so when the ids are sparse and the file
    declares no vertex count (edge lists without gconn's header, .npy).

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
    if isinstance(path, (list, tuple)):
        g = _load_parts(path, format, n, relabel, source, target, header)
    else:
        g = _load_one(_as_path(path), format, n, relabel, source, target, header)
    if return_names:
        return g, (g.nodes if g.nodes is not None else np.arange(g.n, dtype=np.int64))
    return g


def _load_parts(paths, format, n, relabel, source, target, header) -> Graph:
    """Partitions read one by one, then their edges (in input ids) as one graph."""
    from ..inputs.tables import graph_from_pair
    if not paths:
        raise ValueError("an empty list of files")
    srcs, dsts, sizes = [], [], []
    for p in paths:
        part = _load_one(_as_path(p), format, None, "auto" if relabel is False else relabel,
                         source, target, header)
        ids = part.nodes
        srcs.append(ids[part.src] if ids is not None else part.src.astype(np.int64))
        dsts.append(ids[part.dst] if ids is not None else part.dst.astype(np.int64))
        sizes.append(part.n if ids is None else 0)
    kinds = {a.dtype.kind in "OSU" for a in srcs if a.size}
    if len(kinds) > 1:
        raise TypeError(f"the files {[str(p) for p in paths]} mix integer ids and names")
    src, dst = np.concatenate(srcs), np.concatenate(dsts)
    if n is None and relabel is False and kinds != {True} and max(sizes) > 0:
        # Isolated vertices a part declares beyond its largest id survive.
        hi = max(int(src.max()), int(dst.max())) + 1 if src.size else 0
        n = max(max(sizes), hi)
    return graph_from_pair(src, dst, n, relabel)


def _load_one(path: Path, format, n, relabel, source, target, header) -> Graph:
    if n is not None:
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            raise TypeError(f"n must be an integer, not {type(n).__name__}")
        if n < 0:
            raise ValueError(f"n must be non-negative; got {n}")
        n = int(n)
    relabel = relabel_option(relabel)
    if relabel is True and n is not None:
        raise ValueError("n cannot be combined with relabel=True: a relabelled graph has one vertex per "
                         "distinct id that occurs")
    if format is not None and format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join(map(repr, FORMATS))}")
    fmt = _format_named(path, format)
    if fmt == "edgelist":
        return edgelist.read(path, n, relabel, source, target, header)
    if header is not None:
        raise ValueError(f"{path.name}: header= applies to edge lists (CSV/TSV), not to {fmt}")
    if fmt == "parquet":
        return parquet.read(path, n, relabel, source, target)
    if source is not None or target is not None:
        raise ValueError(f"{path.name}: source=/target= name the columns of an edge list or Parquet table, "
                         f"not of {fmt}")
    return _READERS[fmt](path, n, relabel)


def save(graph, path) -> None:
    """Write ``graph`` to ``path`` in the format its extension names.

    ``.gcb`` is the fastest to load back.  ``.npy`` cannot record isolated
    vertices after the largest id (pass ``n`` to load).  The file appears
    complete or not at all: a temporary file is renamed over it.

    A relabelled graph (``graph.nodes`` holds its ids) is written in its
    original ids, which only the edge-list, .npy and .npz formats can hold;
    the others raise ValueError rather than drop the ids.

    >>> import gconn.io, tempfile, os
    >>> from gconn.graph import Graph
    >>> g = Graph.from_edges([0, 1], [1, 2], n=4)
    >>> path = os.path.join(tempfile.mkdtemp(), "g.mtx.gz")
    >>> gconn.io.save(g, path)
    >>> gconn.io.load(path) == g
    True
    """
    graph = coerce(graph).to_host()
    path = _as_path(path)
    ext, gz = _split_name(path)
    fmt = _format_of(path, ext, gz)
    relabelled = isinstance(graph.nodes, np.ndarray) and fmt != "parquet"
    if relabelled and graph.nodes.dtype.kind in "OSU":
        raise ValueError(f"{path.name}: the graph's vertices are names (graph.nodes), which only .parquet "
                         "stores; save it as .parquet")
    if relabelled and fmt not in _ID_FORMATS:
        raise ValueError(f"{path.name}: the graph is relabelled (graph.nodes holds its original ids), "
                         f"which {fmt} cannot store; save it as {', '.join(_ID_FORMATS)}, or set "
                         "graph.nodes = None to write it in dense ids")
    with atomic_write(path, compress=gz) as f:
        if relabelled:
            _write_original_ids(graph, f, fmt, _SEPARATORS.get(ext, " "))
        elif fmt == "edgelist":
            edgelist.write(graph, f, _SEPARATORS.get(ext, " "))
        else:
            _WRITERS[fmt](graph, f)


#: Formats that can hold arbitrary vertex ids (the others number vertices 0..n-1 or 1..n).
_ID_FORMATS = ("edgelist", "npy", "npz")


def _write_original_ids(graph: Graph, f, fmt: str, sep: str) -> None:
    # No vertex count is written: relabelled vertices all have edges, and
    # a count would make loading allocate up to the largest id.
    src, dst = graph.nodes[graph.src], graph.nodes[graph.dst]
    if fmt == "edgelist":
        edgelist.write_pairs(f, src, dst, 0, sep)
    elif fmt == "npy":
        np.save(f, np.column_stack([src, dst]))
    else:
        np.savez(f, src=src, dst=dst)
