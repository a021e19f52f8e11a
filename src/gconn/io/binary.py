"""The binary formats.  NumPy: ``.npy`` holds an (m, 2) edge array; ``.npz`` holds ``src`` and ``dst``
(or CSR ``indptr`` and ``indices``), optionally ``n`` and ``nodes`` (each vertex's input id or name).

``.gcb``, gconn's binary graph, the Graph arrays as they are in memory (little-endian): a 64-byte
header (magic, version u16, id and offset item sizes u8 each, 4 reserved bytes, n u64, m u64, zero
padding), then ``indptr``, ``indices``, ``src`` and ``dst``.

Parquet edge tables: two columns of ids or names, ``source=``/``target=`` (default: the first two).
gconn writes columns ``source`` and ``target`` with ``gconn.n`` in the metadata, or ``gconn.vertices =
"listed"`` where the vertices are the ids that occur (a vertex without edges: a null target).
"""
from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path

import numpy as np

from gconn.graph import INT32_MAX, Graph
from gconn.graph.ids import check_column
from gconn.graph.relabel import dense_names
from gconn.io._files import FileEdges, check_declared, column_defaults, same_column, without_edges
from gconn.io.edgelist import named_codes

def _load(path: Path, mmap_mode=None):
    try:
        return np.load(path, mmap_mode, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"{path.name}: not a readable {path.suffix} file ({e})") from None


def edge_array(path: Path, mmap_mode=None) -> np.ndarray:
    """The (m, 2) integer edge array of an .npy file, checked."""
    arr = _load(path, mmap_mode)
    if not isinstance(arr, np.ndarray):
        raise ValueError(f"{path.name}: expected a .npy array, found an .npz archive")
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype.kind not in "iu":
        hint = ""
        if arr.ndim == 2 and arr.shape[0] == arr.shape[1] > 2:
            hint = (f"; a square array is an adjacency matrix: pass it as one, "
                    f"gconn.connected_components(numpy.load({path.name!r}))")
        elif arr.ndim == 2 and arr.shape[0] == 2 and arr.dtype.kind in "iu":
            hint = "; for 2 rows of ids (PyG's edge_index) save a.T, or pass (a[0], a[1])"
        raise ValueError(f"{path.name}: expected an (m, 2) integer array of edges, "
                         f"got shape {arr.shape} of {arr.dtype}{hint}")
    return arr


