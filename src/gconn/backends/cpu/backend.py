"""The CPU backend's steps of :mod:`gconn.pipeline` and the labels.

>>> import gconn
>>> from gconn.design import Plan, Variant
>>> s = init(gconn.Graph.from_edges([0, 2], [1, 3]), Plan.of(Variant.parse("none+union-async")), False)
>>> finish(s, None)
(2, 0)
>>> finalize(s)[0].tolist()
[0, 0, 2, 2]
"""
from __future__ import annotations

from contextlib import nullcontext

import numpy as np
from numba import njit, prange

from gconn.design import HOOK_COMPRESS, UNION_FIND, Plan
from gconn.pipeline import sampling as pipeline_sampling
from gconn.pipeline.finishes import gather_edges
from gconn.backends.cpu import atomics
from gconn.backends.cpu import sampling
from gconn.backends.cpu import unionfind as UF
from gconn.backends.cpu.bfs import degree_sum

#: Afforest / GConn estimate L_max from a sample of this many vertices.
LMAX_SAMPLE = 1024


class State:
    """One run: the graph's form the plan needs (``src``/``dst`` or
    ``indptr``/``indices``), the parent array ``P``, the plan's auxiliary
    array ``H`` and the forest slots."""

    def __init__(self, graph, plan: Plan, forest: bool):
        self.graph, self.plan = graph, plan
        self.src = self.dst = self.indptr = self.indices = None
        if plan.needs == "adjacency":
            self.indptr, self.indices = graph.adjacency()
        if plan.needs == "edges" or graph.m_input == 0:
            # without edges the pipeline skips sampling: the finish reads the (empty) edge list
            self.src, self.dst = graph.edges()
        self.P, self.H = new_arrays(graph.n, graph.id_dtype, plan)
        idt = graph.id_dtype
        n = graph.n if forest else 0
        self.fa, self.fb = np.full(n, -1, idt), np.full(n, -1, idt)
        self.active = None


def new_arrays(n: int, id_dtype, plan: Plan):
    """Parent array (every vertex a root) and the plan's auxiliary array: hooks
    (-1), locks (0), labels, or a length-1 dummy."""
    P = np.empty(n, np.int64 if plan.jtb else id_dtype)
    UF.init_parents(P)
    H = np.zeros(n if plan.aux else 1, P.dtype)
    if plan.aux == "hooks":
        H.fill(-1)
    return P, H


def labels_view(P: np.ndarray, plan: Plan, id_dtype) -> np.ndarray:
    if not plan.jtb:
        return P
    out = np.empty(P.size, id_dtype)
    UF.roots_of(P, plan.fin, out)
    return out


# -- the pipeline's steps -----------------------------------------------------

def scope(graph, plan, forest, stats):
    return nullcontext()


def sync() -> None:
    pass


def init(graph, plan: Plan, forest: bool) -> State:
    return State(graph, plan, forest)


def sample(s: State, seed: int, count: bool) -> int:
    return pipeline_sampling.sample(sampling, s, seed, count)


def compress(s: State) -> None:
    UF.compress_all(s.P, s.plan.fin)


def lmax(s: State, seed: int) -> int:
    """The most frequent sampled label (exact on small graphs, else from LMAX_SAMPLE vertices)."""
    labels = labels_view(s.P, s.plan, s.graph.id_dtype)
    n = labels.size
    if n <= 16 * LMAX_SAMPLE:
        return int(np.argmax(np.bincount(labels, minlength=1)))
    rng = np.random.default_rng(seed + 7)
    vals, counts = np.unique(labels[rng.integers(0, n, LMAX_SAMPLE)], return_counts=True)
    return int(vals[np.argmax(counts)])


def gather(s: State, lmax: int):
    """The active vertices (label != L_max) for union-find and hook finishes;
    their edges for the round-based ones, which pass over them every round."""
    g, p = s.graph, s.plan
    s.active = active = gather_active(labels_view(s.P, p, g.id_dtype), lmax)
    if p.family in (UNION_FIND, HOOK_COMPRESS):
        return active
    from gconn.backends.cpu.finishes import Launches  # only the variants that are not union-find pay its import
    return gather_edges(Launches(g.id_dtype), s.P, s.indptr, s.indices, active, lmax, p.contract)


