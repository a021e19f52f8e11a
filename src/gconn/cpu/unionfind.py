"""Parallel CPU kernels of the static pipeline and incremental batches.

The union-find bodies come from :mod:`gconn.core.unionfind`, compiled here
with the CPU primitives.  The variant is a set of runtime codes (finish,
find, splice), so one cached compilation per id width serves the whole
design space; the branch on the codes is predictable and costs little next
to the cache misses of a union.

A ``prange`` index starting at 0 is typed uint64 by numba; mixed with int32
ids it would unify to float64, so loops rebind it as a signed ``v``.

Spanning forests: ``fa``/``fb`` are length-n arrays (or length 0 when not
wanted); the thread that links root r writes the edge at slot r.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..core.primitives import Primitives
from ..core.unionfind import FIND_NAIVE, build
from . import atomics


@njit
def _fence():
    pass


CPU = Primitives(jit=njit, load=atomics.load, store=atomics.store, cas=atomics.cas,
                 atomic_min=atomics.atomic_min, atomic_add=atomics.atomic_add,
                 fence=_fence, target="cpu")
UF = build(CPU)
union_any = UF.union_any
find_any = UF.find_any
parent_of = UF.parent_of
set_parent = UF.set_parent
same_set_any = UF.same_set_any

KOUT_PAPER = 0      # first edge + k-1 uniformly random edges (paper Alg. k-out)
KOUT_AFFOREST = 1   # the first k edges (Afforest)


@njit(cache=True)
def _mix(x):
    # splitmix64 finalizer: a stateless hash, so each (vertex, draw) gets its
    # own reproducible random number without per-thread RNG state.
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


@njit(inline="always")
def record_edge(fa, fb, r, u, v):
    """Spanning forest: the union that linked root r used edge (u, v)."""
    if r >= 0 and fa.size > 0:
        fa[r] = u
        fb[r] = v


@njit(parallel=True, cache=True)
def init_parents(P):
    for vi in prange(P.size):
        v = np.int64(vi)
        P[v] = v


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
            r = union_any(P, H, v, w, fin, fopt, sopt)
            record_edge(fa, fb, r, v, w)


@njit(parallel=True, cache=True)
def hb_hook_first(P, indptr, indices, fin, fa, fb):
    """HB step 1: v points at its smallest neighbour w when w < v.  Every
    vertex writes only its own slot, so there is no contention."""
    n = indptr.size - 1
    for vi in prange(n):
        v = np.int64(vi)
        if indptr[v + 1] > indptr[v]:
            w = indices[indptr[v]]
            if w < v:
                set_parent(P, v, w, fin)
                record_edge(fa, fb, v, v, w)


@njit(parallel=True, cache=True)
def hb_union_roots(P, H, indptr, indices, N, fin, fopt, sopt, fa, fb):
    """HB step 2: the vertices still roots union their first N edges."""
    n = indptr.size - 1
    inspected = 0
    for vi in prange(n):
        v = np.int64(vi)
        if parent_of(P, v, fin) != v:
            continue
        e = min(indptr[v] + N, indptr[v + 1])
        inspected += e - indptr[v]
        for j in range(indptr[v], e):
            w = indices[j]
            r = union_any(P, H, v, w, fin, fopt, sopt)
            record_edge(fa, fb, r, v, w)
    return inspected


@njit(parallel=True, cache=True)
def compress_all(P, fin):
    """Point every vertex at its root (no unions run concurrently)."""
    for vi in prange(P.size):
        v = np.int64(vi)
        r = find_any(P, v, fin, FIND_NAIVE)
        if r != v:
            set_parent(P, v, r, fin)


@njit(parallel=True, cache=True)
def roots_of(P, fin, out):
    for vi in prange(P.size):
        v = np.int64(vi)
        out[v] = parent_of(P, v, fin)


@njit(parallel=True, cache=True)
def finish_csr(P, H, indptr, indices, active, fin, fopt, sopt, fa, fb):
    """Union every edge of the gathered active vertices (those not in L_max)."""
    for t in prange(active.size):
        v = active[t]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            r = union_any(P, H, v, w, fin, fopt, sopt)
            record_edge(fa, fb, r, v, w)


@njit(parallel=True, cache=True)
def finish_coo(P, H, src, dst, fin, fopt, sopt, fa, fb):
    """The edge-centric finish without sampling: each undirected edge once."""
    for i in prange(src.size):
        u = src[i]
        v = dst[i]
        r = union_any(P, H, u, v, fin, fopt, sopt)
        record_edge(fa, fb, r, u, v)


@njit(parallel=True, cache=True)
def gather_active(labels, lmax):
    """Vertex gathering: the ids whose sampled label is not L_max."""
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
def degree_sum(indptr, active):
    s = 0
    for t in prange(active.size):
        v = active[t]
        s += indptr[v + 1] - indptr[v]
    return s


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
def compact(roots):
    """Labels 0..k-1 numbered by each component's smallest vertex, which is
    scipy's numbering; works for any choice of root."""
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
        atomics.atomic_min(mins, roots[v], v)
    out = np.empty(n, roots.dtype)
    for vi in prange(n):
        v = np.int64(vi)
        out[v] = mins[roots[v]]
    return out


@njit(parallel=True, cache=True)
def mixed_batch(P, H, kinds, src, dst, fin, fopt, sopt, out):
    """Inserts (kind 0) and queries (kind 1) of one batch, concurrently.
    ``out[i]`` is the answer of op i for queries."""
    for i in prange(kinds.size):
        if kinds[i] == 0:
            union_any(P, H, src[i], dst[i], fin, fopt, sopt)
        else:
            out[i] = same_set_any(P, src[i], dst[i], fin, fopt)


@njit(parallel=True, cache=True)
def insert_batch(P, H, src, dst, fin, fopt, sopt):
    for i in prange(src.size):
        union_any(P, H, src[i], dst[i], fin, fopt, sopt)


@njit(parallel=True, cache=True)
def query_batch(P, src, dst, fin, fopt, out):
    for i in prange(src.size):
        out[i] = same_set_any(P, src[i], dst[i], fin, fopt)


@njit(cache=True)
def follow_first(indptr, indices, starts, max_steps):
    """Where HB's first step sends each start: follow the smallest
    neighbour while it is smaller; -1 when the walk is longer than max_steps."""
    out = np.empty(starts.size, np.int64)
    for t in range(starts.size):
        v = starts[t]
        steps = 0
        while steps < max_steps and indptr[v + 1] > indptr[v]:
            w = indices[indptr[v]]
            if w >= v:
                break
            v = w
            steps += 1
        out[t] = v if steps < max_steps else -1
    return out
