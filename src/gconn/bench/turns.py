"""Compute time of variants on resident graphs, for source trees in turns:

    python -m gconn.bench.turns --tree OLD/src --tree src --backend cpu \\
        --graphs rmat:scale=18 grid:side=512 --variants auto none+sv kout+union-async+find-halve

Per tree and graph (a generator spec or a graph file), a fresh process builds the graph and its
adjacency, then times each variant (the median of ``--repeat`` calls after one); the trees take turns
``--rounds`` times, and the table gives each tree's median over rounds and their ratio.  The component
counts must agree.  ``--launched`` (GPU) times instead the run a first call launches from the host
(``pipeline.run``, CUDA events from an idle device; ``auto`` is the choice for launched runs);
``--host`` the whole call from the graph's edges as NumPy int32 arrays to NumPy labels (wall time);
``--forest`` spanning forests instead of components (the trees must agree on the forest's edge count);
``--idle S`` sleeps S seconds before each timed call, as a user's call comes after other work (the host's
threads idle, not back to back).  ``--batches SIZES`` times instead ``IncrementalConnectivity.insert`` of
the graph's first SIZES edges (shuffled; CuPy arrays on the GPU, device time) into a fresh structure of
n vertices, ``--variants`` naming incremental variants, beside the same batch into the backend's state
alone (the kernels; issue 57, goal 6: the API at least 80% of their throughput).
"""
from __future__ import annotations

import argparse
import math
import statistics

from gconn.bench.harness import child_json, spread, stamp, turns

