"""GPU from host arrays, chunked and overlapped (issue 11):
``python -m gconn.bench.chunked [--quick] [--graphs kron,er] [--repeat 5] [--parts ...]``.

Per graph, from host int32 arrays (wall clock, median of repeats): the pinned host-to-device
copy of the arrays as the yardstick, timed in turns with ``connected_components((src, dst),
backend="gpu")`` end to end (also after the process idled); then, per ``--parts``: a chunk-size
sweep, the ways host memory reaches the device, a device budget 4x smaller than the arrays,
the resident compute, a SciPy CSR input, and the host machinery against going without it.
Each figure is printed as median (min-max); every way timed is first checked against SciPy's
labels (:class:`gconn.bench.gpu.WrongLabels`).
``--big EDGES`` and ``--big-kronecker SCALE`` run only a graph larger than the GPU's memory.

>>> from gconn.bench.chunked import GRAPHS
>>> sorted(GRAPHS)
['er', 'kron']
"""
from __future__ import annotations

import argparse
import functools
import sys
import time

import numpy as np
from numba import njit, prange

from gconn.graph import generators as gen
from gconn.bench.gpu import _check, _median_ms, _once_ms, _paired_ms, _wall_ms, pinned_copier
from gconn.bench.harness import Timing, stamp, turns

GRAPHS = {
    "kron": ("Kronecker s22 ef16", lambda q: gen.kronecker_edges(16 if q else 22, 16, seed=1)),
    "er": ("Erdos-Renyi 8M d16", lambda q: gen.erdos_renyi_edges(1 << (17 if q else 23), 16, seed=3)),
}
CHUNKS = (1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24)


def _modes(run, check, src, dst, repeat: int, log) -> dict:
    """Staging filled by 1..all threads, against the driver's pageable copy and pinning the
    arrays in place (``cudaHostRegister``, alone)."""
    import cupy as cp
    import numba
    modes = {}
    for threads in (1, 4, 8, numba.config.NUMBA_NUM_THREADS):
        check(f"staging, {threads} threads", run(copy_threads=threads).result()[0])
        modes[f"staging, {threads} threads"] = _wall_ms(lambda: run(copy_threads=threads), repeat)
    dev = [cp.empty(a.size, a.dtype) for a in (src, dst)]

    def pageable():
        for d, a in zip(dev, (src, dst)):
            d.set(a)

    modes["driver's pageable copy alone"] = _wall_ms(pageable, repeat)

    def register_only():
        for a in (src, dst):
            cp.cuda.runtime.hostRegister(a.ctypes.data, a.nbytes, 0)
        for a in (src, dst):
            cp.cuda.runtime.hostUnregister(a.ctypes.data)

    modes["hostRegister+unregister alone"] = _wall_ms(register_only, repeat)
    for k, v in modes.items():
        log(f"  {k:32s} {v:8.2f} ms")
    return modes


PARTS = ("sweep", "modes", "budget", "resident", "matrix", "machinery")
#: seconds the process sleeps before each call timed "after idling", as a program calls gconn
#: between other work (numba's threads then wake slowly)
IDLE = 0.1


