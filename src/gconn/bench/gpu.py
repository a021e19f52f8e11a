"""GPU benchmark: ``python -m gconn.bench.gpu [--quick] [--json PATH]``.

For each synthetic graph: the compute time of the automatic choice and of
the fastest variants of the paper's design space (graph resident on the
device, CUDA events around the static pipeline up to its roots, warm-up,
median of repeats), and the end-to-end time of the automatic choice and
of the fastest variant (host graph in, compact labels out).  Then the
incremental throughput of one batch holding every Kronecker edge (each
undirected edge counted once).  Prints a table last; the reference column
is GConn's kernel time on an H100 as measured with the paper's code.

Graphs (edges generated on the host by :mod:`gconn.generators`, the graph
built on the device with CuPy): Graph500 Kronecker scale 22 edge factor 16,
Barabasi-Albert 2^22 x 16, Erdos-Renyi 2^23 with average degree 16, a
4096^2 road-like grid keeping 70% of its edges, a 4096^2 triangle mesh, a
2^22-vertex path.  ``--quick`` shrinks every generated graph 64-fold (a
smoke test).  Then two real graphs of the data folder (``$GCONN_DATA``,
default ``../shared/data``) near the reference's "about 1M edges": wave
(a METIS finite-element mesh, 1.06M edges) and soc-Slashdot0902 (0.5M).

>>> from gconn.bench.gpu import GRAPHS
>>> sorted(GRAPHS)[:2]
['ba', 'er']
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from .. import generators as gen

def _real(file: str):
    """Edges of a real graph of the data folder (``$GCONN_DATA``); the same
    graph with ``--quick``."""
    def edges(quick):
        import gconn
        from .suites import data_dir
        path = data_dir() / file
        if not path.exists():
            raise ValueError(f"{path} not found: set GCONN_DATA to the real-graph folder or drop it from --graphs")
        g = gconn.load(path)
        return g.src, g.dst, g.n
    return edges


#: GConn's range for graphs of about 1M edges (the reference has no per-graph numbers)
REF_1M = "0.13-0.25"

#: name -> (description, edges(quick) -> (src, dst, n), reference ms)
GRAPHS = {
    "kron": ("Kronecker s22 ef16", lambda q: gen.kronecker_edges(16 if q else 22, 16, seed=1), 0.50),
    "ba": ("Barabasi-Albert 4M x16", lambda q: gen.barabasi_albert_edges(1 << (16 if q else 22), 16, seed=2),
           0.34),
    "er": ("Erdos-Renyi 8M d16", lambda q: gen.erdos_renyi_edges(1 << (17 if q else 23), 16, seed=3), 0.65),
    "grid": ("grid 4096^2 70%", lambda q: gen.grid_road_edges(512 if q else 4096, 0.7, seed=4), 2.30),
    "mesh": ("mesh 4096^2", lambda q: gen.triangle_mesh_edges(512 if q else 4096), 0.96),
    "path": ("path 4M", lambda q: gen.path_edges(1 << (16 if q else 22)), 0.50),
    "wave": ("wave (METIS mesh)", _real("graphs/wave.graph.gz"), REF_1M),
    "slashdot": ("soc-Slashdot0902", _real("graphs/soc-Slashdot0902.txt.gz"), REF_1M),
}

#: sampling x finish grid of the finishes the paper finds fastest (Sec. 4.6:
#: always one of UnionAsync, UnionRemCAS, ECL-CC)
VARIANTS = [f"{s}+{f}" for s in ("kout", "hb", "none")
            for f in ("union-async+find-compress", "union-async+find-halve",
                      "union-rem-cas+find-halve+splice", "union-rem-cas+find-split+split-one", "ecl-cc")]
INCREMENTAL = ("none+union-async+find-halve", "none+union-async+find-compress",
               "none+union-rem-cas+find-halve+splice", "none+union-jtb+find-two-try-split")


def _events():
    import cupy as cp
    return cp.cuda.Event(), cp.cuda.Event()


def _median_ms(fn, repeat: int, warmup: int) -> float:
    """Median device time of ``fn()`` over ``repeat`` runs, by CUDA events."""
    import cupy as cp
    for _ in range(warmup):
        fn()
    e0, e1 = _events()
    times = []
    for _ in range(repeat):
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1))
    return statistics.median(times)


def _host_ms(fn, repeat: int) -> float:
    """Median host time of ``fn()`` without waiting for the device: when it
    is close to the device time, launches (Python) bound the run."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    import cupy as cp
    cp.cuda.Device().synchronize()
    return statistics.median(times)


