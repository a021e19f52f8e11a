"""Every format and variation a user's file comes in, written here by the
test's own writers (not gconn's), then read by gconn: what is read is the
graph that was written, or an error names the line.  And every format
``gconn.save`` writes gives the same graph back, or save refuses it.
"""
from __future__ import annotations

import gzip
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
from gconn.graph import Graph
from gconn.io import FORMATS, identify

SRC = Path(__file__).resolve().parents[1] / "src"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def simple_edges(pairs) -> set:
    """The simple undirected graph of ``pairs``: each edge once, no loops."""
    return {(min(a, b), max(a, b)) for a, b in pairs if a != b}


def edges_of(g: Graph) -> set:
    return set(zip(g.src.tolist(), g.dst.tolist()))


def named_edges_of(g: Graph) -> set:
    names = g.nodes
    return {tuple(sorted((names[a], names[b]))) for a, b in zip(g.src.tolist(), g.dst.tolist())}


@st.composite
def graphs(draw, names=False):
    n = draw(st.integers(1, 25))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=40))
    if not names:
        return pairs
    # names that cannot be read as numbers, some with inner spaces
    from gconn.io.edgelist import HEADER_WORDS
    name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}( [a-z]{1,3})?", fullmatch=True).filter(
        lambda x: x.lower() not in HEADER_WORDS)
    pool = draw(st.lists(name, min_size=n, max_size=n, unique=True))
    return [(pool[a], pool[b]) for a, b in pairs]


@st.composite
def edge_list_styles(draw, names=False):
    delimiter = draw(st.sampled_from(["\t", ",", ";", " , ", "; "] if names else [" ", "\t", ",", ";", "  ", " , ", " \t"]))
    return {
        "delimiter": delimiter,
        "newline": draw(st.sampled_from(["\n", "\r\n", "\r"])),     # "\r": classic Mac OS
        "header": draw(st.sampled_from([None, ("source", "target"), ("from", "to")])),
        "weights": draw(st.booleans()),
        "comments": draw(st.lists(st.integers(0, 40), max_size=3)),
        "bom": draw(st.booleans()),
        "final_newline": draw(st.booleans()),
        "gzip": draw(st.booleans()),
        "name": draw(st.sampled_from(["g.el", "g.txt", "g.csv", "g.tsv", "g.edges", "stdin", "g.dat"])),
    }


def write_edge_list(folder: Path, pairs, style) -> Path:
    d = style["delimiter"]
    lines = []
    if style["header"] is not None:
        lines.append(d.join(style["header"] + (("weight",) if style["weights"] else ())))
    for i, (a, b) in enumerate(pairs):
        fields = [str(a), str(b)] + ([f"{0.5 * i:g}"] if style["weights"] else [])
        lines.append(d.join(fields))
    for at in sorted(style["comments"], reverse=True):
        lines.insert(min(at, len(lines)), "# a comment" if at % 2 else "% another")
    text = style["newline"].join(lines) + (style["newline"] if style["final_newline"] else "")
    data = ("\ufeff" if style["bom"] else "").encode() + text.encode()
    name = style["name"] + (".gz" if style["gzip"] and style["name"] not in ("stdin", "g.dat") else "")
    path = folder / name
    path.write_bytes(gzip.compress(data) if style["gzip"] else data)
    return path


@SETTINGS
@given(pairs=graphs(), style=edge_list_styles())
def test_integer_edge_lists_read_as_written(tmp_path_factory, pairs, style):
    path = write_edge_list(tmp_path_factory.mktemp("el"), pairs, style)
    (a, b), rest = pairs[0], [x for p in pairs[1:] for x in p]
    if style["header"] is None and not style["weights"] and len(pairs) > 1 and b == len(pairs) - 1 \
            and (max(rest) < a or max(rest) == a and min(rest) >= 1):
        # its first edge reads as a count line 'n m': asked, not guessed
        with pytest.raises(ValueError, match="looks like a count line 'n m'"):
            gconn.load(path)
        path = write_edge_list(tmp_path_factory.mktemp("el"), pairs, style)
        g = gconn.load(path, header=False)
        assert edges_of(g) == simple_edges(pairs)
        return
    g = gconn.load(path)
    assert edges_of(g) == simple_edges(pairs)
    assert g.n == 1 + max(max(p) for p in pairs)
    info = identify(path)
    assert info.format == "edgelist"
    if style["header"] is not None:
        assert info.dialect.header is not None
    # a name that names no format is reported, never silent
    assert (path.name in ("stdin", "g.dat")) == any("its name names no format" in x for x in info.notes)


@SETTINGS
@given(pairs=graphs(names=True), style=edge_list_styles(names=True))
def test_edge_lists_of_names_read_as_written(tmp_path_factory, pairs, style):
    # a header of words above names is a guess: say it
    path = write_edge_list(tmp_path_factory.mktemp("names"), pairs, style)
    g = gconn.load(path, header=style["header"] is not None)
    assert g.nodes.dtype.kind in "OU"
    assert named_edges_of(g) == {tuple(sorted(p)) for p in pairs if p[0] != p[1]}
    assert set(g.nodes.tolist()) == {x for p in pairs for x in p}


@SETTINGS
@given(data=st.data(), delimiter=st.sampled_from([",", ";", "\t", " ", " , "]), quote_all=st.booleans(),
       tail=st.booleans())
