"""Update logs ('+ u v', '- u v', '? u v'): gconn.read_updates and `gconn stream --updates`, each
answer and the final components against a recomputation after every update."""
from __future__ import annotations

import gzip
import io
import json
import sys
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn
from gconn import cli


def write(tmp_path, text, name="log.txt", raw=None):
    path = tmp_path / name
    path.write_bytes(raw if raw is not None else text.encode())
    return path


@pytest.mark.parametrize("text", [
    "+ 0 1\n- 0 1\n? 0 1\n",
    "+\t0\t1\r\n-\t0\t1\r\n?\t0\t1\r\n",                   # tabs, CRLF
    "+,0,1\n-, 0 ,1\n?,0,1",                             # commas (blanks around them), no last newline
    "# a comment\n\n% another\n  + 0 1  \nD 0 1\nq 0 1\n",  # comments, blank lines, letters in any case
    "INSERT 0 1\ndelete 0 1\nQuery 0 1\n",
    "+ 0 1\r- 0 1\r? 0 1\r",                             # CR alone ends lines
])
def test_read_updates_dialects(tmp_path, text):
    kinds, src, dst = gconn.read_updates(write(tmp_path, text))
    assert kinds.tolist() == [0, 2, 1] and src.tolist() == [0, 0, 0] and dst.tolist() == [1, 1, 1]
    assert kinds.dtype == np.int8 and src.dtype == np.int32


def test_read_updates_gzip_empty_and_wide_ids(tmp_path):
    kinds, src, dst = gconn.read_updates(write(tmp_path, "", "log.txt.gz", gzip.compress(b"? 7 3000000000\n")))
    assert kinds.tolist() == [1] and dst.tolist() == [3000000000] and dst.dtype == np.int64
    kinds, src, dst = gconn.read_updates(write(tmp_path, "# nothing\n\n"))
    assert kinds.size == src.size == dst.size == 0


@pytest.mark.parametrize("text, message", [
    ("+ 0 1\nadd 1 2\n", "log.txt, line 2, column 1: 'add' is not an update's operation"),
    ("0 1\n", "line 1, column 1: '0' is not an update's operation"),
    ("+ 0 1\n+ 1\n", "line 2, column 4: an update is 'op u v', this line has 2 fields"),
    ("+ 0 1 1700000000\n", "line 1, column 7: more than the three fields of an update"),
    ("+ 0 1,\n", "line 1: an empty field (two commas, or one at the end)"),
    ("+,0,,1\n", "line 1: an empty field"),
    ("- 0 -5\n", "line 1, column 5: negative vertex id -5"),
    ("? a b\n", "line 1, column 3: 'a' is not a vertex id"),
    ("+ 0 1.0\n", "line 1, column 5: '1.0' is not a vertex id"),
    ("+ 0 99999999999999999999\n", "column 5: vertex id 99999999999999999999 is too large"),
])
def test_read_updates_errors_name_the_line_and_column(tmp_path, text, message):
    with pytest.raises(ValueError) as e:
        gconn.read_updates(write(tmp_path, text))
    assert message in str(e.value)


@pytest.mark.parametrize("name, text", [("log.csv", "op,u,v\ninsert,0,1\nquery,0,1\n"),
                                        ("log.txt", "# exported\nkind src dst\n+ 0 1\n? 0 1\n"),
                                        ("log.csv.gz", None)])
