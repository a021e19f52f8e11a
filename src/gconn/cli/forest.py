"""``gconn forest``: a spanning forest, n - k edges of the input.

Routes and timing as ``gconn cc`` (:mod:`gconn.cli.cc`): a file the
dispatcher reads itself is timed whole, anything else is loaded once and
the runs on the graph are timed apart.  ``-o`` writes the forest as a graph
on the input's vertices, in any format ``gconn generate`` writes that can
hold them (names and relabelled ids: .npz, .parquet, or an edge list for
integer ids).
"""
from __future__ import annotations

import json
import statistics

import numpy as np

from gconn.cli import common as C


def add_parser(add) -> None:
    p = add("forest", cmd_forest, "a spanning forest: n - k edges of the input, a tree on every component",
            [C.input_options(), C.algorithm_options("forest"), C.param_options(), C.timing_options()])
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the forest's edges as a graph on the input's vertices, in any format 'gconn "
                        "generate' writes (e.g. .el, .npz)")


def cmd_forest(args, parser) -> int:
    from gconn.api import dispatch
    from gconn.api.dispatch import Call
    from gconn.graph import Graph
    C.check_input_options(args, parser)
    C.check_algorithm(args.algorithm, "forest")
    relabel = C.relabel_of(args)
    if args.output:
        C.check_graph_path(args.output)
    with C.read_input(args, parser) as inp:
        backend = C.backend_for(args, inp)
        call = Call("forest", backend, args.algorithm, dict(args.param), relabel, True, True, 0, None, False,
                    args.n)
        way = dispatch.route(inp.obj, call, backend) if inp.is_file else "resident"
        whole = way != "resident"
        kernels, load_times = [{"kernels": 0.0, "compiled": 0}], {}
        if whole:
            source = inp.obj
        else:
            kernels = [C.prepare("forest", args, backend)]
            source, load_times = C.load_graph(inp, args, relabel if inp.is_file else False)
            kernels.append(C.prepare("forest", args, backend, source))
            from gconn.inputs import describe
            source = describe(source)
            call = Call("forest", backend, args.algorithm, dict(args.param), False, True, True)
        walls, results = C.timed_calls(lambda: dispatch.run(source, call), args.warmup, args.repeat,
                                       C.show_progress(args), "forest")
    last = results[-1]
    fa, fb = (C.host(a) for a in last.result)
    stats, nodes = last.stats, last.nodes
    n = stats.n
    phases = C.phase_medians([r.stats for r in results])
    k = n - int(fa.size)
    out = {"input": inp.name, "n": n, "m": stats.m if stats is not None else 0, "forest_edges": int(fa.size),
           "components": k, "variant": stats.variant if stats is not None else "",
           "backend": stats.backend if stats is not None else backend, "input_times_s": load_times,
           "warmup": args.warmup, "times_s": walls, "median_s": statistics.median(walls), "min_s": min(walls),
           "phases_s": phases, **C.kernels_json(*kernels)}
    if whole and last.route != "resident":
        out.update(route=last.route, streamed=last.route in ("chunked", "stream"))
    if args.output:
        from gconn.io import save
        forest = Graph.from_edges(fa, fb, n)
        if nodes is not None and not isinstance(nodes, list):
            forest.nodes = np.asarray(nodes)
        save(forest, args.output)
        out["output"] = args.output
    if args.json:
        print(json.dumps(out))
        return 0
    fields = [("input", C.input_line(inp.name, load_times)), ("n", f"{n:,}"), ("m", f"{out['m']:,}"),
              ("forest", f"{fa.size:,} edges (n - k, k = {k:,} components)"),
              ("variant", f"{out['variant']} ({C.backend_note(out['backend'], args.algorithm)})"),
              C.kernels_field(*kernels)]
    fields += C.timing_fields(walls, phases)
    if args.output:
        fields.append(("wrote", f"{fa.size:,} edges to {args.output}"))
    C.print_fields(fields)
    return 0
