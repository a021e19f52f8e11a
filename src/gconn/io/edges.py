"""A whole file's edges (:func:`read_edges`, one reader per format) and their graph (:func:`graph_of`)."""
from __future__ import annotations

from gconn.errors import VertexRangeError
from gconn.graph import Graph, relabel_option
from gconn.graph.ids import check_n
from gconn.io import arrays, edgelist, gcb, metis, mtx, parquet
from gconn.io._files import RELABEL_HINT, FileEdges
from gconn.io.chunks import line_of_id
from gconn.io.identify import FileInfo

_READERS = {"edgelist": edgelist.read_file, "mtx": mtx.read, "metis": metis.read, "npy": arrays.read_npy,
            "npz": arrays.read_npz, "gcb": gcb.read, "parquet": parquet.read}


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
        where = f"{name}, line 1: the header's n={fe.n}" if info.format == "edgelist" else \
            f"{name}: the n={fe.n} stored in the file"
        return e.at(where, None, RELABEL_HINT)
    if info.format == "edgelist" and info.dialect.parsed:
        return e.at(f"{name}, line {line_of_id(info, e.vertex_id)}", e.vertex_id)
    origin = e.origin
    if origin[:4] in ("src[", "dst["):
        row = origin[4:-1]
        origin = f"row {row}, column {0 if origin[0] == 's' else 1}" if info.format == "npy" else \
            f"{'src' if origin[0] == 's' else 'dst'}[{row}]"
    return e.at(f"{name}: {origin}", e.vertex_id, e.hint)
