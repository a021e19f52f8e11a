"""``gconn cc/forest/stream --source/--target/--header``: which columns of a
CSV/TSV or Parquet file are the edges, and whether a CSV has a header row."""
from __future__ import annotations

import io
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import gconn
from gconn import cli

# Column 'a' holds words, so only from/to are edges: {1,2,3}, {5,6}.
TABLE = "a,from,to\nx,1,2\ny,2,3\nz,5,6\n"


def run(capsys, *argv):
    code = cli.main([*map(str, argv), "--quiet", "-b", "cpu"])
    out, err = capsys.readouterr()
    return code, out, err


def summary(capsys, *argv) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "edges.csv"
    path.write_text(TABLE)
    return path


@pytest.fixture
def parquet_file(tmp_path):
    path = tmp_path / "edges.parquet"
    pq.write_table(pa.table({"a": ["x", "y", "z"], "from": [1, 2, 5], "to": [2, 3, 6]}), path)
    return path


def read_labels(path) -> dict:
    table = pq.read_table(path) if str(path).endswith(".parquet") else None
    if table is None:
        rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
        return {int(v): int(c) for v, c in rows}
    return dict(zip(table["vertex"].to_pylist(), table["label"].to_pylist()))


@pytest.mark.parametrize("name", ["csv_file", "parquet_file"])
def test_cc_named_columns(capsys, request, tmp_path, name):
    path = request.getfixturevalue(name)
    out = tmp_path / "labels.csv"
    s = summary(capsys, "cc", path, "--source", "from", "--target", "to", "-o", out)
    assert (s["m"], s["components"]) == (3, 4)  # vertices 0..6, of which 0 and 4 are isolated
    labels = read_labels(out)
    assert labels[1] == labels[2] == labels[3] and labels[5] == labels[6]
    assert len({labels[0], labels[1], labels[4], labels[5]}) == 4
    # By default the columns named 'from' and 'to' are the edges, and a note says so
    code, _, err = run(capsys, "cc", path, "-o", out)
    assert code == 0 and read_labels(out) == labels
    assert f"{'line 1' if name == 'csv_file' else path.name}: the edges are columns 'from' and 'to', by their " \
        "names" in err
    # 'a' and 'from' are names beside integers: an error, unless every id is to be read as a name.
    code, _, err = run(capsys, "cc", path, "--source", "a", "--target", "from")
    if name == "csv_file":
        assert code == 1 and "edges.csv, line 2: '1' is an integer, but the ids of this file are names" in err
        s = summary(capsys, "cc", path, "--names", "--source", "a", "--target", "from")
        assert (s["n"], s["components"]) == (6, 3)
        # the rows written name their vertices, and the summary says so
        code, text, _ = run(capsys, "cc", path, "--names", "--source", "a", "--target", "from", "-o", out)
        assert code == 0 and "(vertex, label) rows, the vertices by name, of 6 vertices" in text
        rows = out.read_text().splitlines()
        assert rows[0] == '"vertex","label"' and sorted(r.split(",")[0] for r in rows[1:]) == \
            ['"1"', '"2"', '"5"', '"x"', '"y"', '"z"']
    else:
        assert code == 1 and "edges.parquet: the columns ['a', 'from'] mix names and integer ids" in err


def test_one_column_named_takes_its_partner_else_the_first(capsys, csv_file, tmp_path):
    """--target to alone reads 'from' as the source (a pair of the usual names); a name of no such pair
    keeps the first column as the source; the same column twice is an error."""
    s = summary(capsys, "cc", csv_file, "--target", "to")       # edges from -> to: 1-2, 2-3, 5-6
    assert (s["n"], s["m"], s["components"]) == (7, 3, 4)
    s = summary(capsys, "cc", csv_file, "--source", "from")
    assert (s["n"], s["m"], s["components"]) == (7, 3, 4)
    path = tmp_path / "other.csv"
    path.write_text(TABLE.replace("from,to", "b,c"))
    code, _, err = run(capsys, "cc", path, "--target", "c")      # names in 'a', integers in 'c'
    assert code == 1 and "'2' is an integer, but the ids of this file are names" in err
    s = summary(capsys, "cc", path, "--target", "c", "--names")  # edges a -> c: x-2, y-3, z-6
    assert (s["n"], s["m"], s["components"]) == (6, 3, 3)
    for p in (path, csv_file):
        code, _, err = run(capsys, "cc", p, "--target", "a")
        assert code == 1 and f"{p.name}: source and target are the same column 'a'" in err


@pytest.mark.parametrize("name", ["csv_file", "parquet_file"])
@pytest.mark.parametrize("option", ["--source", "--target"])
def test_missing_column_lists_the_columns(capsys, request, name, option):
    path = request.getfixturevalue(name)
    code, out, err = run(capsys, "cc", path, option, "form")
    assert code == 1 and not out
    assert f"{option[2:]}='form' is not a column" in err
    assert "['a', 'from', 'to']" in err and path.name in err


