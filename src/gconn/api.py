"""Public entry points: static connectivity, spanning forest, incremental."""
from __future__ import annotations

import os
import sys
from contextlib import nullcontext

import numpy as np

from . import aot, design, pipeline, streaming
from .adjacency import strong_requested
from .design import Plan, Variant
from .errors import GPUUnavailableError
from .graph import INT32_MAX, Graph, _as_id_array, _is_cupy, relabel_option
from .ids import check_pair, id_range
from .inputs import as_graph
from .tables import has_names, labels_table, output_option
from .stats import Stats

BACKENDS = ("auto", "cpu", "gpu")


def _backend_module(backend: str, graph: Graph | None = None):
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; one of {', '.join(BACKENDS)}")
    if backend == "auto":
        if graph is not None and graph.on_gpu:
            backend = "gpu"
        else:
            from . import gpu
            backend = "gpu" if gpu.available(simulator_ok=False)[0] else "cpu"
    if backend == "cpu":
        from . import cpu
        return cpu
    from . import gpu
    ok, why = gpu.available(simulator_ok=True)
    if not ok:
        raise GPUUnavailableError(f"backend='gpu' is not usable here: {why}")
    return gpu


def _variant(algorithm, problem: str, graph: Graph | None, be, params: dict) -> Variant:
    design.check_param_names(params)  # before the automatic choice does any work
    if algorithm is None or (isinstance(algorithm, str) and algorithm == "auto"):
        # only the CPU estimates HB's coverage (design.choose)
        v = design.choose(graph, problem, backend=be.NAME, hb_coverage=getattr(be, "hb_coverage", None)) \
            if graph is not None else Variant.parse(design.default_name(problem), problem)
    else:
        v = Variant.parse(algorithm, problem)
    return v.with_params(**params)


def _setup(graph, backend, algorithm, problem: str, params: dict, return_stats: bool, relabel=False,
           columns=(None, None), names_ok=False):
    """Input graph, backend module, graph on that backend, plan, Stats (None
    unless asked for: collecting them reads values back from the device)."""
    g_in = as_graph(graph, relabel=relabel, source=columns[0], target=columns[1])
    if relabel is False and not names_ok and has_names(g_in) and not isinstance(graph, Graph):
        raise ValueError("the vertex ids are names, not integers: pass relabel=True to get the names back "
                         "with the labels, as (n_components, labels, names)")
    be = _backend_module(backend, g_in)
    g = be.to_backend(g_in)
    plan = Plan.of(_variant(algorithm, problem, g, be, params))
    stats = None
    if return_stats:
        # nodes is an id array after relabelling (a list holds networkx labels)
        stats = Stats(variant=plan.name, backend=be.NAME, n=g.n, m=g.m_input,
                      relabelled=g_in.nodes is not None and not isinstance(g_in.nodes, list))
    return g_in, be, g, plan, stats


def _streamed(graph, backend, algorithm, problem, params, relabel, columns, table, device_memory, return_stats):
    """The run streamed to the GPU (:mod:`gconn.streaming`) as (None for
    the input graph, which is never built, backend, plan, stats, roots,
    forest slots, the labels' host array, the check to call once the
    results are fetched), or None.  Results come back as NumPy: the input
    is on the host."""
    if relabel is not False or table or backend not in BACKENDS:
        return None
    be = _backend_module(backend)
    run = streaming.run(graph, be, algorithm, problem, params, forest=problem == "forest",
                        device_memory=device_memory, return_stats=return_stats, columns=columns)
    if run is None:
        return None
    return (None, be) + run


def _read_edges(path):
    """A file's edges as ``gconn.load(path)`` reads them, for :mod:`gconn.aot`."""
    from .io.edges import read_edges
    return read_edges(path, None, None, False)


def _streams(graph, backend: str, table: bool) -> bool:
    """Whether a call may stream its input: one file, on the CPU, labels
    as arrays (see :mod:`gconn.streamed`, which decides the rest)."""
    return isinstance(graph, (str, os.PathLike)) and not table and _backend_module(backend).NAME == "cpu"


def _phase(stats, name, be):
    return stats.phase(name, sync=be.sync) if stats is not None else nullcontext()


def _original_ids(g_in: Graph):
    """The input id of each vertex of a graph built with ``relabel=``."""
    if g_in.nodes is not None:
        return g_in.nodes
    if g_in.on_gpu:
        import cupy
        return cupy.arange(g_in.n, dtype=cupy.int64)
    return np.arange(g_in.n, dtype=np.int64)


def _edges_only(g, plan: Plan) -> bool:
    """Whether a run reads nothing of ``g`` but its edge list (see
    :func:`gconn.gpu.replay.replayed`)."""
    return plan.needs == "edges" and g.m_input > 0


