"""``gconn stream``: a graph's edges replayed as batches of inserts and queries through
:class:`gconn.IncrementalConnectivity`, checked against the static components."""
from __future__ import annotations

import argparse
import time

import numpy as np

from gconn.cli import common as C


def add_parser(add) -> None:
    from gconn.bench.harness import positive_int
    p = add("stream", cmd_stream, "replay a graph's edges as batches of inserts and queries "
                                  "(incremental connectivity), checked against the static components",
            [C.input_options(), C.algorithm_options("incremental")])
    p.add_argument("--batch-size", type=positive_int, required=True, metavar="B", help="operations per batch")
    p.add_argument("--query-ratio", type=C.non_negative(float, "a number >= 0"), default=0.0, metavar="R",
                   help="queries per insert on average (0.5: one query per two inserts; default 0)")
    p.add_argument("--mode", choices=("phased", "sequential", "concurrent"), default="phased",
                   help="what a query in a batch sees (see gconn.IncrementalConnectivity; default phased)")
    p.add_argument("--seed", type=int, default=0, help="shuffles the edges and draws the queries (default 0)")


def stream_ops(g, query_ratio: float, seed: int):
    """``g``'s edges shuffled, with ``query_ratio`` random-pair queries per insert at random
    places: ``(kinds, src, dst)``, kinds 0 = insert, 1 = query."""
    rng = np.random.default_rng(seed)
    m = g.m
    q = int(round(query_ratio * m)) if g.n else 0
    kinds = np.zeros(m + q, np.int8)
    kinds[m:] = 1
    rng.shuffle(kinds)
    order = rng.permutation(m)
    ins, ops = kinds == 0, (np.empty(m + q, g.id_dtype), np.empty(m + q, g.id_dtype))
    for out, ends in zip(ops, (g.src, g.dst)):
        out[ins] = ends[order]
        out[~ins] = rng.integers(0, max(g.n, 1), q, dtype=g.id_dtype)
    return (kinds, *ops)


def cmd_stream(args, parser) -> int:
    from gconn import api
    from gconn.bench.harness import progress, resolve_backend
    C.check_input_options(args, parser, "incremental")
    with C.read_input(args, parser) as inp:
        backend = resolve_backend(args.backend)
        kernels = [C.prepare("incremental", args, backend)]
        g, load_times = C.load_graph(inp, args, C.relabel_of(args) if inp.is_file else False)
    kinds, src, dst = stream_ops(g, args.query_ratio, args.seed)
    total = kinds.size
    n_batches = -(-total // args.batch_size)
    # so that neither the first batch nor the check pays for loading kernels
    kernels.append(C.prepare("incremental", args, backend, g, mode=args.mode))
    kernels.append(C.prepare("cc", argparse.Namespace(algorithm="auto", quiet=args.quiet), backend, g))
    ic = api.IncrementalConnectivity(g.n, algorithm=args.algorithm, backend=backend, mode=args.mode)
    elapsed, answers = 0.0, 0
    with progress(C.show_progress(args), total=total, desc="stream", unit="op", unit_scale=True) as bar:
        for start in range(0, total, args.batch_size):
            batch = tuple(a[start:start + args.batch_size] for a in (kinds, src, dst))
            t0 = time.perf_counter()
            res = ic.process(*batch)
            elapsed += time.perf_counter() - t0
            answers += int(res.sum())
            bar.update(batch[0].size)
    k_stream = ic.n_components
    k_static, static_labels = api.connected_components(g, backend=backend)
    ok = k_stream == int(k_static) and np.array_equal(C.host(ic.labels()), C.host(static_labels))
    q = int(total - g.m)

    def rate(count: int) -> float:
        return count / elapsed if elapsed > 0 else 0.0

    out = {"input": inp.name, "n": g.n, "m": g.m, "inserts": g.m, "queries": q, "batches": n_batches,
           "batch_size": args.batch_size, "mode": args.mode, "variant": ic.variant.name, "backend": backend,
           "input_times_s": load_times, "time_s": elapsed, "edges_per_s": rate(g.m), "ops_per_s": rate(total),
           "queries_true": answers, "components": k_stream, "static_components": int(k_static), "ok": ok,
           **C.kernels_json(*kernels)}
    C.report(args, out, [
        ("input", C.input_line(inp.name, load_times)), ("n", f"{g.n:,}"), ("m", f"{g.m:,}"),
        ("operations", f"{g.m:,} inserts + {q:,} queries (ratio {args.query_ratio:g}, seed {args.seed})"),
        ("batches", f"{n_batches:,} of up to {args.batch_size:,} operations, {args.mode} mode"),
        ("variant", f"{ic.variant.name} ({C.backend_note(backend, args.algorithm)})"),
        C.kernels_field(*kernels), ("time", f"{C.fmt_s(elapsed)} in process()"),
        ("throughput", f"{C.rate(rate(g.m))} edges/s, {C.rate(rate(total))} ops/s"),
        ("queries", f"{answers:,} of {q:,} answered connected"),
        ("components", f"{k_stream:,} (static: {int(k_static):,}) {'ok' if ok else 'MISMATCH'}")])
    return 0 if ok else 1
