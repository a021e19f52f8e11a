"""Several GPUs of one host on one call (``devices=``): each GPU sends its
share of the host edges over its own link into its own parent array (a
:class:`~gconn.chunked.gpu.ChunkedUnion` each, in a thread of its own); the
shares' results, O(n) each, are then merged on the first GPU.

The merge is exact for any split of the edges: share d's components are
those of the edges ``(v, root_d(v))``, and a spanning forest of its edges
spans them too; unioning those edges (UnionAsync, as the feeds do) into the
first share's parent array gives the components, or a spanning forest, of
all the edges.  Arrays (memory-mapped ones included) are cut into one
contiguous part per GPU; an iterator's chunks (and a text file's) are dealt
to the GPUs as each asks for its next one.

>>> device_list(None) is None
True
>>> device_list("every")
Traceback (most recent call last):
...
ValueError: devices='every': give a list of GPU ids, e.g. devices=[0, 1], or devices='all'
"""
from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext

import numpy as np

from gconn.design import Plan, Variant
from gconn.graph import Graph
from gconn.pipeline.stats import Stats
from gconn.io.chunks import of_file
from gconn.backends.gpu._compat import SIM, xp
from gconn.chunked.gpu import (CHUNK_EDGES, CHUNKED_VARIANT, ChunkedUnion, HostEdges, WiderIds, _id_dtype,
                               asked_variant, budget, raw_edges)


def count() -> int:
    """The GPUs this process sees (one in the simulator, none without CuPy)."""
    return 1 if SIM else 0 if xp is None else xp.cuda.runtime.getDeviceCount()


def device_list(devices) -> list | None:
    """``devices=`` checked: None (the current GPU, as without it), or the GPU ids, in order;
    ``"all"``: every GPU.  An id listed twice takes two shares (a test of the merge on one GPU)."""
    if devices is None:
        return None
    if isinstance(devices, str):
        if devices.strip().lower() != "all":
            raise ValueError(f"devices={devices!r}: give a list of GPU ids, e.g. devices=[0, 1], or devices='all'")
        return list(range(count()))
    if isinstance(devices, (int, np.integer)) or not hasattr(devices, "__iter__"):
        raise TypeError(f"devices={devices!r}: give a list of GPU ids, e.g. devices=[0, 1], or devices='all'")
    ids = list(devices)
    if not ids:
        raise ValueError("devices=[] names no GPU; give e.g. devices=[0, 1], or devices='all'")
    have = count()
    for d in ids:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"devices={ids!r}: {d!r} is not a GPU id (an integer)")
        if not 0 <= d < have:
            raise ValueError(f"devices={ids!r}: there is no GPU {d}; this process sees {have} "
                             f"(ids 0..{have - 1})")
    return [int(d) for d in ids]


def on(d: int):
    """Device ``d`` current in this thread, for CuPy and numba-cuda alike (both use its primary context)."""
    return nullcontext() if SIM else xp.cuda.Device(d)


class _Dealer:
    """An iterable's chunks handed to the shares one at a time, numbered as in the input."""

    def __init__(self, edges: HostEdges, size: int):
        self.pieces = edges.chunks(size)
        self.edges = edges
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            return next(self.pieces, None)


class _Dealt(HostEdges):
    """One share's view of a :class:`_Dealer`: chunks with the input's offsets."""

    def __init__(self, dealer: _Dealer):
        self._iter = dealer       # not re-readable
        self.dealer, self.n = dealer, dealer.edges.n

    def chunks(self, size: int):
        while (got := self.dealer.next()) is not None:
            _, s, d = got
            dt = np.result_type(_id_dtype(s, "src"), _id_dtype(d, "dst"))
            self.dtype = dt if self.dtype is None else np.result_type(self.dtype, dt)
            yield got