def test_header_options(capsys, tmp_path):
    names = tmp_path / "names.csv"
    names.write_text("p,q\nann,bob\ncat,dan\n")
    # 'p,q' could be a header or an edge between two names: an error asks which
    code, _, err = run(capsys, "cc", names)
    assert code == 1 and "cannot tell whether 'p,q' is a header or an edge" in err
    names.write_text("source,target\nann,bob\ncat,dan\n")
    code, _, err = run(capsys, "cc", names, "--json")
    assert code == 0 and json.loads(_)["m"] == 2 and "'source,target') is taken as a header" in err
    names.write_text("p,q\nann,bob\ncat,dan\n")
    assert summary(capsys, "cc", names, "--header")["m"] == 2
    s = summary(capsys, "cc", names, "--no-header")
    assert (s["n"], s["m"], s["components"]) == (6, 3, 3)
    ints = tmp_path / "ints.el"
    ints.write_text("1 2\n2 3\n3 4\n")
    # Detected: integers, so no header; --header names the columns '1' and '2'.
    assert summary(capsys, "cc", ints)["m"] == 3
    assert summary(capsys, "cc", ints, "--header")["m"] == 2
    assert summary(capsys, "cc", ints, "--header", "--source", "2", "--target", "1")["m"] == 2


def test_conflicting_and_misplaced_options(capsys, csv_file, tmp_path):
    code, _, err = run(capsys, "cc", csv_file, "--no-header", "--source", "from")
    assert code == 1 and "header=False" in err
    for option in (["--source", "from"], ["--target", "to"], ["--header"], ["--no-header"]):
        code, _, err = run(capsys, "cc", "--generate", "path:4", *option)
        assert code == 2 and f"{option[0].replace('no-', '')}" in err and "applies to FILE input only" in err
    mtx = tmp_path / "g.mtx"
    gconn.save(gconn.Graph.from_edges([0], [1]), mtx)
    code, _, err = run(capsys, "cc", mtx, "--source", "from")
    assert code == 1 and "g.mtx: source=/target= name the columns" in err
    code, _, err = run(capsys, "cc", mtx, "--header")
    assert code == 1 and "g.mtx: header= applies to edge lists" in err


def test_forest_and_stream_columns(capsys, parquet_file, csv_file, tmp_path):
    out = tmp_path / "forest.el"
    s = summary(capsys, "forest", parquet_file, "--source", "from", "--target", "to", "-o", out)
    assert (s["n"], s["forest_edges"], s["components"]) == (7, 3, 4)
    forest = gconn.load(out, n=7)
    edges = set(zip(forest.src.tolist(), forest.dst.tolist()))
    assert (5, 6) in edges and len(edges & {(1, 2), (2, 3)}) >= 1 and len(edges) == 3
    s = summary(capsys, "stream", csv_file, "--source", "from", "--target", "to", "--batch-size", "2")
    assert s["ok"] and (s["inserts"], s["components"]) == (3, 4)
    code, _, err = run(capsys, "stream", csv_file, "--target", "too", "--batch-size", "2")
    assert code == 1 and "target='too'" in err and "['a', 'from', 'to']" in err
    # a forest of names, written as an edge list of names
    out = tmp_path / "forest.csv"
    s = summary(capsys, "forest", csv_file, "--source", "a", "--target", "to", "--names", "-o", out)
    back = gconn.load(out)
    assert s["forest_edges"] == back.m == 3 and sorted(back.nodes.tolist()) == ["2", "3", "6", "x", "y", "z"]


def test_stdin_columns(capsys, monkeypatch, parquet_file):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TABLE.replace(",", "\t").encode())))
    s = summary(capsys, "cc", "-", "--source", "to", "--target", "from")
    assert (s["n"], s["m"], s["components"]) == (7, 3, 4)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(parquet_file.read_bytes())))
    s = summary(capsys, "cc", "-", "--format", "parquet", "--source", "to", "--target", "from")
    assert (s["n"], s["m"], s["components"]) == (7, 3, 4)


@pytest.mark.parametrize("command", ["cc", "forest", "stream"])
def test_help_lists_the_options(capsys, command):
    # every subcommand that reads a graph takes the same input options, and its help is its own
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    for option in ("--source COLUMN", "--target COLUMN", "--header, --no-header", "--names, --no-names",
                   "--relabel, --no-relabel", "--format", "--n N"):
        assert option in out
    assert "first column" in out and "only where it cannot be data" in out
    first = {"cc": "connected components", "forest": "a spanning forest", "stream": "replay a graph"}[command]
    assert first in out