def _labels(be, roots, plan: Plan, numbered: bool):
    """(k, labels): numbered 0..k-1 in scipy's order, or each component's
    smallest id; k may be left on the device (``int(k)`` reads it)."""
    if numbered:
        return be.compact(roots, min_rooted=plan.variant.min_rooted)
    labels = roots if plan.variant.min_rooted else be.min_representatives(roots)
    return be.count_roots(roots), labels


def _run_labels(be, g, plan: Plan, numbered: bool, seed):
    """(k, labels) of a run, as :func:`_labels` gives them; numbered
    through :func:`gconn.pipeline.components`, whose GPU labels kernel
    also does the finalize's compression."""
    if numbered:
        return pipeline.components(g, plan, be, seed=seed)
    return _labels(be, pipeline.run(g, plan, be, seed=seed)[0], plan, False)


def _resident_again(graph, backend, algorithm, numbered: bool, seed):
    """(k, labels) of a plain call on a Graph already on the GPU, or None
    for other input.  Its setup (backend, automatic choice, plan) is kept
    with the graph, per set of forms the graph holds (an adjacency built
    since changes the choice), so that a repeated call goes straight to its
    replay: the setup cost 20-25 us of the H100's host per call, as much as
    a small graph's whole computation."""
    if type(graph) is not Graph or backend not in ("auto", "gpu") or not graph.on_gpu:
        return None
    try:
        origin = graph._origin     # a device graph counts its host graph's forms too
        key = (backend, algorithm, numbered, seed, tuple(graph._forms), () if origin is None else tuple(origin._forms))
        memo = graph._cache.get("api setup")
        if memo is None:
            memo = graph._cache["api setup"] = {}
        hit = memo.get(key)
    except TypeError:
        return None
    if hit is None:
        _, be, g, plan, _ = _setup(graph, backend, algorithm, "cc", {}, False)
        # not g (the graph itself): a cycle would leave the graph's device
        # memory to the garbage collector
        hit = memo[key] = (be, plan, _edges_only(g, plan), [])
    be, plan, edges_only, handle = hit
    # once captured, straight to the replay (the store's lookups cost 2-3 us of the H100's host)
    out = be.again(handle)
    if out is not None:
        return out
    g = be.to_backend(graph)
    return be.replayed(g, ("cc", plan.variant, numbered, seed), lambda: _run_labels(be, g, plan, numbered, seed),
                       edges_only=edges_only, handle=handle)


def _run_unchecked(be, g, plan: Plan, numbered: bool, seed):
    """(k, labels) of a GPU run on edges whose ids were not checked against
    ``g.n``: its union kernels skip and flag ids outside 0..n-1, and k is
    -1 (on the device) unless every id fit and n-1 was among them.  The
    numbering's scan reads the flags into k itself (``gpu.backend.number``);
    a count of roots is followed by ``ids_fit``."""
    from .gpu import graph as device_graph
    flags = device_graph.track_ids(g)
    k, labels = _run_labels(be, g, plan, numbered, seed)
    return (k if numbered else device_graph.if_ids_fit(k, flags)), labels


_DEVICE_GRAPH = __package__ + ".gpu.graph"


def _cupy_pair_again(graph, backend, algorithm, numbered: bool, seed):
    """(k, labels) of a CuPy ``(src, dst)`` pair whose ids were checked
    before, without checking them again first, or None (then the call
    takes the usual path).  The run starts from the n the last check found
    and checks the ids itself, in the union kernel; its result stands only
    if they still fit that n (see :mod:`gconn.gpu.graph`).  A wrong n, a
    negative id: the call starts over on the usual path, which checks the
    ids first and names a bad one."""
    if backend not in ("auto", "gpu") or algorithm not in ("auto", None) or type(graph) is not tuple \
            or len(graph) != 2 or not (_is_cupy(graph[0]) and _is_cupy(graph[1])):
        return None
    # imported by the check of a pair's ids: no pair can be passed again before
    device_graph = sys.modules.get(_DEVICE_GRAPH)
    if device_graph is None:
        return None
    src, dst = graph
    out = device_graph.pair_again(src, dst, numbered, seed)
    if out is None:
        pair = device_graph.pair_key(src, dst)
        n = device_graph.seen_n(src, dst, pair)
        if n is None:
            return None
        be = _backend_module("gpu")
        key = (pair, numbered, seed)
        g = Graph._of(n, "gpu", edges=(src, dst))
        plan = Plan.of(_variant(algorithm, "cc", g, be, {}))
        if not _edges_only(g, plan):
            return None

        handle = []
        out = be.replayed(g, ("cc", plan.variant, numbered, seed, "ids unchecked"),
                          lambda: _run_unchecked(be, g, plan, numbered, seed), edges_only=True, handle=handle)
        if handle:
            device_graph.keep_run(key, n, handle)
    k, labels = out
    if k < 0:
        device_graph.forget(src, dst)
        return None
    return k, labels


