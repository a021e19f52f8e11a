"""Parquet edge tables: two columns of ids or names, ``source=``/``target=`` (default: the first two).

gconn writes columns ``source`` and ``target`` with ``gconn.n`` in the metadata, or ``gconn.vertices =
"listed"`` where the vertices are the ids that occur (a vertex without edges: a null target).
"""
from __future__ import annotations

import numpy as np

from gconn.graph.ids import check_column
from gconn.graph.relabel import dense_names
from gconn.io._files import FileEdges, without_edges


def read(info, n, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of a Parquet edge table."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = info.path
    source, target = info.columns
    try:
        schema = pq.read_schema(path)
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
        columns = [source if source is not None else names[0], target if target is not None else names[1]]
        table = pq.read_table(path, columns=list(dict.fromkeys(columns)))
    except (pa.ArrowInvalid, OSError) as e:
        raise ValueError(f"{path.name}: not a readable Parquet file ({e})") from None
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
    cols = []
    for col, name in ((src_col, columns[0]), (dst_col, columns[1])):
        if col.null_count:
            row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"{path.name}: column {name!r}, row {row}: a null (missing) vertex id")
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        cols.append(check_column(col.to_numpy(), f"{path.name}: column {name!r}"))
    src, dst = cols
    named = src.dtype.kind in "OSU" or dst.dtype.kind in "OSU"
    if not (named or listed):
        return FileEdges(src, dst, int(declared) if declared is not None else None)
    extra = () if alone is None else (alone.to_numpy(zero_copy_only=False),)
    if named and not (src.dtype.kind in "OSU" and dst.dtype.kind in "OSU") and src.size:
        raise TypeError(f"{path.name}: the columns {columns} mix names and integer ids")
    s, d, vertices = dense_names(src, dst, *extra)
    return FileEdges(s, d, vertices.size, vertices)


def write(graph, f) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
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
    pq.write_table(table, f)
