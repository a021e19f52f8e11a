"""Every input a user brings, identified once, before anything is read: :func:`describe` says what
it is (a :class:`Source`: a file by its name and first bytes, arrays by shape and dtype),
:func:`to_graph` builds the :class:`gconn.Graph`.  Tables (pandas, polars, pyarrow, cuDF, recognised
by module name): the edge columns ``source=`` and ``target=``, by default a pair named as
``src``/``dst`` (``gconn.io._files.default_columns``); cuDF stays on the GPU.  Tensors
(``__cuda_array_interface__`` or ``__dlpack__``) become CuPy or NumPy arrays without a copy.  Names (ids that are not
integers) are mapped to ``0..k-1`` in sorted order, ``graph.nodes[i]`` the name of vertex ``i``.

>>> describe(np.zeros((3, 3))).kind
'matrix'
"""
from __future__ import annotations

import dataclasses
import importlib
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gconn.graph import (AMBIGUOUS_2X2, Graph, _as_id_array, _is_cupy, coerce, edge_shape_error, graph_from_pair,
                         is_named, no_masked, relabel_option)
from gconn.errors import note
from gconn.graph.ids import check_column, check_n
from gconn.inputs.adjacency import adjacency, graph_of as graph_of_adjacency

__all__ = ["Source", "describe", "to_graph", "as_graph", "KINDS"]

#: What an input can be (the ``kind`` of a :class:`Source`).
KINDS = {
    "graph": "a gconn.Graph",
    "file": "a graph file (path)",
    "files": "a list of graph files, partitions of one graph's edges",
    "edges": "integer (src, dst) id arrays or an (m, 2) array, on the host",
    "names": "(src, dst) arrays of vertex names",
    "device-edges": "(src, dst) id arrays or an (m, 2) array on the GPU (CuPy, DLPack)",
    "matrix": "a square dense adjacency matrix",
    "sparse": "a scipy.sparse (or cupyx.scipy.sparse) matrix",
    "networkx": "a NetworkX graph",
    "igraph": "an igraph graph",
    "networkit": "a NetworKit graph",
    "chunks": "an iterator of (src, dst) chunks",
}


@dataclass(frozen=True)
class Source:
    """An input as :func:`describe` identified it."""

    kind: str
    obj: Any = None
    #: the id arrays of edge input ("edges", "names", "device-edges")
    src: Any = None
    dst: Any = None
    #: a file's :class:`~gconn.io.identify.FileInfo` (a list of them for "files")
    file: Any = None
    on_gpu: bool = False
    #: the number of edges where known without reading them, else an estimate (files), else None
    edges: int | None = None
    #: guesses made identifying the input, and those made reading it: each a sentence
    notes: tuple = field(default_factory=tuple)
    read_notes: list = field(default_factory=list)

    @property
    def format(self) -> str | None:
        return self.file.format if self.kind == "file" else None

    def took(self, fe):
        """Keep the notes of a reading of this file (its FileEdges); returns ``fe``."""
        self.read_notes.extend(x for x in fe.notes if x not in self.notes and x not in self.read_notes)
        return fe

    def lone_zero(self, labels, n, relabel) -> str | None:
        """A note where vertex 0 is a component alone and only gconn's rule made it a vertex: an edge
        list of integer ids (which count from 0, every id up to the largest a vertex) with no count
        declared or given (``n``) and no ``relabel=True``; a file numbered from 1 gets one component
        more than its author counts."""
        if self.kind != "file" or self.file.format != "edgelist" or n is not None or relabel is True:
            return None
        d = self.file.dialect
        if not d.parsed or d.listed or d.base or d.declared_n is not None or labels.size < 2 \
                or int((labels == labels[0]).sum()) != 1:
            return None
        return (f"{self.file.name}: vertex 0 is a component of its own: no edge joins it to another vertex "
                "(edge-list ids count from 0, and every id up to the largest is a vertex); if its ids count "
                "from 1, relabel=True (--relabel) counts only the ids that occur")


def _is_paths(obj) -> bool:
    return isinstance(obj, list) and bool(obj) and all(isinstance(p, (str, os.PathLike)) for p in obj)


