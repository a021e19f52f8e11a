"""The static pipeline on the GPU (paper Alg. 1 and the spanning-forest Alg. 2).

Launches per run, k-out: parents (CuPy arange), sampling, compression,
L_max (one block, also zeroes the gather counters), gathering, the
load-balanced finish (a grid-stride kernel reading the list lengths on the
device), finalization.  None of them waits for the host;
only the instrumentation in :class:`~gconn.stats.Stats` (and BFS sampling,
which is level-synchronous) reads values back.
"""
from __future__ import annotations

import time
from contextlib import nullcontext

import numpy as np

from ..core.unionfind import FIND_HALVE, UNION_ASYNC, UNION_JTB
from ..design import FIND_CODE, FINISH_CODE, SPLICE_CODE, Variant, bfs_levels
from . import unionfind as K
from . import memory
from . import finishes as MB
from ._compat import SIM, WARP_INTRINSICS, cuda, view, xp

#: edge reorganization in k-out (k = 2, Afforest mode); needs warp shuffles
EDGE_REORGANIZATION = True
#: active vertices up to this degree get a thread in the finish, larger
#: ones warp units of K.CHUNK edges
SMALL_MAX = 2 if SIM else 16
#: Beamer's direction-optimizing switch: bottom-up when the frontier's edges
#: exceed the unexplored edges / ALPHA, top-down again below n / BETA
BFS_ALPHA = 15
BFS_BETA = 18


class Codes:
    """A variant's integer codes and the dtypes its kernels take.  A finish
    that is not a union-find (:mod:`gconn.gpu.finishes`) keeps a plain
    parent array and samples with UnionAsync + FindHalve, as on the CPU."""

    def __init__(self, v: Variant, id_dtype, ptr_dtype=np.int64):
        self.uf = v.is_union_find
        self.finish = v.finish
        self.fin = FINISH_CODE[v.finish] if self.uf else UNION_ASYNC
        self.fopt = FIND_CODE[v.find] if self.uf else FIND_HALVE
        self.sopt = SPLICE_CODE[v.splice] if v.splice else 0
        self.jtb = self.fin == UNION_JTB
        self.union_key = (self.fin, self.fopt, self.sopt)
        self.id_dtype = np.dtype(id_dtype)
        self.p_dtype = np.dtype(np.int64) if self.jtb else self.id_dtype
        self.dtypes = K.dtypes_key(id_dtype, ptr_dtype, self.p_dtype)

    def kernel(self, kind: str):
        key = self.union_key if kind in K.UNION_KINDS else (self.jtb,) if kind in K.JTB_KINDS else ()
        return K.get(kind, key, self.dtypes)

    @property
    def aux(self) -> str | None:
        """The auxiliary array: hooks (UnionHooks, -1 = none), locks
        (UnionRemLock, 0 = free) or the second label array of SV / LT /
        Stergiou (written before it is read)."""
        if not self.uf:
            return "labels" if self.finish in MB.AUX_FINISHES else None
        if self.fin == FINISH_CODE["union-hooks"]:
            return "hooks"
        if self.fin == FINISH_CODE["union-rem-lock"]:
            return "locks"
        return None


def new_aux(codes: Codes, n: int):
    """The hooks (-1 = none), locks (0 = free) or labels of ``codes.aux``."""
    return xp.full(n, -1 if codes.aux == "hooks" else 0, codes.p_dtype)


def graph_views(graph):
    """Kernel views of the graph's arrays, made once per graph."""
    v = graph._cache.get("gpu_views")
    if v is None:
        v = graph._cache["gpu_views"] = tuple(view(a) for a in (graph.indptr, graph.indices, graph.src, graph.dst))
    return v


def sync() -> None:
    """Wait for the device: Stats phases are timed between two of these."""
    if not SIM:
        cuda.synchronize()


class DeviceTimer:
    """CUDA events around device work (the wall clock in the simulator)."""

    def __init__(self):
        if SIM:
            self.t0 = time.perf_counter()
        else:
            self.e0, self.e1 = xp.cuda.Event(), xp.cuda.Event()
            self.e0.record()

    def seconds(self) -> float:
        if SIM:
            return time.perf_counter() - self.t0
        self.e1.record()
        self.e1.synchronize()
        return xp.cuda.get_elapsed_time(self.e0, self.e1) / 1e3