def test_quoted_names_read_as_written(tmp_path_factory, data, delimiter, quote_all, tail):
    """Names holding delimiters, blanks and quotes, quoted as CSV quotes them (every field, or only those
    that need it), with blanks around the delimiters: the names read back as written, and gconn's own
    edge list of them reads back the same graph."""
    name = st.from_regex(r"[A-Za-z][A-Za-z ,;\"']{0,6}[A-Za-z]", fullmatch=True)
    n = data.draw(st.integers(2, 12))
    pool = data.draw(st.lists(name, min_size=n, max_size=n, unique=True))
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(pool), st.sampled_from(pool)), min_size=1, max_size=20))
    if tail:        # plain names first: the quotes are first seen below the lines sniffed
        pairs = [("plainA", "plainB"), ("plainB", "plainC")] + pairs

    def field(x):
        needs = any(c in x for c in ',;"\t ') or quote_all
        return '"' + x.replace('"', '""') + '"' if needs else x
    path = tmp_path_factory.mktemp("quoted") / "g.csv"
    path.write_text("".join(f"{field(a)}{delimiter}{field(b)}\n" for a, b in pairs))
    g = gconn.load(path, header=False, names=True)
    assert named_edges_of(g) == {tuple(sorted(p)) for p in pairs if p[0] != p[1]}
    assert set(g.nodes.tolist()) == {x for p in pairs for x in p}
    gconn.save(g, path.with_name("back.csv"))
    back = gconn.load(path.with_name("back.csv"))
    assert back.nodes.tolist() == g.nodes.tolist() and named_edges_of(back) == named_edges_of(g)


@SETTINGS
@given(pairs=graphs(names=True), style=edge_list_styles(names=True))
def test_names_with_the_header_left_to_gconn(tmp_path_factory, pairs, style):
    path = write_edge_list(tmp_path_factory.mktemp("names"), pairs, style)
    want = {tuple(sorted(p)) for p in pairs if p[0] != p[1]}
    header = style["header"]
    if style["weights"]:
        # a number on every data line: a first line of words above it is a header, else it is data
        assert named_edges_of(gconn.load(path)) == want
        return
    first = set(pairs[0])
    elsewhere = any(first & set(p) for p in pairs[1:]) if header is None else False
    try:
        g = gconn.load(path)
    except ValueError as e:
        # neither evidence: an error that asks which it is
        assert "cannot tell whether" in str(e) and "--header" in str(e)
        assert header is None and not elsewhere and len(pairs) > 1
        return
    notes = [x for x in gconn.io.read_edges(identify(path)).notes
             if "taken as a header" in x or "is read as an edge" in x]
    assert len(notes) == 1
    # the usual column names are a header; names that occur on other lines an edge
    assert named_edges_of(g) == want
    assert ("taken as a header" in notes[0]) == (header is not None)


def test_a_first_line_naming_a_vertex_like_a_data_column(tmp_path):
    """A file of names whose first line holds a vertex named like an edge's data ('time', 'W'): the line
    is an edge where a name recurs, else undecided; it was 'the first two columns ... include 'time', a
    name of an edge's data', as if it were a header (hypothesis found 'A<tab>W' above 'A<tab>A')."""
    for text, edges in (("A\tW\nA\tA\n", {("A", "W")}), ("x time\ny x\n", {("time", "x"), ("x", "y")})):
        path = tmp_path / "g.txt"
        path.write_text(text)
        with pytest.warns(gconn.InputNote, match="is read as an edge: its name"):
            assert named_edges_of(gconn.load(path)) == edges
    path.write_text("A\tW\nB\tC\n")
    with pytest.raises(ValueError, match="cannot tell whether"):
        gconn.load(path)
    path.write_text("src\tweight\n0\t1\n")
    with pytest.raises(ValueError, match="include 'weight', a name of an edge's data"):
        gconn.load(path)


@st.composite
def corruptions(draw):
    kind = draw(st.sampled_from(["float", "word", "fields+", "fields-", "delimiter", "negative", "hex", "empty"]))
    return kind


@SETTINGS
@given(pairs=graphs(), style=edge_list_styles(), kind=corruptions(), where=st.integers(0, 39))
def test_a_bad_line_is_an_error_naming_it(tmp_path_factory, pairs, style, kind, where):
    i = where % len(pairs)
    if kind in ("fields+", "fields-", "delimiter", "empty", "word"):
        # the first data line sets the fields, their delimiter and the kind of ids: corrupt a later one
        if len(pairs) < 2:
            return
        i = max(i, 1)
    a, b = pairs[i]
    bad = {"float": (f"{a}.0", str(b)), "word": (str(a), "x"), "negative": (f"-{a + 1}", str(b)),
           "hex": (f"0x{a}", str(b)), "empty": (str(a), "")}.get(kind)
    folder = tmp_path_factory.mktemp("bad")
    path = write_edge_list(folder, pairs, style)
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8-sig")
    lines = text.split(style["newline"])
    data_lines = [j for j, x in enumerate(lines) if x and x[0] not in "#%"]
    j = data_lines[i + (style["header"] is not None)]
    fields = lines[j].split(style["delimiter"])
    d = style["delimiter"]
    if kind == "fields+":
        lines[j] = lines[j] + d + "7"
    elif kind == "fields-":
        lines[j] = d.join(fields[:1])
    elif kind == "delimiter":
        other = ";" if "," in d else ","
        lines[j] = other.join(fields)
    else:
        lines[j] = d.join(bad + tuple(fields[2:]))
    new = style["newline"].join(lines).encode()
    path.write_bytes(gzip.compress(new) if raw[:2] == b"\x1f\x8b" else new)
    with pytest.raises(ValueError, match=rf"{path.name}, line {j + 1}(, column \d+)?:"):
        gconn.load(path)


def write_mtx(folder: Path, pairs, n, symmetric, gz, name):
    kept = {(max(a, b), min(a, b)) for a, b in pairs} if symmetric else set(pairs)
    lines = [f"%%MatrixMarket matrix coordinate pattern {'symmetric' if symmetric else 'general'}", "% comment",
             f"{n} {n} {len(kept)}"] + [f"{a + 1} {b + 1}" for a, b in sorted(kept)]
    data = ("\n".join(lines) + "\n").encode()
    path = folder / (name + (".gz" if gz and name != "stdin" else ""))
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def write_metis(folder: Path, pairs, n, name):
    adj = [set() for _ in range(n)]
    for a, b in pairs:
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    m = sum(len(x) for x in adj) // 2
    lines = [f"{n} {m}"] + [" ".join(str(u + 1) for u in sorted(x)) for x in adj]
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


