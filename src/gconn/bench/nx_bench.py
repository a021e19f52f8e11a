"""NetworkX's ``connected_components`` with and without the gconn backend.

``python -m gconn.bench.nx_bench [--edges 1000000] [--repeat 5] [--labels int,str]``

On an Erdos-Renyi graph with ``--edges`` random pairs (average degree 8),
built as an ``nx.Graph`` with integer nodes 0..n-1 and again with string
nodes, it times ``list(nx.connected_components(G, backend=...))``:

* ``networkx``: NetworkX's own implementation;
* ``gconn cold``: the gconn backend, conversion included (G's conversion
  cache is emptied before each run);
* ``gconn warm``: the gconn backend on the conversion NetworkX cached;

plus, for the breakdown, the conversion alone and
``number_connected_components`` on the cached conversion (gconn without
building one Python set per component).  Each method runs once to warm up,
then ``--repeat`` times; the table gives the median and minimum.  The
components are checked against NetworkX's.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

from .harness import machine, positive_int


def _times(fn, repeat: int, before=None) -> list[float]:
    """Seconds of ``repeat`` runs of ``fn`` after one warm-up run;
    ``before`` runs untimed ahead of each."""
    out = []
    for i in range(repeat + 1):
        if before is not None:
            before()
        t0 = time.perf_counter()
        fn()
        if i:
            out.append(time.perf_counter() - t0)
    return out


def _graph(edges: int, labels: str):
    import networkx as nx

    from ..generators import erdos_renyi_edges
    src, dst, n = erdos_renyi_edges(max(edges // 4, 1), 8, seed=1)
    names = list(range(n)) if labels == "int" else [f"v{i}" for i in range(n)]
    G = nx.Graph()
    G.add_nodes_from(names)
    G.add_edges_from(zip(map(names.__getitem__, src.tolist()), map(names.__getitem__, dst.tolist())))
    return G


def _rows(G, labels: str, repeat: int, log) -> list[tuple]:
    import networkx as nx

    from ..nx_backend import BackendInterface

    def cc(backend):
        return lambda: list(nx.connected_components(G, backend=backend))

    def forget():
        G.__networkx_cache__.clear()

    expected = {frozenset(c) for c in nx.connected_components(G, backend="networkx")}
    got = {frozenset(c) for c in nx.connected_components(G, backend="gconn")}
    if got != expected:
        raise SystemExit(f"gconn's components differ from NetworkX's on the {labels}-labelled graph")
    rows = []
    nx_times = None
    for method, fn, before in (
            ("networkx", cc("networkx"), None),
            ("gconn cold (conversion included)", cc("gconn"), forget),
            ("gconn warm (cached conversion)", cc("gconn"), None),
            ("conversion alone", lambda: BackendInterface.convert_from_nx(G).gconn_graph(), None),
            ("gconn warm, number_connected_components",
             lambda: nx.number_connected_components(G, backend="gconn"), None)):
        log(f"  {labels}: {method} ...")
        t = _times(fn, repeat, before)
        nx_times = nx_times or t
        rows.append((labels, G.number_of_nodes(), G.number_of_edges(), method, statistics.median(t), min(t),
                     len(t), statistics.median(nx_times) / statistics.median(t)))
    return rows


def table(rows) -> str:
    """The results as a Markdown table.

    >>> print(table([("int", 3, 2, "networkx", 0.002, 0.001, 5, 1.0)]).splitlines()[-1])
    | int | 3 | 2 | networkx | 2.0 | 1.0 | 5 | 1.0x |
    """
    lines = ["| nodes | n | m | method | median ms | min ms | runs | vs networkx |",
             "|---|--:|--:|---|--:|--:|--:|--:|"]
    for labels, n, m, method, med, best, runs, ratio in rows:
        lines.append(f"| {labels} | {n:,} | {m:,} | {method} | {med * 1e3:.1f} | {best * 1e3:.1f} | {runs} "
                     f"| {ratio:.1f}x |")
    return "\n".join(lines)


def main(argv=None) -> int:
    """Run the benchmark and print the table (``-h`` for the options).

    >>> main(["--edges", "40", "--repeat", "1", "--labels", "int"])  # doctest: +ELLIPSIS
    Machine: ...
    0
    """
    p = argparse.ArgumentParser(prog="python -m gconn.bench.nx_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--edges", type=positive_int, default=1_000_000, help="random pairs drawn (default 1M)")
    p.add_argument("--repeat", type=positive_int, default=5, help="timed runs per method (default 5)")
    p.add_argument("--labels", default="int,str", help="node label kinds: int, str or both (default int,str)")
    args = p.parse_args(argv)
    kinds = [k.strip() for k in args.labels.split(",") if k.strip()]
    bad = [k for k in kinds if k not in ("int", "str")]
    if bad or not kinds:
        p.error(f"--labels takes int and/or str; got {args.labels!r}")

    import networkx as nx

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    rows = []
    load = os.getloadavg()[0]
    with warnings.catch_warnings():
        # NetworkX notes every use of a cached conversion; the warm runs are exactly that.
        warnings.filterwarnings("ignore", "Note: conversions to backend graphs are saved to cache")
        for kind in kinds:
            log(f"building the {kind}-labelled graph ...")
            rows += _rows(_graph(args.edges, kind), kind, args.repeat, log)
    print(f"Machine: {machine()}, networkx {nx.__version__}")
    print(f"Load average (1 min) before / after: {load:.2f} / {os.getloadavg()[0]:.2f}")
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
