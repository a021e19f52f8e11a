"""What a graph file is, decided once from its name and its first bytes.

The content wins where it is certain (gzip, magic bytes, a Matrix Market
banner); else the extension; else the content is sniffed (METIS, else an
edge list).  Decisions not made by the name or ``format=`` are in ``notes``.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gconn.io._files import COMPRESSIONS, compression, cr_lines, open_binary, read_bytes
from gconn.io.edgelist import HEAD_BYTES, sniff
from gconn.io.dimacs import problem_line
from gconn.io.metis import read_header as metis_header

#: format name -> file extensions it is recognised by.
FORMATS = {
    "mtx": (".mtx",),
    "edgelist": (".txt", ".el", ".tsv", ".csv", ".edges"),
    "metis": (".graph",),
    "dimacs": (".gr", ".col", ".dimacs"),
    "npy": (".npy",),
    "npz": (".npz",),
    "gcb": (".gcb",),
    "parquet": (".parquet", ".pq"),
    "feather": (".feather", ".arrow"),
}
TEXT = ("mtx", "edgelist", "metis", "dimacs")
EXTENSIONS = {ext: fmt for fmt, exts in FORMATS.items() for ext in exts}
#: The first bytes of the binary formats.
_MAGIC = ((b"\x89GCB\r\n\x1a\n", "gcb"), (b"\x93NUMPY", "npy"), (b"PK\x03\x04", "npz"), (b"PAR1", "parquet"),
          (b"ARROW1", "feather"))
_BANNER = re.compile(rb"(\xef\xbb\xbf)?%%matrixmarket", re.IGNORECASE)
#: archives and compressions gconn does not open, by their bytes (magic, offset) and how to open them
_PACKED = ((b"ustar", 257, "a tar archive", "extract it (tar -xf FILE) and pass the graph file it holds"),
           (b"\x28\xb5\x2f\xfd", 0, "zstd-compressed", "decompress it first (zstd -d FILE)"),
           (b"7z\xbc\xaf\x27\x1c", 0, "a 7-Zip archive", "extract it first (7z x FILE)"),
           (b"Rar!", 0, "a RAR archive", "extract it first (unrar x FILE)"))


@dataclass(frozen=True)
class FileInfo:
    """A graph file as identified: its format and how that was decided."""

    path: Path
    format: str
    #: gzip, bzip2 or xz text, read through its decompression
    compressed: bool = False
    size: int = 0
    #: "format=", "the extension .el" or "the content: ..."
    how: str = ""
    notes: tuple = field(default_factory=tuple)
    #: an edge list's :class:`~gconn.io.edgelist.Dialect` (None for other formats)
    dialect: object = None
    #: ``source=``/``target=`` as given (a Parquet table's edge columns)
    columns: tuple = (None, None)
    #: its lines end in CR alone (``gconn.io._files.cr_lines``)
    cr: bool = False

    @property
    def name(self) -> str:
        return self.path.name


def supported() -> str:
    listed = "; ".join(f"{fmt} ({', '.join(exts)})" for fmt, exts in FORMATS.items())
    return f"supported: {listed}; text formats ({', '.join(TEXT)}) may add .gz, .bz2 or .xz"


def split_name(path: Path) -> tuple[str, str]:
    """'a.el.gz' -> ('.el', '.gz'); 'a.el' -> ('.el', '')."""
    name = path.name.lower()
    packed = next((c[3] for c in COMPRESSIONS if name.endswith(c[3])), "")
    return Path(name[:len(name) - len(packed)]).suffix, packed


def as_path(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, not {type(path).__name__}")
    return Path(path)


def check_format(format) -> None:
    if format is not None and format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join(map(repr, FORMATS))}")


def check_compressed(path: Path, fmt: str, packed) -> None:
    if packed and fmt not in TEXT:
        raise ValueError(f"{path.name}: compression (gzip, bzip2, xz) applies to the text formats only "
                         f"({', '.join(TEXT)}), not {fmt}")


#: Graph formats gconn does not read, by extension: (the format, how another library reads it).
_NX = "NetworkX reads it: G = networkx.{}, then gconn.connected_components(G)"
_PANDAS = "pandas reads it: df = pandas.read_excel(path), then gconn.connected_components(df)"
_JSONL = ("JSON Lines", "pandas reads it: df = pandas.read_json(path, lines=True), then gconn.connected_components(df)")
_PICKLE = ("pickle", "pickle reads it: G = pickle.load(open(path, 'rb')), then gconn.connected_components(G)")
_DOT = ("DOT (Graphviz)", _NX.format("nx_pydot.read_dot(path)"))
FOREIGN = {
    ".graphml": ("GraphML", _NX.format("read_graphml(path)")),
    ".gexf": ("GEXF", _NX.format("read_gexf(path)")),
    ".gml": ("GML", _NX.format("read_gml(path)")),
    ".net": ("Pajek", _NX.format("read_pajek(path)")),
    ".dot": _DOT, ".gv": _DOT,
    ".json": ("JSON", _NX.format("node_link_graph(json.load(open(path)))")),
    ".jsonl": _JSONL, ".ndjson": _JSONL,
    ".g6": ("graph6", _NX.format("read_graph6(path)")),
    ".graph6": ("graph6", _NX.format("read_graph6(path)")),
    ".s6": ("sparse6", _NX.format("read_sparse6(path)")),
    ".sparse6": ("sparse6", _NX.format("read_sparse6(path)")),
    ".adjlist": ("adjacency list", _NX.format("read_adjlist(path)")),
    ".gw": ("LEDA", _NX.format("read_leda(path)")),
    ".pkl": _PICKLE, ".pickle": _PICKLE, ".gpickle": _PICKLE,
    ".xlsx": ("Excel", _PANDAS),
    ".xls": ("Excel", _PANDAS),
    ".ods": ("OpenDocument spreadsheet", _PANDAS),
}
#: ... and by their first bytes, where a name does not say
_FOREIGN_CONTENT = ((re.compile(rb"\s*\{[^\n]*\}[ \t\r]*\n\s*\{"), ".jsonl"),    # an object a line
                    (re.compile(rb"\s*<\?xml|\s*<graphml", re.I), ".graphml"),
                    (re.compile(rb"\s*<gexf", re.I), ".gexf"),
                    (re.compile(rb"\s*(#[^\n]*\n\s*)*graph\s*\["), ".gml"),
                    (re.compile(rb"\s*\*vertices\b", re.I), ".net"),
                    (re.compile(rb"\s*(strict\s+)?(di)?graph\s*[\w\"]*\s*\{", re.I), ".dot"),
                    (re.compile(rb"\s*[\[{]\s*[\"\[{]"), ".json"))


def _foreign(path: Path, head: bytes, ext: str) -> None:
    """Refuse a graph format gconn does not read, saying how to read it through NetworkX."""
    if ext not in FOREIGN:
        ext = next((e for pattern, e in _FOREIGN_CONTENT if pattern.match(head)), None)
        how = "its content"
    else:
        how = f"its name ({ext})"
    if ext is not None:
        what, reader = FOREIGN[ext]
        article = "an" if what[0].lower() in "aeiou" else "a"
        raise ValueError(f"{path.name}: {article} {what} file, by {how}, which gconn does not read; {supported()}. "
                         f"{reader}")


def _binary(head: bytes) -> bool:
    return b"\0" in head[:4096]


_TEXT_NAMES = {"mtx": "Matrix Market", "edgelist": "edge list", "metis": "METIS", "dimacs": "DIMACS"}


def _utf16(head: bytes) -> bool:
    """Text in UTF-16 (or UTF-32), as Windows' editors save 'Unicode': a byte order mark, or ASCII
    with every other byte NUL."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    even, odd = head[0:64:2], head[1:64:2]
    return len(odd) >= 4 and (not any(odd) and all(even) or not any(even) and all(odd))