@SETTINGS
@given(pairs=graphs(), extra=st.integers(0, 3), symmetric=st.booleans(), gz=st.booleans(),
       name=st.sampled_from(["g.mtx", "stdin", "g.el"]))
def test_matrix_market_read_as_written(tmp_path_factory, pairs, extra, symmetric, gz, name):
    n = 1 + max(max(p) for p in pairs) + extra
    path = write_mtx(tmp_path_factory.mktemp("mtx"), pairs, n, symmetric, gz, name)
    g = gconn.load(path)
    assert g.n == n and edges_of(g) == simple_edges(pairs)
    info = identify(path)
    assert info.format == "mtx"
    # a .el holding Matrix Market is read as what it is, and said so
    assert (name == "g.el") == any("though its name says edgelist" in x for x in info.notes)


@SETTINGS
@given(pairs=graphs(), field=st.sampled_from(["pattern", "real", "complex", "integer"]),
       symmetry=st.sampled_from(["general", "symmetric", "hermitian"]), spacing=st.sampled_from([" ", "\t", "  "]),
       indent=st.booleans(), crlf=st.booleans())
def test_matrix_market_entries_as_fast_matrix_market_reads_them(tmp_path_factory, pairs, field, symmetry, spacing,
                                                                 indent, crlf):
    """Coordinate entries are read by the edge-list parser (one pass, not the syntax pass and
    fast_matrix_market): the same entries as fast_matrix_market's, in order, where every line is
    well-formed; integer files keep the exact path."""
    import fast_matrix_market as fmm
    from gconn.io import _files, mtx
    n = 1 + max(max(p) for p in pairs)
    values = {"pattern": "", "real": f"{spacing}-1.5e-3", "complex": f"{spacing}2.0{spacing}-0.5",
              "integer": f"{spacing}7"}[field]
    lines = [f"%%MatrixMarket matrix coordinate {field} {symmetry}", "% a comment", f"{n} {n} {len(pairs)}"]
    lines += [f"{spacing if indent else ''}{a + 1}{spacing}{b + 1}{values}" for a, b in pairs]
    path = tmp_path_factory.mktemp("mtx") / "g.mtx"
    path.write_bytes(("\r\n" if crlf else "\n").join(lines).encode() + b"\n")
    buf = _files.cr_lines(_files.read_bytes(path))
    header = mtx._read_header(path.name, buf)
    fast = mtx._entries(buf, header)
    (_, (row, col)), _ = fmm.read_coo(str(path), generalize_symmetry=False)
    assert fast is not None
    assert fast[0].tolist() == row.tolist() and fast[1].tolist() == col.tolist()
    g = gconn.load(path)
    assert g.n == n and edges_of(g) == simple_edges(pairs)


def test_matrix_market_blank_and_comment_lines_between_entries(tmp_path):
    """Blank lines and '%' comments between entries, as gconn's own checks always took them:
    fast_matrix_market rejected them ('line 4: invalid integer value'); the one pass reads past them."""
    text = "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 1.0\n\n3 2 0.5\n% a note\n  \n4 3 2\n"
    path = tmp_path / "g.mtx"
    path.write_text(text)
    assert edges_of(gconn.load(path)) == {(0, 1), (1, 2), (2, 3)}


def test_matrix_market_lines_the_one_pass_does_not_take(tmp_path):
    """Lines the edge-list parser would take but Matrix Market does not ('#' starts no comment, index 0,
    a real in an integer file), and a count off, go to the exact path, which names the line."""
    from gconn.io import _files, mtx
    head = "%%MatrixMarket matrix coordinate {} general\n3 3 {}\n"
    cases = {"hash": (head.format("pattern", 2) + "1 2\n# no comment\n2 3\n", "line 4"),
             "zero": (head.format("pattern", 2) + "1 2\n0 3\n", "line 4"),
             "real as integer": (head.format("integer", 2) + "1 2 1\n2 3 1.5\n", "line 4"),
             "too few": (head.format("real", 3) + "1 2 1.0\n2 3 1.0\n", "2 of the 3 entries"),
             "too many": (head.format("real", 1) + "1 2 1.0\n2 3 1.0\n", "more entries than the 1"),
             "past the size": (head.format("pattern", 1) + "1 4\n", "outside the 3 x 3 matrix")}
    for name, (text, fragment) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.mtx"
        path.write_text(text)
        buf = _files.cr_lines(_files.read_bytes(path))
        assert mtx._entries(buf, mtx._read_header(path.name, buf)) is None or name == "real as integer", name
        with pytest.raises(ValueError, match=fragment):
            gconn.load(path)


@SETTINGS
@given(pairs=graphs(), extra=st.integers(0, 3), name=st.sampled_from(["g.graph", "stdin"]))
def test_metis_read_as_written(tmp_path_factory, pairs, extra, name):
    n = 1 + max(max(p) for p in pairs) + extra
    path = write_metis(tmp_path_factory.mktemp("metis"), pairs, n, name)
    g = gconn.load(path)
    assert g.n == n and edges_of(g) == simple_edges(pairs)