def describe(obj: Any, *, format=None, header=None, source=None, target=None, names=None) -> Source:
    """What ``obj`` is (:data:`gconn.inputs.KINDS`), checked without reading its
    data.  The keyword options apply to files (``source``/``target`` to tables too).

    >>> s = describe((np.arange(3), np.arange(1, 4)))
    >>> s.kind, s.edges
    ('edges', 3)
    """
    if isinstance(obj, (str, os.PathLike)) or _is_paths(obj):
        from gconn.io import identify     # lazily: `import gconn` stays fast
        infos = [identify(p, format, header=header, source=source, target=target, names=names)
                 for p in (obj if isinstance(obj, list) else [obj])]
        if isinstance(obj, list):
            return Source("files", obj, file=infos, notes=tuple(n for i in infos for n in i.notes))
        return Source("file", obj, file=infos[0], edges=_edges_in(infos[0]), notes=infos[0].notes)
    for option, value in (("format", format), ("header", header), ("names", names)):
        if value is not None:
            raise TypeError(f"{option}= applies to files, not to a {type(obj).__name__}")
    if isinstance(obj, Graph):
        _no_columns(obj, source, target)
        return Source("graph", obj, on_gpu=obj.on_gpu, edges=obj.m_input)
    if isinstance(obj, np.ndarray) and obj.dtype.names and obj.ndim == 1:
        # a record array (numpy.genfromtxt(..., names=True)): its fields are a table's columns
        import pyarrow as pa
        obj = pa.table({name: np.ascontiguousarray(obj[name]) for name in obj.dtype.names})
    if is_table(obj):
        s, d, _, note = edge_columns(obj, source, target)
        found = _pair(obj, s, d)
        return found if note is None else dataclasses.replace(found, notes=(note,))
    _no_columns(obj, source, target)
    if is_tensor(obj):
        return _edge_array(obj, from_tensor(obj, "the edge tensor"))
    if isinstance(obj, tuple) and len(obj) == 2:
        s, d = (from_tensor(a, w) if is_tensor(a) else a for a, w in zip(obj, ("src", "dst")))
        return _pair(obj, s, d)
    if isinstance(obj, list) and obj and all(isinstance(e, tuple) for e in obj):
        # [(0, 1), (2, 3)]: edges, as NetworkX takes them (two of them, or three (u, v, w) rows, are no matrix)
        return _edge_array(obj, obj, edges=True)
    if isinstance(obj, (np.ndarray, list)) or _is_cupy(obj):
        return _edge_array(obj, obj)
    if isinstance(obj, (set, frozenset)):
        return _edge_array(obj, list(obj), edges=True)
    if isinstance(obj, dict) and _module(obj) != "scipy":     # SciPy's dok_matrix is a dict
        return _adjacency_dict(obj)
    mod = _module(obj)
    if mod == "scipy" or (mod == "cupyx" and hasattr(obj, "tocoo")):
        return Source("sparse", obj, on_gpu=mod == "cupyx", edges=int(obj.nnz))
    if mod == "networkx":
        return Source("networkx", obj, edges=obj.number_of_edges())
    if mod == "igraph" and hasattr(obj, "get_edgelist"):
        return Source("igraph", obj, edges=obj.ecount())
    if mod == "networkit" and hasattr(obj, "iterEdges"):
        return Source("networkit", obj, edges=obj.numberOfEdges())
    if isinstance(obj, Iterator):
        return Source("chunks", _chunks(obj))
    if obj is None:
        raise TypeError("no graph was given (None)")
    if mod == "dask":
        raise TypeError(f"a Dask {type(obj).__name__} is computed by its partitions: pass it to "
                        "gconn.integrations.dask.connected_components (or spanning_forest), or .compute() it first")
    if mod == "polars" and type(obj).__name__ == "LazyFrame":
        raise TypeError("a polars LazyFrame is a query, not its rows yet: pass lazy_frame.collect()")
    raise TypeError(
        f"cannot build a graph from {type(obj).__name__}; pass a gconn.Graph, (src, dst) arrays, "
        "an (m, 2) array, a list or set of (u, v) pairs, a dict of neighbour lists, a square adjacency matrix, "
        "a scipy.sparse matrix, a NetworkX, igraph or NetworKit graph, an edge table or a file path")