def _out(arr, like_device: bool, landing=None):
    """Results follow the input: CuPy for a graph on the GPU, NumPy
    otherwise (fetched into the host memory ``landing`` where it fits, see
    :func:`gconn.gpu.staging.fetch`)."""
    if _is_cupy(arr) and not like_device:
        from .gpu.staging import fetch
        return fetch(arr, landing)
    return arr


def connected_components(graph=None, directed=True, connection="weak", return_labels=True, *, csgraph=None,
                         algorithm="auto", backend="auto", compact=True, return_stats=False, seed=0, relabel=False,
                         source=None, target=None, output="array", device_memory=None, **params):
    """Connected components, scipy-compatible.

    Returns ``(n_components, labels)`` with labels 0..k-1 numbered like
    ``scipy.sparse.csgraph.connected_components``; with ``compact=False``
    each label is instead the smallest vertex id of the component (no
    relabelling pass).  ``return_stats=True`` appends a :class:`~gconn.stats.Stats`.

    ``directed``, ``connection`` and ``return_labels`` (also positional) and
    ``csgraph=`` (another name for ``graph``) mean what they mean in SciPy:
    ``connection='strong'`` with ``directed=True`` gives the strongly
    connected components of directed input (see :mod:`gconn.scc`; the
    labels are SciPy's on the CPU), anything else the components of the
    undirected graph.  For SciPy's input rules exactly (dense arrays,
    explicit zeros, masked arrays) use :mod:`gconn.csgraph`.

    ``relabel`` (edge-array input only): ``True`` counts only the ids that
    occur, so sparse ids such as ``3000000000`` cost nothing; ``"auto"``
    does so when they are sparse (see :mod:`gconn.relabel`).  The result
    is then ``(n_components, labels, ids)``: ``labels[i]`` is the
    component of input id ``ids[i]``, ``ids`` sorted ascending (int64,
    every id 0..n-1 when "auto" kept the ids as they are); with
    ``compact=False`` labels are smallest input ids.  ``Stats.relabelled``
    says whether ids were relabelled.  Ids that are not integers (names)
    need ``relabel=True``; ``ids`` then holds the names (see
    :mod:`gconn.tables`).

    ``source=``/``target=`` name the edge columns of a table or edge file
    (pandas, polars, pyarrow, cuDF, CSV, Parquet; default: the first two).

    ``device_memory`` (bytes or e.g. ``"4GB"``; default: the environment
    variable ``GCONN_DEVICE_MEMORY``, else all that is free) bounds what
    the GPU backend may use: host edges whose graph would not fit are
    streamed to the GPU in chunks (see :mod:`gconn.streaming`).

    ``output="pandas"`` or ``"polars"`` returns ``(n_components, table)``
    instead: one row per vertex, columns ``vertex`` (its input id or name)
    and ``component`` (its label, as above); names need no ``relabel``
    then, since the table carries them.

    >>> import gconn
    >>> gconn.connected_components(([0, 2], [1, 3]), backend="cpu")
    (2, array([0, 0, 1, 1], dtype=int32))
    >>> gconn.connected_components(([0, 1, 2], [1, 2, 1]), connection="strong", backend="cpu")
    (2, array([1, 0, 0], dtype=int32))
    >>> k, labels, ids = gconn.connected_components(([7, 3000000000], [9, 5]), backend="cpu",
    ...                                             relabel=True)
    >>> k, labels.tolist(), ids.tolist()
    (2, [0, 1, 1, 0], [5, 7, 9, 3000000000])
    >>> import pandas as pd
    >>> edges = pd.DataFrame({"a": ["x", "y", "p"], "b": ["y", "z", "q"]})
    >>> k, labels, names = gconn.connected_components(edges, backend="cpu", relabel=True)
    >>> k, labels.tolist(), names.tolist()
    (2, [0, 0, 1, 1, 1], ['p', 'q', 'x', 'y', 'z'])
    >>> k, table = gconn.connected_components(edges, backend="cpu", output="pandas")
    >>> table.to_dict("list")
    {'vertex': ['p', 'q', 'x', 'y', 'z'], 'component': [0, 0, 1, 1, 1]}
    """
    if (graph is None) == (csgraph is None):
        raise TypeError("connected_components() takes the graph once, as graph (first argument) or csgraph=")
    graph = csgraph if graph is None else graph
    if strong_requested(directed, connection):
        if params or algorithm not in ("auto", None) or relabel is not False or output != "array" \
                or source is not None or target is not None:
            raise TypeError("algorithm=, relabel=, source=, target=, output= and variant options apply to "
                            "undirected components; strong components have one method per backend (see gconn.scc)")
        from .scc import strong_components
        return strong_components(graph, backend=backend, compact=compact, return_labels=return_labels,
                                 return_stats=return_stats)
    relabel = relabel_option(relabel)
    table = output_option(output, return_labels)
    if not (params or return_stats or relabel is not False or table or source is not None or target is not None):
        again = _resident_again(graph, backend, algorithm, compact or not return_labels, seed) \
            if device_memory is None else None
        if again is None:
            again = _cupy_pair_again(graph, backend, algorithm, compact or not return_labels, seed)
        if again is not None:
            return again if return_labels else again[0]
        fast = aot.connected_components(graph, backend, algorithm, compact, return_labels, _read_edges)
        if fast is not None:
            return fast
    if _streams(graph, backend, table):
        from . import streamed
        result = streamed.connected_components(graph, algorithm, params, relabel, source, target, compact,
                                               return_labels, return_stats)
        if result is not None:
            return result
    sent = _streamed(graph, backend, algorithm, "cc", params, relabel, (source, target), table,
                         device_memory, return_stats)
    numbered = compact or not return_labels
    landing = settle = None
    if sent is None:
        g_in, be, g, plan, stats = _setup(graph, backend, algorithm, "cc", params, return_stats, relabel,
                                          (source, target), names_ok=table)
        roots = None
        if stats is None:
            k, labels = be.replayed(g, ("cc", plan.variant, numbered, seed),
                                    lambda: _run_labels(be, g, plan, numbered, seed), edges_only=_edges_only(g, plan))
        else:
            roots, _, _ = pipeline.run(g, plan, be, forest=False, stats=stats, seed=seed)
    else:
        g_in, be, plan, stats, roots, _, _, landing, settle = sent
    if roots is not None:
        with _phase(stats, "labels", be):
            k, labels = _labels(be, roots, plan, numbered)
    labels = _out(labels, g_in is not None and g_in.on_gpu, landing)
    if settle is not None:
        settle()        # the labels have been waited for: now the input's errors
    result = (int(k), labels) if return_labels else (int(k),)
    if relabel is not False and return_labels:
        ids = _original_ids(g_in)
        if not compact and g_in.nodes is not None:
            labels = ids[labels]
        result = (int(k), labels, ids)
    if table:
        ids = _original_ids(g_in)
        if not compact and g_in.nodes is not None and relabel is False:
            labels = ids[labels]
        result = (int(k), labels_table(output, ids, labels))
    if return_stats:
        result = result + (stats,)
    return result if len(result) > 1 else result[0]


