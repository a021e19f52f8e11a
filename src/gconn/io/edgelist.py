"""Edge lists (SNAP, plain, CSV/TSV): one 'u v [more fields]' line per edge.

'#' and '%' lines are comments, blank lines are skipped.  The first lines
that are not decide how every line is read (:func:`sniff`, once):

* **the delimiter**: a comma, else a semicolon, else blanks (a tab alone
  where the ids are names);
* **the number of fields**: every data line has as many as the first;
* **a header**: with ``header=None``, only where the first line cannot be
  data (words above integer ids, or ``source=``/``target=`` naming its
  columns); where the ids are names, by whether its names occur elsewhere
  (reported in ``Dialect.notes``);
* **the ids**: integers (0-based) unless the first data line holds a word,
  or ``names=True``: then the distinct names in sorted order (``graph.nodes``);
* **other fields**: numbers (weights) unless a header names the columns.

gconn writes a first line '# gconn edge list: n=N m=M' and reads N back.  Names and quoted fields
are read by pyarrow's CSV reader, once comments, blank lines and runs of blanks are gone.
"""
from __future__ import annotations

import csv
import itertools
import re
from dataclasses import dataclass, field as _field, replace
from pathlib import Path

import numpy as np

from gconn.graph.ids import id_dtype
from gconn.graph.relabel import dense_ids
from gconn.io._files import (DATA_NAMES, FileEdges, column_defaults, cr_lines, quote, read_bytes, same_column,
                             without_edges)
from gconn.graph import numba_free
from gconn.io import _parsers as K

_HEADER = re.compile(rb"#[ \t]*gconn edge list:[^\n]*?\bn=(\d+)")
_LISTED = re.compile(rb"#[ \t]*gconn edge list:[^\n]*?\bvertices=listed")
_NAMED = re.compile(rb"#[ \t]*gconn edge list:[^\n]*?\bids=names")
_CHUNK = 1 << 20
_BLANKS = re.compile(r"[ \t\r]+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(nan|inf|infinity)", re.IGNORECASE)
_INTEGER = re.compile(r"[0-9]+")
_NEGATIVE = re.compile(r"-[0-9]+")
_HEX = re.compile(r"[+-]?0[xX][0-9a-fA-F]+")
#: Bytes of the file's head read to decide its dialect.
HEAD_BYTES = 1 << 16
#: What each delimiter is called in messages.
DELIMITERS = {" ": "blanks", ",": "commas", ";": "semicolons", "\t": "tabs"}


def token_kind(token: str) -> str:
    """What a field is: ``integer``, ``negative``, ``number`` (a real or hexadecimal one, or one that
    starts with a sign or a point), ``word`` (a name: one that starts with digits too, as IP addresses
    and STRING's protein ids do) or ``empty``.

    >>> [token_kind(t) for t in ("12", "-3", "1.5", "0x10", "nan", "bob", "10.0.0.1", "9606.ENSP1", "")]
    ['integer', 'negative', 'number', 'number', 'number', 'word', 'word', 'word', 'empty']
    """
    if not token:
        return "empty"
    if _INTEGER.fullmatch(token):
        return "integer"
    if _NEGATIVE.fullmatch(token):
        return "negative"
    if _NUMBER.fullmatch(token) or _HEX.fullmatch(token) or token[0] in "+-.":
        return "number"     # or a sign or point: a malformed number ('+' is an update log's insert)
    return "word"


def split_fields(text: str, delimiter: str, unquote: bool = False) -> list:
    """The fields of one line as gconn's parser splits them (``unquote``: quoted fields as CSV reads
    them, a delimiter inside quotes kept, the quotes dropped).

    >>> split_fields('"a,1", b', ",", True), split_fields('"x y"  z', " ", True)
    (['a,1', 'b'], ['x y', 'z'])
    """
    text = text.rstrip("\r\n")
    if unquote and '"' in text:
        blanks = delimiter == " "
        line = text.strip(" \t\r").replace("\t", " ") if blanks else text
        row = next(csv.reader([line], delimiter=delimiter, skipinitialspace=True), [])
        return [f.strip(" \t\r") for f in row if not (blanks and f == "")]
    if delimiter != " ":
        return [f.strip(" \t\r") for f in text.split(delimiter)]
    text = text.strip(" \t\r")
    return _BLANKS.split(text) if text else []


@dataclass(frozen=True)
class Dialect:
    """How an edge list is read, decided once by :func:`sniff`."""

    delimiter: str = " "
    fields: int = 2
    columns: tuple = (0, 1)
    header: tuple | None = None
    #: "given", "source/target", "certain", "occurrence" (decided once the names are read) or ""
    header_rule: str = ""
    names: bool = False
    names_given: bool = False
    quoted: bool = False
    #: byte offset and 1-based line number of the first line read as data
    start: int = 0
    line: int = 1
    #: the first data line, the one the others are held to
    first_line: int = 1
    declared_n: int | None = None
    #: its ids count from ``base`` (1: a KONECT file), read as vertices from 0
    base: int = 0
    #: the nodes a SNAP header counts ('# Nodes: N Edges: M'), and its line: ids need not be 0..N-1
    snap_nodes: int | None = None
    snap_line: int = 0
    #: gconn's header says the vertices are the ids that occur ('vertices=listed')
    listed: bool = False
    notes: tuple = _field(default_factory=tuple)
    #: the first line, two integers, was taken as an edge with ``header=None``: it may be a count line
    #: 'n m' above the edges, which ``check_count_line`` tells once the edges are read
    count_line: bool = False
    #: each line ends in a Python dict, the edge's data as networkx.write_edgelist writes it: dropped
    nx_data: bool = False

    @property
    def parsed(self) -> bool:
        """Whether gconn's integer parser reads the file (else pyarrow)."""
        return not self.names and not self.quoted

    @property
    def parser_args(self) -> tuple:
        """(delimiter, fields, source column, target column, numbers) as ``_kernels.parse_edges`` takes them;
        numbers: whether the other fields must be numbers."""
        delim = 0 if self.delimiter in (" ", "\t") else ord(self.delimiter)
        return delim, self.fields, self.columns[0], self.columns[1], self.header is None

    def describe(self) -> str:
        """One line for messages and ``Stats``.

        >>> Dialect(delimiter=",", fields=3).describe()
        'edge list: 3 fields separated by commas, integer ids, no header'
        """
        ids = "names as ids" if self.names else "integer ids"
        head = f"header on line {self.line - 1}" if self.header is not None else \
            "the first line's header or edge decided on reading (see the notes)" \
            if self.header_rule == "occurrence" else "no header"
        return f"edge list: {self.fields} fields separated by {DELIMITERS[self.delimiter]}, {ids}, {head}"


