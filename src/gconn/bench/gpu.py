"""GPU benchmark, the paper's evaluation: ``gconn bench --gpu [OPTIONS]`` (also
``python -m gconn.bench.gpu``).

Per graph, resident on the device (CUDA events, median of repeats, each run launched from the
host and replayed from its CUDA graph): the static table (the paper's Table 3: samplings x the
fastest finishes, and the automatic choice), the sampling table (Table 4: time share, Cov, IC),
end to end from resident, host and CuPy-pair inputs, and incremental throughput; then
incremental throughput on Kronecker against the batch size and the share of inserts, as plots.
``--quick`` shrinks the generated graphs 64-fold; ``--tiny`` makes them a few dozen edges for
numba's CUDA simulator (times mean nothing).  ``--out DIR`` writes gpu.json, gpu.md, the plots.

>>> from gconn.bench.gpu import GRAPHS
>>> sorted(GRAPHS)[:2]
['ba', 'er']
"""
from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from gconn.bench.harness import md_table, median_time, turns
from gconn.graph import generators as gen

FULL, QUICK, TINY = 0, 1, 2


def _real(file: str):
    """A real graph of ``$GCONN_DATA`` at every size but ``--tiny``."""
    def edges(size):
        if size == TINY:
            return None
        import gconn
        from gconn.bench.suites import data_dir
        path = data_dir() / file
        if not path.exists():
            raise ValueError(f"{path} not found: set GCONN_DATA to the real-graph folder or drop it from --graphs")
        g = gconn.load(path)
        return g.src, g.dst, g.n
    return edges


def _sized(make, full, quick, tiny):
    return lambda size: make((full, quick, tiny)[size])


def _ids_shuffled(edges, seed: int = 6):
    """The same graph with its vertex ids permuted at random (no locality in the ids)."""
    def shuffled(size):
        src, dst, n = edges(size)
        perm = np.random.default_rng(seed).permutation(n).astype(src.dtype)
        return perm[src], perm[dst], n
    return shuffled


_GRID = _sized(lambda s: gen.grid_road_edges(s, 0.7, seed=4), 4096, 512, 5)
#: name -> (description, edges(size) -> (src, dst, n) or None, best reference ms, GConn's incremental
#: throughput in 1e9 edges/s).  The references are the best of the paper's code (12 variants) and
#: ECL-CC on the same H100, compute only (issue 12).
GRAPHS = {
    "kron": ("Kronecker s22 ef16",
             _sized(lambda s: gen.kronecker_edges(s, 16 if s > 4 else 2, seed=1), 22, 16, 4), 0.507, 24.6),
    "ba": ("Barabasi-Albert 4M x16",
           _sized(lambda s: gen.barabasi_albert_edges(1 << s, 16 if s > 4 else 2, seed=2), 22, 16, 4), 0.346, 25.2),
    "er": ("Erdos-Renyi 8M d16", _sized(lambda s: gen.erdos_renyi_edges(1 << s, 16 if s > 4 else 2, seed=3),
                                        23, 17, 5), 0.694, 18.3),
    "grid": ("grid 4096^2 70%", _GRID, 1.798, None),
    "grid-shuffled": ("grid 4096^2 70%, ids shuffled", _ids_shuffled(_GRID), 2.094, None),
    "mesh": ("mesh 4096^2", _sized(gen.triangle_mesh_edges, 4096, 512, 4), 0.974, 7.6),
    "path": ("path 4M", _sized(gen.path_edges, 1 << 22, 1 << 16, 24), 0.395, None),
    "wave": ("wave (METIS mesh)", _real("graphs/wave.graph.gz"), 0.140, 2.7),
    "slashdot": ("soc-Slashdot0902", _real("graphs/soc-Slashdot0902.txt.gz"), 0.103, 2.7),
    "porto": ("porto_osm", _real("graphs/porto_osm.el.gz"), 0.102, None),
}

SAMPLINGS = ("none", "kout", "hb", "bfs")
#: the finishes the paper finds fastest (Sec. 4.6: UnionAsync, UnionRemCAS, ECL-CC), and the automatic
#: choice after k-out
FINISHES = ("union-async+find-halve", "union-async+find-compress", "union-rem-cas+find-halve+splice",
            "union-rem-cas+find-naive+splice", "union-rem-cas+find-split+split-one", "ecl-cc")
