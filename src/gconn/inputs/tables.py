"""Edge tables, tensors and named vertices: what :func:`gconn.as_graph` reads besides arrays,
matrices and files.  Tables (pandas, polars, pyarrow, cuDF, recognised by module name): the edge
columns ``source=`` and ``target=``, by default the first two; cuDF stays on the GPU.  Tensors
(``__cuda_array_interface__`` or ``__dlpack__``) become CuPy or NumPy arrays without a copy.
Names (ids that are not integers) are mapped to ``0..k-1`` in sorted order, ``graph.nodes[i]``
the name of vertex ``i``.

>>> import pandas as pd
>>> s, d, cols = edge_columns(pd.DataFrame({"a": [0, 1], "b": [1, 2]}), None, None)
>>> s.tolist(), d.tolist(), cols
([0, 1], [1, 2], ('a', 'b'))
"""
from __future__ import annotations

import importlib

import numpy as np

from gconn.graph.ids import check_column

_TABLE_MODULES = ("pandas", "polars", "pyarrow", "cudf")


def _module(obj) -> str:
    return type(obj).__module__.split(".")[0]


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


def edge_columns(table, source, target):
    """``(src, dst, (source, target))``: a table's two edge columns as arrays (CuPy for cuDF);
    nulls, floats and other non-id columns are reported by column name."""
    mod = _module(table)
    names = [str(c) for c in table.columns] if mod != "pyarrow" else list(table.column_names)
    if len(set(names)) != len(names):
        raise ValueError(f"the table has duplicate column names: {names}")
    if source is None and target is None and len(names) < 2:
        raise ValueError(f"an edge table needs two columns (source and target); it has {names}")
    chosen = []
    for given, default, option in ((source, 0, "source"), (target, 1, "target")):
        if given is None:
            given = names[default]
        elif str(given) not in names:
            raise ValueError(f"{option}={given!r}: the table has no such column; its columns: {names}")
        chosen.append(str(given))
    cols = tuple(_column(table, mod, names, c) for c in chosen)
    return cols[0], cols[1], tuple(chosen)


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