def shares(edges: HostEdges, k: int, size: int) -> list:
    """``edges`` as ``k`` shares: contiguous parts of arrays, else chunks dealt on demand.

    >>> e = HostEdges((np.arange(10), np.arange(10)))
    >>> [(p.base, p.m) for p in shares(e, 3, 4)]
    [(0, 3), (3, 3), (6, 4)]
    """
    if edges.rereadable:
        cuts = [edges.m * i // k for i in range(k + 1)]
        return [edges.part(a, b) for a, b in zip(cuts, cuts[1:])]
    dealer = _Dealer(edges, size)
    return [_Dealt(dealer) for _ in range(k)]


def _source(graph, info):
    """``(edges, n)``: the host edges a call on several GPUs shares, or a clear error."""
    if type(graph).__module__.startswith("scipy.sparse") and hasattr(graph, "tocsr"):
        graph = Graph.from_scipy(graph)
    if isinstance(graph, Graph):
        if graph.on_gpu:
            raise ValueError("devices= shares host edges among GPUs; this graph is on a GPU already "
                             "(call without devices=)")
        return HostEdges(graph.edges()), graph.n
    src = raw_edges(graph)
    if src is None and isinstance(graph, (str, os.PathLike)) and info is not None:
        src = of_file(info)
        if isinstance(src, str):
            raise ValueError(f"devices= streams a file's edges in chunks, and {src}")
    if src is None:
        raise TypeError("devices= takes host edges: (src, dst) NumPy arrays, an (m, 2) array, a .gcb/.npy "
                        f"or edge-list file, an iterator of (src, dst) chunks, a Graph or a SciPy matrix; "
                        f"not {type(graph).__name__}")
    edges = src if isinstance(src, HostEdges) else HostEdges(src)
    return edges, edges.n if edges.n is not None else getattr(src, "n", None)


def variant(algorithm, problem: str, params: dict) -> Variant:
    """The union-find variant without sampling that the shares run (the automatic choice: the chunked one)."""
    v = asked_variant(algorithm, problem, params)[0]
    if not v.is_union_find or v.sampling != "none":
        raise ValueError(f"devices= runs union-find without sampling on each GPU's share of the edges; "
                         f"{v.name} is not one (e.g. {CHUNKED_VARIANT})")
    return v.with_params(**params)


def run(graph, algorithm, problem: str, params: dict, devices: list, finish, *, device_memory=None,
        return_stats: bool = False, info=None):
    """``graph`` on the GPUs ``devices``: ``(result, stats)``, the result made on the first GPU by
    ``finish(plan, stats, roots, forest_src, forest_dst, landing)`` (device arrays in, host out).
    ``device_memory`` bounds each GPU's use."""
    forest = problem == "forest"
    plan = Plan.of(variant(algorithm, problem, params))
    edges, n = _source(graph, info)
    parts = shares(edges, len(devices), CHUNK_EDGES)
    t0 = time.perf_counter()
    states = _feed(plan, devices, parts, n, forest, device_memory)
    t1 = time.perf_counter()
    roots, fa, fb, n, lead, merged = _merge(states, devices, forest)
    with on(devices[lead]):
        t2 = time.perf_counter()
        stats = None
        if return_stats:
            st = states[lead]
            stats = Stats(variant=plan.name, backend="gpu", n=n, m=sum(s.edges for s in states), chunked=True,
                          chunks=sum(s.chunks for s in states), chunk_edges=st.chunk_edges)
            stats.shares = [{"device": d, "edges": s.edges, "chunks": s.chunks, "seconds": s.seconds}
                            for d, s in zip(devices, states)]
            stats.phase_times.update({"shares": t1 - t0, "merge": t2 - t1})
            stats.edge_inspections["finish"] = stats.m
            stats.edge_inspections["merge"] = merged
        result = finish(plan, stats, roots, fa, fb, states[lead].landing)
        if stats is not None:
            stats.phase_times["labels" if not forest else "collect"] = time.perf_counter() - t2
    return result, stats


def _feed(plan: Plan, devices: list, parts: list, n, forest: bool, device_memory) -> list:
    """Each share fed on its GPU, all at once (in turn in the simulator); the first error by share order."""
    # the staging fills of all shares run at once: each takes its part of the cores
    import numba
    threads = max(1, numba.config.NUMBA_NUM_THREADS // len(set(devices)))

    def one(i: int):
        with on(devices[i]):
            st = ChunkedUnion(plan, n=n, forest=forest, limit=budget(device_memory),
                              copy_threads=threads if len(devices) > 1 else None, land=i == 0 and not forest)
            st.share = f"GPU {devices[i]}'s share" + (f" {i}" if devices.count(devices[i]) > 1 else "")
            st.feed(parts[i])
            return st

    if SIM or len(devices) == 1:
        return [one(i) for i in range(len(devices))]
    with ThreadPoolExecutor(len(devices), thread_name_prefix="gconn-gpu") as pool:
        futures = [pool.submit(one, i) for i in range(len(devices))]
        for f in futures:
            f.exception()       # every share finished (or failed) before one raises
        return [f.result() for f in futures]


def _merge(states: list, devices: list, forest: bool):
    """The shares merged into the first fed one: ``(roots, forest slots, n, its index, edges merged)``."""
    fed = [i for i, st in enumerate(states) if st._ready]
    lead = fed[0] if fed else 0
    top = max(st.max_id for st in states)
    merged = 0
    target = states[lead]
    if fed and top > np.iinfo(target.idt).max:
        raise WiderIds(f"vertex id {top} does not fit the {target.idt} ids of the first GPU's first chunk; "
                       "pass int64 chunks from the start")
    for i in fed[1:]:
        with on(devices[i]):
            src, dst = _edges_of(states[i], forest, target.idt)
        with on(devices[lead]):
            _peer(devices[lead], devices[i])
            target.take(src, dst, top)
        merged += int(src.size)
        del src, dst
    with on(devices[lead]):
        if target._ready:
            target.max_id = max(target.max_id, top)
        roots, fa, fb, n = target.result()
    return roots, fa, fb, n, lead, merged


def _edges_of(st: ChunkedUnion, forest: bool, idt):
    """What stands for a share in the merge, on its GPU: its forest's edges, else ``(v, root(v))`` for
    each v not a root."""
    roots, fa, fb, _ = st.result()
    if forest:
        keep = fa >= 0
        src, dst = fa[keep], fb[keep]
    else:
        src = xp.flatnonzero(roots != xp.arange(roots.size, dtype=roots.dtype))
        dst = roots[src]
    src, dst = src.astype(idt, copy=False), dst.astype(idt, copy=False)
    if not SIM:
        xp.cuda.get_current_stream().synchronize()     # read by another GPU's stream next
    return src, dst


_PEERS: set = set()


def _peer(a: int, b: int) -> None:
    """GPU ``a`` reads ``b``'s memory directly (NVLink or PCIe) where it can; else the copies go through the host."""
    if SIM or a == b or (a, b) in _PEERS:
        return
    _PEERS.add((a, b))
    rt = xp.cuda.runtime
    if rt.deviceCanAccessPeer(a, b):
        try:
            rt.deviceEnablePeerAccess(b)
        except rt.CUDARuntimeError:
            pass        # enabled already (by CuPy or the user)