INCREMENTAL = ("none+union-async+find-halve", "none+union-async+find-compress",
               "none+union-rem-cas+find-halve+splice", "none+union-jtb+find-two-try-split")
SAMPLING_FINISH = "union-async+find-halve"
#: repeats of the end-to-end timings and the compute beside them (at least)
E2E_REPEAT = 21
BATCHES = tuple(10 ** e for e in range(3, 9))
INSERT_SHARES = (0.1, 0.25, 0.5, 0.75, 0.9)


def _sim() -> bool:
    from gconn.backends.gpu._compat import SIM
    return SIM


def _xp():
    from gconn.backends.gpu._compat import xp
    return xp


def _sync():
    from gconn.backends.gpu import sync
    sync()


def _median_ms(fn, repeat: int, warmup: int) -> float:
    """Median device ms of ``fn()`` over ``repeat`` runs: CUDA events (the wall clock in the simulator)."""
    if _sim():
        return 1e3 * median_time(fn, repeat, warmup)
    for _ in range(warmup):
        fn()
    times = []
    import cupy as cp
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(repeat):
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1))
    return statistics.median(times)


def _once_ms(fn) -> float:
    """Wall ms of one call of ``fn()`` from an idle device until the device is done; what it
    returns is dropped after the clock stops, as a caller keeps a call's labels."""
    _sync()
    t0 = time.perf_counter()
    out = fn()
    _sync()
    ms = (time.perf_counter() - t0) * 1e3
    del out
    return ms