def test_a_header_naming_the_columns_is_skipped_and_said(tmp_path, name, text):
    """A first line of column names (a table written by pandas) was "'op' is not an update's operation";
    now it is skipped with a note, and later lines keep their numbers."""
    raw = gzip.compress(b"op,u,v\n+,0,1\n?,0,1\n") if text is None else None
    path = write(tmp_path, text, name, raw)
    with pytest.warns(gconn.InputNote, match=r"line \d \('(op,u,v|kind src dst)'\) is a header naming the columns"):
        kinds, src, dst = gconn.read_updates(path)
    assert (kinds.tolist(), src.tolist(), dst.tolist()) == ([0, 1], [0, 0], [1, 1])
    with pytest.raises(ValueError, match="log.csv, line 3, column 1: 'add' is not an update's operation"):
        gconn.read_updates(write(tmp_path, "op,u,v\n+,0,1\nadd,1,2\n", "log.csv"))
    for not_names in ("x,0,1\n+,0,1\n", "op,u\n+,0,1\n"):      # a bad update stays an error
        with pytest.raises(ValueError, match="line 1"):
            gconn.read_updates(write(tmp_path, not_names, "log.csv"))


def test_read_updates_refuses_edge_lists_utf16_and_folders(tmp_path):
    with pytest.raises(ValueError, match="looks like an edge list's: `gconn stream FILE` replays"):
        gconn.read_updates(write(tmp_path, "0 1\n1 2\n"))
    with pytest.raises(ValueError, match="UTF-16"):
        gconn.read_updates(write(tmp_path, "", raw="+ 0 1\n".encode("utf-16")))
    with pytest.raises(IsADirectoryError):
        gconn.read_updates(tmp_path)
    with pytest.raises(FileNotFoundError):
        gconn.read_updates(tmp_path / "missing.txt")


def oracle(kinds, src, dst, n0):
    """Each query's answer and the final (k, labels), recomputed from the edges present at that point."""
    present, n, answers = Counter(), n0, []

    def labels(n):
        pairs = [e for e, c in present.items() if c > 0]
        a = np.array([p[0] for p in pairs], np.int64)
        b = np.array([p[1] for p in pairs], np.int64)
        return scipy_cc(coo_matrix((np.ones(a.size), (a, b)), shape=(n, n)), directed=False)

    for k, u, v in zip(kinds.tolist(), src.tolist(), dst.tolist()):
        n = max(n, u + 1, v + 1)
        if k == 0:
            present[min(u, v), max(u, v)] += 1
        elif k == 2:
            present[min(u, v), max(u, v)] -= 1
        else:
            lab = labels(n)[1]
            answers.append(bool(lab[u] == lab[v]))
    return answers, labels(n)


@st.composite
def logs(draw):
    """Logs over up to 12 vertices, half of them insert-only; they delete only edges present
    (multi-edges included)."""
    present, lines, deletes = [], [], draw(st.booleans())
    for _ in range(draw(st.integers(0, 40))):
        op = draw(st.sampled_from("+-?" if present and deletes else "+?"))
        if op == "-":
            u, v = present.pop(draw(st.integers(0, len(present) - 1)))
            u, v = (v, u) if draw(st.booleans()) else (u, v)
        else:
            u, v = draw(st.integers(0, 11)), draw(st.integers(0, 11))
            if op == "+":
                present.append((u, v))
        lines.append(f"{op} {u} {v}")
    return lines


@settings(max_examples=60, deadline=None)
@given(lines=logs(), batch=st.integers(1, 9), n0=st.integers(0, 14))
def test_stream_updates_answers_each_query_as_it_comes(tmp_path_factory, lines, batch, n0):
    path = tmp_path_factory.mktemp("log") / "log.txt"
    path.write_text("\n".join(lines) + "\n")
    out = path.with_name("answers.txt")
    argv = ["stream", "--updates", str(path), "--batch-size", str(batch), "-o", str(out), "-q", "-b", "cpu", "--json"]
    if n0:
        argv += ["--n", str(n0)]
    code = cli.main(argv)
    kinds, src, dst = gconn.read_updates(path)
    want, (k, labels) = oracle(kinds, src, dst, n0)
    assert code == 0
    got = np.array([line.split() for line in out.read_text().splitlines()], np.int64).reshape(-1, 3)
    q = kinds == 1
    assert got[:, :2].tolist() == np.column_stack([src[q], dst[q]]).tolist()
    assert got[:, 2].astype(bool).tolist() == want