def _shown(head: bytes) -> str:
    return " ".join(f"{b:02x}" for b in head[:8])


def identify(path, format=None, *, header=None, source=None, target=None, names=None) -> FileInfo:
    """The :class:`FileInfo` of a graph file: its format, how that was
    decided, and an edge list's dialect (the keywords are :func:`gconn.load`'s).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "stdin")
    >>> with open(path, "w") as f:
    ...     _ = f.write("%%MatrixMarket matrix coordinate pattern general\\n2 2 1\\n1 2\\n")
    >>> info = identify(path)
    >>> info.format, info.how
    ('mtx', 'the content: a Matrix Market banner')
    """
    if isinstance(path, str) and not path.strip():
        raise FileNotFoundError(f"an empty file path ({path!r})")
    path = as_path(path)
    check_format(format)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.is_dir():
        parts = sorted(q.name for q in path.iterdir() if q.is_file() and not q.name.startswith((".", "_")))
        hint = (f"; a graph in parts ({', '.join(parts[:3])}{', ...' if len(parts) > 3 else ''}) is read from "
                "the list of its files: gconn.load(sorted(pathlib.Path(folder).glob('part-*')))") if parts else ""
        raise IsADirectoryError(f"{path}: is a directory, not a graph file{hint}")
    with open_binary(path) as f:
        head = f.read(HEAD_BYTES)
        whole = len(head) < HEAD_BYTES or not f.read(1)
    gz = compression(path) is not None
    size = os.path.getsize(path)
    notes, cr = [], not _binary(head) and cr_lines(head) is not head
    if cr:
        head = cr_lines(head)
        notes.append(f"{path.name}: its lines end in CR alone (classic Mac OS): read as line ends")
    certain = next((fmt for magic, fmt in _MAGIC if head.startswith(magic)), None) if not gz else None
    if certain is None and _utf16(head):
        raise ValueError(f"{path.name}: UTF-16 text (first bytes {_shown(head)}), as Windows editors save "
                         f"'Unicode'; gconn reads UTF-8 (or ASCII): convert it first, e.g. "
                         f"iconv -f UTF-16 -t UTF-8 {path.name} > {Path(path.name).stem}-utf8{path.suffix}")
    evidence = f"its first bytes are those of a .{certain} file" if certain else ""
    if certain is None and _BANNER.match(head):
        certain, evidence = "mtx", "a Matrix Market banner"
    ext = split_name(path)[0]
    named = EXTENSIONS.get(ext)
    if certain is None and named in (None, "edgelist") and not _binary(head):
        problem = problem_line(head)
        if problem is not None:
            certain, evidence = "dimacs", f"a DIMACS problem line 'p {problem[0]} ...' on line {problem[3]}"
    if format is None and (certain is None and named in (None, "edgelist") or ext in FOREIGN):
        _foreign(path, head, ext)
    if format is not None:
        if certain is not None and certain != format:
            raise ValueError(f"{path.name}: format={format!r}, but the file is {certain} ({evidence})")
        if certain is None and format in TEXT and _binary(head):
            raise ValueError(f"{path.name}: format={format!r} is a text format, but the file holds binary "
                             f"data (first bytes {_shown(head)})")
        fmt, how = format, "format="
    elif certain is not None:
        fmt, how = certain, f"the content: {evidence}"
        if named is not None and named != certain:
            notes.append(f"{path.name}: read as {certain} ({evidence}), though its name says {named}")
    elif _binary(head):
        packed = next((f"{kind}: {hint}" for magic, at, kind, hint in _PACKED if head[at:at + len(magic)] == magic),
                      None)
        if packed is not None:
            raise ValueError(f"{path.name}: {packed.replace('FILE', path.name)}; {supported()}")
        what = f"the {_TEXT_NAMES[named]} text its name says" if named in TEXT else "a graph file gconn reads"
        raise ValueError(f"{path.name}: binary data (first bytes {_shown(head)}), not {what}; {supported()}")
    elif named is not None:
        fmt, how = named, f"the extension {ext}"
    else:
        content = head if whole else bytes(read_bytes(path))
        metis = _metis_evidence(content)
        fmt = "metis" if metis else "edgelist"
        how = f"the content: {metis}" if metis else "the content: neither Matrix Market nor METIS"
        notes.append(f"{path.name}: read as {'METIS' if metis else 'an edge list'}: its name names no format, "
                     f"and its content has {metis or 'no Matrix Market banner and no METIS layout'}; "
                     "pass format= (--format) to say")
    check_compressed(path, fmt, gz)
    dialect = None
    if fmt == "edgelist":
        dialect = sniff(head, path.name, complete=whole, header=header, source=source, target=target,
                        names=names)
        notes.extend(dialect.notes)
    else:
        for option, value in (("header", header), ("names", names)):
            if value is not None:
                raise ValueError(f"{path.name}: {option}= applies to edge lists (CSV/TSV), not to {fmt}")
        if (source is not None or target is not None) and fmt not in ("parquet", "feather"):
            raise ValueError(f"{path.name}: source=/target= name the columns of an edge list or Parquet table, "
                             f"not of {fmt}")
    return FileInfo(path, fmt, gz, size, how, tuple(notes), dialect, (source, target), cr)


