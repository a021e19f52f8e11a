"""GPU benchmark, the paper's evaluation on the graphs of the side-by-side reference run:
``gconn bench --gpu [OPTIONS]`` (also ``python -m gconn.bench.gpu``).

The graphs are those of ``../shared/anchors/README.md``: the generated ones built by that folder's
``graphs.py`` (``--anchors`` or ``$GCONN_ANCHORS``), the real ones read from ``data_dir()/graphs``, each
edge once without self loops, as the reference run timed them.  Per graph, resident on the device (CUDA
events, median of repeats): the static table (the paper's Table 3: samplings x the fastest finishes, and the
automatic choice), each variant launched from the host (a first call) and replayed from its CUDA graph (a
repeated call), its labels checked against SciPy's (a wrong one fails the run); the peers' figures from the
reference run beside gconn's, with their GPU and date; the sampling table (Table 4: time share, Cov, IC); end
to end from the resident graph, a CuPy pair and NumPy arrays (beside a pinned copy of the arrays); incremental
throughput; then incremental throughput on Kronecker against the batch size and the share of inserts.
``--quick`` shrinks the generated graphs 64-fold (no peer ratios); ``--tiny`` makes a few dozen edges with
gconn's generators, for numba's CUDA simulator (times mean nothing).  ``--out DIR`` writes gpu.json, gpu.md
and the plots.

>>> sorted(GRAPHS)[:2]
['ba_s22_k16', 'kron_s22']
"""
from __future__ import annotations

import argparse
import datetime
import functools
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from gconn.bench.harness import Timing, json_timings, machine, md_table, same_partition, time_calls, turns
from gconn.bench.suites import data_dir

FULL, QUICK, TINY = 0, 1, 2
#: the reference run's graphs: the generated ones by their gconn generator spec at ``--tiny`` (the same
#: shape, a few dozen edges), the real ones by their file under ``data_dir()/graphs``
GRAPHS = {"kron_s22": "kron:4,ef=2", "ba_s22_k16": "ba:16,2", "uniform_s23_d16": "er:32,2", "mesh_4k": "mesh:4",
          "road_4k": "grid:5", "road_4k_shuf": "grid:5,seed=1", "path_s22": "path:24",
          "wave": "wave.graph.gz", "soc-Slashdot0902": "soc-Slashdot0902.txt.gz", "porto_osm": "porto_osm.el.gz"}
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


def anchors_dir(path=None) -> Path:
    """The reference run's folder: ``path``, ``$GCONN_ANCHORS``, else ``anchors`` beside :func:`data_dir`."""
    return Path(path or os.environ.get("GCONN_ANCHORS") or data_dir().parent / "anchors")


