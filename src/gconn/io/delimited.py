"""Edge lists that gconn's integer parser does not read (ids that are names, quoted fields), through
pyarrow's CSV reader, once comments, blank lines and runs of blanks are gone."""
from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np

from gconn.graph.relabel import dense_names
from gconn.io._files import quote
from gconn.io.edgelist import data_lines

_COMMENTS = re.compile(rb"(?m)^[ \t]*[#%][^\n]*\n?")
_BLANK_LINES = re.compile(rb"(?m)^[ \t\r]*\n")
_SPACES = re.compile(rb"[ \t]+")
_EDGES = re.compile(rb"(?m)^[ \t]+|[ \t]+(?=\r?$)")


def _line_of(buf: np.ndarray, d, text: str) -> int | None:
    """The first data line whose fields read as ``text``, or None."""
    want = re.sub(r"[ \t,;]+", " ", text).strip()
    return next((line for line, _, _, got in data_lines(bytes(buf), d.start, d.line)
                 if re.sub(r"[ \t,;]+", " ", got).strip() == want), None)


def read_names(path: Path, buf: np.ndarray, d):
    """``(src, dst, names, notes)``: codes into the sorted distinct names, or int64 ids and None."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyarrow import csv
    data = bytes(buf[d.start:])
    if b"#" in data or b"%" in data:
        data = _COMMENTS.sub(b"", data)
    data = _BLANK_LINES.sub(b"", data)
    delimiter = d.delimiter
    # blanks around a field are no part of it (as gconn's parser splits lines)
    data = _EDGES.sub(b"", data)
    if delimiter == " ":
        # pyarrow knows one delimiter byte, not runs of blanks
        data = _SPACES.sub(b"\t", data)
        delimiter = "\t"
    else:
        around = b"[ \t]*" if delimiter != "\t" else b" *"
        data = re.sub(around + re.escape(delimiter.encode()) + around, delimiter.encode(), data)
    column_names = [f"f{i}" for i in range(d.fields)]
    chosen = [column_names[c] for c in d.columns]
    kind = pa.string()      # ids as text: a bad integer is named by its line
    bad = []

    def invalid(row):
        bad.append(row)
        return "error"

    try:
        table = csv.read_csv(
            pa.BufferReader(pa.py_buffer(data)),
            read_options=csv.ReadOptions(column_names=column_names),
            parse_options=csv.ParseOptions(delimiter=delimiter, invalid_row_handler=invalid),
            convert_options=csv.ConvertOptions(include_columns=chosen, column_types={c: kind for c in chosen},
                                               strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        if bad:
            row = bad[0]
            line = _line_of(buf, d, row.text)
            where = f"{path.name}, line {line}" if line else f"{path.name}"
            raise ValueError(f"{where}: {row.actual_columns} fields, but the lines of this file have "
                             f"{row.expected_columns} (line {d.first_line}): {quote(row.text.encode())}") from None
        text = str(e).strip()
        raise ValueError(f"{path.name} (from line {d.line}): {text[:300]}") from None
    cols = []
    for c, name in zip(d.columns, chosen):
        col = table.column(name)
        label = d.header[c] if d.header is not None else f"{c + 1}"
        if col.null_count:
            row = _first(col.is_null())
            raise ValueError(f"{path.name}: column {label}, data row {row + 1}: missing vertex id")
        if not d.names:
            ok = pc.match_substring_regex(col, r"^[0-9]{1,18}$")
            if not pc.all(ok).as_py():
                row = _first(pc.invert(ok))
                token = col[row].as_py()
                line = _line_of_row(buf, d, row)
                what = "a negative vertex id" if token[:1] == "-" else "not a vertex id"
                where = f"column {label!r}" if d.header is not None else f"field {c + 1}"
                raise ValueError(f"{path.name}, line {line}, {where}: {token[:40]!r} is {what}: ids are integers "
                                 ">= 0 (digits only)")
            col = pc.cast(col, pa.int64())
        values = col.to_numpy(zero_copy_only=False)
        if d.names:
            empty = np.flatnonzero(values == "")
            if empty.size:
                raise ValueError(f"{path.name}: column {label}, data row {int(empty[0]) + 1}: an empty vertex "
                                 "name")
        cols.append(values)
    src, dst = cols
    if d.names and not d.names_given:
        for name in chosen:
            digits = pc.match_substring_regex(table.column(name), r"^[0-9]+$")
            if pc.any(digits).as_py():
                row = _first(digits)
                line = _line_of_row(buf, d, row)
                where = f"line {line}" if line is not None else f"data row {row + 1}"
                token = table.column(name)[row].as_py()
                raise ValueError(f"{path.name}, {where}: {token!r} is an integer, but the ids of this file are "
                                 f"names (line {d.first_line} holds a word); pass names=True (--names) to read "
                                 "every id as a name")
    notes = ()
    if d.header_rule == "occurrence":
        src, dst, notes = _header_by_occurrence(path, buf, d, src, dst)
    if not d.names:
        return src, dst, None, notes
    s, t, names = dense_names(src, dst)
    return s, t, names, notes


def _first(mask) -> int:
    """The first row where an Arrow boolean column is true."""
    return int(np.flatnonzero(mask.to_numpy(zero_copy_only=False))[0])


def _line_of_row(buf: np.ndarray, d, row: int) -> int | None:
    """The line of 0-based data row ``row``."""
    return next(itertools.islice(data_lines(bytes(buf), d.start, d.line), row, None), (None,))[0]


#: Column names that say a first line of names is a header (compared in lower case).
HEADER_WORDS = frozenset({"source", "target", "src", "dst", "from", "to", "u", "v", "node1", "node2", "node_1",
                          "node_2", "source_id", "target_id", "from_id", "to_id", "src_id", "dst_id", "head",
                          "tail", "start", "end", "vertex1", "vertex2", "id1", "id2", "left", "right"})


def _header_by_occurrence(path: Path, buf: np.ndarray, d, src, dst):
    """Whether the first line of a file of names is a header: data when one of its names occurs
    elsewhere, a header when its names are the usual column names, else an error; reported."""
    text = bytes(buf[d.start:]).split(b"\n", 1)[0]
    shown = quote(text)
    if src.size < 2:
        return src, dst, (f"line {d.line} ({shown}), the only line, is read as an edge between two names; "
                          "pass header=True (--header) if it names the columns",)
    a, b = src[0], dst[0]
    rest = np.concatenate([src[1:], dst[1:]])
    seen = [bool((rest == x).any()) for x in (a, b)]
    words = all(str(x).strip().lower() in HEADER_WORDS for x in (a, b))
    if any(seen) and not words:
        name = a if seen[0] else b
        return src, dst, (f"line {d.line} ({shown}) is read as an edge: its name {name!r} occurs on other lines "
                          "too; pass header=True (--header) if it names the columns",)
    if words and not any(seen):
        return src[1:], dst[1:], (f"line {d.line} ({shown}) is taken as a header: its names are column names "
                                  "that occur on no other line; pass header=False (--no-header) to read it as "
                                  "an edge",)
    why = ("its names are column names, yet one occurs on another line" if words else
           "neither of its names occurs on another line, and they are not the usual column names")
    raise ValueError(f"{path.name}, line {d.line}: cannot tell whether {shown} is a header or an edge between "
                     f"two names ({why}); pass header=True (--header) or header=False (--no-header)")