def _chunks(it: Iterator) -> Iterator:
    """An iterator of ``(src, dst)`` chunks, its first item looked at: an iterator of single edges (a
    generator of pairs, ``zip(src, dst)``) is an error saying how to pass them."""
    end = object()
    first = next(it, end)
    if first is end:
        return iter(())
    if isinstance(first, (tuple, list)) and len(first) == 2 and all(np.ndim(x) == 0 for x in first):
        raise TypeError(f"an iterator passed as a graph yields (src, dst) chunks of id arrays; this one yields "
                        f"single edges such as {tuple(first)!r}: pass np.array(list(edges)) (an (m, 2) array) or "
                        "the ids as two arrays (src, dst)")
    return itertools.chain([first], it)


def _no_columns(obj, source, target) -> None:
    if source is not None or target is not None:
        raise TypeError(f"source= and target= name the columns of a table or an edge file, not of a "
                        f"{type(obj).__name__}")


def _pair(obj, s, d) -> Source:
    """A ``(src, dst)`` pair: device arrays, checked integer host ids, or names."""
    if _is_cupy(s) or _is_cupy(d):
        return Source("device-edges", obj, s, d, on_gpu=True, edges=int(getattr(s, "size", 0)))
    no_masked(s, "src")
    no_masked(d, "dst")
    s, d = np.asarray(s), np.asarray(d)
    if is_named(s) or is_named(d):
        return Source("names", obj, s, d, edges=len(s))
    s, d = _as_id_array(s, "src"), _as_id_array(d, "dst")
    if s.shape[0] != d.shape[0]:
        raise ValueError(f"src and dst have different lengths ({s.shape[0]} and {d.shape[0]})")
    return Source("edges", obj, s, d, edges=int(s.size))


def _edge_array(obj, arr, edges: bool = False) -> Source:
    """An array: an (m, 2) edge list or a square adjacency matrix (2 x 2: an error, unless ``edges``)."""
    if not _is_cupy(arr):
        if np.ndim(arr) == 2 and np.shape(arr)[1] == 2 and (edges or np.shape(arr)[0] != 2):
            no_masked(arr, "the edge array")      # read as edges (a masked matrix's hidden entries are no edges)
        arr = np.asarray(arr)
        if arr.ndim == 2 and arr.shape[1] == 2 and (edges or is_named(arr)):
            return _pair(obj, arr[:, 0], arr[:, 1])     # names: an edge list, never a matrix
        if edges and arr.size == 0:
            return _pair(obj, np.zeros(0, np.int64), np.zeros(0, np.int64))
    shape = tuple(arr.shape)
    if edges and (len(shape) != 2 or shape[1] != 2):
        raise edge_shape_error(shape)
    if len(shape) == 2 and shape[0] == shape[1]:
        if shape[0] == 2:
            raise ValueError(AMBIGUOUS_2X2)
        said = (AS_MATRIX_3X3,) if shape[0] == 3 and arr.dtype != np.bool_ else ()
        return Source("matrix", obj, on_gpu=_is_cupy(arr), notes=said)
    if len(shape) != 2 or shape[1] != 2:
        raise edge_shape_error(shape)
    return _pair(obj, arr[:, 0], arr[:, 1])


#: the note of a 3 x 3 array, which could also be three weighted edges (u, v, w)
AS_MATRIX_3X3 = ("a 3 x 3 array is read as the adjacency matrix of 3 vertices; for 3 weighted edges (u, v, w) "
                 "pass (a[:, 0], a[:, 1])")


def _adjacency_dict(adj: dict) -> Source:
    """``{u: [v, ...]}`` (or NetworkX's dict of dicts): each u's edges to its neighbours; a key without
    any is a vertex of its own (a self loop, which the graph drops, keeps its name)."""
    lists = (list, tuple, set, frozenset, dict, np.ndarray)
    bad = next(((u, vs) for u, vs in adj.items() if not isinstance(vs, lists)), None)
    if bad is not None:
        raise TypeError(f"a dict passed as a graph maps each vertex to its neighbours (a list, set or dict); this "
                        f"one maps {bad[0]!r} to {type(bad[1]).__name__} {bad[1]!r}")
    src = [u for u, vs in adj.items() for _ in vs] + [u for u, vs in adj.items() if not len(vs)]
    dst = [v for vs in adj.values() for v in vs] + [u for u, vs in adj.items() if not len(vs)]
    named = any(isinstance(x, str) for x in itertools.chain(src[:1], dst[:1], adj))
    return _pair(adj, np.array(src, object if named else None), np.array(dst, object if named else None))