def launch_overhead(log, launches: int = 2000) -> None:
    """Host microseconds per launch of a small kernel by argument kind, and
    per view made; the numbers behind :func:`gconn.gpu._compat.view`."""
    import cupy as cp

    from gconn.gpu import _compat, ops  # noqa: F401  (ops registers root_min)
    from gconn.gpu.launch import dtypes_key, get
    kern = get("root_min", (), dtypes_key("int32", "int32", "int32"))
    roots = cp.zeros(1024, cp.int32)
    mins = cp.full(1024, 1024, cp.int32)
    kinds = [("gconn view", _compat.view), ("numba as_cuda_array", lambda a: _compat.cuda.as_cuda_array(a, sync=False)),
             ("CuPy array", lambda a: a)]
    for label, conv in kinds:
        r, m = conv(roots), conv(mins)
        cfg = kern[4, 256]
        cfg(r, 1024, m)
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(launches):
            cfg(r, 1024, m)
        cp.cuda.Device().synchronize()
        per_launch = (time.perf_counter() - t0) / launches * 1e6
        t0 = time.perf_counter()
        for _ in range(launches):
            conv(roots)
        per_view = (time.perf_counter() - t0) / launches * 1e6
        log(f"launch with {label:20s}: {per_launch:6.1f} us per launch, {per_view:6.1f} us per view")


def _e2e_ms(hg, name: str, repeat: int) -> float:
    import gconn
    times = []
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        k, labels = gconn.connected_components(hg, algorithm=name, backend="gpu")
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times[1:])


def bench_graph(key: str, quick: bool, repeat: int, warmup: int, log) -> list:
    import cupy as cp

    import gconn
    from gconn import design, gpu, pipeline
    from gconn.graph import Graph

    desc, edges, ref = GRAPHS[key]
    t0 = time.perf_counter()
    s, d, n = edges(quick)
    dg = Graph.from_edges(cp.asarray(s), cp.asarray(d), n)
    del s, d
    hg = dg.to_host()
    log(f"{desc}: n={dg.n} m={dg.m} built in {time.perf_counter() - t0:.1f} s")
    auto = design.choose(dg, "cc", backend="gpu", hb_coverage=gpu.hb_coverage)
    rows = []
    for name in [auto.name] + [v for v in VARIANTS if v != auto.name]:
        plan = design.Plan.of(design.Variant.parse(name))
        ms = _median_ms(lambda: pipeline.run(dg, plan, gpu), repeat, warmup)
        rows.append(dict(graph=desc, n=dg.n, m=dg.m, variant=name, auto=name == auto.name, compute_ms=ms,
                         e2e_ms=None, ref_ms=ref))
        log(f"  {name:45s} {ms:8.3f} ms")
    best = min(rows, key=lambda r: r["compute_ms"])
    for r in {id(rows[0]): rows[0], id(best): best}.values():
        r["e2e_ms"] = _e2e_ms(hg, r["variant"], 3)
    best_plan = design.Plan.of(design.Variant.parse(best["variant"]))
    host = _host_ms(lambda: pipeline.run(dg, best_plan, gpu), repeat)
    log(f"  host time of {best['variant']} (no waiting): {host:.3f} ms")
    _, _, st = gconn.connected_components(dg, algorithm=best["variant"], return_stats=True)
    log("  phases (synchronized, ms): " + ", ".join(f"{p}={t * 1e3:.3f}" for p, t in st.phase_times.items())
        + f"; Cov={st.coverage}, IC={st.inter_component}")
    dg = hg = None  # free the device graph before the next one
    cp.get_default_memory_pool().free_all_blocks()
    return rows