def bench_graph(key: str, quick: bool, repeat: int, log, parts=PARTS) -> dict:
    import cupy as cp

    import gconn
    from gconn import design, pipeline
    from gconn.backends import gpu
    from gconn.graph import Graph
    from gconn.chunked.gpu import chunked_union

    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc

    desc, edges = GRAPHS[key]
    src, dst, n = edges(quick)
    src, dst = src.astype(np.int32, copy=False), dst.astype(np.int32, copy=False)
    m = src.size
    gb = (src.nbytes + dst.nbytes) / 1e9
    A = sp.csr_matrix((np.ones(m, np.int8), (src, dst)), shape=(n, n))
    _, expected = scipy_cc(A, directed=False)
    log(f"{desc}: n={n} m={m}, {gb:.3f} GB of int32 edges")
    row = dict(graph=desc, n=n, m=m)

    def check(what, labels):
        _check(desc, what, labels, expected)

    def e2e():
        return gconn.connected_components((src, dst), backend="gpu")

    check("connected_components((src, dst))", e2e()[1])
    pin, row["e2e_ms"], row["e2e_ratio"] = _paired_ms(pinned_copier(src, dst), e2e, repeat)
    row["pinned_ms"] = pin
    row["pinned_gbs"] = gb / (pin / 1e3)
    log(f"  pinned H2D copy of src+dst: {pin:.2f} ms = {row['pinned_gbs']:.1f} GB/s")
    _, _, st = gconn.connected_components((src, dst), backend="gpu", return_stats=True)
    log(f"  gconn end to end ((src, dst) -> labels): {row['e2e_ms']:.2f} ms = {row['e2e_ratio']:.2f}x the "
        f"pinned copy, timed in turns with it (chunked={st.chunked}, {st.chunks} chunks of {st.chunk_edges}, "
        f"{st.variant}; " + ", ".join(f"{p} {t * 1e3:.1f} ms" for p, t in st.phase_times.items()) + ")")
    row["e2e_after_idle_ms"] = idle = _wall_ms(e2e, repeat, warmup=0, idle=IDLE)
    log(f"  the same call after the process idled {IDLE * 1e3:.0f} ms: {idle:.2f} ms = {idle / pin:.2f}x the pinned "
        "copy (numba's threads wake first)")

    def run(**kw):
        s = chunked_union((src, dst), **kw)
        s.result()
        return s

    sweep = {}
    for c in CHUNKS if "sweep" in parts else ():
        check(f"chunk {c}", run(chunk_edges=c).result()[0])
        sweep[c] = _wall_ms(lambda: run(chunk_edges=c), repeat)
        log(f"  chunk {c:>9}: copies+unions {sweep[c]:.2f} ms ({gb / (sweep[c] / 1e3):.1f} GB/s)")
    row["sweep"] = sweep
    row["modes"] = _modes(run, check, src, dst, repeat, log) if "modes" in parts else {}
    if "budget" in parts:
        row["budget"] = _budget(run, check, src.nbytes + dst.nbytes, gb, pin, repeat, log)
    if "matrix" in parts:
        row["matrix"] = _matrix(A, check, repeat, log)
    if "machinery" in parts:
        row["machinery"] = _machinery(src, dst, A, check, repeat, log)
    if "resident" in parts:
        dg = Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
        for name in ("none+union-async+find-halve", design.choose(dg, "cc", "gpu").name):
            plan = design.Plan.of(design.Variant.parse(name))
            check(f"resident {name}", pipeline.run(dg, plan, gpu)[0])
            row[f"resident {name}"] = ms = _median_ms(lambda: pipeline.run(dg, plan, gpu), repeat, 2)
            log(f"  resident compute {name}: {ms:.3f} ms")
        dg = None
        cp.get_default_memory_pool().free_all_blocks()
    return row


def _budget(run, check, resident, gb, pin, repeat, log) -> dict:
    """The chunked route with a device budget 4x smaller than the edge arrays' ``resident`` bytes."""
    limit = resident // 4
    s = run(device_memory=limit)
    check(f"a budget of {limit} bytes", s.result()[0])
    ms = _wall_ms(lambda: run(device_memory=limit), repeat)
    log(f"  budget {limit / 2**20:.0f} MiB (graph arrays {resident / 2**20:.0f} MiB): {s.chunks} chunks of "
        f"{s.chunk_edges}, {ms:.2f} ms = {gb / (ms / 1e3):.1f} GB/s = {pin / ms:.0%} of pinned H2D")
    return dict(limit=limit, resident=resident, ms=ms, chunks=s.chunks, chunk_edges=s.chunk_edges,
                gbs=gb / (ms / 1e3))


def _matrix(A, check, repeat, log) -> dict:
    """From a SciPy CSR of the edges: gconn end to end against the pinned copy of its indptr and
    indices, and against SciPy's connected_components."""
    from scipy.sparse.csgraph import connected_components as scipy_cc

    import gconn
    check("connected_components(CSR)", gconn.connected_components(A, backend="gpu")[1])
    pin, ours, ratio = _paired_ms(pinned_copier(A.indptr, A.indices),
                                  lambda: gconn.connected_components(A, backend="gpu"), repeat)
    theirs = _wall_ms(lambda: scipy_cc(A, directed=False), 1, 0)
    log(f"  SciPy CSR ({A.nnz} entries): pinned copy of indptr+indices {pin:.2f} ms; gconn end to end "
        f"{ours:.2f} ms = {ratio:.2f}x (timed in turns); SciPy's connected_components {theirs:.0f} ms "
        f"({theirs / ours:.0f}x gconn)")
    return dict(nnz=int(A.nnz), pinned_ms=pin, e2e_ms=ours, e2e_ratio=ratio, scipy_ms=theirs)


