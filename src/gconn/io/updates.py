"""Update logs: a stream of edge updates, one per line, ``op u v``, where op is ``+`` (insert),
``-`` (delete) or ``?`` (query; also ``i``/``d``/``q`` and the words, in any case).  Fields are split
by blanks or a comma; blank lines and ``#`` or ``%`` comments are skipped, and so is a first line of three
column names (``op,u,v``, as pandas writes a table), with a note; the file may be gzipped.
The kinds are those :meth:`gconn.DynamicConnectivity.process` takes: 0 insert, 1 query, 2 delete.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "log.txt")
>>> with open(path, "w") as f:
...     _ = f.write("# a triangle, then one side deleted\\n+ 0 1\\n+ 1 2\\n+ 2 0\\n- 0 1\\n? 0 1\\n")
>>> kinds, src, dst = read_updates(path)
>>> kinds.tolist(), src.tolist(), dst.tolist()
([0, 0, 0, 2, 1], [0, 1, 2, 0, 0], [1, 2, 0, 1, 1])
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from gconn.errors import note
from gconn.io import _parsers as K
from gconn.io._files import cr_lines, quote, read_bytes

_KIND_WORDS = "+ (insert), - (delete) or ? (query)"


class Updates(NamedTuple):
    """An update log's operations: kinds (int8: 0 insert, 1 query, 2 delete) and their two ends."""
    kinds: np.ndarray
    src: np.ndarray
    dst: np.ndarray


def read_updates(path, *, return_lines: bool = False):
    """The updates of the log at ``path``, in order (see the module's text for the format); a line
    that is not an update is an error naming its line and column.  ``return_lines``: also each
    update's 1-based line number, ``(updates, lines)``.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+,0,1\\n-,0,1\\nadd,0,1\\n")
    >>> read_updates(path)
    Traceback (most recent call last):
    ...
    ValueError: log.csv, line 3, column 1: 'add' is not an update's operation: a line is 'op u v' with op + (insert), - (delete) or ? (query)
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a directory, not an update log")
    buf = read_bytes(path)
    if buf[:2].tobytes() in (b"\xff\xfe", b"\xfe\xff"):
        raise ValueError(f"{path.name}: UTF-16 text; gconn reads UTF-8 (or ASCII): convert it first, e.g. "
                         f"iconv -f UTF-16 -t UTF-8 {path.name} > {path.stem}-utf8{path.suffix}")
    buf = cr_lines(buf)
    size = int(K.count_lines(buf))
    kinds, src, dst = np.empty(size, np.int8), np.empty(size, np.int64), np.empty(size, np.int64)
    lines = np.empty(size, np.int64)
    status, count, line, field, start = (int(x) for x in K.parse_updates(buf, kinds, src, dst, lines))
    if status == K.BAD_OP and count == 0 and _is_header(buf[start:K.line_end(buf, start)]):
        # a first line naming the columns ('op,u,v', as pandas writes a table): a comment, and said so
        text = bytes(buf[start:K.line_end(buf, start)]).decode("utf-8", "replace").strip()
        note([f"{path.name}, line {line} ({text!r}) is a header naming the columns, not an update"])
        buf = np.array(buf, copy=True)
        buf[start] = ord("#")
        status, count, line, field, start = (int(x) for x in K.parse_updates(buf, kinds, src, dst, lines))
    if status != K.OK:
        raise _error(path.name, status, line, field, buf[start:K.line_end(buf, start)])
    kinds, src, dst = kinds[:count], src[:count], dst[:count]
    if count and max(int(src.max()), int(dst.max())) <= np.iinfo(np.int32).max:
        src, dst = src.astype(np.int32), dst.astype(np.int32)
    return (Updates(kinds, src, dst), lines[:count]) if return_lines else Updates(kinds, src, dst)


def _is_header(raw) -> bool:
    """Three names, the first not an operation and the others not ids: a line of column names."""
    fields = re.findall(r"[^\s,]+", bytes(raw).decode("utf-8", "replace"))
    return len(fields) == 3 and all(re.fullmatch(r"[A-Za-z_][\w.-]*", f) for f in fields)


def _error(name: str, status: int, line: int, field: int, raw) -> ValueError:
    text = bytes(raw).decode("utf-8", "replace")
    tokens = list(re.finditer(r"[^\s,]+", text))
    col, token = (tokens[field].start() + 1, tokens[field].group()) if field < len(tokens) else \
        (len(text.rstrip()) + 1, "")
    where = f"{name}, line {line}, column {col}"
    if status == K.BAD_OP:
        hint = ("; this line looks like an edge list's: `gconn stream FILE` replays a graph's edges, "
                "`gconn stream --updates LOG` reads a log of updates") if token.isdigit() else ""
        return ValueError(f"{where}: {token[:40]!r} is not an update's operation: a line is 'op u v' with op "
                          f"{_KIND_WORDS}{hint}")
    if status == K.TOO_FEW:
        return ValueError(f"{where}: an update is 'op u v', this line has {field} field{'s' if field > 1 else ''}: "
                          f"{quote(raw)}")
    if status == K.EXTRA_FIELDS:
        return ValueError(f"{where}: more than the three fields of an update ('op u v'): {quote(raw)}")
    if status == K.EMPTY_FIELD:
        return ValueError(f"{name}, line {line}: an empty field (two commas, or one at the end) in {quote(raw)}")
    if status == K.NEGATIVE:
        return ValueError(f"{where}: negative vertex id {token}; ids must be >= 0")
    if status == K.OVERFLOW:
        return ValueError(f"{where}: vertex id {token[:30]} is too large (beyond int64)")
    return ValueError(f"{where}: {token[:40]!r} is not a vertex id: ids are integers >= 0 (digits only)")