_NOT_METIS = re.compile(rb"[^0-9 \t\r\n]")
_ZERO = re.compile(rb"(?<![0-9])0+(?![0-9])")


def _metis_evidence(content: bytes) -> str:
    """Why ``content`` reads as METIS ('' when it does not): a header line 'n m [fmt [ncon]]', then
    exactly n vertex lines holding as many entries as the header calls for."""
    try:
        n, m, fmt, ncon, line, body = metis_header(Path("content"), np.frombuffer(content, np.uint8))
    except ValueError:
        return ""
    if n == 0 or body >= len(content):
        return ""
    # more lines than n vertices and no comment: not METIS (cheap, no copy)
    if content.find(b"%", body) < 0 and content.count(b"\n", body, len(content.rstrip())) + 1 > n:
        return ""
    rest = content[body:]
    if b"%" in rest:
        kept = [ln for ln in rest.split(b"\n") if not ln.lstrip().startswith(b"%")]
        rest = b"\n".join(kept)
    newlines = np.flatnonzero(np.frombuffer(rest, np.uint8) == 10)
    lines = newlines.size + (not rest.endswith(b"\n"))
    if lines < n:
        return ""
    body_end = int(newlines[n - 1]) if newlines.size >= n else len(rest)
    if rest[body_end:].strip():
        return ""       # more lines than n vertices, and not blank
    if _NOT_METIS.search(rest, 0, body_end) or fmt == "000" and _ZERO.search(rest, 0, body_end):
        return ""       # METIS holds non-negative integers, its neighbours from 1: '0.5', '-1', or 0 without weights
    per_vertex = (fmt[0] == "1") + (ncon if fmt[1] == "1" else 0)
    tokens = _count_tokens(rest[:body_end])
    if tokens != n * per_vertex + 2 * m * (2 if fmt[2] == "1" else 1):
        return ""
    return f"a METIS header 'n m' on line {line} and n = {n:,} vertex lines holding 2m = {2 * m:,} neighbours"


def _count_tokens(text: bytes) -> int:
    buf = np.frombuffer(text, np.uint8)
    sep = (buf == 32) | (buf == 9) | (buf == 10) | (buf == 13)
    starts = ~sep
    starts[1:] &= sep[:-1]
    return int(np.count_nonzero(starts))