def spanning_forest(graph, *, algorithm="auto", backend="auto", return_stats=False, seed=0, relabel=False,
                    source=None, target=None, device_memory=None, **params):
    """A spanning forest: ``(src, dst)`` arrays of n - k edges of the input
    that form a tree on every component.

    Any root-based variant works (``gconn.variants("forest")``).
    ``relabel``, ``source``, ``target`` and ``device_memory`` are as in
    :func:`connected_components`; the edges are returned in input ids (or
    names) either way.

    >>> import gconn
    >>> src, dst = gconn.spanning_forest(([0, 1, 0], [1, 2, 2]), backend="cpu")
    >>> len(src)
    2
    """
    relabel = relabel_option(relabel)
    if not (params or return_stats or relabel is not False or source is not None or target is not None):
        fast = aot.spanning_forest(graph, backend, algorithm, _read_edges)
        if fast is not None:
            return fast
    if _streams(graph, backend, False):
        from . import streamed
        result = streamed.spanning_forest(graph, algorithm, params, relabel, source, target, return_stats)
        if result is not None:
            return result
    sent = _streamed(graph, backend, algorithm, "forest", params, relabel, (source, target), False,
                         device_memory, return_stats)
    settle = None
    if sent is None:
        g_in, be, g, plan, stats = _setup(graph, backend, algorithm, "forest", params, return_stats, relabel,
                                          (source, target))
        if stats is None:
            fa, fb = be.replayed(g, ("forest", plan.variant, seed),
                                 lambda: pipeline.run(g, plan, be, forest=True, seed=seed)[1:],
                                 edges_only=_edges_only(g, plan))
        else:
            _, fa, fb = pipeline.run(g, plan, be, forest=True, stats=stats, seed=seed)
    else:
        g_in, be, plan, stats, _, fa, fb, _, settle = sent
    with _phase(stats, "collect", be):
        src, dst = be.collect_forest(fa, fb)
    on_gpu = g_in is not None and g_in.on_gpu
    src, dst = _out(src, on_gpu), _out(dst, on_gpu)
    if settle is not None:
        settle()
    if relabel is not False and g_in is not None and g_in.nodes is not None:
        src, dst = g_in.nodes[src], g_in.nodes[dst]
    return (src, dst, stats) if return_stats else (src, dst)


from .incremental import IncrementalConnectivity  # noqa: E402  (re-exported; it imports this module)
