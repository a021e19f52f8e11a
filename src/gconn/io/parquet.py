"""Parquet edge tables: two columns of ids, ``source=``/``target=`` by name
(default: the first two), integers or names as in :mod:`gconn.inputs.tables`."""
from __future__ import annotations

from pathlib import Path


def read(path: Path, n, relabel=False, source=None, target=None):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from ..inputs.tables import edge_columns, graph_from_pair
    try:
        schema = pq.read_schema(path)
        names = schema.names
    except (pa.ArrowInvalid, OSError) as e:
        raise ValueError(f"{path.name}: not a readable Parquet file ({e})") from None
    for given, option in ((source, "source"), (target, "target")):
        if given is not None and given not in names:
            raise ValueError(f"{path.name}: {option}={given!r} is not a column of the file; its columns: {names}")
    if len(names) < 2 and (source is None or target is None):
        raise ValueError(f"{path.name}: an edge table needs two columns (source and target); it has {names}")
    columns = [source if source is not None else names[0], target if target is not None else names[1]]
    declared = (schema.metadata or {}).get(b"gconn.n")
    if declared is not None and n is None and relabel is not True:
        # gconn's own files keep isolated vertices after the largest id
        n, relabel = int(declared), False
    try:
        table = pq.read_table(path, columns=list(dict.fromkeys(columns)))
    except (pa.ArrowInvalid, OSError) as e:
        raise ValueError(f"{path.name}: not a readable Parquet file ({e})") from None
    try:
        src, dst, _ = edge_columns(table, *columns)
        return graph_from_pair(src, dst, n, relabel)
    except (ValueError, TypeError) as e:
        raise type(e)(f"{path.name}: {e}") from None


def write(graph, f) -> None:
    """Edges once each as columns ``source``, ``target``, in input ids (or names)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    ids = graph.nodes
    src = ids[graph.src] if ids is not None else graph.src
    dst = ids[graph.dst] if ids is not None else graph.dst
    table = pa.table({"source": np.asarray(src), "target": np.asarray(dst)},
                     metadata={"gconn.n": str(graph.n)} if ids is None else None)
    pq.write_table(table, f)
