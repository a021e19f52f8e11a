"""``gconn cc``: connected components, their counts and sizes, and the time of each phase;
``gconn forest``: a spanning forest, n - k edges of the input, timed as ``gconn cc``.

A file the dispatcher reads itself (compiled or chunked route) is timed whole; anything else is
loaded once, its kernels ahead, and the runs on the graph are timed apart."""
from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np

from gconn.bench.harness import same_partition, time_calls
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
                        "vertex ids (or names) as in the input (1-based for .mtx, METIS and DIMACS)")
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


#: output formats that keep a graph's own vertex ids (graph.nodes)
_KEEP_IDS = ("edgelist", "npz", "parquet", "feather")


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
        from gconn.io import FORMATS_BY_EXTENSION, save
        from gconn.io.identify import split_name
        forest = Graph.from_edges(fa, fb, n)
        if last.nodes is not None and not isinstance(last.nodes, list):
            forest.nodes = np.asarray(last.nodes)
        elif inp.one_based and FORMATS_BY_EXTENSION.get(split_name(Path(args.output))[0]) in _KEEP_IDS:
            # the input counts its ids from 1, as the labels' output does: the edges in the same ids
            # (.mtx, .graph and .gr count from 1 themselves)
            forest.nodes = np.arange(1, n + 1, dtype=np.int64)
        save(forest, args.output)
        out["output"] = args.output
    C.report(args, out, [
        ("input", C.input_line(inp.name, runs.input_times)), ("n", f"{n:,}"), ("m", f"{out['m']:,}"),
        ("forest", f"{fa.size:,} edges (n - k, k = {k:,} components)"),
        ("variant", f"{out['variant']} ({C.backend_note(out['backend'], args.algorithm)})"),
        C.kernels_field(*runs.kernels), *C.timing_fields(runs.walls, out["phases_s"]),
        ("wrote", f"{fa.size:,} edges to {args.output}") if args.output else None])
    return 0