@pytest.mark.parametrize("gz", [False, True])
def test_lines_ended_by_cr_alone(tmp_path, monkeypatch, gz):
    """Classic Mac OS line ends, in every text format, whole and in chunks: the graph written, and a note.
    (They read as one line: an edge list of one edge whose other ids were weights.)"""
    from gconn.io import chunks
    pairs = [(0, 1), (1, 2), (3, 4), (5, 5), (2, 6)]
    files = {"g.el": "".join(f"{a} {b}\n" for a, b in pairs).encode(),
             "g.csv": ("source,target\n" + "".join(f"{a},{b}\n" for a, b in pairs)).encode(),
             "g.mtx": write_mtx(tmp_path, pairs, 8, True, False, "w.mtx").read_bytes(),
             "g.graph": write_metis(tmp_path, pairs, 8, "w.graph").read_bytes()}
    for name, data in files.items():
        cr = data.replace(b"\n", b"\r")
        path = tmp_path / (name + (".gz" if gz else ""))
        path.write_bytes(gzip.compress(cr) if gz else cr)
        g = gconn.load(path)
        assert edges_of(g) == simple_edges(pairs), name
        assert g.n == (8 if name in ("g.mtx", "g.graph") else 7), name
        assert any("end in CR alone" in x for x in identify(path).notes), name
    # in chunks, the blocks cut at line ends (a block of 8 bytes holds one or two lines here)
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 8)
    got = [(int(a), int(b)) for s, d in gconn.io.edge_chunks(tmp_path / ("g.el" + (".gz" if gz else "")), 2)
           for a, b in zip(s, d)]
    assert got == pairs
    # CRLF files are not touched
    path = tmp_path / "crlf.el"
    path.write_bytes(files["g.el"].replace(b"\n", b"\r\n"))
    assert edges_of(gconn.load(path)) == simple_edges(pairs) and not identify(path).notes


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_text_is_an_error_saying_how_to_convert(tmp_path, encoding):
    """Windows editors save 'Unicode' as UTF-16: it was 'binary data, not a edgelist text file'."""
    path = tmp_path / "g.el"
    path.write_bytes("0 1\n1 2\n".encode(encoding))
    with pytest.raises(ValueError, match=r"g\.el: UTF-16 text .*iconv -f UTF-16 -t UTF-8 g\.el"):
        gconn.load(path)


