"""``gconn cc``: connected components, their counts and sizes, and the time of each phase;
``gconn forest``: a spanning forest, n - k edges of the input, timed as ``gconn cc``;
``gconn stream``: a graph's edges replayed as batches of inserts and queries through
:class:`gconn.IncrementalConnectivity`, checked against the static components.

A file the dispatcher reads itself (compiled or chunked route) is timed whole; anything else is
loaded once, its kernels ahead, and the runs on the graph are timed apart."""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from gconn.bench.harness import positive_int, progress, resolve_backend, same_partition, time_calls
from gconn.cli import common as C

ROUTES = {"compiled": "read whole and run by the compiled one-off kernels",
          "chunked": "read and united in chunks",
          "devices": "read in chunks, shared among the GPUs"}

LABEL_SUFFIXES = (".npy", ".txt", ".csv", ".parquet")


def add_parser(add) -> None:
    p = add("cc", cmd_cc, "connected components: counts, sizes and time per phase",
            [C.input_options(), C.algorithm_options("cc")])
    p.add_argument("-o", "--output", metavar="LABELS",
                   help="write the labels (.npy, .txt, .csv or .parquet): a (vertex, label) row per vertex, "
                        "vertex ids (or names) as in the input (1-based for .mtx and METIS)")
    p.add_argument("--labels-format", choices=("pairs", "plain"), default="pairs",
                   help="pairs (default): vertex and label per row; plain: the labels alone, the i-th for "
                        "vertex i (0-based)")
    p.add_argument("--compare", action="store_true", help="also time scipy and check the result against it")


def cmd_cc(args, parser) -> int:
    C.check_input_options(args, parser, "cc")
    relabel = C.relabel_of(args)
    if args.output:
        if Path(args.output).suffix.lower() not in LABEL_SUFFIXES:
            raise ValueError(f"{args.output}: labels are written as {', '.join(LABEL_SUFFIXES)}")
        C.check_output_folder(args.output)
        if args.labels_format == "plain" and relabel is True:
            _plain_relabelled(args.output)
    with C.read_input(args, parser) as inp:
        backend = C.backend_for(args, inp)
        runs = C.timed_runs("cc", args, inp, backend, relabel, load=args.compare)
        out, labels, nodes = _summary(args, inp, runs, backend, relabel)
        if args.output:
            if nodes is not None and args.labels_format == "plain":
                _plain_relabelled(args.output)
            _write_labels(labels, nodes, args.output, args.labels_format, inp.one_based)
            out.update(output=args.output, labels_format=args.labels_format,
                       vertex_ids="1-based" if inp.one_based else "0-based")
        C.report(args, out, _fields(args, inp, runs, out, nodes))
    return 0 if out.get("matches_scipy", True) else 1


def _summary(args, inp, runs, backend, relabel):
    """The JSON object of a run, its labels, and its vertices' input ids where relabelled (else None)."""
    last, g = runs.results[-1], runs.graph
    k, labels = last.result
    labels, stats = C.host(labels), last.stats
    n = labels.size
    nodes = last.nodes if g is None else g.nodes
    nodes = None if nodes is None else np.asarray(nodes)
    relabelled = nodes is not None and not (nodes.dtype.kind in "iu" and nodes.size == n
                                            and (n == 0 or int(nodes[-1]) == n - 1))
    out = {"input": inp.name, "n": n, "m": g.m_input if g is not None else stats.m if stats is not None else 0,
           "components": int(k), "largest": int(np.bincount(labels).max()) if n else 0, "relabelled": relabelled,
           "relabel": {True: "yes", False: "no"}.get(relabel, "auto"),
           "variant": stats.variant if stats is not None else "",
           "backend": stats.backend if stats is not None else backend, **C.runs_json(args, runs)}
    if g is None:
        out["route"] = last.route
        if last.route != "resident":
            out["chunked"] = last.route == "chunked"
    if inp.is_file:
        out.update(format=inp.obj.file.format, notes=list(inp.obj.notes))
        note = None if relabelled else inp.obj.lone_zero(labels, args.n, relabel)
        if note is not None:
            C.print_notes([note])
            out["notes"].append(note)
    out["m"] = C.edges_of(inp, out["m"])
    if args.compare:
        out.update(_compare_scipy(g, labels, out["median_s"], args.repeat))
    return out, labels, nodes if relabelled else None