def _turns(fns: dict, repeat: int) -> dict:
    """Median wall ms of each function, called in turns (the order reversed every other round)
    after a round of warm-ups."""
    times = turns(fns, lambda k, _: _once_ms(fns[k]), repeat, alternate=True)
    return {k: Timing(v) for k, v in times.items()}


def _machinery(src, dst, A, check, repeat, log) -> dict:
    """The chunked route from host arrays and a SciPy CSR as is, without the native feed
    (``gconn.chunked.gpu.PUMP``), without the labels' landing (``LAND_BYTES``) and without both;
    then the staged copies against CuPy's."""
    import cupy as cp

    import gconn
    from gconn.backends.gpu import staging
    from gconn.chunked import gpu as chunked
    modes = {"as is": (True, chunked.LAND_BYTES), "no native feed": (False, chunked.LAND_BYTES),
             "no landing": (True, 1 << 62), "neither": (False, 1 << 62)}
    out = {}

    def call(obj, mode):
        def run():
            chunked.PUMP, chunked.LAND_BYTES = modes[mode]
            return gconn.connected_components(obj, backend="gpu")
        return run

    kept = chunked.PUMP, chunked.LAND_BYTES
    try:
        for what, obj in (("arrays", (src, dst)), ("SciPy CSR", A)):
            for m in modes:
                check(f"{what}, {m}", call(obj, m)()[1])
            out[what] = t = _turns({m: call(obj, m) for m in modes}, repeat)
            log(f"  {what}: " + ", ".join(f"{m} {ms:.2f} ms ({ms / t['as is']:.2f}x)" for m, ms in t.items()))
    finally:
        chunked.PUMP, chunked.LAND_BYTES = kept
    dev = cp.asarray(src)
    out["copies"] = t = _turns({"staging.put": lambda: staging.put(src), "cp.asarray": lambda: cp.asarray(src),
                                "staging.fetch": lambda: staging.fetch(dev), "dev.get()": dev.get}, repeat)
    log(f"  {src.nbytes / 1e6:.0f} MB: " + ", ".join(f"{k} {ms:.2f} ms" for k, ms in t.items()))
    return out


