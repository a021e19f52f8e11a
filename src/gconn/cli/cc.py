"""``gconn cc``: connected components, their counts and sizes, and the time of each phase.

A file runs on the route the API's dispatcher chooses for it
(:mod:`gconn.api.dispatch`): the compiled one-off path, the chunked path
(parsed and united in bounded memory) or the GPU stream, each timed as a
whole (read and run); a file the dispatcher would load whole, and a
generated graph, are loaded once and the runs on the graph are timed
apart from the loading, with their kernels loaded ahead (``kernels``).
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np

from gconn.cli import common as C

#: How each route that reads the file itself reads it (for the output).
ROUTES = {"compiled": "read whole and run by the compiled one-off kernels",
          "chunked": "parsed and united in chunks", "stream": "streamed to the GPU in chunks"}

#: ``-o`` suffixes for component labels.
LABEL_SUFFIXES = (".npy", ".txt", ".csv", ".parquet")


def add_parser(add) -> None:
    p = add("cc", cmd_cc, "connected components: counts, sizes and time per phase",
            [C.input_options(), C.algorithm_options("cc"), C.param_options(), C.timing_options()])
    p.add_argument("-o", "--output", metavar="LABELS",
                   help="write the labels (.npy, .txt, .csv or .parquet): a (vertex, label) row per vertex, "
                        "vertex ids (or names) as in the input (1-based for .mtx and METIS)")
    p.add_argument("--labels-format", choices=("pairs", "plain"), default="pairs",
                   help="pairs (default): vertex and label per row; plain: the labels alone, the i-th for "
                        "vertex i (0-based)")
    p.add_argument("--compare", action="store_true", help="also time scipy and check the result against it")


def cmd_cc(args, parser) -> int:
    C.check_input_options(args, parser)
    C.check_algorithm(args.algorithm, "cc")
    relabel = C.relabel_of(args)
    plain = args.output and args.labels_format == "plain"
    if args.output:
        if Path(args.output).suffix.lower() not in LABEL_SUFFIXES:
            raise ValueError(f"{args.output}: labels are written as {', '.join(LABEL_SUFFIXES)}")
        C.check_output_folder(args.output)
        if plain and relabel is True:
            _plain_relabelled(args.output)
    with C.read_input(args, parser) as inp:
        backend = C.backend_for(args, inp)
        if inp.is_file and not args.compare:
            out = _whole_calls(args, inp, backend, relabel)
            if out is not None:
                return _report(args, inp, *out)
        return _report(args, inp, *_graph_calls(args, inp, backend, relabel))


def _call(args, backend, relabel):
    from gconn.api.dispatch import Call
    return Call("cc", backend, args.algorithm, dict(args.param), relabel, True, True, 0, None, False, args.n)


def _whole_calls(args, inp, backend, relabel):
    """Runs that read the file themselves (the compiled, chunked and stream
    routes), each timed whole; None when the dispatcher would load the
    graph whole (then :func:`_graph_calls` times the runs apart)."""
    import os
    from gconn.api import dispatch
    from gconn.cli.kernels import watch_compiles
    call = _call(args, backend, relabel)
    way = dispatch.route(inp.obj, call, backend)
    if way == "resident":
        return None
    kernels = {"kernels": 0.0, "compiled": 0}
    if way == "chunked":
        # Parallel parsing and union alternate with serial reading: OpenMP
        # workers that spin between them took the cores from the reader (2
        # shared cores, 1.1 GB edge list: 3.4-4.1 s spinning, 2.3-2.4 s
        # passive; BENCHMARKS.md).  Set before the first parallel kernel
        # starts the runtime; a user's own setting wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        from gconn.chunked.cpu_route import plan_of, warm
        import time
        with watch_compiles(notice=not args.quiet) as watch:
            t0 = time.perf_counter()
            warm(plan_of(args.algorithm, "cc", dict(args.param)))
            kernels = {"kernels": time.perf_counter() - t0, "compiled": watch.count}
    walls, results = C.timed_calls(lambda: dispatch.run(inp.obj, call), args.warmup, args.repeat,
                                   C.show_progress(args), "cc")
    C.print_read_notes(inp)
    last = results[-1]
    k, labels = last.result
    labels = C.host(labels)
    stats = last.stats
    way = last.route
    note = "compiled ahead of time, serial: numba not loaded" if way == "compiled" else None
    return (int(k), labels, last.nodes, [r.stats for r in results], walls, inp.times, [kernels], way, note,
            stats.variant if stats is not None else "", stats.backend if stats is not None else backend,
            stats.n if stats is not None else labels.size, stats.m if stats is not None else 0, relabel)


def _graph_calls(args, inp, backend, relabel):
    """The graph loaded once (or generated), then the runs on it, timed."""
    from gconn import api
    kernels = [C.prepare("cc", args, backend)]
    g, load_times = C.load_graph(inp, args, relabel if inp.is_file else False)
    kernels.append(C.prepare("cc", args, backend, g))

    def call():
        return api.connected_components(g, algorithm=args.algorithm, backend=backend, return_stats=True,
                                        **dict(args.param))

    walls, results = C.timed_calls(call, args.warmup, args.repeat, C.show_progress(args), "cc")
    k, labels, stats = results[-1]
    labels = C.host(labels)
    extra = _compare_scipy(g, labels, statistics.median(walls), args.repeat) if args.compare else {}
    return (int(k), labels, g.nodes, [r[2] for r in results], walls, load_times, kernels, None, None,
            stats.variant, stats.backend, g.n, g.m_input, relabel, extra)


def _report(args, inp, k, labels, nodes, stats_list, walls, load_times, kernels, how, note, variant, backend,
            n, m, relabel, extra=None) -> int:
    extra = extra or {}
    n = labels.size
    largest = int(np.bincount(labels).max()) if labels.size else 0
    phases = C.phase_medians(stats_list)
    if nodes is not None and not isinstance(nodes, np.ndarray):
        nodes = np.asarray(nodes)
    relabelled = nodes is not None and not (nodes.dtype.kind in "iu" and nodes.size == n
                                            and (n == 0 or int(nodes[-1]) == n - 1))
    shown_nodes = nodes if relabelled else None
    out = {"input": inp.name, "n": n, "m": m, "components": k, "largest": largest, "relabelled": relabelled,
           "relabel": {True: "yes", False: "no"}.get(relabel, "auto"), "variant": variant, "backend": backend,
           "input_times_s": load_times, "warmup": args.warmup, "times_s": walls,
           "median_s": statistics.median(walls), "min_s": min(walls), "phases_s": phases, **C.kernels_json(*kernels)}
    if how is not None:
        out["route"] = how
        if how != "resident":
            out["streamed"] = how in ("chunked", "stream")
    if inp.is_file:
        out["format"] = inp.obj.file.format
        out["notes"] = list(inp.obj.notes)
    out.update(extra)
    if args.output:
        if shown_nodes is not None and args.labels_format == "plain":
            _plain_relabelled(args.output)
        _write_labels(labels, shown_nodes, args.output, args.labels_format, inp.one_based)
        out.update(output=args.output, labels_format=args.labels_format,
                   vertex_ids="1-based" if inp.one_based else "0-based")
    if args.json:
        print(json.dumps(out))
        return 0 if out.get("matches_scipy", True) else 1
    share = f" ({100.0 * largest / n:.1f}% of the vertices)" if n else ""
    if how is None:
        name = C.input_line(inp.name, load_times)
    else:
        read = ", ".join(f"{key} {C.fmt_s(v)}, " for key, v in load_times.items())
        name = f"{inp.name} ({read}{ROUTES.get(how, 'read whole')}; m counts the edges as read)"
    fields = [("input", name), ("n", f"{n:,}"), ("m", f"{m:,}")]
    ids = C.ids_field(shown_nodes, relabel, inp.one_based)
    if ids is not None:
        fields.append(ids)
    fields += [("components", f"{k:,}"), ("largest", f"{largest:,}{share}"),
               ("variant", f"{variant} ({note or C.backend_note(backend, args.algorithm)})")]
    fields.append(C.kernels_field(*kernels) if kernels[0]["kernels"] or how is None else
                  ("kernels", "none to load (compiled at install time)" if note else "loaded with the run"))
    fields += C.timing_fields(walls, phases)
    if args.compare:
        fields += [("scipy", f"{C.fmt_s(out['scipy_median_s'])} "
                             f"(scipy.sparse.csgraph.connected_components, median of {args.repeat})"),
                   ("speedup", f"{out['speedup']:.2f}x vs scipy"),
                   ("check", "ok: same components as scipy" if out["matches_scipy"] else
                    "MISMATCH: the components differ from scipy's")]
    if args.output:
        what = "labels" if args.labels_format == "plain" else \
            f"(vertex, label) rows, vertex ids {'1' if inp.one_based else '0'}-based as in the input,"
        fields.append(("wrote", f"{what} of {n:,} vertices to {args.output}"))
    C.print_fields(fields)
    return 0 if out.get("matches_scipy", True) else 1


def _compare_scipy(g, labels, median, repeat) -> dict:
    import time
    from scipy.sparse.csgraph import connected_components
    from gconn.bench.harness import same_partition
    A = g.to_scipy()
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        k, ref = connected_components(A, directed=False)
        walls.append(time.perf_counter() - t0)
    scipy_median = statistics.median(walls)
    return {"scipy_median_s": scipy_median, "speedup": scipy_median / median,
            "matches_scipy": bool(int(k) == int(labels.max(initial=-1)) + 1 and same_partition(labels, ref))}


# -- label files ---------------------------------------------------------------------------

def _write_labels(labels: np.ndarray, ids, path: str, style: str, one_based: bool) -> None:
    """Write component labels.  ``pairs``: one 'vertex label' row per
    vertex (an (n, 2) array in .npy; a '# vertex label' comment or a
    'vertex,label' header row in text), vertices in the input's own ids;
    ``plain``: the labels alone, the i-th for vertex i."""
    suffix = Path(path).suffix.lower()
    named = ids is not None and np.asarray(ids).dtype.kind in "OSU"
    if suffix == ".parquet" or named:
        _write_label_table(labels, ids, path, suffix, style, one_based)
        return
    if style == "plain":
        if suffix == ".npy":
            with open(path, "wb") as f:
                np.save(f, labels)
            return
        with open(path, "w") as f:
            if labels.size:
                f.write("\n".join(map(str, labels.tolist())))
                f.write("\n")
        return
    vertex = np.arange(labels.size, dtype=np.int64) if ids is None else np.asarray(ids, np.int64)
    if one_based:
        vertex = vertex + 1
    if suffix == ".npy":
        with open(path, "wb") as f:
            np.save(f, np.column_stack([vertex, labels.astype(np.int64, copy=False)]))
        return
    from gconn.io.edgelist import write_pairs
    sep = "," if suffix == ".csv" else " "
    base = "1-based, as in the input file" if one_based else "0-based, as in the input"
    header = "vertex,label\n" if suffix == ".csv" else f"# vertex label (vertex ids {base})\n"
    with open(path, "wb") as f:
        f.write(header.encode())
        write_pairs(f, vertex, labels.astype(np.int64, copy=False), 0, sep)


def _write_label_table(labels: np.ndarray, ids, path: str, suffix: str, style: str, one_based: bool) -> None:
    """Labels through pyarrow: Parquet (columns vertex, label; label alone
    for ``plain``), and text files whose vertices are names."""
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