def _fields(args, inp, runs, out, nodes) -> list:
    """The lines ``gconn cc`` prints."""
    n, how = out["n"], out.get("route")
    note = "compiled ahead of time, serial: numba not loaded" if how == "compiled" else None
    if how is None:
        name = C.input_line(inp.name, runs.input_times)
    else:
        read = ", ".join(f"{key} {C.fmt_s(v)}, " for key, v in runs.input_times.items())
        name = f"{inp.name} ({read}{ROUTES.get(how, 'read whole')}; m counts the edges as read)"
    share = f" ({100.0 * out['largest'] / n:.1f}% of the vertices)" if n else ""
    fields = [("input", name), ("n", f"{n:,}"), ("m", f"{out['m']:,}"),
              C.ids_field(nodes, C.relabel_of(args), inp.one_based),
              ("components", f"{out['components']:,}"), ("largest", f"{out['largest']:,}{share}"),
              ("variant", f"{out['variant']} ({note or C.backend_note(out['backend'], args.algorithm)})"),
              C.kernels_field(*runs.kernels) if runs.kernels[0]["kernels"] or how is None else
              ("kernels", "none to load (compiled at install time)" if note else "loaded with the run")]
    fields += C.timing_fields(runs.walls, out["phases_s"])
    if args.compare:
        fields += [("scipy", f"{C.fmt_s(out['scipy_median_s'])} "
                             f"(scipy.sparse.csgraph.connected_components, median of {args.repeat})"),
                   ("speedup", f"{out['speedup']:.2f}x vs scipy"),
                   ("check", "ok: same components as scipy" if out["matches_scipy"] else
                    "MISMATCH: the components differ from scipy's")]
    if args.output:
        named = nodes is not None and np.asarray(nodes).dtype.kind in "OSU"
        what = "labels" if args.labels_format == "plain" else "(vertex, label) rows, the vertices by name," \
            if named else f"(vertex, label) rows, vertex ids {'1' if inp.one_based else '0'}-based as in the input,"
        fields.append(("wrote", f"{what} of {n:,} vertices to {args.output}"))
    return fields


def _compare_scipy(g, labels, median, repeat) -> dict:
    from scipy.sparse.csgraph import connected_components
    A = g.to_scipy()
    runs = list(time_calls(lambda: connected_components(A, directed=False), repeat))
    k, ref = runs[-1][1]
    scipy_median = statistics.median(s for s, _ in runs)
    return {"scipy_median_s": scipy_median, "speedup": scipy_median / median,
            "matches_scipy": bool(int(k) == int(labels.max(initial=-1)) + 1 and same_partition(labels, ref))}


def _write_labels(labels: np.ndarray, ids, path: str, style: str, one_based: bool) -> None:
    """``pairs``: a (vertex, label) row per vertex in the input's ids (with a header in text);
    ``plain``: the labels alone."""
    suffix = Path(path).suffix.lower()
    named = ids is not None and np.asarray(ids).dtype.kind in "OSU"
    if suffix == ".parquet" or named:
        _write_label_table(labels, ids, path, suffix, style, one_based)
        return
    if style == "plain" and suffix != ".npy":
        with open(path, "w") as f:
            f.write("".join(map("{}\n".format, labels.tolist())))
        return
    if style == "pairs":
        vertex = np.arange(labels.size, dtype=np.int64) if ids is None else np.asarray(ids, np.int64)
        vertex, labels = vertex + one_based, labels.astype(np.int64, copy=False)
    if suffix == ".npy":
        with open(path, "wb") as f:
            np.save(f, labels if style == "plain" else np.column_stack([vertex, labels]))
        return
    from gconn.io.edgelist import write_pairs
    sep = "," if suffix == ".csv" else " "
    base = "1-based, as in the input file" if one_based else "0-based, as in the input"
    header = "vertex,label\n" if suffix == ".csv" else f"# vertex label (vertex ids {base})\n"
    with open(path, "wb") as f:
        f.write(header.encode())
        write_pairs(f, vertex, labels, 0, sep)