def test_names_not_in_utf8_are_an_error_naming_the_byte(tmp_path):
    """A Latin-1 name: the error was pyarrow's 'CSV conversion error to string: invalid UTF8 data'."""
    path = tmp_path / "g.el"
    path.write_bytes("ann bob\ncafé bob\nbob ann\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"g\.el, line 2, column 4: byte 0xe9 is not UTF-8"):
        gconn.load(path)
    path.write_bytes("ann bob\ncafé bob\nbob ann\n".encode("utf-8"))
    assert sorted(gconn.load(path, return_names=True)[1].tolist()) == ["ann", "bob", "café"]


@pytest.mark.parametrize("name", ["g.zip", "g.csv"])
def test_a_zip_of_a_text_file_is_an_error_saying_what_it_holds(tmp_path, name):
    """Its zip bytes are an .npz's: it was 'expected arrays src and dst ...; found ['g.csv']'."""
    import zipfile
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("edges.csv", "source,target\n0,1\n")
    with pytest.raises(ValueError, match=r"a zip archive of edges\.csv, not of NumPy arrays"):
        gconn.load(path)


#: a file read by each of the CPU's routes: the default (compiled or chunked), chunked, whole
FILE_ROUTES = {
    "default": lambda path, **kw: gconn.connected_components(path, backend="cpu", **kw),
    "chunked": lambda path, **kw: gconn.connected_components(path, backend="cpu",
                                                             algorithm="none+union-async+find-halve", **kw),
    "whole": lambda path, **kw: gconn.connected_components(gconn.load(path, **kw), backend="cpu"),
}


def test_a_konect_bipartite_file_is_an_error(tmp_path):
    """'% bip': left vertex 1 and right vertex 1 are two vertices; read as one id space they merged."""
    path = tmp_path / "out.bip"
    path.write_text("% bip unweighted\n% 3 2 2\n1 1\n1 2\n2 2\n")
    with pytest.raises(ValueError, match=r"out\.bip: a KONECT bipartite file"):
        gconn.load(path)
    path.write_text("% sym unweighted\n1 2\n")     # one id space: read
    assert gconn.load(path).n == 2


@pytest.mark.parametrize("route", sorted(FILE_ROUTES))
def test_konect_ids_count_from_1(tmp_path, route):
    """KONECT ('% sym|asym WEIGHTS', then '% m n n') numbers its vertices 1..n: vertex 0 was one more
    component (a note said so) and the vertices after the largest id with an edge were none. Now the ids
    count from 1 and n comes from line 2, in the labels' output too; an id 0 is an error."""
    run = FILE_ROUTES[route]
    path = tmp_path / "out.moreno"
    path.write_text("% sym unweighted\n% 3 7 7\n1 2\n2 3\n5 6\n")
    want = scipy_cc(Graph.from_edges([0, 1, 4], [1, 2, 5], 7).to_scipy(), directed=False)
    with pytest.warns(gconn.InputNote, match=r"a KONECT file \('% sym \.\.\.' on line 1\): its ids count from 1, "
                                             r"read as vertices from 0, n = 7 from line 2"):
        k, labels = run(path)
    assert k == want[0] == 4 and np.array_equal(labels, want[1])
    path.write_text("% asym positive\n1 2 1\n2 3 1\n5 6 1\n")      # no count line: n from the ids
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(path)[0] == 3
    path.write_text("% sym unweighted\n% 2 3 3\n1 2\n0 3\n")
    with pytest.raises(ValueError, match=r"out\.moreno, line 4: the id 0 in a KONECT file, whose ids count from 1"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run(path)
    path.write_text("% sym unweighted\n% 2 3 3\n1 2\n2 4\n")
    with pytest.raises(ValueError, match=r"line 4, column 3: vertex id 4 is out of range for n=3 \(KONECT's count"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run(path)
    path.write_text("% sym unweighted\n1 99999999998\n2 99999999999\n")     # the memory error's line
    with pytest.raises(gconn.VertexRangeError, match=r"out\.moreno, line 3: vertex id 99999999998 needs"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run(path)


def test_konect_labels_are_written_in_its_ids(tmp_path, capsys):
    from gconn import cli
    path = tmp_path / "out.g"
    path.write_text("% sym unweighted\n% 1 3 3\n1 3\n")
    assert cli.main(["cc", str(path), "-o", str(tmp_path / "labels.txt")]) == 0
    lines = (tmp_path / "labels.txt").read_text().splitlines()
    assert "1-based" in lines[0] and lines[1:] == ["1 0", "2 1", "3 0"]


@pytest.mark.parametrize("route", sorted(FILE_ROUTES))
def test_gephi_tables_with_empty_labels(tmp_path, route):
    """Gephi's exported edge table ('Source,Target,Type,Id,Label,Weight', Label mostly empty) was 'an
    empty field'; below a header a column of other data may hold empty values, an id may not."""
    path = tmp_path / "edges.csv"
    path.write_text("Source,Target,Type,Id,Label,Weight\n1,2,Undirected,0,,1.0\n2,3,Undirected,1,road,1.0\n"
                    "5,6,Undirected,2,,2.0\n4,0,Undirected,3,,\n")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        k, labels = FILE_ROUTES[route](path)
    assert k == 3 and labels.tolist() == [0, 1, 1, 1, 0, 2, 2]
    path.write_text("Source,Target,Label\n1,2,x\n2,,y\n")
    with pytest.raises(ValueError, match=r"edges\.csv, line 3, column 3: an empty field"):
        FILE_ROUTES[route](path)


@pytest.mark.parametrize("route", sorted(FILE_ROUTES))
def test_a_repeated_header_and_excels_delimiter_line(tmp_path, route):
    """Parts joined end to end repeat their header: with integer ids it was 'src is not a vertex id ...
    if the ids are names, pass names=True', which read it as one more edge between two names; Excel's
    first line 'sep=;' was an empty field."""
    run = FILE_ROUTES[route]
    path = tmp_path / "joined.csv"
    for text, kw in (("src,dst\n0,1\nsrc,dst\n2,3\n", {}), ('"src","dst"\n"0","1"\n"src","dst"\n"2","3"\n', {}),
                     ("src,dst\nann,bob\nsrc,dst\ncy,dan\n", {"relabel": True})):
        path.write_text(text)
        kw = dict(kw, header=True) if route == "whole" else kw
        with pytest.raises(ValueError, match=r"joined\.csv, line 3: 'src,dst' repeats the header of line 1"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run(path, **kw)
    for sep in (",", ";", "\t"):
        path.write_text(f"sep={sep}\nsrc{sep}dst\n0{sep}1\n2{sep}3\n")
        with pytest.warns(gconn.InputNote, match=r"line 1 \('sep=.'\): Excel's line naming the delimiter"):
            k, labels = run(path)
        assert k == 2 and labels.tolist() == [0, 0, 1, 1]


def test_names_that_start_with_digits(tmp_path):
    """IP addresses and STRING's protein ids ('9606.ENSP00000000233') are names: they were taken for
    malformed numbers, 'not a vertex id: ids are integers >= 0', with no word of names=True."""
    path = tmp_path / "flows.txt"
    path.write_text("192.168.1.1 10.0.0.5\n10.0.0.5 172.16.0.9\n8.8.8.8 1.1.1.1\n")
    k, labels, names = gconn.connected_components(path, relabel=True)
    assert k == 2 and names.tolist() == ["1.1.1.1", "10.0.0.5", "172.16.0.9", "192.168.1.1", "8.8.8.8"]
    assert labels.tolist() == [0, 1, 1, 1, 0]
    path = tmp_path / "9606.protein.links.txt"
    path.write_text("protein1 protein2 combined_score\n9606.ENSP1 9606.ENSP2 150\n9606.ENSP2 9606.ENSP3 900\n"
                    "9606.ENSP4 9606.ENSP5 400\n")
    assert gconn.connected_components(path, relabel=True)[0] == 2
    path.write_text("0 1\n1.5 2\n")       # a real number among integer ids is still an error
    with pytest.raises(ValueError, match=r"line 2, column 1: '1\.5' is not a vertex id"):
        gconn.load(path)


def test_dimacs_files(tmp_path):
    """DIMACS: the 9th challenge's road networks ('p sp', arcs 'a u v w', each road both ways), graph
    colouring ('p edge', 'e u v') and PACE ('p tw', 'u v'), ids from 1, the problem line's n vertices
    (the last one has no edges). They were edge lists of the wrong field count: '4 fields, but the lines
    of this file have 3'."""
    road = "c 9th DIMACS Implementation Challenge\nc graph 1\np sp 6 6\na 1 2 803\na 2 1 803\n" \
           "a 2 3 158\na 3 2 158\na 4 5 774\na 5 4 774\n"
    want = scipy_cc(Graph.from_edges([0, 1, 3], [1, 2, 4], 6).to_scipy(), directed=False)
    for name, text in (("NY.gr", road), ("NY.gr.gz", road), ("g.col", "c col\np edge 6 3\ne 1 2\ne 2 3\ne 4 5\n"),
                       ("g.dimacs", "p tw 6 3\n1 2\n2 3\n4 5\n")):
        path = tmp_path / name
        (gzip.open(path, "wt") if name.endswith(".gz") else open(path, "w")).write(text)
        assert identify(path).format == "dimacs"
        k, labels = gconn.connected_components(path, backend="cpu")
        assert k == want[0] and np.array_equal(labels, want[1])
    path = tmp_path / "pace.txt"        # the content decides where the name says edge list
    path.write_text("c a tree decomposition instance\np tw 6 3\n1 2\n2 3\n4 5\n")
    assert identify(path).format == "dimacs" and "DIMACS problem line 'p tw ...' on line 2" in identify(path).notes[0]
    assert gconn.connected_components(path)[0] == want[0]
    for text, error in (("p sp 3 1\na 1 5 3\n", r"line 2: vertex id 5 is beyond the n=3 of the problem line"),
                        ("p sp 3 1\na 0 2 3\n", r"edge 1 \(0, 2\) has the id 0; DIMACS ids run from 1"),
                        ("p max 3 1\nn 1 s\na 1 2 3\n", r"line 2: expected an edge line .* got 'n 1 s'"),
                        ("p sp 3 2\na 1 2 3\na 2 3\n", r"line 3: expected an edge line like the first"),
                        ("1 2 3\n", r"expected 'c' comment lines, then a DIMACS problem line")):
        path = tmp_path / "bad.gr"
        path.write_text(text)
        with pytest.raises(ValueError, match=r"bad\.gr(, |: )" + error):
            gconn.load(path)
    path.write_text("p sp 3 5\na 1 2 3\n")
    with pytest.warns(gconn.InputNote, match=r"line 1: its problem line counts 5 arcs, and the file lists 1"):
        gconn.connected_components(path)


@pytest.mark.parametrize("route", sorted(FILE_ROUTES))
def test_a_snap_header_counts_the_nodes(tmp_path, route):
    """'# Nodes: N Edges: M' above SNAP's edges: ids past N name nodes (wiki-Vote's 7,115 nodes run to
    8,297); read as ids 0..max, each id that names no node was a component of its own, without a word.
    Now an error, or with relabel the ids that occur; ids below N make N vertices, the others nodes
    without edges."""
    run = FILE_ROUTES[route]
    path = tmp_path / "com-g.txt"
    path.write_text("# Undirected graph: com-g.txt\n# Nodes: 5 Edges: 3\n# FromNodeId\tToNodeId\n"
                    "0\t1\n5\t7\n7\t9\n")
    with pytest.raises(ValueError, match=r"com-g\.txt, line 2: its header counts 5 nodes, but its ids run to 9"):
        run(path)
    for relabel in (True, "auto"):
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            out = run(path, relabel=relabel)
        if route == "whole":
            assert out[0] == 2 and out[1].tolist() == [0, 0, 1, 1, 1]
        else:
            assert out[0] == 2 and out[1].tolist() == [0, 0, 1, 1, 1] and out[2].tolist() == [0, 1, 5, 7, 9]
    path.write_text("# Nodes: 6 Edges: 2\n0 1\n2 3\n")
    with pytest.warns(gconn.InputNote, match=r"line 1: its header counts 6 nodes and its edges name ids up to 3: "
                                             r"read as 6 vertices"):
        k, labels = run(path)
    assert k == 4 and labels.tolist() == [0, 0, 1, 1, 2, 3]
    path.write_text("# Nodes: 7 Edges: 2\n0 1\n5 9\n")
    if route != "whole":
        with pytest.warns(gconn.InputNote, match=r"read as the 4 ids that occur .*the other 3 nodes have no edges"):
            assert run(path, relabel="auto")[0] == 2
    path.write_text("# Nodes: 4 Edges: 2\n0 1\n2 3\n")     # the ids are 0..N-1: nothing to say
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert run(path)[0] == 2
    # ids past 2^20, sparse: the chunked route hashes them on the way, below N it may not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path.write_text("# Nodes: 4 Edges: 2\n0 1\n3000000 3000001\n")
        out = run(path, relabel="auto")
        assert out[0] == 2 and (route == "whole" or out[2].tolist() == [0, 1, 3000000, 3000001])
        path.write_text("# Nodes: 3000002 Edges: 2\n0 1\n3000000 3000001\n")
        k, labels = run(path, relabel="auto")[:2]
        assert k == 3000000 and labels.size == 3000002 and labels[-1] == labels[-2]


def test_a_snap_header_on_the_command_line(tmp_path, capsys):
    """gconn cc relabels by default where the header's nodes are fewer than the ids (and says so);
    --no-relabel is the error."""
    from gconn import cli
    path = tmp_path / "wiki.txt"
    path.write_text("# Nodes: 4 Edges: 2\n0 1\n5 7\n")
    assert cli.main(["cc", str(path)]) == 0
    out = capsys.readouterr()
    assert "its header counts 4 nodes and its ids run to 7: read as the 4 ids that occur" in out.err
    assert re.search(r"components\s+2\b", out.out)
    assert cli.main(["cc", str(path), "--no-relabel"]) == 1
    assert "relabel=True (--relabel) reads the nodes its edges name" in capsys.readouterr().err


@pytest.mark.parametrize("chunked", [False, True])
def test_a_count_line_above_the_edges_is_asked_about(tmp_path, monkeypatch, chunked):
    """'n m' above m edges (0- or 1-based) was read as one more edge, joining vertex n to vertex m."""
    from gconn.io import chunks
    path = tmp_path / "g.el"
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 8)

    def read(**kw):
        if chunked:
            return [(int(a), int(b)) for s, d in gconn.io.edge_chunks(path, 2, **kw) for a, b in zip(s, d)]
        return sorted(edges_of(gconn.load(path, **kw)))
    for text, m in (("10 3\n0 1\n1 2\n3 4\n", 3), ("4 3\n1 2\n2 3\n1 4\n", 3), ("% c\n9 2\n0 1\n7 8\n", 2)):
        path.write_text(text)
        with pytest.raises(ValueError, match=r"g\.el, line \d: '\d+ \d' looks like a count line 'n m'"):
            read()
        assert len(read(header=True)) == m and len(read(header=False)) == m + 1
    # an edge list whose first edge is not such a line: by one count, one id, or ids both 0 and n
    for text in ("10 4\n0 1\n1 2\n3 4\n", "4 3\n1 2\n2 3\n3 5\n", "4 3\n0 2\n2 3\n1 4\n"):
        path.write_text(text)
        assert len(read()) == 4


def test_lines_ending_in_a_delimiter(tmp_path):
    """A trailing tab is a blank (it was '2 fields, but the lines of this file have 3'); a trailing comma
    is an empty field, an error saying so on the header too (there it read the ids as names)."""
    path = tmp_path / "g.tsv"
    path.write_text("0\t1\t\n1\t2\t\n4\t5\t\n")
    assert sorted(edges_of(gconn.load(path))) == [(0, 1), (1, 2), (4, 5)]
    path.write_text("src\tdst\t\nann\tbob\t\nbob\tcat\t\n")
    assert gconn.load(path).nodes.tolist() == ["ann", "bob", "cat"]
    for text in ("0,1,\n1,2,\n", "src,dst,\n0,1,\n1,2,\n"):
        path = tmp_path / "g.csv"
        path.write_text(text)
        with pytest.raises(ValueError, match=r"g\.csv, line 1, column \d+: an empty field, the line ending in ','"):
            gconn.load(path)


FOREIGN_FILES = {
    "GraphML": '<?xml version="1.0"?>\n<graphml><graph><node id="a"/><edge source="a" target="b"/></graph></graphml>\n',
    "GEXF": '<gexf version="1.2"><graph></graph></gexf>\n',
    "GML": "graph [\n  node [ id 1 ]\n  edge [ source 1 target 2 ]\n]\n",
    "Pajek": '*Vertices 2\n1 "a"\n2 "b"\n*Edges\n1 2\n',
    "DOT (Graphviz)": "graph G {\n a -- b;\n}\n",
    "JSON": '{"nodes": [{"id": 1}], "links": [{"source": 1, "target": 2}]}\n',
    "JSON Lines": '{"src": 0, "dst": 1}\n{"src": 1, "dst": 2}\n',
}


@pytest.mark.parametrize("what", sorted(FOREIGN_FILES))
def test_graph_formats_gconn_does_not_read_are_named(tmp_path, what):
    """By extension or content: a JSON node-link file was read as one edge between two 'names'; GML
    and GraphML were errors about fields and headers."""
    from gconn.io.identify import FOREIGN
    ext = next(e for e, (w, _) in FOREIGN.items() if w == what)
    for name in (f"g{ext}", "g.txt", "stdin"):
        path = tmp_path / name
        path.write_text(FOREIGN_FILES[what])
        how = f"its name \\({ext}\\)" if name == f"g{ext}" else "its content"
        reader = "pandas" if what == "JSON Lines" else "NetworkX"
        with pytest.raises(ValueError, match=rf"{name}: an? {re.escape(what)} file, by {how}, which gconn does "
                                             rf"not read.*{reader} reads it"):
            gconn.load(path)


@pytest.mark.parametrize("kind", ["ints", "names", "weights"])
def test_networkx_write_edgelist_is_read(tmp_path, monkeypatch, kind):
    """networkx.write_edgelist writes each edge's data as a dict: '0 1 {}' was an error (its '{}' not a
    number), '0 1 {'weight': 3}' too; now the ids are read and a note says the data is not."""
    nx = pytest.importorskip("networkx")
    from gconn.io import chunks
    G = nx.gnm_random_graph(60, 50, seed=3)
    G.add_nodes_from(range(60))
    if kind == "names":
        G = nx.relabel_nodes(G, {v: f"v{v}" for v in G})
    if kind == "weights":
        nx.set_edge_attributes(G, {e: {"weight": i / 3, "label": f"e {i}"} for i, e in enumerate(G.edges)})
    path = tmp_path / "g.edgelist"
    nx.write_edgelist(G, path)
    path = path.rename(tmp_path / "g.el")
    H = nx.Graph(list(G.edges))
    if kind != "names":     # integer ids: every id up to the largest is a vertex
        H.add_nodes_from(range(max(H) + 1))
    g, names = gconn.load(path, return_names=True)
    k, labels = gconn.connected_components(g, backend="cpu")
    assert k == nx.number_connected_components(H) and g.m == H.number_of_edges()
    assert any("networkx.write_edgelist" in x for x in identify(path).notes)
    if kind != "names":
        monkeypatch.setattr(chunks, "BLOCK_BYTES", 64)
        got = sorted((int(a), int(b)) for s, d in gconn.io.edge_chunks(path, 7) for a, b in zip(s, d))
        assert got == sorted(G.edges)


def test_spreadsheets_are_named(tmp_path):
    """An .xlsx is a zip archive: it was read as an .npz ('expected arrays src and dst')."""
    import zipfile
    for name in ("g.xlsx", "g.zip"):
        with zipfile.ZipFile(tmp_path / name, "w") as z:
            z.writestr("[Content_Types].xml", "<Types/>")
            z.writestr("xl/workbook.xml", "<workbook/>")
        with pytest.raises(ValueError, match=r"an Excel (file|workbook).*pandas\.read_excel"):
            gconn.load(tmp_path / name)


def test_stdin_through_the_command(tmp_path):
    """What users pipe in: METIS and Matrix Market read as what they are."""
    pairs = [(0, 1), (1, 2), (3, 4), (5, 5)]
    cases = {"metis": write_metis(tmp_path, pairs, 7, "m.txt").read_bytes(),
             "mtx": write_mtx(tmp_path, pairs, 7, True, False, "g.mtx").read_bytes(),
             "mtx.gz": gzip.compress(write_mtx(tmp_path, pairs, 7, True, False, "h.mtx").read_bytes()),
             "edgelist": b"0 1\n1 2\n3 4\n5 5\n6 6\n"}
    env = {"PYTHONPATH": str(SRC)}
    for what, data in cases.items():
        res = subprocess.run([sys.executable, "-m", "gconn", "cc", "-", "-b", "cpu", "--json", "-q"], input=data,
                             capture_output=True, env=env, timeout=300)
        assert res.returncode == 0, (what, res.stderr)
        import json
        out = json.loads(res.stdout)
        assert (out["n"], out["components"]) == (7, 4), what
        assert out["format"] == what.split(".")[0]


# -- save, then load ------------------------------------------------------------------------

@st.composite
def saved_graphs(draw):
    n = draw(st.integers(0, 30))
    pairs = draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))), max_size=40)) \
        if n else []
    src = np.array([a for a, _ in pairs], np.int64)
    dst = np.array([b for _, b in pairs], np.int64)
    g = Graph.from_edges(src, dst, n)
    kind = draw(st.sampled_from(["dense", "ids", "names"]))
    if kind == "ids" and n:
        g.nodes = np.sort(np.random.default_rng(n).choice(10**12, n, replace=False)).astype(np.int64)
    elif kind == "names" and n:
        g.nodes = np.array(sorted(f"v{i:03d}" for i in range(n)), dtype=object)
    return g