def estimate_bytes(graph, variant: Variant, forest: bool) -> int:
    """Device memory a static run allocates beyond the graph."""
    n, m = graph.n, graph.m
    idb = graph.id_dtype.itemsize
    ptrb = graph.indptr.dtype.itemsize
    pb = 8 if variant.finish == "union-jtb" else idb
    total = n * pb * (2 if variant.finish in ("union-hooks", "union-rem-lock") + tuple(MB.AUX_FINISHES) else 1)
    if not variant.is_union_find:
        # the finish's edge list (COO, or the gathered CSR edges; LT's
        # Alter keeps a second one) and BFS-CC's levels and queues
        total += 6 * m * idb + (n * (4 + 2 * idb) if variant.finish == "bfs-cc" else 0)
    if forest:
        total += 2 * n * idb
    if variant.sampling != "none":
        units = 2 * m // K.CHUNK + 2 * m // (SMALL_MAX + 1) + 1
        total += n * idb + units * (idb + ptrb)
    if variant.sampling == "bfs":
        total += n * (4 + 3 * idb)
    if variant.finish == "union-jtb":
        total += n * idb
    return total


def _phase(st, name):
    return st.phase(name, sync=sync) if st is not None else nullcontext()


def run(graph, variant: Variant, *, forest: bool = False, stats=None, seed: int = 0):
    """Run a static variant on a device graph; returns (roots, forest_src,
    forest_dst) as device arrays, like :func:`gconn.cpu.backend.run`.

    >>> import gconn
    >>> g = gconn.Graph.from_edges([0, 2], [1, 3]).to_device()  # doctest: +SKIP
    >>> roots, _, _ = run(g, Variant.parse("kout+union-async"))  # doctest: +SKIP
    """
    params = variant.param_dict
    if variant.sampling == "kout" and int(params.get("k", 2)) < 1:
        raise ValueError(f"k-out sampling needs k >= 1; got {params['k']}")
    if variant.sampling == "hb" and int(params.get("hb_n", 4)) < 1:
        raise ValueError(f"HB sampling needs hb_n >= 1; got {params['hb_n']}")
    memory.check(estimate_bytes(graph, variant, forest), f"{variant.name} on a graph with n={graph.n}, m={graph.m}")
    with memory.guard(f"{variant.name} on a graph with n={graph.n}, m={graph.m}"):
        timer = DeviceTimer() if stats is not None else None
        out = _run(graph, variant, forest, stats, seed)
        if timer is not None:
            stats.device_time = timer.seconds()
    return out


def _run(graph, variant, forest, st, seed):
    n, m = graph.n, graph.m
    codes = Codes(variant, graph.id_dtype, graph.indptr.dtype)
    idt = codes.id_dtype
    P = xp.arange(n, dtype=codes.p_dtype)
    Pv = view(P)
    H = new_aux(codes, n) if codes.aux else None
    Hv = view(H) if codes.aux else _dummy(codes.p_dtype)
    if forest:
        fa, fb = xp.full(n, -1, idt), xp.full(n, -1, idt)
        fav, fbv = view(fa), view(fb)
    else:
        fa = fb = xp.empty(0, idt)
        fav = fbv = _dummy(idt)
    indptr, indices, src, dst = graph_views(graph)
    record = int(forest)

    if not codes.uf and (variant.sampling == "none" or m == 0):
        with _phase(st, "finish"):
            inspected = MB.finish(graph, variant, P, H, fa, fb, st)
        if st is not None:
            st.edge_inspections["finish"] = inspected
    elif variant.sampling == "none" or m == 0:
        with _phase(st, "finish"):
            K.launch(codes.kernel("coo_ops"), m, Pv, Hv, src, dst, _dummy(np.int8), m, K.OP_UNION, 0,
                     record, fav, fbv, _dummy(np.bool_), persistent=True)
        if st is not None:
            st.edge_inspections["finish"] = m
    else:
        with _phase(st, "sample"):
            inspected = _sample(graph, variant, codes, P, Pv, Hv, fa, fb, fav, fbv, record, seed, st is not None)
            # Full compression before L_max (paper Alg. 1): HB's first step
            # alone makes a path one 4M-long chain, far too long for the
            # finds of L_max's one block (measured: 38 ms).
            K.launch(codes.kernel("compress"), n, Pv, n, _dummy(idt), 0, persistent=True)
        if st is not None:
            st.edge_inspections["sample"] = inspected
        with _phase(st, "lmax"):
            lm, lmv, countsv, smallv, uvv, usv = _scratch(graph)
            K.launch(codes.kernel("lmax"), K.SAMPLE, Pv, n, seed, lmv, countsv, block=K.SAMPLE)
            if codes.uf:    # the min-based finishes gather an edge list instead
                K.launch(codes.kernel("gather"), n, Pv, indptr, n, lmv, SMALL_MAX, smallv, uvv, usv, countsv)
        if st is not None:
            _sample_stats(st, codes, P, Pv, indptr, indices, n, lm, lmv)
        with _phase(st, "finish"):
            if codes.uf:
                K.launch(codes.kernel("finish_csr"), n, Pv, Hv, indptr, indices, smallv, uvv, usv, countsv,
                         record, fav, fbv, persistent=True)
            else:
                inspected = MB.finish(graph, variant, P, H, fa, fb, st, int(lm[0]))
                if st is not None:
                    st.edge_inspections["finish"] = inspected
    with _phase(st, "finalize"):
        if codes.jtb:
            roots = xp.empty(n, idt)
            K.launch(codes.kernel("compress"), n, Pv, n, view(roots), 1, persistent=True)
        else:
            roots = P
            K.launch(codes.kernel("compress"), n, Pv, n, _dummy(idt), 0, persistent=True)
    return roots, fa, fb


