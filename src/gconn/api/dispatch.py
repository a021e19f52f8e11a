"""A call's route, chosen from the input's description and the :class:`Call` before anything is read
(:func:`route`): ``compiled`` (small host input on the CPU through ``gconn.backends.aot``, without
numba), ``chunked`` (``gconn.chunked.cpu``, :mod:`gconn.chunked.gpu`), ``devices`` (host edges
shared among several GPUs, :mod:`gconn.chunked.devices`) or ``resident`` (the graph built and run by
:mod:`gconn.pipeline`).  A GPU graph or CuPy pair passed again is replayed (:func:`replay`).
"""
from __future__ import annotations

import importlib
import sys
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np

from gconn import design, pipeline
from gconn.design import Plan, Variant
from gconn.errors import GPUUnavailableError
from gconn.graph import Graph, _is_cupy
from gconn.graph.memory import parse_bytes
from gconn.graph.relabel import AUTO_MIN_RANGE, AUTO_RATIO
from gconn.inputs import Source, to_graph
from gconn.inputs import has_names
from gconn.pipeline.stats import Stats

BACKENDS = ("auto", "cpu", "gpu")


@dataclass
class Call:
    """What a call asks for, checked, apart from its input."""

    problem: str                    # "cc" or "forest"
    backend: str = "auto"
    algorithm: object = "auto"
    params: dict = field(default_factory=dict)
    relabel: object = False         # False, True or "auto"
    numbered: bool = True           # labels 0..k-1, else each component's smallest vertex
    stats: bool = False
    seed: int = 0
    device_memory: object = None
    table: bool = False             # labels as a table (``output=``): names need no relabel then
    n: int | None = None            # the vertex count a file's reader is held to (the CLI's ``--n``)
    devices: object = None          # GPU ids whose shares of host edges are merged (gconn.chunked.devices)

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r}; one of {', '.join(BACKENDS)}")
        design.check_param_names(self.params)
        if not isinstance(self.seed, (int, np.integer)) or isinstance(self.seed, bool):
            raise TypeError(f"seed must be an integer; got {self.seed!r}")
        if not -2**63 <= int(self.seed) < 2**63:
            raise ValueError(f"seed={self.seed} is out of range (a 64-bit integer)")
        if self.device_memory is not None:
            parse_bytes(self.device_memory)     # a bad size is an error on every backend, not only where read
        if self.devices is not None:
            if self.backend == "cpu":
                raise ValueError(f"devices={self.devices!r} names GPUs; backend='cpu' uses none")
            if self.relabel is True or self.table or self.n is not None:
                raise ValueError("devices= takes integer ids as they are (relabel='auto' leaves them so): not "
                                 "with relabel=True, output= tables or a vertex count held to (--n)")
            backend_name("gpu")         # a clear error where there is no GPU
            from gconn.chunked.devices import device_list
            self.devices = device_list(self.devices)

    @property
    def plain(self) -> bool:
        """No options beyond the defaults that the fast routes serve."""
        return not (self.params or self.stats or self.relabel is True or self.table or self.n is not None
                    or self.devices is not None)


@dataclass
class Outcome:
    """A route's ``(k, labels)`` or ``(src, dst)``, each vertex's input id (``nodes``; None: 0..n-1)."""

    result: tuple
    nodes: object = None
    stats: Stats | None = None
    on_gpu: bool = False
    landing: object = None          # where the labels land on the host; settle: the check once they have
    settle: object = None
    route: str = "resident"