@pytest.mark.parametrize("log", ["+ 0 1\n? 1 2\n+ 1 2\n? 1 2\n", "+ 0 1\n? 1 2\n+ 1 2\n? 1 2\n- 0 1\n"])
def test_stream_updates_query_before_an_insert_of_its_batch(tmp_path, log):
    """A query sees the updates before it in the log, not the later ones of its batch."""
    path, out = write(tmp_path, log), tmp_path / "answers.txt"
    assert cli.main(["stream", "--updates", str(path), "--batch-size", "8", "-o", str(out), "-q", "-b", "cpu"]) == 0
    assert out.read_text() == "1 2 0\n1 2 1\n"


def test_stream_updates_reports_and_reads_stdin(tmp_path, capsys, monkeypatch):
    text = b"+ 0 1\n+ 1 2\n? 0 2\n- 1 2\n? 0 2\n+ 3 3\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    code = cli.main(["stream", "--updates", "-", "--batch-size", "2", "-q", "-b", "cpu", "--json", "--n", "6"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["ok"] and out["input"] == "stdin"
    assert (out["inserts"], out["deletes"], out["queries"], out["queries_true"]) == (3, 1, 2, 1)
    assert (out["n"], out["components"], out["structure"]) == (6, 5, "DynamicConnectivity")
    path = write(tmp_path, "+ 0 1\n? 0 1\n? 1 2\n")
    code = cli.main(["stream", "--updates", str(path), "--batch-size", "8", "-q", "-b", "cpu", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["structure"] == "IncrementalConnectivity" and out["queries_true"] == 1
    path = write(tmp_path, "op,u,v\n+,0,1\n?,0,1\n", "log.csv")
    code = cli.main(["stream", "--updates", str(path), "--batch-size", "8", "-q", "-b", "cpu", "--json"])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["queries_true"] == 1
    assert "gconn: note: log.csv, line 1 ('op,u,v') is a header naming the columns, not an update" in captured.err


@pytest.mark.parametrize("extra, message", [
    (["--generate", "path:5"], "--updates LOG is the input"),
    (["--delete-ratio", "0.1"], "--delete-ratio applies to a replayed graph"),
    (["--seed", "3"], "--seed applies to a replayed graph"),
    (["--mode", "phased"], "--mode sequential"),
    (["-a", "none+union-async"], "takes no --algorithm"),
])
def test_stream_updates_usage_errors(tmp_path, capsys, extra, message):
    path = write(tmp_path, "+ 0 1\n- 0 1\n")
    assert cli.main(["stream", "--updates", str(path), "--batch-size", "2", "-q", *extra]) == 2
    assert message in capsys.readouterr().err


def test_stream_output_needs_updates(capsys):
    assert cli.main(["stream", "--generate", "path:5", "--batch-size", "2", "-o", "answers.txt"]) == 2
    assert "it needs --updates LOG" in capsys.readouterr().err


def test_refused_updates_name_their_log_line(tmp_path, capsys):
    path = write(tmp_path, "# c\n+ 0 1\n\n+ 1 2\n- 1 2\n- 1 2\n? 0 2\n")
    assert cli.main(["stream", "--updates", str(path), "--batch-size", "2", "-q", "-b", "cpu"]) == 1
    err = capsys.readouterr().err
    assert "log.txt, line 6: delete (1, 2) (operation 1 of the batch): that edge is not present" in err, err
    (kinds, src, dst), lines = gconn.io.updates.read_updates(path, return_lines=True)
    assert lines.tolist() == [2, 4, 5, 6, 7] and kinds.tolist() == [0, 0, 2, 2, 1]


def test_an_update_log_read_as_a_graph_says_how_to_read_it(tmp_path):
    path = write(tmp_path, "# links\n+ 0 1\n- 0 1\n")
    with pytest.raises(ValueError, match=r"line 2, column 1: '\+' is not a vertex id.*`gconn stream --updates FILE` "
                                         r"reads update logs"):
        gconn.load(path)