_CHILD = r"""
import json, os, sys, time, statistics
import gconn
spec, backend, variants, repeat = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
launched, host, forest, idle = sys.argv[5] == "1", sys.argv[6] == "1", sys.argv[7] == "1", float(sys.argv[8])
sizes = [int(x) for x in sys.argv[9].split(",") if x]
problem = "forest" if forest else "cc"


def batches(g):
    # fresh structures of n vertices, each given the graph's first `size` edges (shuffled) in one insert
    import numpy as np
    from gconn.design import Variant
    import importlib
    be = importlib.import_module(f"gconn.backends.{backend}")
    s, d = g.edges()
    order = np.random.default_rng(5).permutation(s.size)
    dt = np.int32 if g.n < 2 ** 31 else np.int64
    s, d = (np.ascontiguousarray(a[order], dt) for a in (s, d))
    if backend == "gpu":
        import cupy
        s, d = cupy.asarray(s), cupy.asarray(d)
        e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
    out = {}
    for v in variants:
        for size in sizes:
            a, b = s[:size], d[:size]
            ic = gconn.IncrementalConnectivity(g.n, algorithm=v, backend=backend)
            ic.insert(a, b)
            k = ic.n_components
            for what in ("api", "kernels"):
                ts = []
                for r in range(repeat + 2):
                    if what == "api":
                        x = gconn.IncrementalConnectivity(g.n, algorithm=v, backend=backend)
                    else:
                        x = be.IncrementalState(Variant.parse(ic.variant.name, "incremental"), ic._state.id_dtype)
                        x.reserve(g.n)
                    if backend == "gpu":
                        be.sync(); time.sleep(idle); e0.record(); x.insert(a, b); e1.record(); e1.synchronize()
                        t = cupy.cuda.get_elapsed_time(e0, e1) / 1e3
                    else:
                        time.sleep(idle); t = time.perf_counter(); x.insert(a, b); t = time.perf_counter() - t
                    ts.append(t)
                out[f"{v} {what}, {size:,} edges"] = [statistics.median(ts[2:]), k]
    print(json.dumps(out))
    sys.exit(0)


def call(g, v):
    # the public call; what the trees must agree on: k, or the forest's n - k edges
    if forest:
        return int(gconn.spanning_forest(g, algorithm=v, backend=backend)[0].size)
    return int(gconn.connected_components(g, algorithm=v, backend=backend)[0])

g = gconn.load(spec) if os.path.exists(spec) else gconn.generators.from_spec(spec)
if sizes:
    batches(g)
if host:
    import numpy as np
    g = tuple(np.ascontiguousarray(a, np.int32) for a in g.edges())
else:
    if backend == "gpu":
        g = g.to_device()
    g.adjacency()
out = {}
for v in variants:
    k = call(g, v)
    ts = []
    if launched:
        import cupy
        from gconn import design, pipeline
        from gconn.backends import gpu
        try:
            auto = design.choose(g, problem, backend="gpu", launched=True)
        except TypeError:           # a tree from before the choice for launched runs
            auto = design.choose(g, problem, backend="gpu")
        plan = design.Plan.of(auto if v == "auto" else design.Variant.parse(v, problem))
        e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
        pipeline.run(g, plan, gpu, forest=forest)
        for _ in range(repeat):
            cupy.cuda.Device().synchronize()
            time.sleep(idle)
            e0.record(); pipeline.run(g, plan, gpu, forest=forest); e1.record(); e1.synchronize()
            ts.append(cupy.cuda.get_elapsed_time(e0, e1) / 1e3)
    for _ in range(0 if launched else repeat):
        time.sleep(idle)
        t = time.perf_counter(); call(g, v)
        if backend == "gpu":
            import cupy; cupy.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t)
    out[v] = [statistics.median(ts), k]
print(json.dumps(out))
"""


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.turns", description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, help="a source tree (repeatable)")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--graphs", nargs="+", default=["rmat:scale=18", "grid:side=512"],
                    help="generator specs (gconn generate --help)")
    ap.add_argument("--variants", nargs="+", default=["auto"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--launched", action="store_true", help="GPU: time the run a first call launches")
    ap.add_argument("--host", action="store_true", help="time calls from host arrays to host labels")
    ap.add_argument("--forest", action="store_true",
                    help="time spanning forests (gconn.spanning_forest; with --launched the forest's run)")
    ap.add_argument("--idle", type=float, default=0.0, metavar="S",
                    help="seconds of sleep before each timed call (default 0: back to back)")
    ap.add_argument("--batches", default="", metavar="SIZES",
                    help="comma list of batch sizes: time incremental inserts through the API and into the state")
    a = ap.parse_args(argv)
    sizes = [int(x) for x in a.batches.split(",") if x]
    if sizes and (a.launched or a.host or a.forest):
        ap.error("--batches times incremental inserts: not with --launched, --host or --forest")
    if a.launched and a.backend != "gpu":
        ap.error("--launched times GPU runs: add --backend gpu")
    if a.launched and a.host:
        ap.error("--launched times runs on a resident graph; --host, calls from host arrays: one or the other")
    print(stamp(ap.prog, argv) + "\n" + "\n".join(f"Tree {i + 1}: {t}" for i, t in enumerate(a.tree)) + "\n")
    print("Each tree's median over rounds (and the range of the rounds' medians), ms:\n")
    print(f"| graph | variant | {' | '.join(f'tree {i + 1}' for i in range(len(a.tree)))} | last / first |")
    print("|---|---|" + "--:|" * (len(a.tree) + 1))
    ratios, shares = [], {}
    for spec in a.graphs:
        meds = {}
        per = turns(a.tree, lambda t, _: child_json(t, _CHILD, spec, a.backend, ",".join(a.variants),
                                                    a.repeat, int(a.launched), int(a.host), int(a.forest), a.idle,
                                                    a.batches),
                    a.rounds, warmup=0)
        cases = [f"{v} {w}, {n:,} edges" for v in a.variants for n in sizes for w in ("api", "kernels")] or a.variants
        for v in cases:
            ks = {run[v][1] for t in a.tree for run in per[t]}
            if len(ks) != 1:
                raise SystemExit(f"{spec}, {v}: the trees disagree on the "
                                 f"{'forest edge' if a.forest else 'component'} count: {sorted(ks)}")
            runs = [[run[v][0] for run in per[t]] for t in a.tree]
            med = [statistics.median(r) for r in runs]
            if v.endswith(" edges"):
                meds[v] = med
            ratios.append(med[-1] / med[0])
            print(f"| {spec} | {v} | " + " | ".join(spread(r, 1e3, 2 if min(med) >= 1e-3 else 3) for r in runs)
                  + f" | {med[-1] / med[0]:.2f} |",
                  flush=True)
        for v in a.variants:
            for n in sizes:
                api, kern = meds[f"{v} api, {n:,} edges"], meds[f"{v} kernels, {n:,} edges"]
                for t in range(len(a.tree)):
                    shares[t, v, n] = kern[t] / api[t]
    print(f"\ngeomean of last / first: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} "
          f"({len(ratios)} cases)")
    if sizes:
        print("\nThe kernels' time over the API's, each tree: " + "; ".join(
            f"{v}, {n:,} edges: " + ", ".join(f"{shares[t, v, n]:.0%}" for t in range(len(a.tree)))
            for v in a.variants for n in sizes if (0, v, n) in shares))


if __name__ == "__main__":
    main()
