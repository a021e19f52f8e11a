"""The non-union-find finishes on the CPU: SV, Liu-Tarjan, Stergiou, label
propagation, ECL-CC, Afforest and BFS-CC.

The rule bodies come from :mod:`gconn.backends.core.minbased`; here they run in
``prange`` loops, and the round loops live in Python (a round is a handful
of parallel passes, so the interpreter's share is small).  Rule choices are
runtime codes: one cached compilation per kernel and id width serves every
variant.

Every finish works on the parent array ``P`` left by the sampling phase
(each vertex pointing at its sampled root) and an edge list: all edges
(COO) without sampling, or the CSR edges of the active vertices (label !=
L_max) gathered into a list.  Vertex phases run over all vertices, or over
``verts`` (the batch's endpoints and their roots) for incremental batches.

Skipping L_max's edges, and contracting L_max for the finishes that are
not root-based, is explained in :mod:`gconn.pipeline`.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.backends.core.minbased import FULL_SHORTCUT, build
from gconn.backends.core.unionfind import FIND_NAIVE, UNION_ASYNC
from gconn.design import HOOK_COMPRESS, LT_FINISHES, TRAVERSAL, Plan
from gconn.errors import not_converged
from gconn.backends.cpu import atomics
from gconn.backends.cpu import bfs as _bfs
from gconn.backends.cpu.bfs import degree_sum
from gconn.backends.cpu.primitives import CPU, record_edge, same_set_any

MB = build(CPU)
shortcut = MB.shortcut
FullShortcut = MB.FullShortcut
SVHook = MB.SVHook
SVWinner = MB.SVWinner
SVClassicHook = MB.SVClassicHook
lt_connect = MB.lt_connect
lt_update = MB.lt_update
lt_winner = MB.lt_winner
Alter = MB.Alter
LabelPropEdge = MB.LabelPropEdge
StergiouEdge = MB.StergiouEdge
StergiouShortcut = MB.StergiouShortcut
link = MB.link
GatherEdges = MB.GatherEdges

# -- vertex phases ---------------------------------------------------------
# ``verts`` empty means every vertex of P.

@njit(parallel=True, cache=True)
def shortcut_pass(P, verts, sopt):
    every = verts.size == 0
    cnt = P.size if every else verts.size
    changed = 0
    for t in prange(cnt):
        v = np.int64(t) if every else np.int64(verts[t])
        if shortcut(P, v, sopt):
            changed += 1
    return changed


@njit(parallel=True, cache=True)
def copy_pass(dst, src, verts):
    every = verts.size == 0
    cnt = src.size if every else verts.size
    for t in prange(cnt):
        v = np.int64(t) if every else np.int64(verts[t])
        dst[v] = src[v]


@njit(parallel=True, cache=True)
def lt_update_pass(P, N, verts, uopt):
    every = verts.size == 0
    cnt = P.size if every else verts.size
    changed = 0
    for t in prange(cnt):
        v = np.int64(t) if every else np.int64(verts[t])
        if lt_update(P, N, v, uopt):
            changed += 1
    return changed


@njit(parallel=True, cache=True)
def stergiou_shortcut_pass(cur, prev, verts):
    every = verts.size == 0
    cnt = cur.size if every else verts.size
    changed = 0
    for t in prange(cnt):
        v = np.int64(t) if every else np.int64(verts[t])
        if StergiouShortcut(cur, prev, v):
            changed += 1
    return changed


@njit(parallel=True, cache=True)
def shortcut_endpoints(P, src, dst):
    """FullShortcut of every endpoint of a batch.  Threads sharing an
    endpoint both store one of its ancestors, so the race is harmless."""
    for i in prange(src.size):
        FullShortcut(P, src[i])
        FullShortcut(P, dst[i])


# -- edge phases -------------------------------------------------------------
@njit(parallel=True, cache=True)
def sv_round(P, R, prev, eu, ev):
    hooked = 0
    for i in prange(eu.size):
        if SVHook(P, R, prev, eu[i], ev[i]) >= 0:
            hooked += 1
    return hooked


@njit(parallel=True, cache=True)
def sv_winners(P, prev, eu, ev, fa, fb):
    """Forest mode: replay each hook on the snapshot; the first edge whose
    hook equals the root's final parent claims the root's slot."""
    for i in prange(eu.size):
        h = SVWinner(P, prev, eu[i], ev[i])
        if h >= 0 and atomics.cas(fa, h, -1, eu[i]) == -1:
            fb[h] = ev[i]


@njit(parallel=True, cache=True)
def sv_classic_round(P, eu, ev, down):
    hooked = 0
    for i in prange(eu.size):
        if SVClassicHook(P, eu[i], ev[i], down):
            hooked += 1
    return hooked


@njit(parallel=True, cache=True)
def lt_connect_pass(P, N, wu, wv, copt):
    for i in prange(wu.size):
        lt_connect(P, N, wu[i], wv[i], copt)


@njit(parallel=True, cache=True)
def lt_winners(P, N, wu, wv, eid, ou, ov, copt, fa, fb):
    """Forest mode, before the update phase: the first edge whose message is
    a root's minimum claims the root's slot with its input edge (``eid``
    maps altered edges back to the input; empty means the identity)."""
    for i in prange(wu.size):
        r = lt_winner(P, N, wu[i], wv[i], copt)
        if r >= 0:
            e = eid[i] if eid.size > 0 else np.int64(i)
            if atomics.cas(fa, r, -1, ou[e]) == -1:
                fb[r] = ov[e]


@njit(parallel=True, cache=True)
def alter_edges(P, wu, wv, eid):
    """Alter: every edge becomes (P[u], P[v]); edges whose ends became equal
    are dropped.  Returns the new lists and how many edges changed."""
    m = wu.size
    nchunks = 256
    size = (m + nchunks - 1) // nchunks
    kept = np.zeros(nchunks + 1, np.int64)
    moved = np.zeros(nchunks, np.int64)
    for c in prange(nchunks):
        k = 0
        d = 0
        for i in range(c * size, min(m, (c + 1) * size)):
            a, b = Alter(P, wu[i], wv[i])
            if a != b:
                k += 1
            if a != wu[i] or b != wv[i]:
                d += 1
        kept[c + 1] = k
        moved[c] = d
    for c in range(nchunks):
        kept[c + 1] += kept[c]
    nu = np.empty(kept[nchunks], wu.dtype)
    nv = np.empty(kept[nchunks], wv.dtype)
    neid = np.empty(kept[nchunks] if eid.size > 0 else 0, eid.dtype)
    for c in prange(nchunks):
        o = kept[c]
        for i in range(c * size, min(m, (c + 1) * size)):
            a, b = Alter(P, wu[i], wv[i])
            if a != b:
                nu[o] = a
                nv[o] = b
                if eid.size > 0:
                    neid[o] = eid[i]
                o += 1
    return nu, nv, neid, moved.sum()


@njit(parallel=True, cache=True)
def lp_round(P, eu, ev):
    changed = 0
    for i in prange(eu.size):
        if LabelPropEdge(P, eu[i], ev[i]):
            changed += 1
    return changed


@njit(parallel=True, cache=True)
def stergiou_round(cur, prev, eu, ev):
    for i in prange(eu.size):
        StergiouEdge(cur, prev, eu[i], ev[i])


@njit(parallel=True, cache=True)
def link_coo(P, src, dst, method, fa, fb):
    """ECL-CC's / Afforest's hooking over an edge list (the linked root
    records the edge when fa is non-empty)."""
    for i in prange(src.size):
        r = link(P, src[i], dst[i], method)
        record_edge(fa, fb, r, src[i], dst[i])


@njit(parallel=True, cache=True)
def link_csr(P, indptr, indices, active, method, fa, fb):
    """ECL-CC's / Afforest's hooking over the edges of the active vertices."""
    for t in prange(active.size):
        v = active[t]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            r = link(P, v, w, method)
            record_edge(fa, fb, r, v, w)


@njit(parallel=True, cache=True)
def mixed_link_batch(P, kinds, src, dst, method, out):
    """Inserts (kind 0) and queries (kind 1) of one batch, concurrently:
    the hooks are lock-free and root-based, so a query's root check is
    linearizable as for UnionAsync."""
    for i in prange(kinds.size):
        if kinds[i] == 0:
            link(P, src[i], dst[i], method)
        else:
            out[i] = same_set_any(P, src[i], dst[i], UNION_ASYNC, FIND_NAIVE)


@njit(parallel=True, cache=True)
def gather_edges(P, indptr, indices, active, offsets, lmax, contract):
    """The CSR edges (v, w) of the active vertices as a list; with
    ``contract`` an endpoint labelled lmax becomes lmax itself."""
    eu = np.empty(offsets[-1], indices.dtype)
    ev = np.empty(offsets[-1], indices.dtype)
    for t in prange(active.size):
        GatherEdges(P, indptr, indices, active[t], offsets[t], lmax, contract, eu, ev)
    return eu, ev


# -- drivers -----------------------------------------------------------------
def finish(s, work):
    """Run a non-union-find finish on run state ``s`` (P holds the sampled
    labels); ``work`` is None without sampling (all edges, COO), else the
    gathered active vertices (ECL-CC, Afforest) or their edges.  Returns
    (edges inspected, rounds).

    >>> import gconn
    >>> gconn.connected_components(([0, 2], [1, 3]), algorithm="none+lt-prf", backend="cpu")
    (2, array([0, 0, 1, 1], dtype=int32))
    """
    g, p, P = s.graph, s.plan, s.P
    if p.family == TRAVERSAL:
        return _bfs.components(s.indptr, s.indices, P)
    if p.family == HOOK_COMPRESS:
        if work is None:
            link_coo(P, s.src, s.dst, p.link, s.fa, s.fb)
            inspected = int(s.src.size)
        else:
            link_csr(P, s.indptr, s.indices, work, p.link, s.fa, s.fb)
            inspected = int(degree_sum(s.indptr, work))
        # ECL-CC's / Afforest's own compression step, after all hooks.
        shortcut_pass(P, _no_verts(P), FULL_SHORTCUT)
        return inspected, 0
    eu, ev = (s.src, s.dst) if work is None else work
    from gconn.pipeline.finishes import run_rounds
    rounds, inspected = run_rounds(p, P, s.H, eu, ev, _no_verts(P), s.fa, s.fb, p.max_rounds(g.n))
    return inspected, rounds


def _no_verts(P):
    """The empty vertex (or forest) array: vertex phases cover all of P,
    and nothing is recorded."""
    return np.empty(0, P.dtype)