def data_lines(raw: bytes, pos: int, line: int):
    """(line number, start, end, text) of each data line from byte ``pos`` (on line ``line``) on."""
    size = len(raw)
    while pos < size:
        end = raw.find(b"\n", pos)
        end = size if end < 0 else end
        text = raw[pos:end].decode("utf-8", "replace")
        body = text.strip(" \t\r")
        if body and body[0] not in "#%":
            yield line, pos, end, text
        pos = end + 1
        line += 1


_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")
#: the first line Excel writes (and reads) to name a CSV's delimiter
_EXCEL_SEP = re.compile(rb"sep=([,;\t])[ \t]*\r?\n")

#: KONECT's first line for a bipartite graph ("% bip unweighted"): two id spaces in one file
_KONECT_BIP = re.compile(rb"%[ \t]*bip[ \t]+\w+")
#: KONECT's first lines for one set of vertices: '% sym|asym WEIGHTS', then '% m n n' (which may be missing)
_KONECT = re.compile(rb"%[ \t]*(sym|asym)[ \t]+\w+[^\n]*\n(?:%[ \t]*\d+[ \t]+(\d+)[ \t]+(\d+)[ \t\r]*\n)?")
#: SNAP's count of its nodes in the comments above the edges ("# Nodes: 82168 Edges: 948464")
_SNAP_NODES = re.compile(rb"#[^\n]*?\bNodes:[ \t]*(\d+)[ \t]+Edges:[ \t]*\d+")