def _write_label_table(labels: np.ndarray, ids, path: str, suffix: str, style: str, one_based: bool) -> None:
    """Labels through pyarrow: Parquet, and text files whose vertices are names."""
    import pyarrow as pa
    if suffix == ".npy":
        raise ValueError(f"{path}: the vertices are names, which .npy cannot store; use .parquet or .csv")
    columns = {"label": labels.astype(np.int64, copy=False)}
    if style == "pairs":
        vertex = np.arange(labels.size, dtype=np.int64) if ids is None else np.asarray(ids)
        if vertex.dtype.kind in "iu" and one_based:
            vertex = vertex + 1
        columns = {"vertex": vertex, **columns}
    table = pa.table(columns)
    if suffix == ".parquet":
        import pyarrow.parquet as pq
        pq.write_table(table, path)
    else:
        from pyarrow import csv
        csv.write_csv(table, path, csv.WriteOptions(delimiter="," if suffix == ".csv" else " ",
                                                    quoting_style="needed"))


def _plain_relabelled(path: str):
    raise ValueError(f"{path}: the ids are relabelled, so plain labels (one per line, the i-th for "
                     "vertex i) cannot say which vertex each is; use --labels-format pairs or --no-relabel")


def add_forest_parser(add) -> None:
    p = add("forest", cmd_forest, "a spanning forest: n - k edges of the input, a tree on every component",
            [C.input_options(), C.algorithm_options("forest")])
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the forest's edges as a graph on the input's vertices, in any format 'gconn "
                        "generate' writes (e.g. .el, .npz)")


def cmd_forest(args, parser) -> int:
    C.check_input_options(args, parser, "forest")
    if args.output:
        C.check_graph_path(args.output)
    with C.read_input(args, parser) as inp:
        runs = C.timed_runs("forest", args, inp, C.backend_for(args, inp), C.relabel_of(args))
    last = runs.results[-1]
    fa, fb = (C.host(a) for a in last.result)
    stats, n = last.stats, last.stats.n
    k = n - int(fa.size)
    out = {"input": inp.name, "n": n, "m": C.edges_of(inp, stats.m), "forest_edges": int(fa.size), "components": k,
           "variant": stats.variant, "backend": stats.backend, **C.runs_json(args, runs)}
    if runs.graph is None and last.route != "resident":
        out.update(route=last.route, chunked=last.route == "chunked")
    if args.output:
        from gconn.graph import Graph
        from gconn.io import save
        forest = Graph.from_edges(fa, fb, n)
        if last.nodes is not None and not isinstance(last.nodes, list):
            forest.nodes = np.asarray(last.nodes)
        save(forest, args.output)
        out["output"] = args.output
    C.report(args, out, [
        ("input", C.input_line(inp.name, runs.input_times)), ("n", f"{n:,}"), ("m", f"{out['m']:,}"),
        ("forest", f"{fa.size:,} edges (n - k, k = {k:,} components)"),
        ("variant", f"{out['variant']} ({C.backend_note(out['backend'], args.algorithm)})"),
        C.kernels_field(*runs.kernels), *C.timing_fields(runs.walls, out["phases_s"]),
        ("wrote", f"{fa.size:,} edges to {args.output}") if args.output else None])
    return 0


def add_stream_parser(add) -> None:
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