def bench_incremental(quick: bool, repeat: int, warmup: int, log) -> list:
    import cupy as cp

    from gconn import design, gpu, pipeline
    from gconn.graph import Graph

    s, d, n = GRAPHS["kron"][1](quick)
    dg = Graph.from_edges(cp.asarray(s), cp.asarray(d), n)
    rows = []
    for name in INCREMENTAL:
        v = design.Variant.parse(name, "incremental")
        states = []

        def fresh():
            st = gpu.IncrementalState(v, dg.id_dtype)
            st.reserve(dg.n)
            states.append(st)

        def one_batch():
            states[-1].insert(dg.src, dg.dst)

        times = []
        for i in range(warmup + repeat):
            fresh()
            cp.cuda.Device().synchronize()
            ms = _median_ms(one_batch, 1, 0)
            if i >= warmup:
                times.append(ms)
            states.clear()
        ms = statistics.median(times)
        rows.append(dict(graph="Kronecker batch", n=dg.n, m=dg.m, variant=name, compute_ms=ms,
                         edges_per_s=dg.m / (ms / 1e3)))
        log(f"  incremental {name:40s} {ms:8.3f} ms  {dg.m / (ms / 1e3):.3e} edges/s")
    return rows


def table(rows: list, inc: list) -> str:
    out = ["| graph | n | m | variant | compute ms | end-to-end ms | GConn ref ms |",
           "|---|---:|---:|---|---:|---:|---:|"]
    for r in rows:
        name = r["variant"] + (" (auto)" if r["auto"] else "")
        e2e = f"{r['e2e_ms']:.1f}" if r["e2e_ms"] is not None else ""
        ref = r["ref_ms"] if isinstance(r["ref_ms"], str) else f"{r['ref_ms']:.2f}"
        out.append(f"| {r['graph']} | {r['n']} | {r['m']} | {name} | {r['compute_ms']:.3f} | {e2e} | {ref} |")
    out += ["", "| incremental, one batch of every Kronecker edge | m | compute ms | edges/s (ref 2.4e10) |",
            "|---|---:|---:|---:|"]
    for r in inc:
        out.append(f"| {r['variant']} | {r['m']} | {r['compute_ms']:.3f} | {r['edges_per_s']:.3e} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.gpu", description="GPU benchmark of gconn")
    ap.add_argument("--quick", action="store_true", help="graphs 64x smaller (smoke test)")
    ap.add_argument("--graphs", default=",".join(GRAPHS), help=f"comma list of {', '.join(GRAPHS)}")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--json", help="write all rows to this file")
    args = ap.parse_args(argv)
    from gconn import gpu
    ok, why = gpu.available(simulator_ok=False)
    if not ok:
        print(f"no GPU: {why}", file=sys.stderr)
        return 2
    print(f"device: {why}", flush=True)

    def log(msg):
        print(msg, flush=True)

    launch_overhead(log)
    rows = []
    for key in args.graphs.split(","):
        rows += bench_graph(key.strip(), args.quick, args.repeat, args.warmup, log)
    inc = bench_incremental(args.quick, args.repeat, args.warmup, log)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"static": rows, "incremental": inc}, f, indent=1)
    # the best few per graph and the automatic choice, last
    shown = []
    for g in dict.fromkeys(r["graph"] for r in rows):
        mine = [r for r in rows if r["graph"] == g]
        shown += [r for r in mine if r["auto"]]
        shown += sorted((r for r in mine if not r["auto"]), key=lambda r: r["compute_ms"])[:3]
    print()
    print(table(shown, inc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