def read_npy(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of an (m, 2) edge array."""
    arr = edge_array(info.path)
    return FileEdges(arr[:, 0], arr[:, 1])


def read_npz(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of an ``.npz`` archive."""
    path = info.path
    archive = _load(path)
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{path.name}: expected an .npz archive, found a single .npy array")
    with archive:
        keys = set(archive.files)
        if "[Content_Types].xml" in keys:
            raise ValueError(f"{path.name}: an Excel workbook (a zip archive), which gconn does not read; pandas "
                             "reads it: df = pandas.read_excel(path), then gconn.connected_components(df)")
        if keys and not any(name.endswith(".npy") for name in archive.zip.namelist()):
            raise ValueError(f"{path.name}: a zip archive of {', '.join(sorted(keys)[:5])}, not of NumPy arrays "
                             "(an .npz); gconn reads text files plain or gzipped: extract it, or gzip the file")
        if {"format", "shape"} <= keys and "src" not in keys:
            return _scipy_npz(path)
        stored = None
        if "n" in keys:
            raw = archive["n"]
            if raw.ndim != 0 or raw.dtype.kind not in "iu":
                raise ValueError(f"{path.name}: 'n' must be an integer scalar, got shape "
                                 f"{raw.shape} of {raw.dtype}")
            stored = int(raw)
        nodes = archive["nodes"] if "nodes" in keys else None
        if {"src", "dst"} <= keys:
            src, dst = archive["src"], archive["dst"]
        elif {"indptr", "indices"} <= keys:
            indptr, indices = archive["indptr"], archive["indices"]
            if indptr.ndim != 1 or indptr.size == 0 or indptr.dtype.kind not in "iu":
                raise ValueError(f"{path.name}: 'indptr' must be a non-empty 1-D integer array")
            src = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
            dst = indices
            if stored is None:
                stored = indptr.size - 1
        else:
            raise ValueError(f"{path.name}: expected arrays 'src' and 'dst' or 'indptr' and 'indices' "
                             f"(and optionally 'n' and 'nodes'); found {sorted(keys)}"
                             + ("; np.savez(path, src=..., dst=...) names them, and one (m, 2) array of edges "
                                "goes in an .npy" if keys == {"arr_0"} else ""))
    if nodes is not None:
        if nodes.ndim != 1 or (stored is not None and stored != nodes.size):
            raise ValueError(f"{path.name}: 'nodes' must list one id or name per vertex "
                             f"({stored} vertices), got shape {nodes.shape}")
        return FileEdges(src, dst, nodes.size, nodes)
    return FileEdges(src, dst, stored)


def _scipy_npz(path: Path):
    """A matrix ``scipy.sparse.save_npz`` wrote (CSR, CSC, COO, BSR or DIA), read by SciPy: its stored
    entries are the edges, as for the matrix in memory (a BSR's blocks are not rows)."""
    import scipy.sparse as sp
    try:
        A = sp.load_npz(path)
    except (ValueError, KeyError, OSError) as e:
        raise ValueError(f"{path.name}: not a matrix scipy.sparse.load_npz reads ({e})") from None
    try:
        g = Graph.from_scipy(A)
    except ValueError as e:
        raise ValueError(f"{path.name}: {e}") from None
    src, dst = g.edges()
    return FileEdges(src, dst, g.n)


def write_npy(graph: Graph, f) -> None:
    np.save(f, np.column_stack([graph.src, graph.dst]))


def write_npz(graph: Graph, f) -> None:
    arrays = dict(src=graph.src, dst=graph.dst, n=np.int64(graph.n))
    if graph.nodes is not None:
        nodes = arrays["nodes"] = np.asarray(graph.nodes)
        if nodes.dtype.kind == "O":
            # names as a fixed-width string array: .npz loads no Python objects (allow_pickle=False)
            arrays["nodes"] = nodes.astype(bytes if nodes.size and isinstance(nodes[0], bytes) else str)
    np.savez(f, **arrays)


# PNG-style: exposes text-mode or 7-bit mangling too
MAGIC = b"\x89GCB\r\n\x1a\n"
VERSION = 1
HEADER_SIZE = 64
_FIELDS = struct.Struct("<8sHBB4xQQ")


def _dtype(size: int) -> np.dtype:
    return np.dtype(f"<i{size}")


def _header(f, name: str):
    """(id size, offset size, n, m) of an open .gcb file, checked against its size."""
    head = f.read(HEADER_SIZE)
    if head[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{name}: not a gconn .gcb file (bad magic bytes {head[:8]!r})")
    if len(head) < HEADER_SIZE:
        raise ValueError(f"{name}: truncated .gcb file: {len(head)} bytes, shorter than "
                         f"the {HEADER_SIZE}-byte header")
    _, version, id_size, ptr_size, n_file, m = _FIELDS.unpack_from(head)
    if version != VERSION:
        raise ValueError(f"{name}: .gcb version {version} is not supported (this gconn "
                         f"reads version {VERSION})")
    if id_size not in (4, 8) or ptr_size not in (4, 8) or (n_file > INT32_MAX and id_size == 4) \
            or (2 * m > INT32_MAX and ptr_size == 4):
        raise ValueError(f"{name}: corrupt .gcb header (n={n_file}, m={m}, id size {id_size}, "
                         f"offset size {ptr_size})")
    expected = HEADER_SIZE + (n_file + 1) * ptr_size + 4 * m * id_size
    actual = os.fstat(f.fileno()).st_size
    if actual != expected:
        raise ValueError(f"{name}: truncated or corrupt .gcb file: the header (n={n_file}, "
                         f"m={m}) needs {expected} bytes, the file has {actual}")
    return id_size, ptr_size, n_file, m


def layout(path: Path):
    """(n, m, id dtype, byte offset of src, byte offset of dst) of a .gcb file."""
    with open(path, "rb") as f:
        id_size, ptr_size, n, m = _header(f, path.name)
    src_at = HEADER_SIZE + (n + 1) * ptr_size + 2 * m * id_size
    return n, m, _dtype(id_size), src_at, src_at + m * id_size


def read_gcb(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of a .gcb file, with its canonical arrays."""
    path = info.path
    name = path.name
    with open(path, "rb") as f:
        id_size, ptr_size, n_file, m = _header(f, name)
        check_declared(name, n, n_file, None, f"{name}: the n={n_file} stored in the file", relabelled)
        ids = _dtype(id_size)
        indptr = np.fromfile(f, _dtype(ptr_size), n_file + 1)
        indices = np.fromfile(f, ids, 2 * m)
        src = np.fromfile(f, ids, m)
        dst = np.fromfile(f, ids, m)
    if indptr[0] != 0 or indptr[-1] != 2 * m:
        raise ValueError(f"{name}: corrupt .gcb file: indptr runs from {indptr[0]} to "
                         f"{indptr[-1]}, expected 0 to 2m={2 * m}")
    indptr, indices, src, dst = (a.astype(a.dtype.newbyteorder("="), copy=False)
                                 for a in (indptr, indices, src, dst))
    return FileEdges(src, dst, n_file, canonical=(indptr, indices))


def write_gcb(graph, f) -> None:
    ids = _dtype(graph.indices.dtype.itemsize)
    offsets = _dtype(graph.indptr.dtype.itemsize)
    f.write(_FIELDS.pack(MAGIC, VERSION, ids.itemsize, offsets.itemsize,
                         graph.n, graph.m).ljust(HEADER_SIZE, b"\0"))
    for a, dtype in ((graph.indptr, offsets), (graph.indices, ids), (graph.src, ids), (graph.dst, ids)):
        f.write(memoryview(np.ascontiguousarray(a, dtype)))


def _arrow_format(fmt: str):
    """An Arrow-based format's name in messages, schema reader and table reader (path, columns)."""
    import pyarrow.feather as feather
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq
    if fmt == "feather":
        return "Feather (Arrow IPC)", lambda p: ipc.open_file(p).schema, \
            lambda p, columns: feather.read_table(p, columns=columns, memory_map=True)
    return "Parquet", pq.read_schema, lambda p, columns: pq.read_table(p, columns=columns)


def read_parquet(info, n, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of a Parquet or Feather (Arrow IPC) edge table."""
    import pyarrow as pa
    path = info.path
    source, target = info.columns
    what, read_schema, read_table = _arrow_format(info.format)
    try:
        schema = read_schema(path)
        names = schema.names
        # integers are column positions
        source, target = (names[c] if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < len(names)
                          else c for c in (source, target))
        for given, option in ((source, "source"), (target, "target")):
            if given is not None and given not in names:
                raise ValueError(f"{path.name}: {option}={given!r} is not a column of the file; its columns: "
                                 f"{names}")
        if len(names) < 2 and (source is None or target is None):
            raise ValueError(f"{path.name}: an edge table needs two columns (source and target); it has "
                             f"{names}")
        defaults, note = column_defaults(names, source, target, path.name)
        columns = [source if source is not None else names[defaults[0]],
                   target if target is not None else names[defaults[1]]]
        same_column(path.name, *columns)
        table = read_table(path, list(dict.fromkeys(columns)))
    except (pa.ArrowInvalid, OSError) as e:
        raise ValueError(f"{path.name}: not a readable {what} file ({e})") from None
    meta = schema.metadata or {}
    declared = meta.get(b"gconn.n")
    listed = meta.get(b"gconn.vertices") == b"listed"
    src_col, dst_col = table.column(columns[0]), table.column(columns[1])
    alone = None
    if listed and dst_col.null_count:
        # gconn's rows of vertices without edges: the source alone
        isolated = dst_col.is_null()
        alone = src_col.filter(isolated)
        import pyarrow.compute as pc
        keep = pc.invert(isolated)
        src_col, dst_col = src_col.filter(keep), dst_col.filter(keep)
    arrow = []
    for col, name in ((src_col, columns[0]), (dst_col, columns[1])):
        if col.null_count:
            row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"{path.name}: column {name!r}, row {row}: a null (missing) vertex id")
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        arrow.append(col)
    notes = () if note is None else (note,)
    if alone is None and arrow[0].type == arrow[1].type and pa.types.is_string(arrow[0].type):
        # names coded by Arrow, as a text file's (converting them to Python strings took most of the read)
        s, d, vertices = named_codes(*arrow)
        return FileEdges(s, d, vertices.size, vertices, notes=notes)
    src, dst = (check_column(col.to_numpy(), f"{path.name}: column {name!r}") for col, name in zip(arrow, columns))
    named = src.dtype.kind in "OSU" or dst.dtype.kind in "OSU"
    if not (named or listed):
        return FileEdges(src, dst, int(declared) if declared is not None else None, notes=notes)
    extra = () if alone is None else (alone.to_numpy(zero_copy_only=False),)
    if named and not (src.dtype.kind in "OSU" and dst.dtype.kind in "OSU") and src.size:
        raise TypeError(f"{path.name}: the columns {columns} mix names and integer ids")
    s, d, vertices = dense_names(src, dst, *extra)
    return FileEdges(s, d, vertices.size, vertices, notes=notes)


def write_parquet(graph, f, fmt: str = "parquet") -> None:
    import pyarrow as pa
    ids = graph.nodes
    if ids is None:
        table = pa.table({"source": graph.src, "target": graph.dst}, metadata={"gconn.n": str(graph.n)})
    else:
        ids = np.asarray(ids)
        alone = without_edges(graph)
        kind = pa.string() if ids.dtype.kind in "OU" else pa.binary() if ids.dtype.kind == "S" else pa.int64()
        source = pa.array(np.concatenate([ids[graph.src], ids[alone]]), type=kind)
        target = pa.concat_arrays([pa.array(ids[graph.dst], type=kind), pa.nulls(alone.size, kind)])
        table = pa.table({"source": source, "target": target}, metadata={"gconn.vertices": "listed"})
    if fmt == "feather":
        import pyarrow.feather as feather
        feather.write_feather(table, f)
    else:
        import pyarrow.parquet as pq
        pq.write_table(table, f)
