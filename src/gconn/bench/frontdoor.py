"""The front door as users call it, for one or more source trees side by side:
``gconn cc FILE`` in a fresh process (wall time, peak memory), and
``gconn.connected_components`` from arrays and from a file path, and SciPy's drop-in
(``gconn.integrations.csgraph``) on a CSR matrix of the arrays (the first answer: the process's wall
time from its start to the first call's labels; the first call, the median of the five after it, the
sixth, and the six in all: a long-running process's calls).

    python -m gconn.bench.frontdoor --tree /path/to/old/src --tree src --edges 1000000 --repeat 7
    python -m gconn.bench.frontdoor --backend gpu --edges 67108864 --only arrays --repeat 5

With ``--backend gpu`` the peer of ``api arrays`` is a process that imports CuPy, loads the same ``.npy``
and copies its two columns to the device (issue 57's yardstick for a fresh process's first answer).

Every run is a fresh process importing gconn from its tree, the trees in turns after one warm-up
run each; the graph is Erdos-Renyi, ``--edges`` random pairs on ``--edges / 4`` vertices (seed 1),
in .el, .el.gz, .mtx and METIS files and a CSV of names (``u0``, ``u1``, ...; its count leaves out the
vertices no edge names), and every run's component count must equal SciPy's.  The peer of
``gconn cc FILE.el`` runs in the same turns: pandas.read_csv, ``tocsr`` and SciPy in a fresh process.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from gconn.bench.harness import child_json, machine, md_table, this_tree, turns

#: the child's own peak memory in kB: VmHWM, not ru_maxrss, which starts at the parent's peak when the
#: child is spawned from it (Linux keeps it across exec)
_HWM = r"""
def hwm():
    with open("/proc/self/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith("VmHWM:")))
"""

#: a CLI case's child: ``gconn`` with its arguments, then its peak memory on stderr's last line
_CLI_CHILD = _HWM + r"""
import sys
from gconn.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(f"maxrss_kb {hwm()}", file=sys.stderr)
raise SystemExit(code)
"""

#: the peer of ``gconn cc FILE.el``, :func:`gconn.bench.files.pandas_scipy` run from its file (not importing gconn)
_PEER_CHILD = _HWM + r"""
import runpy, sys
r = runpy.run_path(sys.argv[1])["pandas_scipy"](sys.argv[2])
print(f"components {r['components']}")
print(f"maxrss_kb {hwm()}", file=sys.stderr)
"""

#: an API case's child: one JSON line
_API_CHILD = r"""
import json, sys, time
import numpy as np
t0 = time.perf_counter()
import gconn
spawned, kind, path, backend, want = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], np.load(sys.argv[5])
call = lambda a: gconn.connected_components(a, backend=backend)
if kind == "arrays":
    e = np.load(path)
    arg = (np.ascontiguousarray(e[:, 0]), np.ascontiguousarray(e[:, 1]))
elif kind == "scipy":
    # SciPy's way with gconn's drop-in: a CSR matrix of the edges, weak components
    import scipy.sparse as sp
    from gconn.integrations.csgraph import connected_components as drop_in
    e = np.load(path)
    arg = sp.csr_matrix((np.ones(len(e), np.int8), (e[:, 0], e[:, 1])), shape=(want.size, want.size))
    call = lambda a: drop_in(a, directed=False)
else:
    arg = path
t1 = time.perf_counter()
k, labels = call(arg)
t2 = time.perf_counter()
answer = time.time() - spawned
again = []
for _ in range(5):
    t = time.perf_counter()
    k2, _ = call(arg)
    again.append(time.perf_counter() - t)
def canon(labels):
    # each vertex named by the first vertex of its component: equal arrays, equal partitions
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    return first[inv]
same = all(np.array_equal(canon(x), want[:x.size]) for x in (labels, call(arg)[1]))
print(json.dumps({"k": int(k), "k2": int(k2), "n": int(labels.size), "same": bool(same), "import_s": t1 - t0,
                  "answer_s": answer, "first_s": t2 - t1, "repeat_s": sorted(again)[2], "last_s": again[-1],
                  "total_s": t2 - t1 + sum(again)}))
