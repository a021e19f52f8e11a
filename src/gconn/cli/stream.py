"""``gconn stream``: a graph's edges replayed as batches of inserts, queries and deletes through
:class:`gconn.IncrementalConnectivity` or :class:`gconn.DynamicConnectivity`, or an update log
read in order, checked against the static components."""
from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import numpy as np

from gconn.bench.harness import positive_int, progress, resolve_backend
from gconn.cli import common as C


def add_parser(add) -> None:
    p = add("stream", cmd_stream, "replay a graph's edges as batches of inserts, queries and deletes "
                                  "(incremental or dynamic connectivity), checked against the static components",
            [C.input_options(), C.algorithm_options("incremental")])
    p.add_argument("--batch-size", type=positive_int, required=True, metavar="B", help="operations per batch")
    p.add_argument("--query-ratio", type=C.non_negative(float, "a number >= 0"), default=0.0, metavar="R",
                   help="queries per insert on average (0.5: one query per two inserts; default 0)")
    p.add_argument("--delete-ratio", type=C.non_negative(float, "a number from 0 to 1", most=1), default=0.0,
                   metavar="D",
                   help="deletes per insert (0.1: a tenth of the edges deleted at random points after their "
                        "insert; at most 1): gconn.DynamicConnectivity, on the CPU unless --backend gpu; default 0")
    p.add_argument("--mode", choices=("phased", "sequential", "concurrent"),
                   help="what a query in a batch sees (see gconn.IncrementalConnectivity; default phased)")
    p.add_argument("--seed", type=int, help="shuffles the edges and draws the queries (default 0)")
    log = p.add_argument_group("an update log instead of a replayed graph")
    log.add_argument("--updates", metavar="LOG",
                     help="a file of updates in order, one per line: '+ u v' (insert), '- u v' (delete), "
                          "'? u v' (query); '-': standard input. Each query sees every update before it; "
                          "with deletes: gconn.DynamicConnectivity. --n N: vertices 0..N-1 from the start")
    log.add_argument("-o", "--output", metavar="ANSWERS",
                     help="with --updates: the queries' answers, one line each: u v 1 (connected) or u v 0")


def stream_ops(g, query_ratio: float, seed: int, delete_ratio: float = 0.0):
    """``g``'s edges shuffled, with ``query_ratio`` random-pair queries per insert at random
    places: ``(kinds, src, dst)``, kinds 0 = insert, 1 = query; with ``delete_ratio``, that share
    of the edges is deleted (kind 2) at a random point after its insert."""
    if delete_ratio > 0:
        return _with_deletes(g, query_ratio, seed, delete_ratio)
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


def _with_deletes(g, query_ratio: float, seed: int, delete_ratio: float):
    rng = np.random.default_rng(seed)
    m = g.m
    order = rng.permutation(m)
    s, d = g.src[order], g.dst[order]
    gone = rng.choice(m, int(round(delete_ratio * m)), replace=False)
    q = int(round(query_ratio * m)) if g.n else 0
    at = np.r_[np.arange(m, dtype=np.float64), gone + rng.random(gone.size) * (m - gone), rng.random(q) * m]
    kinds = np.r_[np.zeros(m, np.int8), np.full(gone.size, 2, np.int8), np.ones(q, np.int8)]
    pick = lambda ends: np.r_[ends, ends[gone], rng.integers(0, max(g.n, 1), q, dtype=g.id_dtype)]  # noqa: E731
    src, dst = pick(s), pick(d)
    # stable: a delete drawn at its insert's own time stays after it
    seq = np.argsort(at, kind="stable")
    return kinds[seq], src[seq], dst[seq]


#: where a structure's error names an operation of its batch
_OPERATION = re.compile(r"\(operation (\d+) of the batch\)|^(?:src|dst)\[(\d+)\]")