def _edges_in(info) -> int | None:
    """A file's edges from its header (.gcb, .npy), else estimated from its first lines, else None."""
    try:
        if info.format == "gcb":
            from gconn.io.binary import layout
            return int(layout(info.path)[1])
        if info.format == "npy":
            return int(np.load(info.path, mmap_mode="r", allow_pickle=False).shape[0])
        if info.format == "npz":
            return _npz_edges(info.path)
        if info.format == "parquet":
            import pyarrow.parquet as pq
            return int(pq.read_metadata(info.path).num_rows)
        if info.format == "feather":
            import pyarrow as pa
            with pa.memory_map(str(info.path)) as source:
                reader = pa.ipc.open_file(source)
                return sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))
    except (ValueError, OSError, ImportError):      # pyarrow's errors are ValueError or OSError
        return None     # the reader words the error
    if info.format in ("edgelist", "mtx", "metis", "dimacs"):
        from gconn.io._files import open_binary, text_size
        size = text_size(info.path, info.compressed)
        if size is None:
            return None
        try:
            with open_binary(info.path) as f:
                head = f.read(1 << 16)
        except ValueError:
            return None     # the reader words the error
        if info.format == "metis":     # its header's m (a line lists a vertex's neighbours, not an edge)
            from gconn.io.metis import read_header
            try:
                return read_header(info.path, np.frombuffer(head, np.uint8))[1]
            except ValueError:
                return None     # the reader words the error
        lines = head.count(b"\n")
        return size // max(len(head) // max(lines, 1), 1) if lines else 1
    return None


