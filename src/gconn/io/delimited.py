"""Delimited text through pyarrow's CSV reader: the edge-list paths the numba
parser does not take (names as ids, columns chosen by name, semicolons).

Comment lines ('#', '%') and blank lines are dropped first, runs of spaces
become one delimiter; pyarrow then reads only the two edge columns.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

_COMMENTS = re.compile(rb"(?m)^[ \t]*[#%][^\n]*\n?")
_SPACES = re.compile(rb"[ \t]+")
_EDGES = re.compile(rb"(?m)^[ \t]+|[ \t]+$")


def read_columns(buf: np.ndarray, path: Path, delimiter: str, names, cols, first_line: int, named: bool):
    """The two edge columns (``cols``, positions) of the data lines in
    ``buf`` (the bytes after any header) as NumPy arrays: int64, or str
    objects when ``named``."""
    import pyarrow as pa
    from pyarrow import csv
    # pyarrow has no comment lines and no runs of spaces as one delimiter:
    # the bytes are rewritten only when the file needs it (a regex over
    # every line costs more than pyarrow's parse).
    data = buf
    if (buf == ord("#")).any() or (buf == ord("%")).any():
        data = _COMMENTS.sub(b"", bytes(data))
    if delimiter == " ":
        data = _SPACES.sub(b"\t", _EDGES.sub(b"", bytes(data)))
        delimiter = "\t"
    width = max(cols) + 1
    column_names = list(names) if names is not None else None
    if column_names is None:
        # Without a header the width is the first line's; pyarrow insists on it.
        first = bytes(data[:_first_end(data)]).rstrip(b"\r")
        count = first.count(delimiter.encode()) + 1 if first else width
        column_names = [f"f{i}" for i in range(max(count, width))]
    elif len(set(column_names)) != len(column_names):
        # Repeated header names must still be distinct to pyarrow.
        column_names = [f"{c}#{i + 1}" for i, c in enumerate(column_names)]
    chosen = [column_names[c] for c in cols]
    kind = pa.string() if named else pa.int64()
    try:
        table = csv.read_csv(
            pa.BufferReader(pa.py_buffer(data)),
            read_options=csv.ReadOptions(column_names=column_names),
            parse_options=csv.ParseOptions(delimiter=delimiter),
            convert_options=csv.ConvertOptions(include_columns=chosen,
                                               column_types={c: kind for c in chosen}))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise ValueError(f"{path.name} (data from line {first_line}, comment lines not counted in rows): "
                         f"{_short(e)}") from None
    out = []
    for c, name in zip(cols, chosen):
        col = table.column(name)
        label = names[c] if names is not None else f"#{c + 1}"
        if col.null_count:
            row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"{path.name}: column {label!r}, data row {row + 1}: missing vertex id")
        values = col.to_numpy()
        if not named and values.size and int(values.min()) < 0:
            row = int(np.argmax(values < 0))
            raise ValueError(f"{path.name}: column {label!r}, data row {row + 1}: negative vertex id "
                             f"{int(values[row])}; ids must be >= 0")
        out.append(values)
    return out[0], out[1]


def _first_end(data) -> int:
    if isinstance(data, bytes):
        end = data.find(b"\n")
        return len(data) if end < 0 else end
    newlines = np.flatnonzero(data[:1 << 16] == 10)
    return int(newlines[0]) if newlines.size else min(data.size, 1 << 16)


def _short(error: Exception) -> str:
    text = str(error).strip()
    return text if len(text) <= 300 else text[:300] + "..."