def _feed(structure, ops, args, where=None):
    """``ops`` (kinds, src, dst) through ``structure.process`` in batches of ``--batch-size``, in order:
    (seconds inside process(), each query's answer).  The answers come to the host outside the clock.
    ``where``: (name, each operation's line) of an update log, to name the line of a refused update."""
    kinds = ops[0]
    elapsed, answers = 0.0, []
    with progress(C.show_progress(args), total=kinds.size, desc="stream", unit="op", unit_scale=True) as bar:
        for start in range(0, kinds.size, args.batch_size):
            batch = tuple(a[start:start + args.batch_size] for a in ops)
            t0 = time.perf_counter()
            try:
                res = structure.process(*batch)
            except ValueError as e:
                if where is None:
                    raise
                name, lines = where
                found = _OPERATION.search(str(e))
                at = f"line {lines[start + int(found.group(1) or found.group(2))]}" if found else \
                    f"the batch of lines {lines[start]}-{lines[min(start + args.batch_size, kinds.size) - 1]}"
                raise ValueError(f"{name}, {at}: {e}") from None
            elapsed += time.perf_counter() - t0
            answers.append(np.asarray(C.host(res), bool))
            bar.update(batch[0].size)
    return elapsed, np.concatenate(answers) if answers else np.zeros(0, bool)


def cmd_stream(args, parser) -> int:
    from gconn import api
    if args.updates is not None:
        return _log_stream(args, parser)
    if args.output:
        parser.error("--output writes the answers of an update log's queries: it needs --updates LOG")
    args.mode, args.seed = args.mode or "phased", args.seed or 0
    C.check_input_options(args, parser, "incremental")
    if args.delete_ratio > 0:
        return _dynamic_stream(args, parser)
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
    elapsed, answered = _feed(ic, (kinds, src, dst), args)
    answers = int(answered.sum())
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


def _dynamic_stream(args, parser) -> int:
    """``gconn stream --delete-ratio``: the stream through gconn.DynamicConnectivity."""
    if args.algorithm != "auto" or args.mode != "phased":
        parser.error("--delete-ratio runs gconn.DynamicConnectivity, which takes no --algorithm or --mode")
    backend = "gpu" if args.backend == "gpu" else "cpu"
    with C.read_input(args, parser) as inp:
        g, load_times = C.load_graph(inp, args, C.relabel_of(args) if inp.is_file else False)
    ops = stream_ops(g, args.query_ratio, args.seed, args.delete_ratio)
    return _in_order(args, _dynamic(g.n, backend), backend, ops, inp.name, g.m, load_times,
                     f"queries (seed {args.seed})")


def _log_stream(args, parser) -> int:
    """``gconn stream --updates LOG``: a log's updates in batches of ``--batch-size``, each query
    answered as it comes."""
    import contextlib
    import warnings
    from gconn import api
    from gconn.errors import InputNote
    from gconn.io.updates import read_updates
    if args.file or args.generate or args.example:
        parser.error("--updates LOG is the input: give no FILE, --generate or --example")
    # --n sizes the structures
    given = (("--query-ratio", args.query_ratio or None), ("--delete-ratio", args.delete_ratio or None),
             ("--seed", args.seed), *((option, getattr(args, attr)) for option, attr in C.READING if attr != "n"))
    for option, value in given:
        if value is not None:
            parser.error(f"{option} applies to a replayed graph, not to --updates")
    if args.mode not in (None, "sequential"):
        parser.error("an update log's queries see every update before them: --mode sequential (the default)")
    if args.output:
        C.check_output_folder(args.output)
    with contextlib.ExitStack() as stack:
        t0 = time.perf_counter()
        path = C.stdin_copy(stack) if args.updates == "-" else args.updates
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", InputNote)
            ops, lines = read_updates(path, return_lines=True)
        read_s = time.perf_counter() - t0
        C.print_notes(str(w.message) for w in seen if w.category is InputNote)
    name = "stdin" if args.updates == "-" else args.updates
    n0 = args.n or 0
    if np.any(ops[0] == 2):
        if args.algorithm != "auto":
            parser.error("a log with deletes runs gconn.DynamicConnectivity, which takes no --algorithm")
        backend = "gpu" if args.backend == "gpu" else "cpu"
        structure = _dynamic(n0, backend)
    else:
        backend = resolve_backend(args.backend)
        structure = api.IncrementalConnectivity(n0, algorithm=args.algorithm, backend=backend, mode="sequential")
        # compiled (or loaded) before the clock, on a structure of its own
        api.IncrementalConnectivity(algorithm=args.algorithm, backend=backend, mode="sequential").process(
            [0, 1], [0, 0], [1, 1])
    return _in_order(args, structure, backend, ops, name, None, {"read": read_s}, "queries, in the log's order",
                     (Path(name).name, lines))


