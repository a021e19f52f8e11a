"""The GPU on the graphs of the side-by-side reference run (``../shared/anchors``), for one or
more source trees in turns:

    python -m gconn.bench.anchors --tree OLD/src --tree src --rounds 3

Per graph and tree, a fresh process times the automatic choice as users call it: from NumPy
arrays (``host first``, then the median of later calls ``host``), on a resident graph
(``resident first``, ``resident``: replays) and its device time with ``return_stats=True``
(``compute``).  Each figure is the median (min-max) of every timed call of every round after a
warm-up round; every call's labels must be SciPy's partition.
"""
from __future__ import annotations

import argparse
import json
import tempfile

from gconn.bench.gpu import GRAPHS, peers, prepare
from gconn.bench.harness import Timing, child_json, stamp, this_tree, turns

CHILD = r"""
import json, sys, time
import numpy as np, cupy as cp, gconn
n = int(sys.argv[1]); src = np.load(sys.argv[2]); dst = np.load(sys.argv[3]); repeat = int(sys.argv[4])
want = np.load(sys.argv[5])
sync = cp.cuda.Device().synchronize
def canon(labels):
    # each vertex named by the first vertex of its component: equal arrays, equal partitions
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    return first[inv]
def check(labels, what):
    labels = labels.get() if hasattr(labels, "get") else np.asarray(labels)
    common = min(labels.size, want.size)  # edge arrays carry no n: the vertices stop at the largest id
    if not np.array_equal(canon(labels[:common]), canon(want[:common])):
        raise SystemExit(f"the labels of {what} are not SciPy's partition")
def timed(graph, what, stats=False):
    t = time.perf_counter(); r = gconn.connected_components(graph, backend="gpu", return_stats=stats)
    sync(); t = time.perf_counter() - t; check(r[1], what)
    return t, int(r[0]), (r[2] if stats else None)
out = {}
t, k, _ = timed((src, dst), "host first"); out["host first"] = [t]; ks = {k}
runs = [timed((src, dst), "host") for _ in range(repeat)]
out["host"] = [r[0] for r in runs]; ks |= {r[1] for r in runs}
g = gconn.as_graph((cp.asarray(src), cp.asarray(dst)), n=n); sync()
t, k, _ = timed(g, "resident first"); out["resident first"] = [t]; ks.add(k)
runs = [timed(g, "resident") for _ in range(repeat)]
out["resident"] = [r[0] for r in runs]; ks |= {r[1] for r in runs}
runs = [timed(g, "compute", stats=True) for _ in range(repeat)]
out["compute"] = [r[2].device_time for r in runs if r[2].device_time is not None]
out["k"] = sorted(ks | {r[1] for r in runs})
print(json.dumps(out))
"""
KEYS = ("host first", "host", "resident first", "resident", "compute")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.anchors", description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", help="a source tree to import gconn from (repeatable; default: "
                    "this one)")
    ap.add_argument("--anchors", help="the reference run's folder (default $GCONN_ANCHORS, else ../shared/anchors); "
                    "the real graphs come from $GCONN_DATA/graphs")
    ap.add_argument("--graphs", nargs="*", default=list(GRAPHS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=7, help="later calls per process")
    ap.add_argument("--cache", default=None, help="a folder for the graphs' arrays (default: a temporary one)")
    ap.add_argument("--out", default=None, help="write every figure as JSON here")
    a = ap.parse_args(argv)
    print(stamp(ap.prog, argv), flush=True)
    trees = a.tree or [this_tree()]
    _, refs = peers(a.anchors)
    with tempfile.TemporaryDirectory() as tmp:
        graphs = prepare(a.graphs, anchors=a.anchors, where=a.cache or tmp)
        results = {}
        for name, (n, s_path, d_path, want, k, k_host) in graphs.items():
            theirs = refs.get(name, {}).get("components", str(k)).replace(",", "")
            if str(k) != theirs:
                print(f"{name}: {k} components here, {theirs} in the reference run", flush=True)

            def run(t, warm):
                r = child_json(t, CHILD, n, s_path, d_path, 1 if warm else a.repeat, want)
                if r["k"] != sorted({k, k_host}):
                    raise SystemExit(f"{name}, {t}: {r['k']} components, SciPy {sorted({k, k_host})}")
                return r

            per = turns(trees, run, a.rounds)
            results[name] = {t: {key: Timing(v for x in rs for v in x[key]) if any(x[key] for x in rs) else None
                                 for key in KEYS} for t, rs in per.items()}
            print(_line(name, results[name], trees), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"trees": trees, "results": results}, f, indent=1)
    return results


def _line(name, res, trees):
    cols = []
    for key in KEYS:
        vals = [res[t][key] for t in trees]
        txt = " / ".join("-" if v is None else f"{v.scaled(1e3):.3f}" for v in vals)
        if len(trees) == 2 and None not in vals and vals[0]:
            txt += f" ({vals[1] / vals[0]:.2f}x)"
        cols.append(f"{key} {txt}")
    return f"{name:18s} ms: " + "; ".join(cols)


if __name__ == "__main__":
    main()