def _wall_ms(fn, repeat: int, warmup: int = 1, idle: float = 0.0) -> float:
    """Median :func:`_once_ms` of ``repeat`` calls after ``warmup``, each after sleeping ``idle`` s."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        if idle:
            time.sleep(idle)
        times.append(_once_ms(fn))
    return statistics.median(times)


def _paired_ms(yardstick, fn, repeat: int, warmup: int = 1) -> tuple[float, float, float]:
    """``yardstick`` and ``fn`` in :func:`turns` (the host's memory bandwidth drifts over seconds):
    (median of the yardstick, median of ``fn``, median of the rounds' ratios)."""
    ys, ts = turns((yardstick, fn), lambda f, _: _once_ms(f), repeat, warmup).values()
    return statistics.median(ys), statistics.median(ts), statistics.median(t / y for t, y in zip(ts, ys))


def _replayed_ms(dg, plan, repeat: int, warmup: int):
    """Median device ms of the run replayed from its CUDA graph (as later calls run), or None
    where it cannot be captured and in the simulator."""
    if _sim():
        return None
    from gconn.backends import gpu
    from gconn import pipeline
    from gconn.backends.gpu import replay
    try:
        captured = replay.capture(lambda: pipeline.run(dg, plan, gpu)[:1])
    except Exception:
        return None
    return _median_ms(captured.launch, repeat, warmup)


def launch_overhead(log, launches: int = 2000) -> dict:
    """Host us per launch of a small kernel: gconn's direct driver launch and numba-cuda's dispatcher."""
    from gconn.backends.gpu import launch as L
    from gconn.backends.gpu import ops  # noqa: F401  (registers root_min)
    from gconn.backends.gpu._compat import view
    xp = _xp()
    kern = L.get("root_min", (), L.dtypes_key("int32", "int32", "int32"))
    roots, mins = view(xp.zeros(1024, xp.int32)), view(xp.full(1024, 1024, xp.int32))
    out = {}
    direct = L.DIRECT
    try:
        for label, mode in (("numba dispatcher", False), ("direct", True)):
            L.DIRECT = mode
            L.launch(kern, 1024, roots, 1024, mins)
            _sync()
            t0 = time.perf_counter()
            for _ in range(launches):
                L.launch(kern, 1024, roots, 1024, mins)
            out[label] = (time.perf_counter() - t0) / launches * 1e6
            _sync()
            log(f"launch through {label:17s}: {out[label]:6.1f} us host time per launch")
    finally:
        L.DIRECT = direct
    return out


def _graphs(key: str, size: int):
    """(host graph, device graph) or None where the graph has no such size."""
    from gconn.graph import Graph
    xp = _xp()
    e = GRAPHS[key][1](size)
    if e is None:
        return None
    s, d, n = e
    dg = Graph.from_edges(xp.asarray(s), xp.asarray(d), n)
    return dg.to_host(), dg


def _fresh_ms(v, dg, fn, repeat: int, warmup: int) -> float:
    """Median device ms of ``fn(state)`` on a fresh incremental structure each run."""
    from gconn.backends import gpu

    def once():
        st = gpu.IncrementalState(v, dg.id_dtype)
        st.reserve(dg.n)
        return _median_ms(lambda: fn(st), 1, 0)

    return statistics.median([once() for _ in range(warmup + repeat)][warmup:])


def _shuffled(dg, seed: int = 5):
    """Every undirected edge once, in random order."""
    xp = _xp()
    perm = xp.asarray(np.random.default_rng(seed).permutation(dg.m))
    return xp.ascontiguousarray(dg.src[perm]), xp.ascontiguousarray(dg.dst[perm])


def bench_graph(key: str, size: int, repeat: int, warmup: int, log, finishes=FINISHES,
                incremental=INCREMENTAL) -> dict | None:
    import gconn
    from gconn import design, pipeline
    from gconn.backends import gpu

    desc, _, ref, inc_ref = GRAPHS[key]
    t0 = time.perf_counter()
    built = _graphs(key, size)
    if built is None:
        log(f"{desc}: skipped at this size")
        return None
    hg, dg = built
    # dg.m builds the canonical form and adjacency, as a graph loaded from a file has
    log(f"{desc}: n={dg.n} m={dg.m} built in {time.perf_counter() - t0:.1f} s")
    auto = design.choose(dg, "cc", backend="gpu").name
    names = [f"{s}+{f}" for s in SAMPLINGS for f in finishes]
    static = []
    for name in dict.fromkeys([auto] + names):
        plan = design.Plan.of(design.Variant.parse(name))
        ms = _median_ms(lambda: pipeline.run(dg, plan, gpu), repeat, warmup)
        rep = _replayed_ms(dg, plan, repeat, warmup)
        static.append(dict(variant=name, auto=name == auto, compute_ms=ms, replayed_ms=rep,
                           run_ms=ms if rep is None else rep))
        log(f"  {name:45s} {ms:8.3f} ms launched, {_f(rep) or '-':>8s} ms replayed")
    best = min(static, key=lambda r: r["run_ms"])
    auto_ms = static[0]["run_ms"]
    row = dict(key=key, graph=desc, n=dg.n, m=dg.m, ref_ms=ref, auto=auto, auto_ms=auto_ms,
               best=best["variant"], best_ms=best["run_ms"], auto_over_best=auto_ms / best["run_ms"],
               static=static)
    # end to end from the resident graph (the first two calls capture, the timed ones replay), beside
    # the replayed compute timed with as many repeats, and from the host graph
    warm = max(warmup, 2)
    reps = repeat if _sim() else max(repeat, E2E_REPEAT)
    beside = _replayed_ms(dg, design.Plan.of(design.Variant.parse(auto)), reps, warm)
    row["e2e_compute_ms"] = auto_ms if beside is None else beside
    row["e2e_device_ms"] = _wall_ms(lambda: gconn.connected_components(dg, algorithm=auto), reps, warm)
    row["e2e_device_compute_ms"] = _median_ms(lambda: gconn.connected_components(dg, algorithm=auto), reps,
                                              warm)
    # the same edges as a resident CuPy pair, and as a resident Graph whose adjacency is not built
    from gconn.graph import Graph
    xp = _xp()
    pair = xp.ascontiguousarray(dg.src), xp.ascontiguousarray(dg.dst)
    lazy = Graph.from_edges(*pair, n=dg.n)
    row["e2e_lazy_ms"], row["e2e_pair_ms"], row["pair_over_lazy"] = _paired_ms(
        lambda: gconn.connected_components(lazy), lambda: gconn.connected_components(pair), reps, warm)
    # two warm-ups: a host graph's first calls on a fresh machine are far slower
    row["e2e_host_ms"] = _wall_ms(lambda: gconn.connected_components(hg, algorithm=auto, backend="gpu"), 5, 2)
    log(f"  auto {auto}: compute {auto_ms:.3f} ms, end to end from the device graph {row['e2e_device_ms']:.3f} ms "
        f"(device time {row['e2e_device_compute_ms']:.3f}; {row['e2e_device_ms'] - row['e2e_compute_ms']:+.3f} over "
        f"the compute beside it), from the host graph {row['e2e_host_ms']:.1f} ms, from its edges as a CuPy pair "
        f"{row['e2e_pair_ms']:.3f} ms ({row['e2e_pair_ms'] / row['e2e_device_ms']:.2f}x the device graph; "
        f"{row['pair_over_lazy']:.2f}x a device graph of the pair, adjacency not built, timed in turns: "
        f"{row['e2e_lazy_ms']:.3f} ms)")
    row["sampling"] = []
    for smp in SAMPLINGS[1:]:
        name = f"{smp}+{SAMPLING_FINISH}"
        # the first run with statistics compiles CuPy's counting kernels
        for _ in range(2):
            _, _, st = gconn.connected_components(dg, algorithm=name, return_stats=True)
        total = sum(st.phase_times.get(p, 0.0) for p in ("sample", "lmax", "finish", "finalize"))
        share = st.phase_times.get("sample", 0.0) / total if total else 0.0
        row["sampling"].append(dict(variant=name, share=share, cov=st.coverage, ic=st.inter_component))
        log(f"  {name:45s} sampling {100 * share:5.1f}% of the run, Cov {st.coverage:.3f}, "
            f"IC {st.inter_component:.3f}")
    src, dst = _shuffled(dg)
    row["incremental_ref"] = inc_ref
    row["incremental"] = []
    for name in incremental:
        ms = _fresh_ms(design.Variant.parse(name, "incremental"), dg, lambda st: st.insert(src, dst), repeat, warmup)
        row["incremental"].append(dict(variant=name, ms=ms, edges_per_s=dg.m / (ms / 1e3)))
        log(f"  incremental {name:40s} {ms:8.3f} ms  {dg.m / (ms / 1e3):.3e} edges/s")
    hg = dg = None  # frees the device graph before the next one
    if not _sim():
        _xp().get_default_memory_pool().free_all_blocks()
    return row


def bench_incremental_curves(size: int, repeat: int, warmup: int, log, variants=INCREMENTAL,
                             batches=BATCHES, shares=INSERT_SHARES) -> dict:
    """Kronecker: throughput against the batch size (up to 100 consecutive batches on one
    structure) and against the share of inserts in one mixed batch of every edge."""
    from gconn import design
    from gconn.backends import gpu
    xp = _xp()
    _, dg = _graphs("kron", size)
    src, dst = _shuffled(dg)
    m = dg.m
    out = dict(m=m, batch=[], mixed=[])
    rng = np.random.default_rng(6)
    mixes = []
    for share in shares:
        kinds = xp.asarray((rng.random(m) >= share).astype(np.int8))
        q = xp.asarray(rng.integers(0, dg.n, m).astype(dg.id_dtype))
        mixes.append((share, kinds, xp.ascontiguousarray(xp.where(kinds == 1, q, src)),
                      xp.ascontiguousarray(xp.where(kinds == 1, xp.roll(q, 1), dst))))
    for name in variants:
        v = design.Variant.parse(name, "incremental")
        for b in batches:
            b = min(b, m)
            count = max(1, min(m // b, 100))

            def run_batches():
                st = gpu.IncrementalState(v, dg.id_dtype)
                st.reserve(dg.n)
                for i in range(count):
                    st.insert(src[i * b:(i + 1) * b], dst[i * b:(i + 1) * b])

            ms = _median_ms(run_batches, repeat, warmup)
            out["batch"].append(dict(variant=name, batch=b, batches=count, edges_per_s=b * count / (ms / 1e3)))
            log(f"  {name:40s} batch {b:>10d} x{count:<4d} {b * count / (ms / 1e3):.3e} edges/s")
            if b == m:
                break
        for share, kinds, qs, qd in mixes:
            ms = _fresh_ms(v, dg, lambda st: st.mixed(kinds, qs, qd), repeat, warmup)
            out["mixed"].append(dict(variant=name, insert_share=share, ops_per_s=m / (ms / 1e3)))
            log(f"  {name:40s} inserts {100 * share:3.0f}% {m / (ms / 1e3):.3e} ops/s")
    return out


def plots(curves: dict, out_dir) -> list:
    """incremental_batch.png and incremental_ratio.png; [] without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return []
    written = []
    for fname, rows, x, y, xlabel, ylabel, logx in (
            ("incremental_batch.png", curves["batch"], "batch", "edges_per_s", "batch size (edges)",
             "edges / s", True),
            ("incremental_ratio.png", curves["mixed"], "insert_share", "ops_per_s", "share of inserts in the batch",
             "operations / s", False)):
        fig = Figure(figsize=(6.5, 4))
        ax = fig.subplots()
        for name in dict.fromkeys(r["variant"] for r in rows):
            mine = [r for r in rows if r["variant"] == name]
            ax.plot([r[x] for r in mine], [r[y] for r in mine], marker="o", label=name)
        if logx:
            ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(f"incremental, Kronecker ({curves['m']} edges)")
        ax.legend(fontsize="small")
        fig.savefig(out_dir / fname, dpi=110, bbox_inches="tight")
        written.append(fname)
    return written


def _f(x, fmt=".3f") -> str:
    return "" if x is None else format(x, fmt)


def _curve(rows, x: str, y: str, head) -> str:
    """A variant per row, a value of ``x`` per column, ``y`` in 1e9 per second."""
    xs = list(dict.fromkeys(r[x] for r in rows))
    cells = []
    for name in dict.fromkeys(r["variant"] for r in rows):
        rates = {r[x]: r[y] / 1e9 for r in rows if r["variant"] == name}
        cells.append([name, *(_f(rates.get(v), ".2f") for v in xs)])
    return md_table(["variant", *(f"{head(v)}:" for v in xs)], cells)


def report(rows: list, curves: dict | None, launch_us: dict) -> str:
    """The Markdown tables of :func:`bench_graph`'s rows and :func:`bench_incremental_curves`.

    >>> report([], None, {"direct": 7.6}).splitlines()[0]
    'Host time per kernel launch: direct 7.6 us'
    """
    out = []
    if launch_us:
        out.append("Host time per kernel launch: " + ", ".join(f"{k} {v:.1f} us" for k, v in launch_us.items()))
        out.append("")
    names = list(dict.fromkeys(r["variant"] for row in rows for r in row["static"]))
    static = []
    for name in names:
        cells = [name]
        for row in rows:
            r = next((r for r in row["static"] if r["variant"] == name), None)
            cell = "" if r is None else f"{r['compute_ms']:.3f} / {_f(r.get('replayed_ms')) or '-'}"
            cells.append(f"**{cell}**" if r is not None and name == row["best"] else cell)
        static.append(cells)
    out += ["Static compute ms (Table 3; graph resident, median): launched from the host (a first call) / "
            "replayed from its CUDA graph (later calls; - where the run reads values back and is not captured); "
            "the best per graph in bold:", "", md_table(["variant", *(f"{row['key']}:" for row in rows)], static)]
    out += ["", "Best (as later calls run: replayed where captured), automatic choice and references (ms); the "
            "graphs have their canonical form and adjacency, as a graph loaded from a file or a matrix has:", "",
            md_table(["graph", "m:", "best variant", "best:", "reference:", "best / ref:", "auto", "auto / best:",
                      "end to end, device graph:", "over the compute beside it:", "its device time:",
                      "end to end, host graph:", "end to end, CuPy pair:", "pair / device graph:",
                      "pair / its graph, adjacency not built (in turns):"],
                     [[row["graph"], row["m"], row["best"], f"{row['best_ms']:.3f}", f"{row['ref_ms']:.3f}",
                       f"{row['best_ms'] / row['ref_ms']:.2f}", f"{row['auto']} ({row['auto_ms']:.3f})",
                       f"{row['auto_over_best']:.2f}", f"{row['e2e_device_ms']:.3f}",
                       f"{row['e2e_device_ms'] - row['e2e_compute_ms']:+.3f}", f"{row['e2e_device_compute_ms']:.3f}",
                       f"{row['e2e_host_ms']:.1f}", f"{row['e2e_pair_ms']:.3f}",
                       f"{row['e2e_pair_ms'] / row['e2e_device_ms']:.2f}", f"{row['pair_over_lazy']:.2f}"]
                      for row in rows])]
    out += ["", f"Sampling (Table 4; finish {SAMPLING_FINISH}; share of the synchronized run):", "",
            md_table(["graph", "sampling", "time share:", "Cov:", "IC:"],
                     [[row["key"], r["variant"].split("+")[0], f"{100 * r['share']:.1f}%", f"{r['cov']:.3f}",
                       f"{r['ic']:.3f}"] for row in rows for r in row["sampling"]])]
    inc = list(dict.fromkeys(r["variant"] for row in rows for r in row["incremental"]))
    rates = [{r["variant"]: r["edges_per_s"] / 1e9 for r in row["incremental"]} for row in rows]
    out += ["", "Incremental, one batch of every edge in random order (1e9 edges/s):", "",
            md_table(["graph", *(f"{v}:" for v in inc), "GConn:"],
                     [[row["key"], *(_f(rate.get(v), ".2f") for v in inc), _f(row["incremental_ref"], ".1f")]
                      for row, rate in zip(rows, rates)])]
    if curves:
        out += ["", f"Incremental on Kronecker ({curves['m']} edges) against the batch size (1e9 edges/s):", "",
                _curve(curves["batch"], "batch", "edges_per_s", str), "",
                "Against the share of inserts in one mixed batch of every edge (1e9 ops/s):", "",
                _curve(curves["mixed"], "insert_share", "ops_per_s", lambda s: f"{100 * s:.0f}%")]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="gconn bench --gpu", description="the GPU evaluation of gconn (the paper's)")
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="generated graphs 64x smaller (a smoke test)")
    size.add_argument("--tiny", action="store_true",
                      help="generated graphs of a few dozen edges, for the CUDA simulator (times mean nothing)")
    ap.add_argument("--graphs", default=",".join(GRAPHS), help=f"comma list of {', '.join(GRAPHS)}")
    ap.add_argument("--finishes", default=",".join(FINISHES), help="comma list of the static table's finishes")
    ap.add_argument("--incremental", default=",".join(INCREMENTAL), help="comma list of incremental variants")
    ap.add_argument("--no-curves", action="store_true", help="skip the incremental curves (batch size, inserts)")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", help="folder for gpu.json, gpu.md and the plots")
    ap.add_argument("--json", help="write all rows to this file")
    args = ap.parse_args(argv)
    from gconn.backends import gpu
    ok, why = gpu.available(simulator_ok=args.tiny)
    if not ok:
        print(f"no GPU: {why}", file=sys.stderr)
        return 2
    print(f"device: {why}", flush=True)
    size = TINY if args.tiny else QUICK if args.quick else FULL
    log = functools.partial(print, flush=True)
    launch_us = {} if _sim() else launch_overhead(log)
    finishes = tuple(f for f in args.finishes.split(",") if f)
    incremental = tuple(v for v in args.incremental.split(",") if v)
    keys = [k.strip() for k in args.graphs.split(",") if k.strip()]
    for key in keys:
        if key not in GRAPHS:
            ap.error(f"unknown graph {key!r}; choose from {', '.join(GRAPHS)}")

    def write(rows, curves, final):
        # after every graph, so that a run cut off by a time limit keeps what it measured

        result = {"launch_us": launch_us, "graphs": rows, "curves": curves}
        text = report(rows, curves, launch_us)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1)
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / "gpu.json").write_text(json.dumps(result, indent=1))
            (out / "gpu.md").write_text(text + "\n")
            if final:
                written = ["gpu.json", "gpu.md"] + (plots(curves, out) if curves else [])
                log(f"wrote {', '.join(str(out / w) for w in written)}")
        return text

    rows = []
    for key in keys:
        row = bench_graph(key, size, args.repeat, args.warmup, log, finishes, incremental)
        if row is not None:
            rows.append(row)
            write(rows, None, False)
    curves = None
    if not args.no_curves:
        batches = BATCHES if size == FULL else (10, 100, 1000) if size == TINY else BATCHES[:4]
        shares = INSERT_SHARES if size != TINY else (0.5,)
        curves = bench_incremental_curves(size, args.repeat, args.warmup, log, incremental, batches, shares)
    text = write(rows, curves, True)
    print()
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
