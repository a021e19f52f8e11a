"""Sampling on the CPU (paper Sec. 3.3): k-out, HB, BFS and stride sampling,
with the plan's union rule, for :mod:`gconn.pipeline.sampling`; and the
automatic choice's estimate of HB's coverage."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.backends.cpu.bfs import Search
from gconn.design import STRIDE_RUN
from gconn.backends.cpu.unionfind import UF, record_edge, unite

KOUT_PAPER = 0      # first edge + k-1 uniformly random edges (paper Alg. k-out)
KOUT_AFFOREST = 1   # the first k edges (Afforest)


@njit(cache=True)
def _mix(x):
    # splitmix64 finalizer: a reproducible random number per (vertex, draw) without RNG state
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


@njit(parallel=True, cache=True)
def kout_sample(P, H, indptr, indices, k, mode, seed, fin, fopt, sopt, fa, fb):
    n = indptr.size - 1
    for vi in prange(n):
        v = np.int64(vi)
        s = indptr[v]
        d = indptr[v + 1] - s
        kk = min(k, d)
        for i in range(kk):
            if i == 0 or mode == KOUT_AFFOREST:
                j = s + i
            else:
                r = _mix(np.uint64(v) * np.uint64(0x100000001B3) + np.uint64(i) + np.uint64(seed) * np.uint64(0x9E37))
                j = s + 1 + np.int64(r % np.uint64(d - 1))
            w = indices[j]
            r = unite(P, H, v, w, fin, fopt, sopt)
            record_edge(fa, fb, r, v, w)


@njit(parallel=True, cache=True)
def hb_hook_first(P, indptr, indices, fin, fa, fb):
    """HB step 1: v points at its smallest neighbour w when w < v (its own slot only)."""
    n = indptr.size - 1
    for vi in prange(n):
        v = np.int64(vi)
        if indptr[v + 1] > indptr[v]:
            w = indices[indptr[v]]
            if w < v:
                UF.set_parent(P, v, w, fin)
                record_edge(fa, fb, v, v, w)


@njit(parallel=True, cache=True)
def hb_union_roots(P, H, indptr, indices, N, fin, fopt, sopt, fa, fb):
    """HB step 2: the vertices still roots union their first N edges."""
    n = indptr.size - 1
    inspected = 0
    for vi in prange(n):
        v = np.int64(vi)
        if UF.parent_of(P, v, fin) != v:
            continue
        e = min(indptr[v] + N, indptr[v + 1])
        inspected += e - indptr[v]
        for j in range(indptr[v], e):
            w = indices[j]
            r = unite(P, H, v, w, fin, fopt, sopt)
            record_edge(fa, fb, r, v, w)
    return inspected


@njit(cache=True)
def follow_first(indptr, indices, starts, max_steps):
    """Where HB's first step (follow the smallest neighbour while smaller) sends
    each start; -1 after ``max_steps`` steps."""
    out = np.empty(starts.size, np.int64)
    for t in range(starts.size):
        v = np.int64(starts[t])
        steps = 0
        while steps < max_steps and indptr[v + 1] > indptr[v]:
            w = indices[indptr[v]]
            if w >= v:
                break
            v = w
            steps += 1
        out[t] = v if steps < max_steps else -1
    return out


@njit(parallel=True, cache=True)
def _relabel_visited(P, level, mn):
    for vi in prange(P.size):
        v = np.int64(vi)
        if level[v] >= 0:
            P[v] = mn


@njit(parallel=True, cache=True)
def stride_sample(P, H, src, dst, run, step, fin, fopt, sopt, fa, fb):
    """Union edges ``i * step`` to ``i * step + run - 1`` for every i; returns how many."""
    m = src.size
    runs = (m + step - 1) // step
    inspected = 0
    for t in prange(runs):
        first = t * step
        last = min(first + run, m)
        inspected += last - first
        for i in range(first, last):
            u = src[i]
            v = dst[i]
            r = unite(P, H, u, v, fin, fopt, sopt)
            record_edge(fa, fb, r, u, v)
    return inspected


# -- the samplers of gconn.pipeline.sampling -----------------------------------

xp = np


def stride(s, count: bool) -> int:
    p = s.plan
    return int(stride_sample(s.P, s.H, s.src, s.dst, STRIDE_RUN, p.stride_step(s.src.size, s.graph.n),
                             p.fin, p.fopt, p.sopt, s.fa, s.fb))


def kout(s, seed: int, count: bool) -> int:
    p = s.plan
    mode = KOUT_PAPER if p.kout_paper else KOUT_AFFOREST
    kout_sample(s.P, s.H, s.indptr, s.indices, p.k, mode, seed, p.fin, p.fopt, p.sopt, s.fa, s.fb)
    return int(np.minimum(np.diff(s.indptr), p.k).sum())


def hb(s, seed: int, count: bool) -> int:
    p = s.plan
    hb_hook_first(s.P, s.indptr, s.indices, p.fin, s.fa, s.fb)
    second = hb_union_roots(s.P, s.H, s.indptr, s.indices, p.hb_n, p.fin, p.fopt, p.sopt, s.fa, s.fb)
    return int(np.count_nonzero(np.diff(s.indptr))) + int(second)


def bfs_source(s, seed: int) -> int:
    """The highest-degree vertex of a random sample (Slota et al.)."""
    indptr, sample = s.indptr, s.plan.bfs_sample
    n = indptr.size - 1
    cand = np.random.default_rng(seed).integers(0, n, size=min(sample, n)) if n > sample else np.arange(n)
    return int(cand[int(np.argmax(indptr[cand + 1] - indptr[cand]))])


def search(s, level, parent) -> Search:
    return Search(s.indptr, s.indices, level, parent)


def relabel_visited(s, level, mn: int) -> None:
    _relabel_visited(s.P, level, mn)


def hb_coverage(graph, sample: int = 1024, seed: int = 0, max_steps: int = 4096) -> float:
    """A cheap lower bound on HB's coverage: the share of sampled vertices whose
    HB first-step walk ends at the most common end.

    >>> import gconn
    >>> hb_coverage(gconn.Graph.from_edges([0, 0], [1, 2]))
    1.0
    """
    n = graph.n
    if n == 0:
        return 0.0
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, n, size=min(sample, n))
    ends = follow_first(*graph.adjacency(), starts, max_steps)
    ends = ends[ends >= 0]
    if ends.size == 0:
        return 0.0
    _, counts = np.unique(ends, return_counts=True)
    return float(counts.max()) / starts.size