def sniff(head: bytes, name: str, *, complete: bool = True, header=None, source=None, target=None,
          names=None) -> Dialect:
    """The :class:`Dialect` of an edge list from its first bytes ``head``
    (``complete``: the whole file); the keywords are :func:`gconn.load`'s.

    >>> d = sniff(b"# c\\nfrom,to,w\\n0,1,0.5\\n", "g.csv")
    >>> d.delimiter, d.fields, d.header, d.columns, d.names, d.line
    (',', 3, ('from', 'to', 'w'), (0, 1), False, 3)
    >>> sniff(b"a b\\nb c\\n", "g.el").names
    True
    """
    for option, value in (("header", header), ("names", names)):
        if value not in (None, True, False):
            raise ValueError(f"{option} must be True, False or None; got {value!r}")
    header_option = header
    raw = head if complete else head[:head.rfind(b"\n") + 1]
    bom = 3 if raw[:3] == b"\xef\xbb\xbf" else 0
    declared, listed, konect = _first_line_marks(raw, bom, name)
    base = 1 if konect else 0
    if _NAMED.match(raw[bom:bom + 200]):
        # gconn wrote names (some may be digits) and no column header
        names = True if names is None else names
        header = False if header is None else header
    # Excel's first line 'sep=,' names the delimiter: it is no data
    excel = _EXCEL_SEP.match(raw, bom)
    start_at, first_number = (excel.end(), 2) if excel else (bom, 1)
    # blanks that end a line are no field, as the readers take them ('0<tab>1<tab>' has two)
    lines = [(a, b, c, t.rstrip(" \t")) for a, b, c, t in
             itertools.islice(data_lines(raw, start_at, first_number), 2)]
    nx_data = bool(lines) and _NX_DATA.search(lines[0][3].encode()) is not None
    if nx_data:
        lines = [(a, b, c, _NX_DATA.sub(b"", t.encode()).decode()) for a, b, c, t in lines]
    positions = [c for c in (source, target) if _is_position(c)]
    given_columns = any(c is not None and c not in positions for c in (source, target))
    if not lines:
        if given_columns:
            raise ValueError(f"{name}: the file has no header line to find source=/target= columns in")
        return Dialect(start=len(raw), line=1, declared_n=declared, listed=listed, names=bool(names), base=base)
    (l1, s1, e1, t1), second = lines[0], (lines[1] if len(lines) > 1 else None)
    snap_nodes, snap_line = _snap_count(raw, bom, s1) if declared is None and not listed else (None, 0)
    quoted = '"' in t1 or (second is not None and '"' in second[3])
    delimiter = excel.group(1).decode() if excel else _delimiter_of(t1, quoted)
    f1 = split_fields(t1, delimiter, quoted)
    f2 = split_fields(second[3], delimiter, quoted) if second is not None else None
    _refuse_trailing_delimiters(name, delimiter, lines, f1, f2)
    # a list of vertices (a one-name header over ids says so as a header)
    if len(f1) < 2 and (f2 is None or len(f2) < 2) and not given_columns and not positions and not (
            f2 and token_kind(f1[0]) == "word" and token_kind(f2[0]) != "word"):
        _one_field(name, l1, t1)
    notes = [f"{name}, line 1 ('sep={delimiter}'): Excel's line naming the delimiter, not data"] if excel else []
    if konect:
        notes.append(f"{name}: a KONECT file ('% {konect.group(1).decode()} ...' on line 1): its ids count from 1, "
                     "read as vertices from 0" + (f", n = {declared:,} from line 2" if konect.group(2) else ""))
    rule = ""
    if header is True:
        rule = "given"
    elif header is None and given_columns:
        if all(token_kind(t) == "word" for t in f1):
            header, rule = True, "source/target"
        else:
            raise ValueError(f"{name}: source=/target= name the columns of a header line, but line {l1} "
                             f"({quote(t1.encode())}) is data, not a header; pass header=True if it names "
                             "the columns")
    elif header is None:
        header, rule = _header_of(f1, f2, names)
    if header is False and given_columns:
        raise ValueError(f"{name}: source=/target= name the columns of a header line, but header=False")
    if rule == "alone":
        notes.append(f"{name}, line {l1} ({quote(t1.encode())}), the only line, is read as an edge between two names; "
                     "pass header=True (--header) if it names the columns")
    if not header:
        rule = ""
    cols = tuple(c if _is_position(c) else default for c, default in ((source, 0), (target, 1)))
    data = second if header else lines[0]
    column_note = None
    if header and not positions:
        if len(f1) < 2:
            raise ValueError(f"{name}, line {l1}: a header needs two or more column names, got "
                             f"{quote(t1.encode())}")
        if rule == "occurrence" and source is None and target is None and \
                any(x.strip().lower() in DATA_NAMES for x in f1[:2]):
            # a name of an edge's data is no vertex column's: the line is no header, an edge if a name recurs
            defaults, column_note = (0, 1), None
        else:
            defaults, column_note = column_defaults(f1, source, target, f"{name}, line {l1}")
        cols = tuple(_column(f1, given, default, option, name, l1)
                     for given, default, option in ((source, defaults[0], "source"), (target, defaults[1], "target")))
    if cols[0] == cols[1]:
        same_column(name, *(f1[c] if header and c < len(f1) else c for c in cols))
    dfields = split_fields(data[3], delimiter, quoted) if data is not None else f1
    if data is not None and len(dfields) < 2 and cols == (0, 1):
        _one_field(name, data[0], data[3])
    if data is not None and max(cols) >= len(dfields):
        raise ValueError(f"{name}, line {data[0]}: column {max(cols)} (0-based) asked for, but the line has "
                         f"{len(dfields)} field{'s' if len(dfields) != 1 else ''}")
    if header and data is not None and len(dfields) != len(f1):
        raise ValueError(f"{name}, line {data[0]}: {len(dfields)} fields, but the header on line {l1} names "
                         f"{len(f1)} columns")
    if len(dfields) < 2 and data is not None:
        raise ValueError(f"{name}, line {data[0]}: expected two vertex ids, got {quote(data[3].encode())}")
    named = names
    if named is None:
        named = data is not None and any(token_kind(dfields[c]) == "word" for c in cols)
    if delimiter == "\t" and not named:
        delimiter = " "     # names may hold spaces: there only tabs separate them
    if rule == "certain":
        notes.append(f"{name}, line {l1} ({quote(t1.encode())}) is a header: its fields are not integers like "
                     f"line {data[0]}'s")
    elif rule == "index":
        notes.append(f"{name}, line {l1} ({quote(t1.encode())}) is a header whose first column has no name, as "
                     "pandas' DataFrame.to_csv writes its index: that column is not read as an end of an edge")
    if column_note is not None:
        notes.append(column_note)
    start, line = (e1 + 1, l1 + 1) if header and rule != "occurrence" else (s1, l1)
    count_line = (header_option is None and not header and not named and len(f1) == 2 and declared is None
                  and not konect
                  and all(token_kind(t) == "integer" for t in f1) and not nx_data)
    if nx_data:
        notes.append(f"{name}: each edge's data, a Python dict after its ids as networkx.write_edgelist writes "
                     "it, is not read")
    if not header and not named and not quoted and not nx_data and source is None and target is None \
            and len(dfields) >= 3:
        notes += _matrix_or_lists(raw, s1, l1, delimiter, len(dfields), name, complete)
    if not named and not quoted and data is not None:
        notes += _leading_zeros(raw, data[1], data[0], delimiter, cols, name)
    return Dialect(delimiter=delimiter, fields=len(dfields), columns=cols,
                   header=tuple(f1) if header and rule != "occurrence" else None, header_rule=rule,
                   names=bool(named), names_given=names is True, quoted=quoted, start=min(start, len(raw)), line=line,
                   first_line=data[0] if data is not None else l1 + 1, declared_n=declared, listed=listed,
                   snap_nodes=snap_nodes if not named else None, snap_line=snap_line, base=base if not named else 0,
                   notes=tuple(notes), count_line=count_line, nx_data=nx_data)


def _first_line_marks(raw: bytes, bom: int, name: str) -> tuple:
    """What a first line says of the file: ``(n it declares or None, whether gconn listed the
    vertices, the KONECT line's match or None)``; a KONECT bipartite file is an error."""
    found = _HEADER.match(raw[bom:bom + 200])
    declared = int(found.group(1)) if found else None
    listed = _LISTED.match(raw[bom:bom + 200]) is not None
    if _KONECT_BIP.match(raw[bom:bom + 200]):
        raise ValueError(f"{name}: a KONECT bipartite file ('% bip' on line 1): its two columns number two "
                         "vertex sets, each from 1, and gconn reads one set of ids; add the first set's size "
                         "to the second column's ids to read it as one graph")
    konect = _KONECT.match(raw, bom) if declared is None and not listed else None
    if konect and konect.group(2):
        declared = max(int(konect.group(2)), int(konect.group(3)))
    return declared, listed, konect


def _snap_count(raw: bytes, start: int, end: int) -> tuple:
    """(N, its line) of a SNAP header '# Nodes: N Edges: M' in ``raw[start:end]``, the comments above
    the first data line; (None, 0) where there is none."""
    snap = _SNAP_NODES.search(raw, start, end)
    return (int(snap.group(1)), raw.count(b"\n", 0, snap.start()) + 1) if snap else (None, 0)


def _delimiter_of(line: str, quoted: bool) -> str:
    """The delimiter of a first data line: a comma, else a semicolon, else a tab, else blanks; a
    semicolon where the only commas stand between digits ('0;1;0,5', as spreadsheets set to a
    European locale write CSV)."""
    bare = re.sub(_QUOTED.decode(), "", line) if quoted else line     # a delimiter inside quotes is a name's
    if ";" in bare and "," not in _DECIMAL_COMMA.sub("", bare):
        return ";"
    return next((d for d in (",", ";", "\t") if d in bare), " ")


def _one_field(name: str, line: int, text: str):
    raise ValueError(f"{name}, line {line}: one field ({quote(text.encode())}), but an edge needs two vertex ids, "
                     "source and target (a list of vertices alone makes no graph)")