def _scratch(graph):
    """Buffers of the sampled pipeline, kept with the graph and reused by
    every run on it (allocating them and making their views costs more than
    a small kernel): L_max and its count (written by the L_max kernel), the
    gather counters (zeroed by it), the small-vertex list and the warp units
    (vertex, first edge).  Returns the L_max array and the views."""
    key = ("gpu_scratch", SMALL_MAX)
    s = graph._cache.get(key)
    if s is None:
        n, m = graph.n, graph.m
        cap = 2 * m // K.CHUNK + 2 * m // (SMALL_MAX + 1) + 1
        lm = xp.zeros(2, np.int64)
        arrays = (lm, xp.zeros(2, np.int64), xp.empty(n, graph.id_dtype), xp.empty(cap, graph.id_dtype),
                  xp.empty(cap, graph.indptr.dtype))
        s = graph._cache[key] = (lm,) + tuple(view(a) for a in arrays)
    return s


_DUMMIES: dict = {}


def _dummy(dtype):
    """A length-1 placeholder for an array argument a launch does not use."""
    d = _DUMMIES.get(np.dtype(dtype).name)
    if d is None:
        d = _DUMMIES[np.dtype(dtype).name] = view(xp.zeros(1, dtype))
    return d


def _sample_stats(st, codes, P, Pv, indptr, indices, n, lm, lmv):
    """Cov, IC and the finish's edge count (Stats only: these read back)."""
    lmax = int(lm[0])
    st.lmax = lmax
    labels = (P & 0xFFFFFFFF) if codes.jtb else P
    st.coverage = float(xp.count_nonzero(labels == lmax)) / n
    acc = xp.zeros(2, np.int64)
    K.launch(codes.kernel("active_stats"), n, Pv, indptr, indices, n, lmv, view(acc))
    left, crossing = (int(x) for x in acc.tolist())
    st.inter_component = crossing / left if left else 0.0
    st.edge_inspections["finish"] = left


def _sample(graph, variant, codes, P, Pv, Hv, fa, fb, fav, fbv, record, seed, count) -> int:
    """The sampling phase; returns the edges it inspected when ``count``."""
    params = variant.param_dict
    n = graph.n
    indptr, indices, _, _ = graph_views(graph)
    deg = graph.indptr[1:] - graph.indptr[:-1] if count else None
    if variant.sampling == "kout":
        k = int(params.get("k", 2))
        mode = K.KOUT_AFFOREST if params.get("kout", "afforest") == "afforest" else K.KOUT_PAPER
        er = int(EDGE_REORGANIZATION and WARP_INTRINSICS and k == 2 and mode == K.KOUT_AFFOREST)
        K.launch(codes.kernel("sample_csr"), n if er else n * k, Pv, Hv, indptr, indices, n, k, mode, seed, er,
                 record, fav, fbv)
        return int(xp.minimum(deg, k).sum()) if count else 0
    if variant.sampling == "hb":
        N = int(params.get("hb_n", 4))
        K.launch(codes.kernel("hb_hook"), n, Pv, indptr, indices, n, record, fav, fbv, persistent=True)
        second = 0
        if count:
            labels = (P & 0xFFFFFFFF) if codes.jtb else P
            roots = labels == xp.arange(n, dtype=labels.dtype)
            second = int(xp.count_nonzero(deg)) + int(xp.minimum(deg[roots], N).sum())
        K.launch(codes.kernel("sample_csr"), n * N, Pv, Hv, indptr, indices, n, N, K.HB_ROOTS, seed, 0,
                 record, fav, fbv)
        return second
    if variant.sampling == "bfs":
        return _bfs_sample(graph, codes, Pv, fa, fb, record, int(params.get("bfs_sample", 1024)),
                           bfs_levels(params), seed)
    raise ValueError(f"unknown sampling {variant.sampling!r}")