def _module(folder: Path):
    path = folder / "graphs.py"
    if not path.exists():
        raise SystemExit(f"{path} not found: pass --anchors (or set GCONN_ANCHORS) to the reference run's folder")
    spec = importlib.util.spec_from_file_location("gconn_anchor_graphs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _shrunk(kw: dict) -> dict:
    """A generator's parameters for a graph 64 times smaller."""
    out = dict(kw)
    for key, f in (("scale", lambda v: v - 6), ("n", lambda v: v >> 6), ("width", lambda v: v >> 3),
                   ("height", lambda v: v >> 3)):
        if key in out:
            out[key] = f(out[key])
    return out


def canonical(n: int, src, dst):
    """Each undirected edge once as ``(lo, hi)``, sorted, self loops dropped (what the reference run timed).

    >>> [a.tolist() for a in canonical(3, np.array([2, 1, 0, 1]), np.array([1, 2, 0, 0]))]
    [[0, 1], [1, 2]]
    """
    s, d = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    keep = s != d
    key = np.unique(np.minimum(s, d)[keep] * n + np.maximum(s, d)[keep])
    return (key // n).astype(np.int32), (key % n).astype(np.int32)


def graph_edges(name: str, size: int = FULL, anchors=None):
    """``(n, src, dst)`` of one of :data:`GRAPHS` as the reference run timed it, NumPy int32; None for a
    real graph at ``--tiny``.

    >>> n, s, d = graph_edges("path_s22", TINY)
    >>> n, s.size
    (24, 23)
    """
    what = GRAPHS[name]
    if what.endswith(".gz"):
        if size == TINY:
            return None
        import gconn
        path = data_dir() / "graphs" / what
        if not path.exists():
            raise SystemExit(f"{path} not found: set GCONN_DATA to the real-graph folder or drop it from --graphs")
        g = gconn.load(path)
        n, (s, d) = g.n, g.edges()
    elif size == TINY:
        from gconn.graph.generators import edges_from_spec
        s, d, n = edges_from_spec(what)
    else:
        fn, kw = _module(anchors_dir(anchors)).SIDE_BY_SIDE[name]
        # the reference run drew its graphs with CuPy's generators: NumPy's draw other graphs
        xp = None if _sim() else _xp()
        n, s, d = fn(xp=xp, **(kw if size == FULL else _shrunk(kw)))
        if xp is not None:
            s, d = xp.asnumpy(s), xp.asnumpy(d)
    return (n, *canonical(n, s, d))


def _prepared(name: str, size: int, anchors, where: str):
    """:func:`graph_edges` of one graph saved in ``where``, with SciPy's labels: ``(n, src.npy, dst.npy,
    labels.npy, SciPy's count, its count with n = max id + 1)`` (host arrays carry no n), or None."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components
    paths = [os.path.join(where, f"{name}.{size}.{x}.npy") for x in ("src", "dst", "labels", "n")]
    if not os.path.exists(paths[-1]):
        built = graph_edges(name, size, anchors)
        if built is None:
            return None
        n, s, d = built
        k, labels = connected_components(sp.coo_matrix((np.ones(s.size, np.int8), (s, d)), shape=(n, n)),
                                         directed=False)
        for path, a in zip(paths, (s, d, labels)):
            np.save(path, a)
        top = int(max(s.max(), d.max())) + 1 if s.size else 0
        np.save(paths[-1], np.array([n, k, k - (n - top)]))
    n, k, k_host = (int(x) for x in np.load(paths[-1]))
    return n, *paths[:3], k, k_host


def prepare(names, size: int = FULL, anchors=None, where: str | None = None) -> dict:
    """:func:`_prepared` of each graph, in parallel processes (SciPy and the sorts are serial), kept in
    ``where`` for later runs (default: a temporary folder, removed at exit)."""
    import atexit
    import multiprocessing
    import shutil
    import tempfile
    from concurrent.futures import ProcessPoolExecutor
    if where is None:
        where = tempfile.mkdtemp(prefix="gconn-bench-")
        atexit.register(shutil.rmtree, where, True)
    os.makedirs(where, exist_ok=True)
    # spawned: each process may draw its graph on the GPU
    with ProcessPoolExecutor(min(len(names), os.cpu_count() or 1), multiprocessing.get_context("spawn")) as pool:
        done = [pool.submit(_prepared, name, size, anchors, where) for name in names]
        return {name: f.result() for name, f in zip(names, done)}


def peers(anchors=None) -> tuple[str, dict]:
    """The reference run's title (its GPU and date) and its row per graph, from the folder's README.md;
    ``("", {})`` where there is none."""
    path = anchors_dir(anchors) / "README.md"
    if not path.exists():
        return "", {}
    lines = path.read_text().splitlines()
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines if line.startswith("|")]
    head, body = rows[0], rows[2:]
    return lines[0].lstrip("# "), {r[0]: dict(zip(head, r)) for r in body}


def _peer(ref: dict | None, column: str):
    try:
        return float(ref[column].replace(",", ""))
    except (TypeError, KeyError, ValueError):
        return None


def _sim() -> bool:
    from gconn.backends.gpu._compat import SIM
    return SIM


def _xp():
    from gconn.backends.gpu._compat import xp
    return xp


def _sync():
    from gconn.backends.gpu import sync
    sync()


def _median_ms(fn, repeat: int, warmup: int) -> Timing:
    """Median device ms of ``fn()`` over ``repeat`` runs: CUDA events (the wall clock in the simulator)."""
    if _sim():
        return Timing(1e3 * s for s, _ in time_calls(fn, repeat, warmup))
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
    return Timing(times)


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


def _wall_ms(fn, repeat: int, warmup: int = 1, idle: float = 0.0) -> Timing:
    """Median :func:`_once_ms` of ``repeat`` calls after ``warmup``, each after sleeping ``idle`` s."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        if idle:
            time.sleep(idle)
        times.append(_once_ms(fn))
    return Timing(times)


def _paired_ms(yardstick, fn, repeat: int, warmup: int = 1) -> tuple[Timing, Timing, Timing]:
    """``yardstick`` and ``fn`` in :func:`turns` (the host's memory bandwidth drifts over seconds):
    (median of the yardstick, median of ``fn``, median of the rounds' ratios)."""
    ys, ts = turns((yardstick, fn), lambda f, _: _once_ms(f), repeat, warmup).values()
    return Timing(ys), Timing(ts), Timing(t / y for t, y in zip(ts, ys))


def pinned_copier(*arrays):
    """The yardstick of a call from host arrays: a function copying them, already in pinned memory, to
    the device."""
    import cupy as cp
    bufs = []
    for a in arrays:
        mem = cp.cuda.alloc_pinned_memory(a.nbytes)
        h = np.frombuffer(mem, a.dtype, a.size)
        h[:] = a
        bufs.append((mem, h, cp.empty(a.size, a.dtype)))
    stream = cp.cuda.Stream(non_blocking=True)

    def copy():
        for _, h, d in bufs:
            cp.cuda.runtime.memcpyAsync(d.data.ptr, h.ctypes.data, h.nbytes, cp.cuda.runtime.memcpyHostToDevice,
                                        stream.ptr)
        stream.synchronize()

    return copy


def _replayed_ms(dg, plan, repeat: int, warmup: int, forest: bool = False):
    """Median device ms of the run replayed from its CUDA graph (as later calls run), or None
    where it cannot be captured and in the simulator."""
    if _sim():
        return None
    from gconn.backends import gpu
    from gconn import pipeline
    from gconn.backends.gpu import replay
    try:
        captured = replay.capture(lambda: pipeline.run(dg, plan, gpu, forest=forest)[:3 if forest else 1])
    except Exception:
        return None
    return _median_ms(captured.launch, repeat, warmup)


def launch_overhead(log, launches: int = 2000) -> dict:
    """Host us per launch of a small kernel: gconn's direct driver launch and numba-cuda's dispatcher."""
    from gconn.backends.gpu import launch as L
    from gconn.backends.gpu import ops  # noqa: F401  (registers root_min)
    from gconn.backends.gpu._compat import view
    xp = _xp()
    roots, mins = view(xp.zeros(1024, xp.int32)), view(xp.full(1024, 1024, xp.int32))
    out = {}
    direct = L.DIRECT
    try:
        for label, mode in (("numba dispatcher", False), ("direct", True)):
            L.DIRECT = mode
            # built here, not taken from the kernel cache: a kernel loaded from disk launches directly
            kern = L._build("root_min", (), L.dtypes_key("int32", "int32", "int32"))
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


def _state(v, dg):
    """A fresh incremental structure of variant ``v`` for ``dg``'s vertices."""
    from gconn.backends import gpu
    st = gpu.IncrementalState(v, dg.id_dtype)
    st.reserve(dg.n)
    return st


def _fresh_ms(make, fn, repeat: int, warmup: int) -> Timing:
    """Median device ms of ``fn(x)`` on a fresh ``x = make()`` each run."""
    return Timing([_median_ms(lambda: fn(x), 1, 0) for x in (make() for _ in range(warmup + repeat))][warmup:])


def _forest_row(name: str, dg, k: int, repeat: int, warmup: int, log) -> dict:
    """The automatic choice for a spanning forest, its run beside connected components with the same
    variant, launched and replayed (issue 57: the forest at most 1.3x); its edge count checked."""
    from gconn import design, pipeline
    from gconn.backends import gpu
    plan = design.Plan.of(design.choose(dg, "forest", backend="gpu"))
    # a first call is launched from the host, and takes the choice for launched runs
    first = design.Plan.of(design.choose(dg, "forest", backend="gpu", launched=True))
    for p in dict.fromkeys((plan, first)):
        _, fa, _ = pipeline.run(dg, p, gpu, forest=True)
        edges = int((fa >= 0).sum())
        if edges != dg.n - k:
            raise WrongLabels(f"{name}: {p.name}'s spanning forest has {edges} edges, not n - k = {dg.n - k}")
    row = dict(variant=plan.name, first_variant=first.name)
    for what, forest in (("forest", True), ("cc", False)):
        row[f"{what}_first_ms"] = _median_ms(lambda: pipeline.run(dg, first, gpu, forest=forest), repeat, warmup)
        row[f"{what}_ms"] = _replayed_ms(dg, plan, repeat, warmup, forest)
    ratio, rep = row["forest_first_ms"] / row["cc_first_ms"], None
    if row["forest_ms"] is not None and row["cc_ms"] is not None:
        rep = row["forest_ms"] / row["cc_ms"]
    row.update(first_over_cc=ratio, over_cc=rep)
    log(f"  forest {plan.name} (first call {first.name}): first call {row['forest_first_ms']:.3f} ms ({ratio:.2f}x its cc), repeated "
        f"{_f(row['forest_ms']) or '-'} ms ({_f(rep, '.2f') or '-'}x)")
    return row


def _shuffled(dg, seed: int = 5):
    """Every undirected edge once, in random order."""
    xp = _xp()
    perm = xp.asarray(np.random.default_rng(seed).permutation(dg.m))
    return xp.ascontiguousarray(dg.src[perm]), xp.ascontiguousarray(dg.dst[perm])


class WrongLabels(AssertionError):
    """A timed variant's labels are not SciPy's partition."""


def _check(name: str, what: str, labels, expected) -> None:
    labels = labels.get() if hasattr(labels, "get") else np.asarray(labels)
    # a call from edge arrays has no n: its vertices stop at the largest id
    common = min(labels.size, expected.size)
    if not same_partition(expected[:common], labels[:common]):
        raise WrongLabels(f"{name}: {what} does not split the vertices as SciPy does")


def bench_graph(name: str, prepared, repeat: int, warmup: int, log, finishes=FINISHES,
                incremental=INCREMENTAL, ref=None) -> dict | None:
    """One graph's row from its :func:`prepare` d files (None: skipped at this size): every figure of the
    tables, each variant's labels checked."""
    import gconn
    from gconn import design, pipeline
    from gconn.backends import gpu
    from gconn.graph import Graph

    t0 = time.perf_counter()
    if prepared is None:
        log(f"{name}: skipped at this size")
        return None
    n, s, d, expected, k, _ = prepared
    s, d, expected = np.load(s), np.load(d), np.load(expected)
    xp = _xp()
    dg = Graph.from_edges(xp.asarray(s), xp.asarray(d), n)
    # dg.m builds the canonical form and adjacency, as a graph loaded from a file has
    log(f"{name}: n={n} m={dg.m} components={k} built in {time.perf_counter() - t0:.1f} s")
    auto = design.choose(dg, "cc", backend="gpu").name
    # a first call is launched from the host, and takes the choice for launched runs
    auto_first = design.choose(dg, "cc", backend="gpu", launched=True).name
    static = []
    for variant in dict.fromkeys([auto, auto_first] + [f"{p}+{f}" for p in SAMPLINGS for f in finishes]):
        plan = design.Plan.of(design.Variant.parse(variant))
        _check(name, variant, pipeline.run(dg, plan, gpu)[0], expected)
        ms = _median_ms(lambda: pipeline.run(dg, plan, gpu), repeat, warmup)
        rep = _replayed_ms(dg, plan, repeat, warmup)
        static.append(dict(variant=variant, auto=variant == auto, first_ms=ms, replayed_ms=rep,
                           repeated_ms=ms if rep is None else rep))
        log(f"  {variant:45s} {ms:8.3f} ms launched, {_f(rep) or '-':>8s} ms replayed")
    best = min(static, key=lambda r: r["repeated_ms"])
    first = next(r for r in static if r["variant"] == auto_first)
    best_first = min(static, key=lambda r: r["first_ms"])
    peer = _peer(ref, "best peer (ms)")
    row = dict(graph=name, n=n, m=dg.m, components=k, auto=auto, auto_first=auto_first,
               auto_first_ms=first["first_ms"], best_first=best_first["variant"],
               auto_first_over_best=first["first_ms"] / best_first["first_ms"],
               auto_ms=static[0]["repeated_ms"], best=best["variant"], best_ms=best["repeated_ms"],
               auto_over_best=static[0]["repeated_ms"] / best["repeated_ms"], static=static, peer_ms=peer,
               gconn_ref_ms=_peer(ref, "GConn (ms)") if peer else None,
               ecl_ref_ms=_peer(ref, "ECL-CC (ms)") if peer else None)
    # end to end from the resident graph (the first two calls capture, the timed ones replay), beside the
    # replayed compute timed with as many repeats; from its edges as a CuPy pair; from NumPy arrays
    warm = max(warmup, 2)
    reps = repeat if _sim() else max(repeat, E2E_REPEAT)
    beside = _replayed_ms(dg, design.Plan.of(design.Variant.parse(auto)), reps, warm)
    row["e2e_compute_ms"] = row["auto_ms"] if beside is None else beside
    row["e2e_device_ms"] = _wall_ms(lambda: gconn.connected_components(dg, algorithm=auto), reps, warm)
    pair = xp.ascontiguousarray(dg.src), xp.ascontiguousarray(dg.dst)
    row["e2e_pair_ms"] = _wall_ms(lambda: gconn.connected_components(pair), reps, warm)
    # edge arrays carry no n: the isolated vertices above the largest id are not theirs
    k_host = prepared[-1]
    for what, graph, want in (("the resident graph", dg, k), ("a CuPy pair", pair, k_host),
                              ("NumPy arrays", (s, d), k_host)):
        got, labels = gconn.connected_components(graph, backend="gpu")
        if int(got) != want:
            raise WrongLabels(f"{name}: {int(got)} components from {what}, SciPy {want}")
        _check(name, f"the call from {what}", labels, expected)
    call = functools.partial(gconn.connected_components, (s, d), backend="gpu")
    # a repeated call, as a process past its first calls makes it: until then its host copies run on
    # NumPy (staging.cold; a fresh process's first answer is bench.frontdoor's figure)
    from gconn.backends.gpu import staging
    staging.warm()
    if _sim():
        row["copy_ms"], row["e2e_host_ms"] = None, _wall_ms(call, 1, 1)
    else:
        row["copy_ms"], row["e2e_host_ms"], _ = _paired_ms(pinned_copier(s, d), call, reps, warm)
    log(f"  auto {auto}" + (f" (first call {auto_first})" if auto_first != auto else "")
        + f": first call {row['auto_first_ms']:.3f} ms, repeated {row['auto_ms']:.3f} ms"
        + (f" (best peer {peer:.3f} ms: {row['auto_first_ms'] / peer:.2f}x, {row['auto_ms'] / peer:.2f}x)"
           if peer else "")
        + f"; end to end from the device graph {row['e2e_device_ms']:.3f} ms, a CuPy pair {row['e2e_pair_ms']:.3f} "
        f"ms, NumPy arrays {row['e2e_host_ms']:.2f} ms (pinned copy {_f(row['copy_ms'], '.2f') or '-'} ms)")
    row["forest"] = _forest_row(name, dg, k, repeat, warmup, log)
    row["sampling"] = []
    for smp in SAMPLINGS[1:]:
        variant = f"{smp}+{SAMPLING_FINISH}"
        # the first run with statistics compiles CuPy's counting kernels
        for _ in range(2):
            _, _, st = gconn.connected_components(dg, algorithm=variant, return_stats=True)
        total = sum(st.phase_times.get(p, 0.0) for p in ("sample", "lmax", "finish", "finalize"))
        share = st.phase_times.get("sample", 0.0) / total if total else 0.0
        row["sampling"].append(dict(variant=variant, share=share, cov=st.coverage, ic=st.inter_component))
        log(f"  {variant:45s} sampling {100 * share:5.1f}% of the run, Cov {st.coverage:.3f}, "
            f"IC {st.inter_component:.3f}")
    src, dst = _shuffled(dg)
    row["incremental_ref"] = _peer(ref, "GConn incremental") if peer else None
    row["incremental"] = []
    for variant in incremental:
        v = design.Variant.parse(variant, "incremental")
        st = _state(v, dg)
        st.insert(src, dst)
        _check(name, f"incremental {variant}", st.roots(n), expected)
        ms = _fresh_ms(lambda: _state(v, dg), lambda st: st.insert(src, dst), repeat, warmup)
        # the same batch through the public API (issue 57: at least 80% of the kernels' throughput)
        fresh = functools.partial(gconn.IncrementalConnectivity, n, algorithm=variant, backend="gpu")
        ic = fresh()
        ic.insert(src, dst)
        _check(name, f"incremental {variant} through the API", ic.labels(), expected)
        api = _fresh_ms(fresh, lambda ic: ic.insert(src, dst), repeat, warmup)
        row["incremental"].append(dict(variant=variant, ms=ms, edges_per_s=_per_s(dg.m, ms), api_ms=api,
                                       api_share=ms / api))
        log(f"  incremental {variant:40s} {ms:8.3f} ms  {dg.m / (ms / 1e3):.3e} edges/s; through the API "
            f"{api:.3f} ms ({100 * ms / api:.0f}%)")
    dg = pair = None  # frees the device graph before the next one
    if not _sim():
        xp.get_default_memory_pool().free_all_blocks()
    return row


def bench_incremental_curves(prepared, repeat: int, warmup: int, log, variants=INCREMENTAL,
                             batches=BATCHES, shares=INSERT_SHARES) -> dict:
    """Kronecker (``prepared``: its :func:`prepare` d files): throughput against the batch size (up to
    100 consecutive batches on one structure) and against the share of inserts in one mixed batch of
    every edge."""
    from gconn import design
    from gconn.graph import Graph
    xp = _xp()
    n, s, d = prepared[:3]
    dg = Graph.from_edges(xp.asarray(np.load(s)), xp.asarray(np.load(d)), n)
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
                st = _state(v, dg)
                for i in range(count):
                    st.insert(src[i * b:(i + 1) * b], dst[i * b:(i + 1) * b])

            ms = _median_ms(run_batches, repeat, warmup)
            out["batch"].append(dict(variant=name, batch=b, batches=count, edges_per_s=_per_s(b * count, ms)))
            log(f"  {name:40s} batch {b:>10d} x{count:<4d} {b * count / (ms / 1e3):.3e} edges/s")
            if b == m:
                break
        for share, kinds, qs, qd in mixes:
            ms = _fresh_ms(lambda: _state(v, dg), lambda st: st.mixed(kinds, qs, qd), repeat, warmup)
            out["mixed"].append(dict(variant=name, insert_share=share, ops_per_s=_per_s(m, ms)))
            log(f"  {name:40s} inserts {100 * share:3.0f}% {m / (ms / 1e3):.3e} ops/s")
    return out


def plots(rows: list, curves: dict | None, out_dir: Path) -> list:
    """compute.png (gconn's first and repeated calls beside the peers), host.png (NumPy arrays to labels
    beside a pinned copy), incremental_batch.png and incremental_ratio.png; [] without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return []
    written = []

    def bars(fname, title, series):
        fig = Figure(figsize=(8, 4))
        ax = fig.subplots()
        width = 0.8 / len(series)
        for i, (label, key) in enumerate(series):
            ax.bar([j + i * width for j in range(len(rows))], [r[key] or 0 for r in rows], width, label=label)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rows))], [r["graph"] for r in rows], rotation=30,
                      ha="right", fontsize="small")
        ax.set_yscale("log")
        ax.set_ylabel("ms")
        ax.set_title(title)
        ax.legend(fontsize="small")
        fig.savefig(out_dir / fname, dpi=110, bbox_inches="tight")
        written.append(fname)

    if rows:
        bars("compute.png", "connected components, graph resident (device ms)",
             [("gconn first call", "auto_first_ms"), ("gconn repeated call", "auto_ms"), ("GConn", "gconn_ref_ms"),
              ("ECL-CC", "ecl_ref_ms")])
        bars("host.png", "from NumPy arrays to labels (wall ms)",
             [("pinned copy of the edges", "copy_ms"), ("gconn", "e2e_host_ms")])
    for fname, points, x, y, xlabel, ylabel, logx in (
            ("incremental_batch.png", (curves or {}).get("batch"), "batch", "edges_per_s", "batch size (edges)",
             "edges / s", True),
            ("incremental_ratio.png", (curves or {}).get("mixed"), "insert_share", "ops_per_s",
             "share of inserts in the batch", "operations / s", False)):
        if not points:
            continue
        fig = Figure(figsize=(6.5, 4))
        ax = fig.subplots()
        for name in dict.fromkeys(r["variant"] for r in points):
            mine = [r for r in points if r["variant"] == name]
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


def _per_s(count: int, ms) -> Timing:
    """``count`` per second in each of the runs of ``ms``."""
    return Timing(count / (t / 1e3) for t in getattr(ms, "samples", [ms]))


def _giga(x):
    return x.scaled(1e-9) if isinstance(x, Timing) else x / 1e9


def _f(x, fmt=".3f") -> str:
    return "" if x is None else format(x, fmt)


def _over(a, b) -> str:
    return "" if a is None or not b else f"{a / b:.2f}"


def _curve(rows, x: str, y: str, head) -> str:
    """A variant per row, a value of ``x`` per column, ``y`` in 1e9 per second."""
    xs = list(dict.fromkeys(r[x] for r in rows))
    cells = []
    for name in dict.fromkeys(r["variant"] for r in rows):
        rates = {r[x]: _giga(r[y]) for r in rows if r["variant"] == name}
        cells.append([name, *(_f(rates.get(v), ".2f") for v in xs)])
    return md_table(["variant", *(f"{head(v)}:" for v in xs)], cells)


def report(rows: list, curves: dict | None, launch_us: dict, reference: str = "") -> str:
    """The Markdown tables of :func:`bench_graph`'s rows and :func:`bench_incremental_curves`.

    >>> report([], None, {"direct": 7.6}).splitlines()[0]
    'Host time per kernel launch: direct 7.6 us'
    """
    out = []
    if launch_us:
        out += ["Host time per kernel launch: " + ", ".join(f"{k} {v:.1f} us" for k, v in launch_us.items()), ""]
    cite = (f"the peers' figures are those of *{reference}* (`../shared/anchors/README.md`), device ms; a ratio "
            "above 1 is a graph where gconn is slower" if reference else "no peers' figures at this size")
    out += [f"Connected components, graph resident (device ms, median (min-max)); first call: launched from the host; "
            f"repeated call: replayed from its CUDA graph; {cite}:", "",
            md_table(["graph", "n:", "m:", "components:", "auto", "first call:", "repeated call:", "GConn:",
                      "ECL-CC:", "first / best peer:", "repeated / best peer:", "best variant", "best:",
                      "auto / best:", "first call, auto / best:"],
                     [[r["graph"], f"{r['n']:,}", f"{r['m']:,}", f"{r['components']:,}",
                       r["auto"] + (f" (first call: {r['auto_first']})" if r.get("auto_first", r["auto"]) != r["auto"]
                                    else ""),
                       f"{r['auto_first_ms']:.3f}", f"{r['auto_ms']:.3f}", _f(r["gconn_ref_ms"]), _f(r["ecl_ref_ms"]),
                       _over(r["auto_first_ms"], r["peer_ms"]), _over(r["auto_ms"], r["peer_ms"]), r["best"],
                       f"{r['best_ms']:.3f}", f"{r['auto_over_best']:.2f}", _f(r.get("auto_first_over_best"), ".2f")]
                      for r in rows])]
    names = list(dict.fromkeys(r["variant"] for row in rows for r in row["static"]))
    static = []
    for name in names:
        cells = [name]
        for row in rows:
            r = next((r for r in row["static"] if r["variant"] == name), None)
            # medians alone, as the table is wide; the log gives each variant's spread
            rep = r and r.get("replayed_ms")
            cell = "" if r is None else f"{float(r['first_ms']):.3f} / {_f(rep and float(rep)) or '-'}"
            cells.append(f"**{cell}**" if r is not None and name == row["best"] else cell)
        static.append(cells)
    out += ["", "Static compute ms (Table 3; medians, each spread in the log), every variant's labels checked against "
            "SciPy's: first call / repeated call (- where the run reads values back and is not captured); the "
            "best per graph in bold:",
            "", md_table(["variant", *(f"{row['graph']}:" for row in rows)], static)]
    out += ["", "End to end, the automatic choice (wall ms, median (min-max)): from the resident graph (and the "
            "device time beside it), from its edges as a CuPy pair, from NumPy int32 arrays to NumPy labels beside a pinned "
            "copy of the same arrays (in turns; a process past its first calls, the host copies' kernels loaded):", "",
            md_table(["graph", "resident graph:", "its device time:", "CuPy pair:", "NumPy arrays:", "pinned copy:",
                      "arrays / copy:"],
                     [[r["graph"], f"{r['e2e_device_ms']:.3f}", f"{r['e2e_compute_ms']:.3f}",
                       f"{r['e2e_pair_ms']:.3f}", f"{r['e2e_host_ms']:.2f}", _f(r["copy_ms"], ".2f"),
                       _over(r["e2e_host_ms"], r["copy_ms"])] for r in rows])]
    out += ["", f"Sampling (Table 4; finish {SAMPLING_FINISH}; share of the synchronized run):", "",
            md_table(["graph", "sampling", "time share:", "Cov:", "IC:"],
                     [[row["graph"], r["variant"].split("+")[0], f"{100 * r['share']:.1f}%", f"{r['cov']:.3f}",
                       f"{r['ic']:.3f}"] for row in rows for r in row["sampling"]])]
    with_forest = [r for r in rows if r.get("forest")]
    if with_forest:
        out += ["", "Spanning forest, the automatic choice for it, beside connected components with the same variant "
                "(device ms, median (min-max)); issue 57's goal: at most 1.3x:", "",
                md_table(["graph", "variant", "forest, first call:", "cc, first call:", "first / cc:",
                          "forest, repeated:", "cc, repeated:", "repeated / cc:"],
                         [[r["graph"], f["variant"] + (f" (first call: {f['first_variant']})"
                                                        if f.get("first_variant", f["variant"]) != f["variant"] else ""),
                           f"{f['forest_first_ms']:.3f}", f"{f['cc_first_ms']:.3f}",
                           f"{f['first_over_cc']:.2f}", _f(f["forest_ms"]), _f(f["cc_ms"]), _f(f["over_cc"], ".2f")]
                          for r in with_forest for f in (r["forest"],)])]
    inc = list(dict.fromkeys(r["variant"] for row in rows for r in row["incremental"]))
    rates = [{r["variant"]: _giga(r["edges_per_s"]) for r in row["incremental"]} for row in rows]
    shares = [{r["variant"]: r.get("api_share") for r in row["incremental"]} for row in rows]
    out += ["", "Incremental, one batch of every edge in random order (1e9 edges/s; GConn: the reference run's):",
            "", md_table(["graph", *(f"{v}:" for v in inc), "GConn:"],
                         [[row["graph"], *(_f(rate.get(v), ".2f") for v in inc), _f(row["incremental_ref"], ".1f")]
                          for row, rate in zip(rows, rates)])]
    if any(v is not None for share in shares for v in share.values()):
        out += ["", "The same batch through the public API (`IncrementalConnectivity.insert` on CuPy arrays, a fresh "
                "structure each run): the kernels' time over the API's (issue 57's goal: at least 80%):", "",
                md_table(["graph", *(f"{v}:" for v in inc)],
                         [[row["graph"], *(_f(share.get(v) and 100 * share[v], ".0f") + "%" if share.get(v) else ""
                                           for v in inc)] for row, share in zip(rows, shares)])]
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
    ap.add_argument("--anchors", help="the reference run's folder (graphs.py, README.md); default $GCONN_ANCHORS, "
                    "else ../shared/anchors")
    ap.add_argument("--finishes", default=",".join(FINISHES), help="comma list of the static table's finishes")
    ap.add_argument("--incremental", default=",".join(INCREMENTAL), help="comma list of incremental variants")
    ap.add_argument("--no-curves", action="store_true", help="skip the incremental curves (batch size, inserts)")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", help="folder for gpu.json, gpu.md and the plots")
    ap.add_argument("--cache", help="a folder keeping the graphs and SciPy's labels for later runs")
    ap.add_argument("--add", metavar="GPU_JSON", help="a gpu.json of an earlier run on the same machine: its "
                    "graphs (and curves) head the tables, so that a run may be split into several")
    args = ap.parse_args(argv)
    from gconn.backends import gpu
    ok, why = gpu.available(simulator_ok=args.tiny)
    if not ok:
        print(f"no GPU: {why}", file=sys.stderr)
        return 2
    keys = [k.strip() for k in args.graphs.split(",") if k.strip()]
    for key in keys:
        if key not in GRAPHS:
            ap.error(f"unknown graph {key!r}; choose from {', '.join(GRAPHS)}")
    size = TINY if args.tiny else QUICK if args.quick else FULL
    reference, refs = peers(args.anchors)
    head = [f"Command: `gconn bench --gpu {' '.join(argv if argv is not None else sys.argv[1:])}`",
            f"Device: {why}", f"Machine: {machine()}", f"Date: {datetime.datetime.now().isoformat(timespec='seconds')}"]
    earlier = json_timings(json.loads(Path(args.add).read_text()), back=True) if args.add else {}
    if earlier:
        head.append(f"With the rows of {args.add}: " + "; ".join(earlier.get("head", [])[::3]))
    log = functools.partial(print, flush=True)
    log("\n".join(head))
    launch_us = {} if _sim() else launch_overhead(log)
    finishes = tuple(f for f in args.finishes.split(",") if f)
    incremental = tuple(v for v in args.incremental.split(",") if v)

    def write(rows, curves, final):
        # after every graph, so that a run cut off by a time limit keeps what it measured
        text = "\n".join(head) + "\n\n" + report(rows, curves, launch_us, reference if size == FULL else "")
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / "gpu.json").write_text(json.dumps(json_timings(
                {"head": head, "launch_us": launch_us, "graphs": rows, "curves": curves, "reference": reference}),
                indent=1))
            (out / "gpu.md").write_text(text + "\n")
            if final:
                written = ["gpu.json", "gpu.md"] + plots(rows, curves, out)
                log(f"wrote {', '.join(str(out / w) for w in written)}")
        return text

    t0 = time.perf_counter()
    prepared = prepare(keys, size, args.anchors, args.cache)
    log(f"graphs and SciPy's labels ready in {time.perf_counter() - t0:.1f} s")
    rows = earlier.get("graphs", [])
    for key in keys:
        row = bench_graph(key, prepared[key], args.repeat, args.warmup, log, finishes, incremental,
                          refs.get(key) if size == FULL else None)
        if row is not None:
            rows.append(row)
            write(rows, None, False)
    curves = earlier.get("curves")
    if not args.no_curves:
        batches = BATCHES if size == FULL else (10, 100, 1000) if size == TINY else BATCHES[:4]
        shares = INSERT_SHARES if size != TINY else (0.5,)
        kron = prepared.get("kron_s22") or prepare(["kron_s22"], size, args.anchors, args.cache)["kron_s22"]
        curves = bench_incremental_curves(kron, args.repeat, args.warmup, log, incremental, batches, shares)
    text = write(rows, curves, True)
    print()
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
