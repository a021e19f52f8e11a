"""``gconn forest``: a spanning forest, n - k edges of the input, timed as ``gconn cc``."""
from __future__ import annotations

import json

import numpy as np

from gconn.cli import common as C


def add_parser(add) -> None:
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
    out = {"input": inp.name, "n": n, "m": stats.m, "forest_edges": int(fa.size), "components": k,
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
    if args.json:
        print(json.dumps(out))
        return 0
    fields = [("input", C.input_line(inp.name, runs.input_times)), ("n", f"{n:,}"), ("m", f"{out['m']:,}"),
              ("forest", f"{fa.size:,} edges (n - k, k = {k:,} components)"),
              ("variant", f"{out['variant']} ({C.backend_note(out['backend'], args.algorithm)})"),
              C.kernels_field(*runs.kernels), *C.timing_fields(runs.walls, out["phases_s"])]
    if args.output:
        fields.append(("wrote", f"{fa.size:,} edges to {args.output}"))
    C.print_fields(fields)
    return 0
