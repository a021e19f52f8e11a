"""NetworkX's connected and strongly connected components with and without the gconn backend.

``python -m gconn.bench.nx_bench [--edges 1000000] [--repeat 5] [--labels int,str] [--functions cc,scc]``

Erdos-Renyi, ``--edges`` random pairs on ``edges / 4`` nodes, as an ``nx.Graph`` (``cc``) or
``nx.DiGraph`` (``scc``), its nodes ``int`` or ``str`` (``"v0"``, ...) with the edges naming the
node objects, or equal copies of them (``int-copies``, ``str-copies``, as a file's graph does).
Timed in turns: NetworkX's own, the gconn backend with the conversion (``gconn cold``) and on
NetworkX's cached conversion (``gconn warm``), the conversion alone and ``number_<function>``.
gconn's components are first checked equal to NetworkX's, in NetworkX's order.
"""
from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import warnings

from gconn.bench.harness import machine, md_table, positive_int, time_calls, turns


LABEL_KINDS = ("int", "str", "int-copies", "str-copies")
FUNCTIONS = {"cc": "connected_components", "scc": "strongly_connected_components"}


def _graph(edges: int, labels: str, directed: bool = False):
    import networkx as nx

    from gconn.graph.generators import erdos_renyi_edges
    src, dst, n = erdos_renyi_edges(max(edges // 4, 1), 8, seed=1)
    G = nx.DiGraph() if directed else nx.Graph()
    if labels in ("int", "str"):
        names = list(range(n)) if labels == "int" else [f"v{i}" for i in range(n)]
        G.add_nodes_from(names)
        G.add_edges_from(zip(map(names.__getitem__, src.tolist()), map(names.__getitem__, dst.tolist())))
    elif labels == "int-copies":
        # tolist() makes a fresh int per edge end (but for -5..256)
        G.add_nodes_from(range(n))
        G.add_edges_from(zip(src.tolist(), dst.tolist()))
    else:
        G.add_nodes_from(f"v{i}" for i in range(n))
        G.add_edges_from((f"v{a}", f"v{b}") for a, b in zip(src.tolist(), dst.tolist()))
    return G


def _rows(G, labels: str, function: str, repeat: int, log) -> list[tuple]:
    import networkx as nx

    from gconn.integrations.networkx import BackendInterface

    def run(backend):
        return lambda: list(getattr(nx, function)(G, backend=backend))

    def forget():
        G.__networkx_cache__.clear()

    expected = run("networkx")()
    if run("gconn")() != expected:
        raise SystemExit(f"gconn's {function} differ from NetworkX's on the {labels}-labelled graph")
    del expected
    count = f"number_{function}"
    methods = (
        ("networkx", run("networkx"), None),
        ("gconn cold (conversion included)", run("gconn"), forget),
        ("gconn warm (cached conversion)", run("gconn"), None),
        ("conversion alone", lambda: BackendInterface.convert_from_nx(G), None),
        (f"gconn warm, {count}", lambda: getattr(nx, count)(G, backend="gconn"), None))
    log(f"  {labels} {function}: {', '.join(name for name, _, _ in methods)}")

    def call(i, _):
        _, fn, ahead = methods[i]
        if ahead is not None:
            ahead()     # untimed
        return next(time_calls(fn, 1))[0]

    times = list(turns(range(len(methods)), call, repeat).values())
    nx_median = statistics.median(times[0])
    return [(labels, function, G.number_of_nodes(), G.number_of_edges(), method, statistics.median(t), min(t),
             max(t), len(t), nx_median / statistics.median(t)) for (method, _, _), t in zip(methods, times)]


def table(rows) -> str:
    """The results as a Markdown table.

    >>> row = ("int", "connected_components", 3, 2, "networkx", 0.002, 0.001, 0.004, 5, 1.0)
    >>> print(table([row]).splitlines()[-1])
    | int | connected_components | 3 | 2 | networkx | 2.0 | 1.0 | 4.0 | 5 | 1.0x |
    """
    return md_table(["nodes", "function", "n:", "m:", "method", "median ms:", "min ms:", "max ms:", "runs:",
                     "vs networkx:"],
                    [[labels, function, f"{n:,}", f"{m:,}", method, f"{med * 1e3:.1f}", f"{best * 1e3:.1f}",
                      f"{worst * 1e3:.1f}", runs, f"{ratio:.1f}x"]
                     for labels, function, n, m, method, med, best, worst, runs, ratio in rows])


def main(argv=None) -> int:
    """Run the benchmark and print the table.

    >>> main(["--edges", "40", "--repeat", "1", "--labels", "int,str-copies"])  # doctest: +ELLIPSIS
    Machine: ...
    | str-copies | strongly_connected_components | 10 | ...
    0
    """
    p = argparse.ArgumentParser(prog="python -m gconn.bench.nx_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--edges", type=positive_int, default=1_000_000, help="random pairs drawn (default 1M)")
    p.add_argument("--repeat", type=positive_int, default=5, help="timed runs per method (default 5)")
    p.add_argument("--labels", default="int,str",
                   help=f"node label kinds, of {', '.join(LABEL_KINDS)} (default int,str)")
    p.add_argument("--functions", default="cc,scc",
                   help="cc (connected_components), scc (strongly_connected_components) or both (default cc,scc)")
    args = p.parse_args(argv)
    kinds = _choices(p, "--labels", args.labels, LABEL_KINDS)
    functions = [FUNCTIONS[f] for f in _choices(p, "--functions", args.functions, FUNCTIONS)]

    import networkx as nx
    log = functools.partial(print, file=sys.stderr, flush=True)
    rows = []
    load = os.getloadavg()[0]
    with warnings.catch_warnings():
        # NetworkX notes every use of a cached conversion: the warm runs
        warnings.filterwarnings("ignore", "Note: conversions to backend graphs are saved to cache")
        for kind in kinds:
            for function in functions:
                directed = function == "strongly_connected_components"
                log(f"building the {kind}-labelled {'directed ' if directed else ''}graph ...")
                rows += _rows(_graph(args.edges, kind, directed), kind, function, args.repeat, log)
    print(f"Machine: {machine()}, networkx {nx.__version__}")
    print(f"Load average (1 min) before / after: {load:.2f} / {os.getloadavg()[0]:.2f}")
    print()
    print(table(rows))
    return 0


def _choices(p, option: str, value: str, allowed) -> list[str]:
    chosen = [k.strip() for k in value.split(",") if k.strip()]
    if not chosen or any(k not in allowed for k in chosen):
        p.error(f"{option} takes a comma-separated list of {', '.join(allowed)}; got {value!r}")
    return chosen


if __name__ == "__main__":
    raise SystemExit(main())