"""


#: the GPU peer of ``api arrays``: CuPy imported, the same columns loaded and copied to the device
_GPU_PEER_CHILD = r"""
import json, sys, time
spawned = float(sys.argv[1])
import cupy, numpy as np
e = np.load(sys.argv[2])
src, dst = cupy.asarray(np.ascontiguousarray(e[:, 0])), cupy.asarray(np.ascontiguousarray(e[:, 1]))
cupy.cuda.Device().synchronize()
print(json.dumps({"answer_s": time.time() - spawned, "m": int(src.size)}))
"""

TEXT = ("el", "mtx", "graph", "csv", "gz")


def make_files(edges: int, folder: Path, formats=TEXT) -> dict:
    """The graph as ``.npy`` and in the text ``formats`` the cases read, SciPy's count and its labels with
    each vertex named by the first of its component: ``{"el": path, ..., "n": n, "k": k, "canon": path}``."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components
    rng = np.random.default_rng(1)
    n = max(edges // 4, 2)
    src = rng.integers(0, n, edges, dtype=np.int32)
    dst = rng.integers(0, n, edges, dtype=np.int32)
    A = sp.coo_matrix((np.ones(edges, np.int8), (src, dst)), shape=(n, n)).tocsr()
    k, labels = connected_components(A, directed=False)
    k = int(k)
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    # a file of names holds only the vertices its edges name: the others' components are not its
    present = np.unique(np.concatenate([src, dst])).size
    files = {"n": n, "k": k, "k_csv": k - (n - present), "sparse": str(folder / "sparse.el"),
             "canon": str(folder / "canon.npy"), **{fmt: str(folder / f"g.{fmt}") for fmt in ("npy", *TEXT)},
             "gz": str(folder / "g.el.gz")}
    np.save(files["npy"], np.column_stack([src, dst]))
    np.save(files["canon"], first[inv])
    Path(files["sparse"]).write_text("0 200000000\n")
    # writers of our own, so that every tree reads the same bytes
    text = "\n".join(f"{a} {b}" for a, b in zip(src.tolist(), dst.tolist())) + "\n" \
        if "el" in formats or "gz" in formats else ""
    if "el" in formats:
        Path(files["el"]).write_text(text)
    if "gz" in formats:
        import gzip
        Path(files["gz"]).write_bytes(gzip.compress(text.encode(), 6))
    if "csv" in formats:
        Path(files["csv"]).write_text("source,target\n" + "\n".join(f"u{a},u{b}" for a, b in zip(src.tolist(),
                                                                                             dst.tolist())) + "\n")
    if "mtx" in formats:
        sym = sp.triu(A + A.T, k=1).tocoo()
        with open(files["mtx"], "w") as f:
            f.write("%%MatrixMarket matrix coordinate pattern symmetric\n")
            f.write(f"{n} {n} {sym.nnz}\n")
            f.write("\n".join(f"{b + 1} {a + 1}" for a, b in zip(sym.row.tolist(), sym.col.tolist())) + "\n")
    if "graph" in formats:
        S = (A + A.T).tocsr()
        S.setdiag(0)
        S.eliminate_zeros()
        with open(files["graph"], "w") as f:
            f.write(f"{n} {S.nnz // 2}\n")
            for v in range(n):
                f.write(" ".join(str(u + 1) for u in S.indices[S.indptr[v]:S.indptr[v + 1]].tolist()) + "\n")
    return files


def _components_line(out: str) -> int | None:
    return next((int(line.split()[1].replace(",", "")) for line in out.splitlines() if line.startswith("components")),
                None)


def cases(files: dict, backend: str = "cpu") -> list:
    """(name, ``("cli", argv, stdin path or None, components)``, ``("api", kind, path, backend, labels)`` or
    ``("gpu-peer", path)``): the CLI prints its count, which is checked; the API's labels are checked as
    SciPy's partition."""
    def cli(*args, stdin=None, k=files["k"]):
        return ("cli", [sys.executable, "-c", _CLI_CHILD, "cc", "-q", "-b", backend, *args], stdin, k)

    peer = [sys.executable, "-c", _PEER_CHILD, str(Path(__file__).with_name("files.py")), files["el"]]
    gpu = [("peer arrays: CuPy imported, the arrays loaded and copied to the GPU", ("gpu-peer", files["npy"]))]
    return [("peer .el: pandas.read_csv, tocsr, SciPy", ("cli", peer, None, files["k"])),
            *(gpu if backend == "gpu" else []),
            *((f"cli .{fmt}", cli(files[fmt])) for fmt in ("el", "mtx", "graph")),
            ("cli .csv (names)", cli(files["csv"], k=files["k_csv"])),
            ("cli .el.gz", cli(files["gz"])),
            ("cli stdin (.el)", cli("-", stdin=files["el"])),
            ("cli sparse ids (one edge 0 200000000)", cli(files["sparse"], k=1)),
            ("cli sparse ids, --relabel", cli("--relabel", files["sparse"], k=1)),
            ("api arrays", ("api", "arrays", files["npy"], backend, files["canon"])),
            *([("api scipy drop-in (CSR)", ("api", "scipy", files["npy"], backend, files["canon"]))]
              if backend == "cpu" else []),
            ("api file (.el)", ("api", "file", files["el"], backend, files["canon"]))]


def run_once(how, tree: str, k: int) -> dict:
    """One fresh process of a case: its wall time (and the API child's own times), count checked."""
    if how[0] == "cli":
        with open(how[2], "rb") if how[2] else contextlib.nullcontext(subprocess.DEVNULL) as stdin:
            t0 = time.perf_counter()
            p = subprocess.run(how[1], env=dict(os.environ, PYTHONPATH=tree), stdin=stdin,
                               capture_output=True, text=True)
            wall = time.perf_counter() - t0
        got = _components_line(p.stdout)
        if p.returncode != 0 or got != how[3]:
            raise RuntimeError(f"{' '.join(how[1][3:])} (tree {tree}): exit {p.returncode}, components {got}, "
                               f"expected {how[3]}\n{p.stderr[-2000:]}")
        rss = int(p.stderr.strip().splitlines()[-1].split()[1])
        return {"wall_s": wall, "maxrss_mb": rss / 1024}
    if how[0] == "gpu-peer":
        return child_json(tree, _GPU_PEER_CHILD, time.time(), how[1])
    t0 = time.perf_counter()
    r = child_json(tree, _API_CHILD, time.time(), *how[1:])
    wall = time.perf_counter() - t0
    if r["k"] != k or r["k2"] != k or not r["same"]:
        raise RuntimeError(f"api {how[1]} (tree {tree}): {r['k']} components (expected {k}), labels "
                           f"{'' if r['same'] else 'not '}SciPy's partition")
    return {"wall_s": wall, **r}


def _spread(xs, scale=1e3) -> str:
    digits = 1 if scale * statistics.median(xs) < 10 else 0
    return (f"{scale * statistics.median(xs):.{digits}f} ({scale * min(xs):.{digits}f}-"
            f"{scale * max(xs):.{digits}f})")


def measure(trees: list, edges: int, repeat: int, folder: Path, only=None, backend: str = "cpu") -> list:
    """Rows ``(case, figure, {tree: figures})`` of every case, and the files."""
    chosen = [name for name, _ in cases(dict.fromkeys((*TEXT, "npy", "sparse", "canon", "k", "k_csv"), ""), backend)
              if not only or any(o in name for o in only)]
    # only the text files a chosen case reads (writing them takes minutes at 2**26 edges)
    files = make_files(edges, folder, [f for f in TEXT if any(f".{f}" in name for name in chosen)])
    rows = []
    for name, how in cases(files, backend):
        if name not in chosen:
            continue
        got = turns(trees, lambda t, _: run_once(how, t, files["k"]), repeat)
        figures = {"cli": ["wall_s", "maxrss_mb"], "gpu-peer": ["answer_s"]}.get(
            how[0], ["wall_s", "answer_s", "first_s", "repeat_s", "last_s", "total_s"])
        for fig in figures:
            rows.append((name, fig, {t: [r[fig] for r in got[t]] for t in trees}))
    return rows, files


def table(rows, trees) -> str:
    """Markdown: a row per case and figure, a column per tree (median and range), then each
    later tree's median over the first's."""
    names = {"wall_s": "process wall, ms", "answer_s": "first answer (process wall to it), ms",
             "first_s": "first call, ms", "repeat_s": "repeated call (median of 5), ms",
             "last_s": "sixth call, ms", "total_s": "six calls in all, ms", "maxrss_mb": "peak memory, MB"}
    columns = ["case", "figure", *(f"tree {i + 1} (min-max):" for i in range(len(trees))),
               *(f"tree {i + 1} / tree 1:" for i in range(1, len(trees)))]
    cells = []
    for case, fig, by in rows:
        base = statistics.median(by[trees[0]])
        cells.append([case, names[fig], *(_spread(by[t], 1 if fig == "maxrss_mb" else 1e3) for t in trees),
                      *(f"{statistics.median(by[t]) / base:.2f}" for t in trees[1:])])
    return md_table(columns, cells)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m gconn.bench.frontdoor", description=__doc__.splitlines()[0])
    p.add_argument("--tree", action="append", help="a source tree to import gconn from (repeatable; "
                                                   "default: this one)")
    p.add_argument("--edges", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--only", nargs="*", help="cases whose name contains one of these words")
    p.add_argument("--backend", default="cpu", choices=("cpu", "gpu", "auto"), help="of every call (default cpu)")
    args = p.parse_args(argv)
    trees = [str(Path(t).resolve()) for t in (args.tree or [this_tree()])]
    print(f"# gconn front door, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"# {machine()}; load average {os.getloadavg()[0]:.1f} at the start")
    for i, t in enumerate(trees):
        print(f"# tree {i + 1}: {t}")
    with tempfile.TemporaryDirectory(prefix="gconn-bench-") as folder:
        rows, files = measure(trees, args.edges, args.repeat, Path(folder), args.only, args.backend)
    print(f"# backend {args.backend}; Erdos-Renyi, {args.edges:,} random pairs on n = {files['n']:,} (seed 1), {files['k']:,} "
          f"components (SciPy); {args.repeat} runs of each tree in turns after one warm-up each; "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(table(rows, trees))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