@SETTINGS
@given(g=saved_graphs(), ext=st.sampled_from([e for exts in FORMATS.values() for e in exts] + [".el.gz", ".mtx.gz",
                                                                                              ".graph.gz"]))
def test_save_then_load_gives_the_same_graph(tmp_path_factory, g, ext):
    path = tmp_path_factory.mktemp("save") / f"g{ext}"
    try:
        gconn.save(g, path)
    except ValueError as e:
        # refused, saying why, and nothing written
        assert path.name in str(e) and not path.exists()
        named = g.nodes is not None
        hi = int(max(g.src.max(), g.dst.max())) + 1 if g.m else 0
        assert named or (ext == ".npy" and g.n > hi)
        return
    back = gconn.load(path)
    assert back.n == g.n and back == g
    if g.nodes is None:
        assert back.nodes is None
    else:
        assert np.asarray(back.nodes).tolist() == np.asarray(g.nodes).tolist()


@pytest.mark.parametrize("delimiter", [" ", ",", "\t"])
@pytest.mark.parametrize("weighted", [False, True])
def test_adjacency_matrices_are_refused(tmp_path, monkeypatch, delimiter, weighted):
    """A dense adjacency matrix in a text file was read as an edge list, each row's first two values
    taken as an edge: 0/1 rows gave a graph of vertices 0 and 1.  Now an error that says how to read
    it, and the call it names reads it right."""
    rng = np.random.default_rng(5)
    a = np.triu(rng.random((9, 9)) < 0.2, 1).astype(int)
    a = a + a.T
    if weighted:
        a = a * rng.integers(2, 9, (9, 9))
        a = np.triu(a, 1) + np.triu(a, 1).T
    path = tmp_path / "adj.csv"
    path.write_text("\n".join(delimiter.join(map(str, row)) for row in a) + "\n")
    with pytest.raises(ValueError, match=r"adj\.csv: 9 lines of 9 values.* an adjacency matrix, not an edge "
                                         r"list") as e:
        gconn.load(path)
    call = re.search(r"gconn\.connected_components\((numpy\.loadtxt\(.*\))\)$", str(e.value)).group(1)
    monkeypatch.chdir(tmp_path)     # the call names the file as the message does
    k, labels = gconn.connected_components(eval(call, {"numpy": np}), backend="cpu")
    k0, l0 = scipy_cc(a, directed=False)
    assert k == k0 and np.array_equal(labels, l0)
    # in a file larger than the head the reader sees: its first lines, all 0 or 1
    if not weighted:
        big = (np.arange(200)[:, None] == np.arange(1, 201)[None, :]).astype(int)
        path.write_text("\n".join(delimiter.join(map(str, row)) for row in big) + "\n")
        with pytest.raises(ValueError, match=r"its first 64 lines of 200 values 0 or 1"):
            gconn.load(path)