def _dynamic_stream(args, parser) -> int:
    """``gconn stream --delete-ratio``: the stream through gconn.DynamicConnectivity, checked against
    the static components of the edges left."""
    from gconn import api
    from gconn.graph import Graph
    if args.algorithm != "auto" or args.mode != "phased":
        parser.error("--delete-ratio runs gconn.DynamicConnectivity, which takes no --algorithm or --mode")
    backend = "gpu" if args.backend == "gpu" else "cpu"
    with C.read_input(args, parser) as inp:
        g, load_times = C.load_graph(inp, args, C.relabel_of(args) if inp.is_file else False)
    kinds, src, dst = stream_ops(g, args.query_ratio, args.seed, args.delete_ratio)
    dc = api.DynamicConnectivity(g.n, backend=backend)
    # compiled (or loaded) before the clock, on a structure of its own
    api.DynamicConnectivity(backend=backend).process([0, 0, 2, 1], [0, 1, 0, 0], [1, 2, 1, 2])
    total, elapsed, answers = kinds.size, 0.0, 0
    with progress(C.show_progress(args), total=total, desc="stream", unit="op", unit_scale=True) as bar:
        for start in range(0, total, args.batch_size):
            batch = tuple(a[start:start + args.batch_size] for a in (kinds, src, dst))
            t0 = time.perf_counter()
            answers += int(dc.process(*batch).sum())
            elapsed += time.perf_counter() - t0
            bar.update(batch[0].size)
    k, labels = dc.components()
    left_src, left_dst = dc.edges()
    k_static, static_labels = api.connected_components(Graph.from_edges(left_src, left_dst, n=g.n), backend="cpu")
    ok = k == int(k_static) and np.array_equal(labels, C.host(static_labels))
    counts = {name: int(np.count_nonzero(kinds == code)) for name, code in (("inserts", 0), ("queries", 1),
                                                                            ("deletes", 2))}
    rate = total / elapsed if elapsed > 0 else 0.0
    out = {"input": inp.name, "n": g.n, "m": g.m, **counts, "batches": -(-total // args.batch_size),
           "batch_size": args.batch_size, "backend": backend, "structure": "DynamicConnectivity",
           "input_times_s": load_times, "time_s": elapsed, "ops_per_s": rate, "queries_true": answers,
           "components": k, "static_components": int(k_static), "ok": ok}
    C.report(args, out, [
        ("input", C.input_line(inp.name, load_times)), ("n", f"{g.n:,}"), ("m", f"{g.m:,}"),
        ("operations", f"{counts['inserts']:,} inserts + {counts['deletes']:,} deletes + {counts['queries']:,} "
                       f"queries (seed {args.seed})"),
        ("batches", f"{out['batches']:,} of up to {args.batch_size:,} operations, each seen in order"),
        ("structure", f"gconn.DynamicConnectivity ({backend.upper()})"), ("time", f"{C.fmt_s(elapsed)} in process()"),
        ("throughput", f"{C.rate(rate)} ops/s"),
        ("queries", f"{answers:,} of {counts['queries']:,} answered connected"),
        ("components", f"{k:,} (static, of the {left_src.size:,} edges left: {int(k_static):,}) "
                       f"{'ok' if ok else 'MISMATCH'}")])
    return 0 if ok else 1



def _log_stream(args, parser) -> int:
    """``gconn stream --updates LOG``: a log's updates in batches of ``--batch-size``, each query
    answered as it comes; the final components checked against the static ones of the edges left."""
    import contextlib
    import shutil
    import sys
    import tempfile
    from gconn import api
    from gconn.graph import Graph
    from gconn.io.updates import read_updates
    if args.file or args.generate or args.example:
        parser.error("--updates LOG is the input: give no FILE, --generate or --example")
    given = (("--query-ratio", args.query_ratio or None), ("--delete-ratio", args.delete_ratio or None),
             ("--seed", args.seed), ("--format", args.format), ("--source", args.source), ("--target", args.target),
             ("--header/--no-header", args.header), ("--names/--no-names", args.names),
             ("--relabel/--no-relabel", args.relabel))
    for option, value in given:
        if value is not None:
            parser.error(f"{option} applies to a replayed graph, not to --updates")
    if args.mode not in (None, "sequential"):
        parser.error("an update log's queries see every update before them: --mode sequential (the default)")
    if args.output:
        C.check_output_folder(args.output)
    with contextlib.ExitStack() as stack:
        t0 = time.perf_counter()
        path = args.updates
        if path == "-":
            path = str(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gconn-"))) / "stdin")
            with open(path, "wb") as f:
                shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
        kinds, src, dst = read_updates(path)
        read_s = time.perf_counter() - t0
    name = "stdin" if args.updates == "-" else args.updates
    counts = {what: int(np.count_nonzero(kinds == code)) for what, code in (("inserts", 0), ("queries", 1),
                                                                           ("deletes", 2))}
    n0 = args.n or 0
    if counts["deletes"]:
        if args.algorithm != "auto":
            parser.error("a log with deletes runs gconn.DynamicConnectivity, which takes no --algorithm")
        backend = "gpu" if args.backend == "gpu" else "cpu"
        structure = api.DynamicConnectivity(n0, backend=backend)
        api.DynamicConnectivity(backend=backend).process([0, 0, 2, 1], [0, 1, 0, 0], [1, 2, 1, 2])
    else:
        backend = resolve_backend(args.backend)
        structure = api.IncrementalConnectivity(n0, algorithm=args.algorithm, backend=backend, mode="sequential")
        api.IncrementalConnectivity(algorithm=args.algorithm, backend=backend, mode="sequential").process(
            [0, 1], [0, 0], [1, 1])
    # compiled (or loaded) before the clock, on a structure of its own (above)
    total, elapsed, answers = kinds.size, 0.0, []
    with progress(C.show_progress(args), total=total, desc="stream", unit="op", unit_scale=True) as bar:
        for start in range(0, total, args.batch_size):
            batch = tuple(a[start:start + args.batch_size] for a in (kinds, src, dst))
            t0 = time.perf_counter()
            answers.append(C.host(structure.process(*batch)))
            elapsed += time.perf_counter() - t0
            bar.update(batch[0].size)
    answers = np.concatenate(answers) if answers else np.zeros(0, bool)
    if counts["deletes"]:
        k, labels = structure.components()
        left_src, left_dst = structure.edges()
    else:
        k, labels = structure.n_components, C.host(structure.labels())
        left_src, left_dst = src[kinds == 0], dst[kinds == 0]
    n = structure.n
    k_static, static_labels = api.connected_components(Graph.from_edges(left_src, left_dst, n=n), backend="cpu")
    ok = k == int(k_static) and np.array_equal(C.host(labels), C.host(static_labels))
    if args.output:
        q = kinds == 1
        np.savetxt(args.output, np.column_stack([src[q], dst[q], answers.astype(np.int64)]), fmt="%d")
    rate = total / elapsed if elapsed > 0 else 0.0
    structure_name = type(structure).__name__
    out = {"input": name, "n": n, **counts, "batches": -(-total // args.batch_size), "batch_size": args.batch_size,
           "backend": backend, "structure": structure_name, "input_times_s": {"read": read_s},
           "time_s": elapsed, "ops_per_s": rate, "queries_true": int(answers.sum()), "components": int(k),
           "static_components": int(k_static), "ok": ok, "output": args.output}
    C.report(args, out, [
        ("input", C.input_line(name, {"read": read_s})), ("n", f"{n:,}"),
        ("operations", f"{counts['inserts']:,} inserts + {counts['deletes']:,} deletes + {counts['queries']:,} "
                       "queries, in the log's order"),
        ("batches", f"{out['batches']:,} of up to {args.batch_size:,} operations, each seen in order"),
        ("structure", f"gconn.{structure_name} ({backend.upper()})"), ("time", f"{C.fmt_s(elapsed)} in process()"),
        ("throughput", f"{C.rate(rate)} ops/s"),
        ("queries", f"{int(answers.sum()):,} of {counts['queries']:,} answered connected"),
        ("wrote", f"{counts['queries']:,} answers to {args.output}") if args.output else None,
        ("components", f"{int(k):,} (static, of the {left_src.size:,} edges left: {int(k_static):,}) "
                       f"{'ok' if ok else 'MISMATCH'}")])
    return 0 if ok else 1