def backend_name(backend: str, on_gpu: bool = False) -> str:
    """'cpu' or 'gpu' for ``backend``, without importing the CPU backend (numba)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; one of {', '.join(BACKENDS)}")
    if backend == "auto":
        if on_gpu:
            return "gpu"
        from gconn.backends import gpu
        return "gpu" if gpu.available(simulator_ok=False)[0] else "cpu"
    if backend == "gpu":
        from gconn.backends import gpu
        ok, why = gpu.available(simulator_ok=True)
        if not ok:
            raise GPUUnavailableError(f"backend='gpu' is not usable here: {why}")
    return backend


def backend_module(backend: str, on_gpu: bool = False):
    """The backend module a call runs on (see :func:`backend_name`)."""
    return importlib.import_module("gconn.backends." + backend_name(backend, on_gpu))


def variant_of(algorithm, problem: str, graph, be, params: dict) -> Variant:
    """The variant named or chosen for ``graph``; options it would ignore are an error."""
    design.check_param_names(params)  # before the automatic choice does any work
    chosen = design.is_auto(algorithm)
    if chosen:
        # only the CPU estimates HB's coverage (design.choose)
        v = design.choose(graph, problem, backend=be.NAME, hb_coverage=getattr(be, "hb_coverage", None)) \
            if graph is not None else Variant.parse(design.default_name(problem), problem)
    else:
        v = Variant.parse(algorithm, problem)
    design.check_params_apply(v, params, chosen)
    return v.with_params(**params)


def out_array(arr, like_device: bool, landing=None):
    """CuPy for input on the GPU, else NumPy (fetched into ``landing`` where it fits)."""
    if _is_cupy(arr) and not like_device:
        from gconn.backends.gpu.staging import fetch
        return fetch(arr, landing)
    return arr


def route(src: Source, call: Call, be: str) -> str:
    """The route of a call on the backend ``be`` ('cpu' or 'gpu')."""
    if be == "cpu":
        return "compiled" if _compiled(src, call) else "chunked" if _chunked(src, call) else "resident"
    return "chunked" if _chunked_gpu(src, call) else "resident"


#: file formats a one-off call reads and runs without loading numba (their parsers are in the compiled
#: module, or numpy and pyarrow read them)
COMPILED_FORMATS = ("mtx", "edgelist", "metis", "dimacs", "npy", "npz", "gcb", "parquet", "feather")


def _compiled(src: Source, call: Call) -> bool:
    """A plain call on small host edges on the CPU (with stats only where numba is not loaded)."""
    from gconn.backends import aot
    # relabel: names are coded by Arrow, ids relabelled by NumPy (aot.raw); ids that would take numba's
    # hash table go on to the resident route with what was read
    d = src.file.dialect if src.kind == "file" else None
    if not (design.is_auto(call.algorithm) and aot.module() is not None) or call.params or call.table \
            or call.n is not None or (call.stats and not aot.numba_free()):
        return False
    if src.kind == "edges":
        return aot.chosen(src.edges)
    if src.kind == "file" and src.format in COMPILED_FORMATS:
        from gconn.io._files import text_size
        size = text_size(src.file.path, src.file.compressed)     # a compressed file is read whole as text
        return size is not None and size <= aot.MAX_FILE_BYTES and (d is None or not d.listed) \
            and src.edges is not None and aot.chosen(src.edges)
    return False


def _chunked(src: Source, call: Call) -> bool:
    """A file or chunk iterator on the CPU whose variant needs only edges."""
    if src.kind == "chunks":
        return True
    if src.kind != "file" or call.n is not None or call.table:
        return False
    from gconn.io.chunks import of_file
    from gconn.chunked.cpu import plan_of
    return (plan_of(call.algorithm, call.problem, call.params) is not None
            and not isinstance(of_file(src.file), str))


def _chunked_gpu(src: Source, call: Call) -> bool:
    """Whether the GPU may take the input in chunks (it may still decline)."""
    if call.relabel is True or call.table or call.n is not None:
        return False
    if src.kind in ("edges", "chunks"):
        return True
    if src.kind == "file":
        from gconn.io.chunks import of_file
        return not isinstance(of_file(src.file), str)
    return src.kind in ("graph", "sparse") and not src.on_gpu


def run(src: Source, call: Call) -> Outcome:
    """Run ``call`` on ``src`` by its route."""
    if call.devices is not None:
        return _run_devices(src, call)
    name = backend_name(call.backend, src.on_gpu)
    way = route(src, call, name)
    out = read = None
    if way == "compiled":       # loads no numba unless it falls back
        out = _run_compiled(src, call)
        if not isinstance(out, Outcome):
            out, read = None, out
    elif way == "chunked" and name == "cpu":
        from gconn.chunked import cpu as chunked_cpu
        sent = chunked_cpu.run(src, call)
        out = None if sent is None else Outcome(*sent)
    elif way == "chunked":
        out = _run_chunked_gpu(src, call, backend_module(name))
    if out is None:
        return _run_resident(src, call, backend_module(name), read)
    out.route = way
    return out


def _run_compiled(src: Source, call: Call):
    """The compiled route; a file that needs more comes back as its FileEdges for the resident route."""
    import time
    from gconn.backends import aot
    t0 = time.perf_counter()
    if src.kind == "file":
        from gconn.io import read_edges
        fe = src.took(read_edges(src.file, call.n, call.relabel))
        if fe.names is not None:
            if call.relabel is False:
                _names_need_relabel(call)
            e = aot.raw(fe.src, fe.dst, fe.names.size)
        else:
            try:
                e = aot.raw(fe.src, fe.dst, fe.n, call.relabel)
            except ValueError:
                return fe   # the resident route builds the graph and words the error with the file's line
            if e is None:
                return fe
    else:
        e = aot.raw(src.src, src.dst, None, call.relabel)
        if e is None:
            return None
    t1 = time.perf_counter()
    result = aot.forest_of(e) if call.problem == "forest" else aot.components_of(e, call.numbered)
    stats = None
    if call.stats:
        stats = Stats(variant=aot.VARIANT, backend="cpu", n=e.n, m=int(e.src.size), relabelled=e.ids is not None)
        if src.kind == "file":
            stats.phase_times["read"] = t1 - t0
        stats.phase_times["union-find, labels"] = time.perf_counter() - t1
    aot.charge(int(e.src.size), time.perf_counter() - t0)
    if src.kind == "file" and fe.names is not None:
        nodes = fe.names
    elif e.ids is not None:
        nodes = e.ids
    else:
        nodes = np.arange(e.n, dtype=np.int64) if call.relabel == "auto" and call.problem == "cc" else None
    return Outcome(result, nodes, stats)


def _run_chunked_gpu(src: Source, call: Call, be) -> Outcome | None:
    from gconn.chunked import gpu as chunked_gpu
    info = src.file if src.kind == "file" else None
    sent = chunked_gpu.run(src.obj, call.algorithm, call.problem, call.params, device_memory=call.device_memory,
                           return_stats=call.stats, info=info, relabel=call.relabel)
    if sent is None:
        return None
    plan, stats, roots, fa, fb, landing, settle = sent
    if _snap_other(info, int(roots.size)):
        return None     # the resident route reads it whole under its header's count (io.edgelist.snap_count)
    result = _shaped(be, call, plan, stats, roots, fa, fb)
    nodes = None
    if call.relabel == "auto" and call.problem == "cc":
        # vertices in components of two or more bound those that occur from below; where the range
        # may be sparse, the resident route relabels
        n = int(roots.size)
        if n >= AUTO_MIN_RANGE:
            sizes = np.bincount(np.asarray(out_array(roots, False)), minlength=1)
            if n > AUTO_RATIO * int(sizes[sizes > 1].sum()):
                return None
        nodes = np.arange(n, dtype=np.int64)
    return Outcome(result, nodes, stats, False, landing, settle)


def _snap_other(info, n: int) -> bool:
    """Whether an edge list's SNAP header counts other than the ``n`` vertices its ids made (read in
    chunks, as ids 0..n-1)."""
    return info is not None and info.format == "edgelist" and info.dialect.snap_nodes not in (None, n)


def _run_devices(src: Source, call: Call) -> Outcome:
    """Host edges shared among the GPUs ``call.devices`` (:mod:`gconn.chunked.devices`), results on the host."""
    from gconn.chunked import devices
    if src.on_gpu:
        raise ValueError("devices= shares host edges among GPUs; this input is on a GPU already "
                         "(call without devices=)")
    be = backend_module("gpu")

    def finish(plan, stats, roots, fa, fb, landing):
        if _snap_other(info, int(roots.size)):
            from gconn.io.edgelist import snap_notes
            snap_notes(info, int(roots.size) - 1)       # the error where the ids run past the nodes
            raise ValueError(f"{info.name}: its header counts {info.dialect.snap_nodes:,} nodes, more than its "
                             f"ids, {roots.size:,}: devices= counts only ids 0..{roots.size - 1:,}; call "
                             "without devices= to count the nodes without edges")
        shaped = _shaped(be, call, plan, stats, roots, fa, fb)
        if call.problem == "forest":
            return tuple(out_array(a, False) for a in shaped)
        return int(shaped[0]), out_array(shaped[1], False, landing)

    info = src.file if src.kind == "file" else None
    result, stats = devices.run(src.obj, call.algorithm, call.problem, call.params, call.devices, finish,
                                device_memory=call.device_memory, return_stats=call.stats, info=info)
    return Outcome(result, None, stats, False, route="devices")


def _run_resident(src: Source, call: Call, be, read=None) -> Outcome:
    g_in = to_graph(src, call.n, call.relabel, read=read)
    if call.relabel is False and not call.table and has_names(g_in) and src.kind != "graph":
        _names_need_relabel(call)
    if be.NAME == "cpu" and g_in.on_gpu:
        be = backend_module("gpu")
    g = be.to_backend(g_in)
    plan = Plan.of(variant_of(call.algorithm, call.problem, g, be, call.params))
    forest = call.problem == "forest"
    if not call.stats:
        key = ("forest", plan.variant, call.seed) if forest else ("cc", plan.variant, call.numbered, call.seed)

        def fn(p):
            return (lambda: pipeline.run(g, p, be, forest=True, seed=call.seed)[1:]) if forest \
                else (lambda: run_labels(be, g, p, call.numbered, call.seed))
        # a call not replayed takes the choice for launched runs
        launched = Plan.of(design.choose(g, call.problem, backend=be.NAME, launched=True)) \
            if be.NAME == "gpu" and design.is_auto(call.algorithm) and not call.params else plan
        result = be.replayed(g, key, fn(plan), edges_only=edges_only(g, plan),
                             launched=None if launched.variant == plan.variant else fn(launched))
        return Outcome(be.collect_forest(*result) if forest else result, g_in.nodes, None, g_in.on_gpu)
    stats = Stats(variant=plan.name, backend=be.NAME, n=g.n, m=g.m_input,
                  relabelled=g_in.nodes is not None and not isinstance(g_in.nodes, list))
    roots, fa, fb = pipeline.run(g, plan, be, forest=forest, stats=stats, seed=call.seed)
    return Outcome(_shaped(be, call, plan, stats, roots, fa, fb), g_in.nodes, stats, g_in.on_gpu)


def _names_need_relabel(call: Call):
    back = "the forest's edges by name, as (src, dst)" if call.problem == "forest" else \
        "the names back with the labels, as (n_components, labels, names)"
    raise ValueError(f"the vertex ids are names, not integers: pass relabel=True to get {back}")


def _shaped(be, call: Call, plan: Plan, stats, roots, fa, fb):
    """A run's forest collected, or its (k, labels), timed as a phase where ``stats``."""
    forest = call.problem == "forest"
    with stats.phase("collect" if forest else "labels", sync=be.sync) if stats is not None else nullcontext():
        return be.collect_forest(fa, fb) if forest else labels_of(be, roots, plan, call.numbered)