def _refuse_trailing_delimiters(name: str, delimiter: str, lines: list, f1: list, f2) -> None:
    """The error of a first line, or a second, that ends in its delimiter (an empty field, as some
    spreadsheets export), but for a second line below a header of as many columns: there the empty
    last field is a column's empty value (Gephi's Label)."""
    headed = f2 is not None and len(f1) == len(f2) > 2 and all(token_kind(t) == "word" for t in f1)
    for (at, _, _, text), fields in zip(lines, (f1, f2)):
        if delimiter in ",;" and fields[-1] == "" and text.endswith(delimiter) and not (headed and fields is f2):
            raise ValueError(f"{name}, line {at}, column {len(text) + 1}: an empty field, the line ending in "
                             f"{delimiter!r} (as some spreadsheets export); gconn reads no empty fields: remove the "
                             f"trailing {delimiter!r} of each line (e.g. sed 's/{delimiter}$//')")


#: data lines of the head that tell an adjacency matrix or an adjacency list from an edge list
_SHAPE_LINES = 64


def _matrix_or_lists(raw: bytes, pos: int, line: int, delimiter: str, fields: int, name: str,
                     complete: bool) -> list:
    """Refuse lines of three or more integer fields that read as an adjacency matrix (0/1 values, or
    a square, symmetric matrix with a zero diagonal), and note an adjacency list (each line a
    different vertex, then ids of the same range): read as edge lists, both give wrong components
    without a word, each line's first two fields taken as an edge.

    >>> _matrix_or_lists(b"0 1 1\\n1 0 0\\n1 0 0\\n", 0, 1, " ", 3, "m.txt", True)
    Traceback (most recent call last):
    ...
    ValueError: m.txt: 3 lines of 3 values 0 or 1 (line 1: '0 1 1'): an adjacency matrix, not an edge list (lines 'u v'); read it with NumPy and pass the matrix: gconn.connected_components(numpy.loadtxt('m.txt', dtype=int))
    """
    rows = []
    for _, _, _, text in itertools.islice(data_lines(raw, pos, line), _SHAPE_LINES):
        row = split_fields(text.rstrip(" \t"), delimiter)
        if len(row) != fields or not all(t.isdigit() for t in row):
            return []       # the reader tells what is wrong with such a line
        rows.append(row)
    if len(rows) < 3:
        return []
    every = len(rows) if complete and len(rows) < _SHAPE_LINES else None
    square = every == fields and all(rows[i][i] == "0" and all(rows[i][j] == rows[j][i] for j in range(i))
                                     for i in range(fields))
    zero_one = all(t in ("0", "1") for row in rows for t in row)
    if square or zero_one:
        loadtxt = f"numpy.loadtxt({name!r}, dtype=int{'' if delimiter == ' ' else f', delimiter={delimiter!r}'})"
        what = "values 0 or 1" if zero_one else "values, a symmetric square with zeros on its diagonal"
        raise ValueError(f"{name}: {every or 'its first ' + str(len(rows))} lines of {fields} {what} (line {line}: "
                         f"{quote(delimiter.join(rows[0]).encode())}): an adjacency matrix, not an edge list "
                         f"(lines 'u v'); read it with NumPy and pass the matrix: "
                         f"gconn.connected_components({loadtxt})")
    heads = [int(row[0]) for row in rows]
    ends = max(max(heads), max(int(row[1]) for row in rows))
    # a vertex a line, in order (as networkx.write_adjlist and most tools write them): the sources of
    # an edge list in random order (weights in the id range) are distinct too, not increasing
    if len(rows) >= 4 and heads == sorted(set(heads)) and max(int(t) for row in rows for t in row[2:]) <= ends:
        return [f"{name}: each of its first {len(rows)} lines starts with a different vertex, then {fields - 1} "
                "ids: if it is an adjacency list (a vertex, then its neighbours), only each line's first "
                "neighbour is read as an edge, the rest as weights; networkx.read_adjlist reads adjacency lists"]
    return []


def _leading_zeros(raw: bytes, pos: int, line: int, delimiter: str, cols, name: str) -> list:
    """A note where an id of the first data lines has leading zeros ('007', a ZIP code): read as the
    integer it spells, it is the vertex of '7' too.

    >>> _leading_zeros(b"00501,00544\\n", 0, 1, ",", (0, 1), "zip.csv")
    ["zip.csv, line 1: the id '00501' has leading zeros: read as the integer 501, the same vertex as '501'; names=True (--names) reads the ids as names, '00501' apart from '501'"]
    """
    for at, _, _, text in itertools.islice(data_lines(raw, pos, line), _SHAPE_LINES):
        row = split_fields(text.rstrip(" \t"), delimiter)
        for c in cols:
            t = row[c] if c < len(row) else ""
            if len(t) > 1 and t[0] == "0" and t.isdigit():
                return [f"{name}, line {at}: the id {t!r} has leading zeros: read as the integer {int(t)}, the same "
                        f"vertex as '{int(t)}'; names=True (--names) reads the ids as names, {t!r} apart from "
                        f"'{int(t)}'"]
    return []


def _is_position(c) -> bool:
    """Whether ``source=``/``target=`` give a column's position (an integer), not its name."""
    return isinstance(c, (int, np.integer)) and not isinstance(c, bool)


def _header_of(f1, f2, names):
    """(header?, rule) for ``header=None``: see the module docstring."""
    if len(f1) >= 3 and f1[0] == "" and all(f1[1:]) and (f2 is None or len(f2) == len(f1)):
        return True, "index"    # pandas' DataFrame.to_csv: its index first, a column without a name
    if not all(token_kind(t) == "word" for t in f1):
        return False, ""
    if f2 is None:
        # one line of words: an edge or the header of no rows; data, reported
        return (True, "certain") if names is False else (False, "alone")
    ids2 = [token_kind(t) for t in f2[:2]]
    if names is not True and "word" not in ids2:
        return True, "certain"
    # Names in both lines: a third column of numbers under a word settles it.
    if len(f1) == len(f2) and any(token_kind(a) == "word" and token_kind(b) in ("integer", "negative", "number")
                                  for a, b in zip(f1[2:], f2[2:])):
        return True, "certain"
    return True, "occurrence"