def test_adjacency_lists_are_noted(tmp_path):
    """An adjacency list whose lines all hold as many ids read as an edge list of weighted edges, each
    line's first neighbour its one edge: now a note says so; lines of varying length name
    networkx.read_adjlist in their error."""
    path = tmp_path / "g.txt"
    path.write_text("0 2 1\n1 3 0\n2 0 3\n3 1 2\n")
    with pytest.warns(gconn.InputNote, match="only each line's first neighbour is read"):
        gconn.load(path)
    path.write_text("0 1 2 3\n1 0\n2 0\n3 0\n")
    with pytest.raises(ValueError, match=r"line 2, column 4: 2 fields.*may be an adjacency list.*read_adjlist"):
        gconn.load(path)


@pytest.mark.parametrize("text", ["0 1 5\n0 2 3\n1 2 4\n2 3 1\n",                    # weights, sources repeat
                                  "9 8 1082008561\n1 2 1082155839\n3 4 1082164264\n5 2 1082381619\n",  # times
                                  "0 1 2.5\n1 2 0.5\n2 3 1.5\n3 0 1\n",              # real weights
                                  "7 1 3\n2 5 6\n9 4 2\n0 8 5\n"])                  # sources in no order
def test_weighted_edge_lists_are_not_taken_for_matrices_or_lists(tmp_path, text):
    path = tmp_path / "g.txt"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gconn.InputNote)
        g = gconn.load(path)
    assert g.m == 4