def _bfs_sample(graph, codes, Pv, fa, fb, record, sample: int, max_levels: int, seed: int) -> int:
    """BFS sampling: a direction-optimizing BFS from the highest-degree
    vertex of a random sample, for at most ``max_levels`` levels; the
    visited set is relabelled to its minimum id.  Level-synchronous, so it
    reads each level's counters back."""
    n, m2 = graph.n, 2 * graph.m
    g_indptr = graph.indptr
    indptr, indices, _, _ = graph_views(graph)
    idt = codes.id_dtype
    dts = codes.dtypes
    cand = xp.random.RandomState(seed).randint(0, n, size=min(sample, n)) if n > sample else xp.arange(n)
    source = int(cand[int(xp.argmax(g_indptr[cand + 1] - g_indptr[cand]))])
    level = xp.full(n, -1, np.int32)
    parent = xp.full(n, -1, idt)
    level[source] = 0
    frontier, nxt = xp.empty(n, idt), xp.empty(n, idt)
    frontier[0] = source
    counters = xp.zeros(3, np.int64)
    levelv, parentv, cv = view(level), view(parent), view(counters)
    fv, nv = view(frontier), view(nxt)
    explored = fe = int(g_indptr[source + 1] - g_indptr[source])
    nf, depth, inspected, bottom_up = 1, 0, 0, False
    while nf > 0 and depth < max_levels:
        depth += 1
        if not bottom_up and fe > (m2 - explored) / BFS_ALPHA:
            bottom_up = True
        elif bottom_up and nf < n / BFS_BETA:
            bottom_up = False
            counters[:] = 0
            K.launch(K.get("bfs_collect", (), dts), n, levelv, n, depth - 1, fv, cv, persistent=True)
            nf = int(counters[0])
        counters[:] = 0
        if bottom_up:
            K.launch(K.get("bfs_bottom_up", (), dts), n, indptr, indices, n, levelv, parentv, depth, cv)
            nf, fe, scanned = (int(x) for x in counters.tolist())
        else:
            K.launch(K.get("bfs_top_down", (), dts), nf * K.WARP, indptr, indices, fv, nf, levelv, parentv,
                     depth, nv, cv, persistent=True)
            nf, fe, scanned = (int(x) for x in counters.tolist())
            frontier, nxt, fv, nv = nxt, frontier, nv, fv
        inspected += scanned
        explored += fe
    visited = level >= 0
    mn = int(xp.argmax(visited))
    K.launch(codes.kernel("bfs_relabel"), n, Pv, levelv, n, mn, persistent=True)
    if record:
        # The tree edge of each visited vertex but the source sits in its
        # slot; the minimum stays a root, so its slot must stay free for a
        # later link: the source has none, so mn's edge moves there.
        visited[source] = False
        xp.copyto(fa, parent, where=visited)
        xp.copyto(fb, xp.arange(n, dtype=idt), where=visited)
        if mn != source:
            fa[source], fb[source] = fa[mn], fb[mn]
            fa[mn] = fb[mn] = -1
    return inspected


def hb_coverage(graph) -> float:
    """A cheap lower bound on HB's coverage (the decision tree's Cov): one
    block follows smallest-neighbour pointers from K.SAMPLE random vertices
    and counts those that end at the most common end.

    >>> import gconn
    >>> hb_coverage(gconn.Graph.from_edges([0, 0], [1, 2]).to_device())  # doctest: +SKIP
    1.0
    """
    n = graph.n
    if n == 0:
        return 0.0
    indptr, indices, _, _ = graph_views(graph)
    out = xp.zeros(1, np.int64)
    dts = K.dtypes_key(graph.id_dtype, graph.indptr.dtype, graph.id_dtype)
    K.launch(K.get("hb_follow", (), dts), K.SAMPLE, indptr, indices, n, 0, 4096, view(out), block=K.SAMPLE)
    return int(out[0]) / K.SAMPLE