def _column(fields, given, default, option, name, line):
    if given is None:
        return default
    if str(given) in fields:
        return fields.index(str(given))
    raise ValueError(f"{name}, line {line}: {option}={given!r} is not a column of the header; its "
                     f"columns: {fields}")


def read_file(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of a whole edge list."""
    d = info.dialect
    buf = cr_lines(read_bytes(info.path))
    if d.nx_data:
        buf = without_nx_data(buf)
    if not d.parsed:
        src, dst, names, notes = read_names(info.path, buf, d)
        return FileEdges(src, dst, None, names, notes=notes)
    if d.start >= buf.size:
        empty = np.zeros(0, np.int64)
        return FileEdges(empty, empty, d.declared_n)
    limit = n if n is not None else (-1 if relabelled or d.declared_n is None else d.declared_n)
    limit = limit + d.base if limit >= 0 else limit
    src, dst, k, status, line, start, end, value, fld = parse_text(buf, d.start, d.line, (*d.parser_args, limit))
    if status != K.OK:
        raise parse_error(info.path, d, status, line, buf[start:end], value, fld, limit - d.base,
                          "given" if n is not None else bound_origin(d))
    src, dst = src[:k], dst[:k]
    if d.base:
        from_base(info.path.name, d, buf, 0, src, dst)
    if d.count_line and k >= 2 and dst[0] == k - 1:
        check_count_line(info.path.name, d, int(src[0]), int(dst[0]), k, max(int(src[1:].max()), int(dst[1:].max())),
                         min(int(src[1:].min()), int(dst[1:].min())))
    if d.listed and n is None:
        s, t, ids = dense_ids(src, dst)
        return FileEdges(s, t, ids.size, ids)
    return FileEdges(src, dst, d.declared_n)


def parse_text(buf: np.ndarray, start: int, line: int, args: tuple) -> tuple:
    """``(src, dst, *result)`` of ``_kernels.parse_edges`` over a whole text from byte ``start`` (on
    ``line``), ``args`` its (delimiter, fields, columns, numbers, limit); parallel pieces where numba is
    loaded."""
    if numba_free() or buf.size - start < (1 << 20):
        cap = K.count_lines(buf)
        src, dst = np.empty(cap, np.int64), np.empty(cap, np.int64)
        return (src, dst, *K.parse_edges(buf, start, line, *args, src, dst))
    import numba
    pieces = 4 * numba.get_num_threads()
    cap = (buf.size - start) // 4 + pieces + 1
    src, dst = np.empty(cap, np.int64), np.empty(cap, np.int64)
    return (src, dst, *K.parse_block(buf, start, line, *args, pieces, src, dst))


def snap_count(info, fe: FileEdges, n: int | None, relabel) -> FileEdges:
    """A whole edge list's edges under its SNAP header's node count N ('# Nodes: N Edges: M'), where
    no ``n`` is given.  Ids below N make N vertices (those no edge names are nodes without edges).
    Ids past N name nodes (SNAP keeps its datasets' own ids, e.g. wiki-Vote's 7,115 nodes run to
    8,297): read as ids 0..max, those that name no node would each count as a component, so that is
    an error, and ``relabel="auto"`` or ``True`` reads the ids that occur (with a note).

    >>> from types import SimpleNamespace as NS
    >>> info = NS(name="g.txt", dialect=Dialect(snap_nodes=4, snap_line=2))
    >>> e = snap_count(info, FileEdges(np.array([0, 5]), np.array([1, 7])), None, "auto")
    >>> e.src.tolist(), e.dst.tolist(), e.n, e.names.tolist()
    ([0, 2], [1, 3], 4, [0, 1, 5, 7])
    >>> snap_count(info, FileEdges(np.array([0]), np.array([1])), None, False).n
    4
    """
    d = info.dialect
    if d.snap_nodes is None or n is not None or fe.names is not None:
        return fe
    hi = max(int(fe.src.max()), int(fe.dst.max())) if fe.src.size else -1
    if hi < d.snap_nodes:
        return fe._replace(n=d.snap_nodes, notes=fe.notes + snap_notes(info, hi))
    snap_notes(info, hi, relabel)       # raises where relabel is False
    s, t, ids = dense_ids(fe.src, fe.dst)
    return FileEdges(s, t, ids.size, ids, notes=fe.notes + snap_notes(info, hi, relabel, ids.size))


def snap_notes(info, hi: int, relabel=False, occur: int = 0) -> tuple:
    """What :func:`snap_count` says of a file with ids up to ``hi`` (``occur`` of them occurring): a
    note where its ids read as they are leave nodes without edges, or where they are relabelled;
    an error where they would be read as they are past the nodes (``relabel`` False)."""
    d = info.dialect
    nodes, where = d.snap_nodes, f"{info.name}, line {d.snap_line}"
    if hi < nodes:
        return () if hi + 1 == nodes else (
            f"{where}: its header counts {nodes:,} nodes and its edges name ids up to {hi:,}: read as {nodes:,} "
            "vertices, the ids no edge names nodes without edges",)
    if relabel is False:
        extra = hi + 1 - nodes
        raise ValueError(f"{where}: its header counts {nodes:,} nodes, but its ids run to {hi:,}: they name the "
                         f"nodes (SNAP keeps its datasets' own ids), they do not number them 0..{nodes - 1:,}; read as "
                         f"ids 0..{hi:,}, at least {extra:,} id{'s' if extra > 1 else ''} that name no node would "
                         f"each count as a component. relabel=True (--relabel) reads the nodes its edges name; "
                         f"n={hi + 1} (--n {hi + 1}) counts every id up to {hi:,} as a vertex")
    note = (f"{where}: its header counts {nodes:,} nodes and its ids run to {hi:,}: read as the {occur:,} ids "
            "that occur (relabelled, in the order of the ids)")
    if occur < nodes:
        note += f"; the other {nodes - occur:,} nodes have no edges and no ids in the file, and are not counted"
    return (note,)


def bound_origin(d: Dialect) -> str:
    """Where the vertex count an edge list declares comes from, for messages."""
    return "KONECT's count on line 2, ids from 1 to n" if d.base else "declared on line 1"


def from_base(name: str, d: Dialect, buf, line: int, src: np.ndarray, dst: np.ndarray) -> None:
    """Ids counted from ``d.base`` (1, a KONECT file) made to count from 0, in place; an id below the
    base is an error naming its line (``buf`` holds the data lines from ``line``; 0: the dialect's)."""
    if src.size and min(int(src.min()), int(dst.min())) < d.base:
        i = int(np.flatnonzero((src < d.base) | (dst < d.base))[0])
        at = _line_of_row(buf, replace(d, start=0, line=line) if line else d, i)
        raise ValueError(f"{name}, line {at}: the id {min(int(src[i]), int(dst[i]))} in a KONECT file, whose ids "
                         "count from 1; remove its first line ('% sym ...') to read the ids as they are, from 0")
    src -= d.base
    dst -= d.base


def check_count_line(name: str, d: Dialect, a: int, b: int, edges: int, largest: int, smallest: int) -> None:
    """Refuse a first line 'a b' read as an edge that reads as a count line 'n m': ``b`` edges follow it
    (of ``edges`` in all), and the other ids are those of ``a`` vertices counted from 0 (all below ``a``)
    or from 1 (``largest`` at most ``a``, ``smallest`` at least 1).  By chance an edge list has such a
    first edge almost never; a file that starts with its counts has it always.

    >>> check_count_line("g.el", Dialect(count_line=True), 4, 3, 4, 3, 0)
    Traceback (most recent call last):
    ...
    ValueError: g.el, line 1: '4 3' looks like a count line 'n m' above the edges, not an edge: 3 edges follow it, with the ids of 4 vertices; pass header=True (--header) to skip it, or header=False (--no-header) to read it as an edge
    >>> check_count_line("g.el", Dialect(count_line=True), 5, 3, 4, 5, 0)     # ids 0 and 5: six vertices
    """
    if d.count_line and edges >= 2 and b == edges - 1 and (largest < a or largest == a and smallest >= 1):
        raise ValueError(f"{name}, line {d.line}: '{a} {b}' looks like a count line 'n m' above the edges, not "
                         f"an edge: {b} edges follow it, with the ids of {a} vertices; pass header=True "
                         "(--header) to skip it, or header=False (--no-header) to read it as an edge")


def _field_span(text: str, delimiter: str, index: int) -> tuple[int, str]:
    """(1-based column, text) of field ``index`` of a line, as the parser splits it."""
    if delimiter in (" ", "\t"):
        spans = [(m.start(), m.group()) for m in re.finditer(r"[^ \t\r]+", text)]
    else:
        spans, at = [], 0
        for part in text.split(delimiter):
            lead = len(part) - len(part.lstrip(" \t\r"))
            spans.append((at + lead, part.strip(" \t\r")))
            at += len(part) + 1
    if index < len(spans):
        return spans[index][0] + 1, spans[index][1]
    return len(text.rstrip("\r")) + 1, ""


def repeated_header(name: str, line, d: Dialect) -> ValueError:
    """The error of a data line that repeats the header: parts joined end to end (read as an edge
    between the column names, it would add a component)."""
    return ValueError(f"{name}, line {line}: {d.delimiter.join(d.header)!r} repeats the header of line "
                      f"{d.line - 1}, as files joined end to end do (cat a.csv b.csv); keep the first, e.g. "
                      "awk 'NR == 1 || $0 != h {print} NR == 1 {h = $0}', or pass the parts as a list of files")


def parse_error(path: Path, d: Dialect, status: int, line: int, raw, value: int, field: int, limit,
                limit_origin: str) -> ValueError:
    """The error for a bad data line: file, line, column and what is wrong."""
    text = bytes(raw).decode("utf-8", "replace")
    col, token = _field_span(text, d.delimiter, field)
    where = f"{path.name}, line {line}, column {col}"
    first = f"line {d.first_line}"
    if d.header is not None and tuple(split_fields(text.strip(), d.delimiter, d.quoted)) == d.header:
        return repeated_header(path.name, line, d)
    if status == K.NEGATIVE:
        return ValueError(f"{where}: negative vertex id {value}; ids must be >= 0")
    if status == K.OVERFLOW:
        return ValueError(f"{where}: vertex id {token[:30]} is too large (beyond int64)")
    if status == K.OUT_OF_RANGE:
        return ValueError(f"{where}: vertex id {value} is out of range for n={limit} ({limit_origin})")
    lists = ""
    if status in (K.TOO_FEW, K.EXTRA_FIELDS) and d.parsed \
            and all(t.isdigit() for t in split_fields(text, d.delimiter)):
        lists = ("; lines of varying numbers of ids may be an adjacency list (a vertex, then its neighbours), "
                 "which networkx.read_adjlist reads")
    if status == K.TOO_FEW:
        return ValueError(f"{where}: {field} field{'s' if field != 1 else ''}, but the lines of this file have "
                          f"{d.fields} ({first}): {quote(raw)}{lists}")
    if status == K.EXTRA_FIELDS:
        return ValueError(f"{where}: more than the {d.fields} fields of {first}: {quote(raw)}{lists}")
    if status == K.EMPTY_FIELD:
        return ValueError(f"{where}: an empty field in {quote(raw)}")
    if status == K.BAD_EXTRA and token[:1] in ("#", "%"):
        return ValueError(f"{where}: a comment after an edge ({quote(raw)}); comments stand on lines of their own, "
                          "starting with # or %: remove the end of each such line (e.g. sed 's/[ \\t]*#.*//')")
    if status == K.BAD_EXTRA:
        return ValueError(f"{where}: {token[:40]!r} is not a number; the fields after the two ids of an edge "
                          "list without a header are weights (numbers); a header line naming the columns "
                          "lets them hold anything")
    hint = ""
    other = next((c for c in ",;\t " if c != d.delimiter and c in token and not (d.delimiter == " " and c == "\t")),
                 None)
    if other is not None:
        hint = (f"; the fields of this file are separated by {DELIMITERS[d.delimiter]} ({first}), this line "
                f"uses {DELIMITERS[other]}")
    elif field == 0 and token in ("+", "-", "?") and re.fullmatch(r"[+?-][ \t,]+\d+[ \t,]+\d+\s*", text):
        hint = ("; the line is an update ('+ u v' insert, '- u v' delete, '? u v' query): "
                "`gconn stream --updates FILE` reads update logs, gconn.read_updates in Python")
    elif token_kind(token) == "word":
        hint = f"; {first} has integer ids: if the ids are names, pass names=True (--names)"
    return ValueError(f"{where}: {token[:40]!r} is not a vertex id: ids are integers >= 0 (digits only){hint}")


def write(graph, f, sep: str) -> None:
    """gconn's header line, then one line per edge; a relabelled graph in its
    input ids or names (quoted), each vertex without an edge as a self loop."""
    head, a, b = f"n={graph.n} m={graph.m}", graph.src, graph.dst
    nodes = graph.nodes
    if nodes is not None:
        alone = without_edges(graph)
        a, b = np.concatenate([a, alone]), np.concatenate([b, alone])
    if nodes is not None and np.asarray(nodes).dtype.kind in "OSU":
        names = np.array(['"' + str(x).replace('"', '""') + '"' for x in nodes], dtype=object)
        f.write(f"# gconn edge list: vertices=listed ids=names m={graph.m} (a vertex without edges is a self "
                "loop)\n".encode())
        for i in range(0, a.size, _CHUNK):
            f.write("".join(f"{x}{sep}{y}\n" for x, y in zip(names[a[i:i + _CHUNK]], names[b[i:i + _CHUNK]]))
                    .encode())
        return
    if nodes is not None:
        ids = np.asarray(nodes, np.int64)
        head = f"vertices=listed m={graph.m} (input ids; a vertex without edges is a self loop)"
        a, b = ids[a], ids[b]
    f.write(f"# gconn edge list: {head}\n".encode())
    write_pairs(f, a, b, 0, sep)


def write_pairs(f, a: np.ndarray, b: np.ndarray, add: int, sep: str) -> None:
    """Write 'a+add<sep>b+add' lines, formatted in bounded chunks."""
    if a.size == 0:
        return
    width = len(str(int(max(a.max(), b.max())) + add))
    out = np.empty(min(a.size, _CHUNK) * (2 * width + 2), np.uint8)
    for i in range(0, a.size, _CHUNK):
        used = K.format_pairs(a[i:i + _CHUNK], b[i:i + _CHUNK], add, ord(sep), out)
        f.write(memoryview(out[:used]))


#: an edge's data as networkx.write_edgelist writes it, a Python dict after the two ids ('0 1 {}')
_NX_DATA = re.compile(rb"(?m)[ \t]+\{[^\n]*\}[ \t]*(?=\r?$)")


def without_nx_data(data: np.ndarray) -> np.ndarray:
    """``data`` (uint8) without the dicts networkx.write_edgelist writes after an edge's ids.

    >>> without_nx_data(np.frombuffer(b"0 1 {}\\n1 2 {'weight': 3.0}\\n", np.uint8)).tobytes()
    b'0 1\\n1 2\\n'
    """
    return np.frombuffer(_NX_DATA.sub(b"", data.tobytes()), np.uint8)


_COMMENTS = re.compile(rb"(?m)^[ \t]*[#%][^\n]*\n?")
_BLANK_LINES = re.compile(rb"(?m)^[ \t\r]*\n")
_SPACES = re.compile(rb"[ \t]+")
_EDGES = re.compile(rb"(?m)^[ \t]+|[ \t]+(?=\r?$)")
#: a quoted field, its quotes doubled inside
_QUOTED = rb'"(?:[^"]|"")*"'


def _outside_quotes(pattern, repl: bytes, data: bytes, quoted: bool) -> bytes:
    """``pattern`` replaced by ``repl`` in ``data``, but not inside quoted fields where ``quoted``.

    >>> _outside_quotes(re.compile(rb" +"), b",", b'"x y"  z', True)
    b'"x y",z'
    """
    if not quoted:
        return pattern.sub(repl, data)
    either = re.compile(_QUOTED + b"|" + pattern.pattern)
    return either.sub(lambda m: m.group(0) if m.group(0)[:1] == b'"' else repl, data)


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
    quoted = d.quoted or b'"' in data      # a quoted field below the lines the dialect was read from
    if b"#" in data or b"%" in data:
        data = _COMMENTS.sub(b"", data)
    # each pass below runs only where its bytes occur: over a million lines of names a pass costs
    # 0.1-0.4 s, and a CSV without blanks needs none of them (BENCHMARKS.md)
    spaces, tabs = b" " in data, b"\t" in data
    if spaces or tabs or b"\r" in data or b"\n\n" in data or data[:1] == b"\n":
        data = _BLANK_LINES.sub(b"", data)
    delimiter = d.delimiter
    # blanks around a field are no part of it (as gconn's parser splits lines)
    if spaces or tabs:
        data = _EDGES.sub(b"", data)
    if delimiter == " ":
        # pyarrow knows one delimiter byte, not runs of blanks
        data = _outside_quotes(_SPACES, b"\t", data, quoted)
        delimiter = "\t"
    elif spaces or (tabs and delimiter != "\t"):
        blank = b"[ \t]" if delimiter != "\t" else b" "
        sep = re.escape(delimiter.encode())
        # stepping over quoted fields costs a Python call each: only where a blank touches a delimiter
        # (a file that quotes every field, as R writes them, has none: a million lines load in 1.6-1.8 s,
        # 2.8-2.9 s with that pass)
        if re.search(blank + sep + b"|" + sep + blank, data):
            data = _outside_quotes(re.compile(blank + b"*" + sep + blank + b"*"), delimiter.encode(), data, quoted)
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
        _check_utf8(path, buf)
        text = str(e).strip()
        raise ValueError(f"{path.name} (from line {d.line}): {text[:300]}") from None
    if d.header is not None:
        ends = [pc.equal(table.column(name), d.header[c]) for c, name in zip(d.columns, chosen)]
        again = pc.and_(*ends)
        if pc.any(again).as_py():
            raise repeated_header(path.name, _line_of_row(buf, d, _first(again)), d)
    cols = []
    for c, name in zip(d.columns, chosen):
        col = table.column(name)
        label = d.header[c] if d.header is not None else f"{c + 1}"
        if col.null_count:
            row = _first(col.is_null())
            raise ValueError(f"{path.name}: column {label}, data row {row + 1}: missing vertex id")
        if d.names:
            empty = pc.equal(col, "")
            if pc.any(empty).as_py():
                raise ValueError(f"{path.name}: column {label}, data row {_first(empty) + 1}: an empty vertex "
                                 "name")
            continue
        ok = pc.match_substring_regex(col, r"^[0-9]{1,18}$")
        if not pc.all(ok).as_py():
            row = _first(pc.invert(ok))
            token = col[row].as_py()
            line = _line_of_row(buf, d, row)
            what = "a negative vertex id" if token[:1] == "-" else "not a vertex id"
            where = f"column {label!r}" if d.header is not None else f"field {c + 1}"
            raise ValueError(f"{path.name}, line {line}, {where}: {token[:40]!r} is {what}: ids are integers "
                             ">= 0 (digits only)")
        cols.append(pc.cast(col, pa.int64()).to_numpy(zero_copy_only=False))
    if d.names and not d.names_given:
        for col in map(table.column, chosen):
            digits = pc.match_substring_regex(col, r"^[0-9]+$")
            if pc.any(digits).as_py():
                row = _first(digits)
                line = _line_of_row(buf, d, row)
                where = f"line {line}" if line is not None else f"data row {row + 1}"
                token = col[row].as_py()
                raise ValueError(f"{path.name}, {where}: {token!r} is an integer, but the ids of this file are "
                                 f"names (line {d.first_line} holds a word); pass names=True (--names) to read "
                                 "every id as a name")
    names = None
    if d.names:
        src, dst, names = named_codes(*map(table.column, chosen))
    else:
        src, dst = cols
    notes = ()
    if d.header_rule == "occurrence":
        rows = src.size
        src, dst, notes = _header_by_occurrence(path, buf, d, src, dst, names)
        if names is not None and src.size < rows:
            # the header's names, dropped with it, occur on no other line
            keep = np.zeros(names.size, np.bool_)
            keep[src] = keep[dst] = True
            rank = (np.cumsum(keep) - 1).astype(src.dtype)
            src, dst, names = rank[src], rank[dst], names[keep]
    return src, dst, names, notes


def named_codes(a, b):
    """``(src, dst, names)`` of two Arrow columns of names: their sorted distinct names and the
    positions in it, by Arrow's hashing (pandas' factorize and sort and the columns' conversion to
    Python strings took 0.9 s of a million lines, BENCHMARKS.md)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    both = pa.chunked_array(a.chunks + b.chunks, type=a.type)
    distinct = pc.unique(both)
    names = pc.take(distinct, pc.sort_indices(distinct))
    codes = pc.index_in(both, value_set=names).to_numpy(zero_copy_only=False)
    codes = codes.astype(id_dtype(len(names)), copy=False)
    return codes[:len(a)], codes[len(a):], names.to_numpy(zero_copy_only=False)


def _check_utf8(path: Path, buf: np.ndarray) -> None:
    """Name the first byte of ``buf`` that is not UTF-8, by line and column."""
    data = bytes(buf)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, line_start = data.count(b"\n", 0, e.start) + 1, data.rfind(b"\n", 0, e.start) + 1
        raise ValueError(
            f"{path.name}, line {line}, column {e.start - line_start + 1}: byte "
            f"0x{data[e.start]:02x} is not UTF-8 (text saved as Latin-1 or Windows-1252 has such bytes); gconn "
            f"reads names as UTF-8: convert the file first, e.g. iconv -f WINDOWS-1252 -t UTF-8") from None


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


def _header_by_occurrence(path: Path, buf: np.ndarray, d, src, dst, names=None):
    """Whether the first line of a file of names is a header: data when one of its names occurs
    elsewhere, a header when its names are the usual column names, else an error; reported.
    ``src``/``dst`` are the ids, or their positions in ``names``."""
    text = bytes(buf[d.start:]).split(b"\n", 1)[0]
    shown = quote(text)
    if src.size < 2:
        return src, dst, (f"{path.name}, line {d.line} ({shown}), the only line, is read as an edge between two names; "
                          "pass header=True (--header) if it names the columns",)
    a, b = src[0], dst[0]
    rest = np.concatenate([src[1:], dst[1:]])
    seen = [bool((rest == x).any()) for x in (a, b)]
    said = (a, b) if names is None else (names[a], names[b])
    words = all(str(x).strip().lower() in HEADER_WORDS for x in said)
    if any(seen) and not words:
        name = said[0] if seen[0] else said[1]
        return src, dst, (f"{path.name}, line {d.line} ({shown}) is read as an edge: its name {name!r} occurs on "
                          "other lines too; pass header=True (--header) if it names the columns",)
    if words and not any(seen):
        return src[1:], dst[1:], (f"{path.name}, line {d.line} ({shown}) is taken as a header: its names are "
                                  "column names that occur on no other line; pass header=False (--no-header) to "
                                  "read it as an edge",)
    again = np.flatnonzero((src[1:] == a) & (dst[1:] == b))
    if words and again.size:
        line = _line_of_row(buf, d, int(again[0]) + 1)
        head = tuple(split_fields(text.decode("utf-8", "replace").strip(), d.delimiter, d.quoted))
        raise repeated_header(path.name, line, replace(d, header=head, line=d.line + 1))
    why = ("its names are column names, yet one occurs on another line" if words else
           "neither of its names occurs on another line, and they are not the usual column names")
    raise ValueError(f"{path.name}, line {d.line}: cannot tell whether {shown} is a header or an edge between "
                     f"two names ({why}); pass header=True (--header) or header=False (--no-header)")