def sample_stats(s: State, lmax, work, stats) -> None:
    """Cov, IC, L_max and the finish's edges (``lmax`` None after stride sampling:
    exact here, IC over the edge list)."""
    g = s.graph
    labels = labels_view(s.P, s.plan, g.id_dtype)
    stride = lmax is None
    if stride:
        lmax = int(np.argmax(np.bincount(labels, minlength=1)))
    stats.lmax = lmax
    stats.coverage = float(np.count_nonzero(labels == lmax)) / g.n
    if stride:
        left = int(s.src.size)
        stats.inter_component = float(np.count_nonzero(labels[s.src] != labels[s.dst])) / left if left else 0.0
        return
    left = int(degree_sum(s.indptr, s.active))
    crossing = int(inter_component_edges(labels, s.indptr, s.indices, s.active))
    stats.inter_component = crossing / left if left else 0.0
    stats.edge_inspections["finish"] = left


def finish(s: State, work):
    p = s.plan
    if p.family != UNION_FIND:
        from gconn.backends.cpu import finishes
        return finishes.finish(s, work)
    if work is None:
        UF.finish_coo(s.P, s.H, s.src, s.dst, p.fin, p.fopt, p.sopt, s.fa, s.fb)
        return int(s.src.size), 0
    UF.finish_csr(s.P, s.H, s.indptr, s.indices, work, p.fin, p.fopt, p.sopt, s.fa, s.fb)
    return None, 0


def finalize(s: State):
    UF.compress_all(s.P, s.plan.fin)
    return labels_view(s.P, s.plan, s.graph.id_dtype), s.fa, s.fb


def number(s: State):
    return compact(finalize(s)[0], s.plan.variant.min_rooted)


# -- gathering and labels -----------------------------------------------------

@njit(parallel=True, cache=True)
def gather_active(labels, lmax):
    n = labels.size
    nchunks = 64
    size = (n + nchunks - 1) // nchunks
    counts = np.zeros(nchunks + 1, np.int64)
    for c in prange(nchunks):
        cnt = 0
        for v in range(c * size, min(n, (c + 1) * size)):
            if labels[v] != lmax:
                cnt += 1
        counts[c + 1] = cnt
    for c in range(nchunks):
        counts[c + 1] += counts[c]
    out = np.empty(counts[nchunks], labels.dtype)
    for c in prange(nchunks):
        o = counts[c]
        for v in range(c * size, min(n, (c + 1) * size)):
            if labels[v] != lmax:
                out[o] = v
                o += 1
    return out


@njit(parallel=True, cache=True)
def inter_component_edges(labels, indptr, indices, active):
    s = 0
    for t in prange(active.size):
        v = active[t]
        for j in range(indptr[v], indptr[v + 1]):
            if labels[indices[j]] != labels[v]:
                s += 1
    return s


@njit(cache=True)
def _compact(roots):
    """Labels 0..k-1 by each component's smallest vertex (scipy's), for any roots.
    Serial: a parallel version was slower on few shared cores."""
    n = roots.size
    first = np.full(n, -1, roots.dtype)
    out = np.empty(n, roots.dtype)
    k = 0
    for v in range(n):
        r = roots[v]
        lab = first[r]
        if lab < 0:
            lab = k
            first[r] = k
            k += 1
        out[v] = lab
    return k, out


@njit(parallel=True, cache=True)
def min_representatives(roots):
    """Replace each root by the smallest vertex of its component."""
    n = roots.size
    mins = np.full(n, n, roots.dtype)
    for vi in prange(n):
        v = np.int64(vi)
        # reading first skips the atomic for all but a few vertices of a large component
        r = roots[v]
        if v < atomics.load(mins, r):
            atomics.atomic_min(mins, r, v)
    out = np.empty(n, roots.dtype)
    for vi in prange(n):
        v = np.int64(vi)
        out[v] = mins[roots[v]]
    return out


def compact(roots: np.ndarray, min_rooted: bool = False):
    """(k, labels 0..k-1 in scipy's order) from any root array (``min_rooted``
    changes nothing on the CPU)."""
    k, labels = _compact(roots)
    return int(k), labels


def count_roots(roots: np.ndarray) -> int:
    return int(np.count_nonzero(roots == np.arange(roots.size, dtype=roots.dtype)))


def replayed(graph, key, fn, edges_only: bool = False, handle: list | None = None, launched=None) -> tuple:
    """``(launched or fn)()``'s outputs: nothing to capture and replay on the CPU."""
    return tuple((launched or fn)())


def again(handle: list) -> None:
    """Nothing: no run is captured on the CPU."""


def collect_forest(fa: np.ndarray, fb: np.ndarray):
    keep = fa >= 0
    return fa[keep], fb[keep]