def edges_only(g, plan: Plan) -> bool:
    """Whether a run reads nothing of ``g`` but its edge list."""
    return plan.needs == "edges" and g.m_input > 0


def labels_of(be, roots, plan: Plan, numbered: bool):
    """(k, labels): 0..k-1 in scipy's order, or each component's smallest id; k may be on the device."""
    if numbered:
        return be.compact(roots, min_rooted=plan.variant.min_rooted)
    labels = roots if plan.variant.min_rooted else be.min_representatives(roots)
    return be.count_roots(roots), labels


def run_labels(be, g, plan: Plan, numbered: bool, seed):
    """(k, labels) of a run, as :func:`labels_of` gives them."""
    if numbered:
        return pipeline.components(g, plan, be, seed=seed)
    return labels_of(be, pipeline.run(g, plan, be, seed=seed)[0], plan, False)


def replay(graph, backend, algorithm, numbered: bool, seed):
    """(k, labels) of a plain call on a GPU graph or a CuPy pair passed before, or None."""
    return (_resident_again(graph, backend, algorithm, numbered, seed)
            or _cupy_pair_again(graph, backend, algorithm, numbered, seed))


def _resident_again(graph, backend, algorithm, numbered: bool, seed):
    """(k, labels) of a plain call on a Graph on the GPU, or None.  Its setup (as costly as a small
    graph's run) is kept with the graph, per set of forms it holds (they change the choice)."""
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
        be = backend_module(backend, True)
        g = be.to_backend(graph)
        plan = Plan.of(variant_of(algorithm, "cc", g, be, {}))
        # a call not replayed takes the choice for launched runs
        launched = plan
        if design.is_auto(algorithm):
            launched = Plan.of(design.choose(g, "cc", backend=be.NAME, launched=True))
        # not g: a cycle would leave the graph's device memory to the garbage collector
        hit = memo[key] = (be, plan, launched, edges_only(g, plan), [])
    be, plan, launched, only_edges, handle = hit
    out = be.again(handle)
    if out is not None:
        return out
    g = be.to_backend(graph)
    return be.replayed(g, ("cc", plan.variant, numbered, seed), lambda: run_labels(be, g, plan, numbered, seed),
                       edges_only=only_edges, handle=handle,
                       launched=None if launched is plan else lambda: run_labels(be, g, launched, numbered, seed))