def test_comment_after_an_edge_is_named(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1 # friends\n1 2 # colleagues\n")
    with pytest.raises(ValueError, match=r"g\.txt, line 1, column 5: a comment after an edge \('0 1 # friends'\); "
                                         r"comments stand on lines of their own"):
        gconn.load(path)


@pytest.mark.parametrize("text", ["0;1;0,5\n1;2;1,25\n3;4;2\n", "from;to;weight\n0;1;0,5\n1;2;1,25\n3;4;2\n"])
def test_semicolons_with_decimal_commas(tmp_path, text):
    """A CSV from a spreadsheet set to a European locale: ';' between fields, ',' as the decimal point.
    Without a header it was an error (',' taken as the delimiter)."""
    path = tmp_path / "g.csv"
    path.write_text(text)
    g = gconn.load(path)
    assert edges_of(g) == simple_edges([(0, 1), (1, 2), (3, 4)])
    if not text.startswith("from"):     # a header's columns may hold anything
        path.write_text(text.replace("0,5", "0,5,7"))
        with pytest.raises(ValueError, match=r"'0,5,7' is not a number"):
            gconn.load(path)


def test_leading_zeros_are_noted(tmp_path):
    path = tmp_path / "zip.csv"
    path.write_text("00501,00544\n00544,00601\n7,007\n")
    with pytest.warns(gconn.InputNote, match=r"line 1: the id '00501' has leading zeros: read as the integer 501"):
        g = gconn.load(path)
    assert g.m == 2         # '7,007' one vertex: a self loop
    g, names = gconn.load(path, names=True, return_names=True)
    assert g.m == 3
    assert sorted(names.tolist()) == ["00501", "00544", "00601", "007", "7"]