def bench_big(random_edges: int, log, n: int = 1 << 30, block: int = 1 << 20) -> dict:
    """A graph larger than the GPU's memory from host RAM: ``n`` vertices in blocks of ``block``
    (powers of two), each a path plus its share of ``random_edges`` random edges inside it, so
    the components are exactly the blocks (every label is checked); run by :func:`_big_runs`."""
    import cupy as cp

    pieces = min(32, n // block)
    m = random_edges + (n - n // block)
    log(f"big: n={n} m={m} = {8 * m / 1e9:.1f} GB of int32 edges on the host; GPU memory "
        f"{cp.cuda.runtime.memGetInfo()[1] / 2**30:.1f} GiB")
    t0 = time.perf_counter()
    src, dst = np.empty(m, np.int32), np.empty(m, np.int32)
    pos, per = 0, n // pieces
    for j in range(pieces):
        v = cp.arange(j * per, (j + 1) * per, dtype=cp.int32)
        v = v[(v + 1) % block != 0]
        k = random_edges // pieces + (random_edges % pieces if j == pieces - 1 else 0)
        base = cp.random.randint(0, n // block, k, dtype=cp.int32) * block
        parts = ((v, v + 1), (base + cp.random.randint(0, block, k, dtype=cp.int32),
                              base + cp.random.randint(0, block, k, dtype=cp.int32)))
        for a, b in parts:
            a.get(out=src[pos:pos + a.size])
            b.get(out=dst[pos:pos + b.size])
            pos += a.size
        del v, base, parts
        cp.get_default_memory_pool().free_all_blocks()
    log(f"  generated in {time.perf_counter() - t0:.1f} s")
    k, labels, out = _big_runs(src, dst, log)
    ok = k == n // block and bool((labels.reshape(n // block, block)
                                   == np.arange(n // block, dtype=labels.dtype)[:, None]).all())
    log(f"  every label is its block: {ok}")
    if not ok:
        raise AssertionError("the big graph's labels are not its blocks")
    return dict(n=n, m=m, **out)


def bench_big_kronecker(scale: int, log, edge_factor: int = 16) -> dict:
    """Graph500's Kronecker graph from host RAM, run as :func:`bench_big`; the labels are checked
    against the CPU backend's count and every edge's ends."""
    import gconn
    t0 = time.perf_counter()
    src, dst, n = gen.kronecker_edges(scale, edge_factor, seed=1)
    log(f"big Kronecker: scale {scale}, n={n} m={src.size} = {8 * src.size / 1e9:.1f} GB of int32 edges on the "
        f"host; generated in {time.perf_counter() - t0:.1f} s")
    k, labels, out = _big_runs(src, dst, log)
    t0 = time.perf_counter()
    k_cpu = gconn.connected_components((src, dst), backend="cpu", algorithm="none+union-async+find-halve",
                                       return_labels=False)
    split = _edges_split(labels, src, dst)
    log(f"  the CPU backend's union-find: k={k_cpu} in {time.perf_counter() - t0:.1f} s (with the edge check); "
        f"edges whose ends have different labels: {split}")
    if k != k_cpu or split:
        raise AssertionError(f"the big Kronecker graph's labels are wrong: k={k} against the CPU's {k_cpu}, "
                             f"{split} edges split")
    return dict(n=n, m=int(src.size), **out)


@njit(parallel=True, cache=True)
def _split_counts(labels, src, dst):
    bad = 0
    for i in prange(src.size):
        bad += labels[src[i]] != labels[dst[i]]
    return bad


def _edges_split(labels, src, dst) -> int:
    """How many edges have ends with different labels.

    >>> _edges_split(np.array([0, 0, 2]), np.array([0, 1, 2]), np.array([1, 2, 2]))
    1
    """
    return int(_split_counts(labels, src, dst))


def _big_runs(src, dst, log) -> tuple:
    """A warm-up call on the first 2^24 edges (loading the native feed), the yardstick (the
    pinned copy of the first 2^26 edges: the whole would not fit beside the graph), then two
    timed runs; returns the last run's k and labels, and the times."""
    import gconn
    m = src.size
    gconn.connected_components((src[:1 << 24], dst[:1 << 24]), backend="gpu")
    head = min(m, 1 << 26)
    pin = _wall_ms(pinned_copier(src[:head], dst[:head]), 7, 2)
    pinned_gbs = 8 * head / 1e9 / (pin / 1e3)
    log(f"  pinned copy of {8 * head / 1e9:.2f} GB of its edges: {pin:.2f} ms = {pinned_gbs:.1f} GB/s")
    runs, feeds = [], []
    for r in range(2):
        # the last run's labels are dropped before the clock starts, not inside it
        labels = st = None
        t0 = time.perf_counter()
        k, labels, st = gconn.connected_components((src, dst), backend="gpu", return_stats=True)
        runs.append(time.perf_counter() - t0)
        gbs = 8 * m / 1e9 / runs[-1]
        feeds.append(st.phase_times.get("chunked", runs[-1]))
        log(f"  run {r}: k={k} in {runs[-1]:.2f} s = {gbs:.1f} GB/s of edges = {100 * gbs / pinned_gbs:.0f}% of "
            f"pinned (the chunked phase {feeds[-1]:.2f} s = {100 * 8 * m / 1e9 / feeds[-1] / pinned_gbs:.0f}%, the "
            f"rest the labels); {st.chunks} chunks; "
            + ", ".join(f"{p} {t:.2f} s" for p, t in st.phase_times.items()))
    return k, labels, dict(seconds=runs, chunked_seconds=feeds, pinned_gbs=pinned_gbs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.chunked", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="graphs 64x smaller (smoke test)")
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma list of {', '.join(PARTS)}")
    ap.add_argument("--big", type=float, metavar="EDGES",
                    help="only the graph larger than GPU memory, with this many random edges (e.g. 10e9)")
    ap.add_argument("--big-kronecker", type=int, metavar="SCALE",
                    help="only Graph500's Kronecker graph of this scale from host RAM (29: 68.7 GB)")
    ap.add_argument("--edge-factor", type=int, default=16, help="edge samples per vertex, with --big-kronecker")
    args = ap.parse_args(argv)
    print(stamp(ap.prog, argv), flush=True)
    from gconn.backends import gpu
    ok, why = gpu.available(simulator_ok=False)
    if not ok:
        print(f"no GPU: {why}", file=sys.stderr)
        return 2
    print(f"device: {why}", flush=True)
    log = functools.partial(print, flush=True)
    if args.big:
        bench_big(int(args.big), log)
        return 0
    if args.big_kronecker:
        bench_big_kronecker(args.big_kronecker, log, args.edge_factor)
        return 0
    for key in args.graphs.split(","):
        bench_graph(key.strip(), args.quick, args.repeat, log, args.parts.split(","))
    return 0


if __name__ == "__main__":
    sys.exit(main())