def _run_unchecked(be, g, plan: Plan, numbered: bool, seed):
    """(k, labels) of a GPU run on unchecked ids; k is -1 unless every id fit and n-1 was among them."""
    from gconn.backends.gpu import graph as device_graph
    flags = device_graph.track_ids(g)
    k, labels = run_labels(be, g, plan, numbered, seed)
    return (k if numbered else device_graph.if_ids_fit(k, flags)), labels


def _cupy_pair_again(graph, backend, algorithm, numbered: bool, seed):
    """(k, labels) of a CuPy pair checked before, run from the n the last check found with the ids
    checked in the union kernel, or None (the usual path, which names a bad id)."""
    if backend not in ("auto", "gpu") or not design.is_auto(algorithm) or type(graph) is not tuple \
            or len(graph) != 2 or not (_is_cupy(graph[0]) and _is_cupy(graph[1])):
        return None
    # imported by the check of a pair's ids: no pair can be passed again before
    device_graph = sys.modules.get("gconn.backends.gpu.graph")
    if device_graph is None:
        return None
    src, dst = graph
    out = device_graph.pair_again(src, dst, numbered, seed)
    if out is None:
        pair = device_graph.pair_key(src, dst)
        n = device_graph.seen_n(src, dst, pair)
        if n is None:
            return None
        be = backend_module("gpu")
        key = (pair, numbered, seed)
        g = Graph._of(n, "gpu", edges=(src, dst))
        plan = Plan.of(variant_of(algorithm, "cc", g, be, {}))
        if not edges_only(g, plan):
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