def _npz_edges(path) -> int | None:
    """An .npz's edges from the header of its ``src`` (gconn's), ``indices`` or ``row`` (SciPy's) array,
    without reading the arrays."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            member = next((m for m in ("src.npy", "indices.npy", "row.npy") if m in names), None)
            if member is None:
                return None
            with z.open(member) as f:
                version = np.lib.format.read_magic(f)
                shape = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                         np.lib.format.read_array_header_2_0)(f)[0]
    except zipfile.BadZipFile:
        return None     # the reader words the error
    return int(shape[0]) if len(shape) == 1 else None


def to_graph(src: Source, n: int | None = None, relabel=False, read=None) -> Graph:
    """The :class:`gconn.Graph` of a described input (``read``: a file's FileEdges already read)."""
    relabel = relabel_option(relabel)
    check_n(n)
    kind = src.kind
    if relabel is not False and kind in ("graph", "sparse", "networkx", "igraph", "networkit", "matrix"):
        raise TypeError(f"relabel applies to edge arrays, tables and files, not to {KINDS[kind]}; build the "
                        "graph with gconn.Graph.from_edges(..., relabel=True) or gconn.load(..., relabel=True)")
    if kind == "file":
        from gconn.io import graph_of, read_edges
        fe = src.took(read if read is not None else read_edges(src.file, n, relabel))
        return graph_of(src.file, fe, n, relabel)
    if kind == "files":
        from gconn.io import load
        return load(src.obj, n=n, relabel=relabel)
    if kind == "names":
        return graph_from_pair(src.src, src.dst, n, relabel)
    if kind in ("edges", "device-edges"):
        return Graph.from_edges(src.src, src.dst, n, relabel=relabel)
    if kind == "matrix":
        g = graph_of_adjacency(adjacency(src.obj))
        if n is not None and n != g.n:
            raise ValueError(f"n={n} does not match the {g.n} x {g.n} adjacency matrix")
        return g
    if kind == "chunks":
        chunks = [(np.asarray(a), np.asarray(b)) for a, b in src.obj] or [(np.zeros(0, np.int64),) * 2]
        s, d = (np.concatenate(c) for c in zip(*chunks))
        return Graph.from_edges(s, d, n, relabel=relabel)
    return coerce(src.obj, n)


def as_graph(obj: Any, n: int | None = None, *, relabel=False, source=None, target=None, format=None,
             header=None, names=None) -> Graph:
    """Any supported input as a :class:`gconn.Graph` (:data:`gconn.inputs.KINDS`): besides the Graph
    constructors' inputs, file paths (as :func:`gconn.load`), a square adjacency matrix (as SciPy's
    csgraph reads it), an edge table (columns ``source=``/``target=``, default a pair named as
    ``src``/``dst``, else the first two) and DLPack tensors.  Names are mapped to 0..k-1 in sorted
    order (``graph.nodes``); ``relabel`` is :meth:`gconn.Graph.from_edges`'s.

    >>> as_graph(([0, 1], [1, 2])).n
    3
    >>> as_graph(np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])).m
    1
    >>> import pandas as pd
    >>> g = as_graph(pd.DataFrame({"w": [1.5], "a": ["x"], "b": ["y"]}), source="a", target="b")
    >>> g.n, g.nodes.tolist()
    (2, ['x', 'y'])
    """
    if isinstance(obj, Graph) and n is None and relabel is False:
        return obj
    src = describe(obj, source=source, target=target, format=format, header=header, names=names)
    g = to_graph(src, n, relabel)
    note(list(src.notes) + list(src.read_notes))    # the guesses made reading it, as gconn.load reports them
    return g


_TABLE_MODULES = ("pandas", "polars", "pyarrow", "cudf")


def _module(obj) -> str:
    return type(obj).__module__.split(".")[0]


def id_graph(obj, who: str) -> Graph:
    """:func:`as_graph` of a structure's ``graph=``, whose vertices must be the ids 0..n-1 that its
    later batches name: names or relabelled ids (``graph.nodes``) are an error, not a silent renumbering.

    >>> id_graph(([0, 2], [1, 3]), "DynamicConnectivity").n
    4
    """
    g = as_graph(obj)
    nodes = g.nodes
    if nodes is not None:
        ids = np.asarray(nodes)
        if not (ids.dtype.kind in "iu" and ids.size == g.n and np.array_equal(ids, np.arange(g.n))):
            what = "names" if ids.dtype.kind in "OSU" else "relabelled ids"
            raise ValueError(f"{who}(graph=...): the graph's vertices are {what} (graph.nodes), but its batches "
                             "name vertices by ids 0..n-1: build the graph from integer ids without relabel, or "
                             "map your ids to graph.nodes' positions first")
    return g


def is_table(obj) -> bool:
    """Whether ``obj`` is a pandas/polars/cuDF DataFrame or a pyarrow Table."""
    mod = _module(obj)
    if mod not in _TABLE_MODULES:
        return False
    name = type(obj).__name__
    return name == "DataFrame" or (mod == "pyarrow" and name in ("Table", "RecordBatch"))


def is_tensor(obj) -> bool:
    """A DLPack or CUDA-array-interface object that NumPy and CuPy do not already take as they are."""
    # pandas/polars/pyarrow columns go through np.asarray, which takes their strings; DLPack does not
    if isinstance(obj, np.ndarray) or _module(obj) in ("cupy", "cupyx", "pandas", "polars", "pyarrow"):
        return False
    return hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__")


_KDLCPU = 1  # DLPack's device type of host memory (kDLCPU)


def from_tensor(obj, what: str):
    """A tensor as a NumPy (host) or CuPy (device) array, without a copy."""
    if hasattr(obj, "__cuda_array_interface__"):
        import cupy
        return cupy.asarray(obj)
    try:
        device = obj.__dlpack_device__()[0]
    except (AttributeError, TypeError):
        device = _KDLCPU  # an exporter without __dlpack_device__ predates devices: host memory
    try:
        if int(device) == _KDLCPU:
            return np.from_dlpack(obj)
        import cupy
        return cupy.from_dlpack(obj)
    except (BufferError, TypeError, RuntimeError) as e:
        raise TypeError(f"{what}: cannot read the {type(obj).__name__} through DLPack ({e})") from None


def _index_hint(table) -> str:
    """A pandas table's named index is no column: say how to make it one."""
    named = [str(x) for x in getattr(getattr(table, "index", None), "names", ()) or () if x is not None]
    return f" (its index {named} is not a column: .reset_index() makes it one)" if named else ""


def edge_columns(table, source, target):
    """``(src, dst, (source, target), note)``: a table's two edge columns as arrays (CuPy for cuDF),
    by default as ``gconn.io._files.default_columns`` finds them (``note`` says how, or None);
    nulls, floats and other non-id columns are reported by column name.

    >>> import pandas as pd
    >>> s, d, cols, note = edge_columns(pd.DataFrame({"w": [5, 6], "src": [0, 1], "dst": [1, 2]}), None, None)
    >>> s.tolist(), d.tolist(), cols
    ([0, 1], [1, 2], ('src', 'dst'))
    """
    mod = _module(table)
    names = [str(c) for c in table.columns] if mod != "pyarrow" else list(table.column_names)
    if len(set(names)) != len(names):
        raise ValueError(f"the table has duplicate column names: {names}")
    if source is None and target is None and len(names) < 2:
        raise ValueError(f"an edge table needs two columns (source and target); it has {names}"
                         f"{_index_hint(table)}")
    if source is None and target is None and _adjacency_table(table, mod, names):
        raise ValueError(f"the table has {len(names)} rows and {len(names)} columns, "
                         + ("its index the columns' names" if mod == "pandas" and _index_is_columns(table, names)
                            else "a symmetric matrix with zeros on its diagonal, or values 0 and 1 only")
                         + ": an adjacency matrix (as networkx.to_pandas_adjacency writes), not an edge table (a row "
                           "per edge); pass its values: gconn.connected_components(table.to_numpy())")
    from gconn.io._files import column_defaults, same_column
    defaults, note = column_defaults(names, source, target, "the table")
    chosen = []
    for given, default, option in ((source, defaults[0], "source"), (target, defaults[1], "target")):
        if given is None:
            given = names[default]
        elif str(given) not in names:
            raise ValueError(f"{option}={given!r}: the table has no such column; its columns: {names}"
                             f"{_index_hint(table)}")
        chosen.append(str(given))
    same_column("the table", *chosen)
    cols = tuple(_column(table, mod, names, c) for c in chosen)
    return cols[0], cols[1], tuple(chosen), note


def _index_is_columns(table, names) -> bool:
    """The index names the columns, and not as the default 0..n-1 of both does."""
    return [str(x) for x in table.index] == names != [str(i) for i in range(len(names))]


def _adjacency_table(table, mod: str, names: list) -> bool:
    """Whether a pandas or polars table of three or more columns is a square adjacency matrix: its
    index the columns' names, or its values symmetric with a zero diagonal, or all 0 or 1."""
    n = len(names)
    if mod not in ("pandas", "polars") or n < 3 or table.shape[0] != n:
        return False
    if mod == "pandas" and _index_is_columns(table, names):
        return True
    a = table.to_numpy()
    if a.dtype.kind not in "biuf":
        return False
    return bool((a == a.T).all() and not a.diagonal().any() or np.isin(a, (0, 1)).all())


def _column(table, mod: str, names: list, name: str):
    where = f"column {name!r}"
    if mod == "pandas":
        col = table.iloc[:, names.index(name)]
        nulls = int(col.isna().sum())
    elif mod == "polars":
        col = table.get_column(name)
        nulls = col.null_count()
    elif mod == "pyarrow":
        col = table.column(name)
        nulls = col.null_count
    else:  # cudf
        col = table[name]
        nulls = int(col.null_count)
    if nulls:
        raise ValueError(f"{where} of the table has {nulls} null vertex id(s); drop or fill them first")
    if mod == "pyarrow":
        import pyarrow as pa
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
    return check_column(col.values if mod == "cudf" and col.dtype.kind in "iuf" else col.to_numpy(), where)


def has_names(graph) -> bool:
    """Whether a graph's vertices are names (``graph.nodes`` a str/object array)."""
    return isinstance(graph.nodes, np.ndarray) and graph.nodes.dtype.kind in "OSU"


#: ``output=`` values: labels as an array, or as a table of these libraries.
OUTPUTS = ("array", "pandas", "polars")


def output_option(output, return_labels: bool = True) -> bool:
    """``output=`` checked; True when a table was asked for."""
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {', '.join(map(repr, OUTPUTS))}; got {output!r}")
    if output != "array" and not return_labels:
        raise ValueError(f"output={output!r} is a table of labels, but return_labels=False")
    return output != "array"


def labels_table(kind: str, vertices, labels):
    """A ``(vertex, component)`` table (pandas or polars) of host or device arrays.

    >>> labels_table("pandas", np.array(["a", "b"]), np.array([0, 0])).shape
    (2, 2)
    """
    vertices = vertices.get() if _module(vertices) == "cupy" else np.asarray(vertices)
    labels = labels.get() if _module(labels) == "cupy" else np.asarray(labels)
    return importlib.import_module(kind).DataFrame({"vertex": vertices, "component": labels})