def _dynamic(n: int, backend: str):
    """A DynamicConnectivity of ``n`` vertices, its kernels compiled (or loaded) before the clock."""
    from gconn import api
    api.DynamicConnectivity(backend=backend).process([0, 0, 2, 1], [0, 1, 0, 0], [1, 2, 1, 2])
    return api.DynamicConnectivity(n, backend=backend)


def _in_order(args, structure, backend: str, ops, name: str, m, input_times: dict, order: str, where=None) -> int:
    """``ops`` through a structure that sees each operation in order (a replay with deletes, or an update
    log), its final components checked against the static ones of the edges left, then the report."""
    from gconn import api
    from gconn.graph import Graph
    kinds, src, dst = ops
    elapsed, answers = _feed(structure, ops, args, where)
    if isinstance(structure, api.DynamicConnectivity):
        k, labels = structure.components()
        left_src, left_dst = structure.edges()
    else:
        k, labels = structure.n_components, structure.labels()
        left_src, left_dst = src[kinds == 0], dst[kinds == 0]
    n, k = structure.n, int(k)
    k_static, static_labels = api.connected_components(Graph.from_edges(left_src, left_dst, n=n), backend="cpu")
    ok = k == int(k_static) and np.array_equal(C.host(labels), C.host(static_labels))
    if args.output:
        q = kinds == 1
        np.savetxt(args.output, np.column_stack([src[q], dst[q], answers.astype(np.int64)]), fmt="%d")
    counts = {what: int(np.count_nonzero(kinds == code)) for what, code in (("inserts", 0), ("queries", 1),
                                                                           ("deletes", 2))}
    rate = kinds.size / elapsed if elapsed > 0 else 0.0
    kind, true = type(structure).__name__, int(answers.sum())
    out = {"input": name, "n": n, **({} if m is None else {"m": m}), **counts,
           "batches": -(-kinds.size // args.batch_size), "batch_size": args.batch_size, "backend": backend, "structure": kind, "input_times_s": input_times,
           "time_s": elapsed, "ops_per_s": rate, "queries_true": true, "components": k,
           "static_components": int(k_static), "ok": ok}
    if where is not None:
        out["output"] = args.output
    C.report(args, out, [
        ("input", C.input_line(name, input_times)), ("n", f"{n:,}"), None if m is None else ("m", f"{m:,}"),
        ("operations", f"{counts['inserts']:,} inserts + {counts['deletes']:,} deletes + {counts['queries']:,} "
                       f"{order}"),
        ("batches", f"{out['batches']:,} of up to {args.batch_size:,} operations, each seen in order"),
        ("structure", f"gconn.{kind} ({backend.upper()})"), ("time", f"{C.fmt_s(elapsed)} in process()"),
        ("throughput", f"{C.rate(rate)} ops/s"),
        ("queries", f"{true:,} of {counts['queries']:,} answered connected"),
        ("wrote", f"{counts['queries']:,} answers to {args.output}") if args.output else None,
        ("components", f"{k:,} (static, of the {left_src.size:,} edges left: {int(k_static):,}) "
                       f"{'ok' if ok else 'MISMATCH'}")])
    return 0 if ok else 1
