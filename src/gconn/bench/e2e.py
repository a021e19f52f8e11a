"""End to end from the user's data (issue 11): edge arrays or a SciPy matrix
in, labels out, against SciPy's whole path, next to compute only.

    python -m gconn.bench.e2e --graphs rmat:scale=20,ef=16 grid_road:side=2048 --repeat 5

Per graph, the median of ``--repeat`` wall times after one warm-up of: SciPy from ``(src, dst)``
(COO, ``tocsr()``, ``connected_components``) and from a prebuilt CSR; gconn from the arrays, the
CSR, a spanning forest, and compute only on a prebuilt graph (``gconn compute``: its input edges;
``gconn canonical``: its canonical form built).  ``--threads`` sets numba's threads.
"""
from __future__ import annotations

import argparse
import os
import statistics

import numpy as np

from gconn.bench.harness import cpu_snapshot, load_note, md_table, same_partition, spread, stamp, time_calls


def edges_of(source: str):
    """``(src, dst, n)`` of a generator spec or a graph file (its input edges)."""
    if os.path.exists(source):
        from gconn import load
        g = load(source)
        src, dst = g.edges()
        return src, dst, g.n
    from gconn.graph.generators import edges_from_spec
    return edges_from_spec(source)


def measure(source: str, repeat: int) -> dict:
    """The milliseconds of each timed run of each path on one graph, the automatic choice, and whether every gconn
    result is SciPy's partition (the forest: n - k edges that join SciPy's components).

    >>> r = measure("path:100", 1)
    >>> r["same"], r["auto"]
    (True, 'none+union-async+find-halve')
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc

    import gconn
    from gconn.graph import Graph

    src, dst, n = edges_of(source)
    ones = np.ones(src.size, np.int8)

    def scipy_arrays():
        return scipy_cc(sp.coo_matrix((ones, (src, dst)), shape=(n, n)).tocsr(), directed=False)

    A = sp.coo_matrix((ones, (src, dst)), shape=(n, n)).tocsr()
    k0, want = scipy_arrays()
    lazy = Graph.from_edges(src, dst, n)
    _, _, st = gconn.connected_components(lazy, backend="cpu", return_stats=True)
    canonical = Graph.from_edges(src, dst, n)
    canonical.canonical()
    same = all(same_partition(want, gconn.connected_components(x, backend="cpu")[1])
               for x in (A, lazy, canonical, Graph.from_edges(src, dst, n)))
    fs, fd = gconn.spanning_forest(Graph.from_edges(src, dst, n), backend="cpu")
    joined = scipy_cc(sp.coo_matrix((np.ones(fs.size, np.int8), (fs, fd)), shape=(n, n)), directed=False)[1]
    same = same and fs.size == n - k0 and same_partition(want, joined)
    paths = {
        "scipy arrays": scipy_arrays,
        "gconn arrays": lambda: gconn.connected_components(Graph.from_edges(src, dst, n), backend="cpu"),
        "gconn forest": lambda: gconn.spanning_forest(Graph.from_edges(src, dst, n), backend="cpu"),
        "scipy CSR": lambda: scipy_cc(A, directed=False),
        "gconn CSR": lambda: gconn.connected_components(A, backend="cpu"),
        "gconn compute": lambda: gconn.connected_components(lazy, backend="cpu"),
        "gconn canonical": lambda: gconn.connected_components(canonical, backend="cpu"),
    }
    out = {"graph": source, "n": n, "input_edges": int(src.size), "auto": st.variant,
           "same": same}
    for name, fn in paths.items():
        out[name] = [1e3 * secs for secs, _ in time_calls(fn, repeat, 1)]
    return out


def table(rows) -> str:
    cols = ["scipy arrays", "gconn arrays", "gconn forest", "scipy CSR", "gconn CSR", "gconn compute",
            "gconn canonical"]
    return md_table(["graph", "n:", "input edges:", "auto", *(f"{c} ms:" for c in cols), "arrays vs scipy:",
                     "CSR vs scipy:"],
                    [[r["graph"], f"{r['n']:,}", f"{r['input_edges']:,}", r["auto"],
                      *(spread(r[c], 1, 1) for c in cols),
                      f"{_med(r, 'scipy arrays') / _med(r, 'gconn arrays'):.1f}x",
                      f"{_med(r, 'scipy CSR') / _med(r, 'gconn CSR'):.1f}x"] for r in rows])


def _med(row, path: str) -> float:
    return statistics.median(row[path])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m gconn.bench.e2e", description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["rmat:scale=20,ef=16"],
                   help="generator specs and/or graph files")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--threads", type=int, help="numba threads (default: all)")
    args = p.parse_args(argv)
    print(stamp(p.prog, argv) + "\n\nMedian (min-max) of --repeat runs after a warm-up, ms:\n")
    if args.threads:
        import numba
        numba.set_num_threads(args.threads)
    before = cpu_snapshot()
    rows = []
    for g in args.graphs:
        rows.append(measure(g, args.repeat))
        if not rows[-1]["same"]:
            print(f"{g}: a gconn result is not SciPy's partition")
    note = load_note(before)
    if note:
        print(note)
    print(table(rows))
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
