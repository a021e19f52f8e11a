"""The non-union-find finishes on the CPU (SV, Liu-Tarjan, Stergiou, label propagation, ECL-CC,
Afforest, BFS-CC): :mod:`gconn.backends.core.minbased`'s bodies in ``prange`` loops on runtime
codes, launched by :mod:`gconn.pipeline.finishes` through :class:`Launches`."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from gconn.backends.core.minbased import build
from gconn.backends.core.unionfind import FIND_NAIVE, UNION_ASYNC
from gconn.design import TRAVERSAL
from gconn.pipeline import finishes as drivers
from gconn.backends.cpu import atomics
from gconn.backends.cpu import bfs as _bfs
from gconn.backends.cpu.bfs import degree_sum
from gconn.backends.cpu.unionfind import CPU, SERIAL_BELOW, UF, record_edge, serial_twin

MB = build(CPU)

# -- vertex phases over every vertex (``every``) or ``verts[:cnt]``; ``flag[0]`` counts changes

@njit(parallel=True, cache=True)
def copy_pass(dst, src, verts, cnt, every):
    for t in prange(cnt):
        v = np.int64(t) if every else np.int64(verts[t])
        dst[v] = src[v]


@njit(parallel=True, cache=True)
def shortcut_pass(P, verts, cnt, every, flag, sopt):
    changed = 0
    for t in prange(cnt):
        v = np.int64(t) if every else np.int64(verts[t])
        if MB.shortcut(P, v, sopt):
            changed += 1
    flag[0] += changed


@njit(parallel=True, cache=True)
def lt_update_pass(P, N, verts, cnt, every, flag, uopt):
    changed = 0
    for t in prange(cnt):
        v = np.int64(t) if every else np.int64(verts[t])
        if MB.lt_update(P, N, v, uopt):
            changed += 1
    flag[0] += changed


@njit(parallel=True, cache=True)
def stergiou_shortcut_pass(cur, prev, verts, cnt, every, flag):
    changed = 0
    for t in prange(cnt):
        v = np.int64(t) if every else np.int64(verts[t])
        if MB.StergiouShortcut(cur, prev, v):
            changed += 1
    flag[0] += changed


@njit(parallel=True, cache=True)
def shortcut_endpoints(P, src, dst, m):
    """FullShortcut of a batch's endpoints (threads sharing one store ancestors: harmless)."""
    for i in prange(m):
        MB.FullShortcut(P, src[i])
        MB.FullShortcut(P, dst[i])


# -- edge phases over (eu, ev)[:m] -----------------------------------------------

@njit(parallel=True, cache=True)
def sv_round(P, prev, eu, ev, m, snapshot, flag):
    R = prev if snapshot else P
    hooked = 0
    for i in prange(m):
        if MB.SVHook(P, R, prev, eu[i], ev[i]) >= 0:
            hooked += 1
    flag[0] += hooked


@njit(parallel=True, cache=True)
def sv_winners(P, prev, eu, ev, m, fa, fb):
    """Forest mode: the first edge whose hook, replayed on the snapshot, equals
    the root's final parent claims the root's slot."""
    for i in prange(m):
        h = MB.SVWinner(P, prev, eu[i], ev[i])
        if h >= 0 and atomics.cas(fa, h, -1, eu[i]) == -1:
            fb[h] = ev[i]


@njit(parallel=True, cache=True)
def sv_classic_round(P, eu, ev, m, down, flag):
    hooked = 0
    for i in prange(m):
        if MB.SVClassicHook(P, eu[i], ev[i], down):
            hooked += 1
    flag[0] += hooked


@njit(parallel=True, cache=True)
def lt_connect_pass(P, N, wu, wv, m, copt):
    for i in prange(m):
        MB.lt_connect(P, N, wu[i], wv[i], copt)


@njit(parallel=True, cache=True)
def lt_winners(P, N, wu, wv, eid, has_eid, m, ou, ov, fa, fb, copt):
    """Forest mode, before the update: the first edge whose message is a root's
    minimum claims its slot with its input edge (``eid`` when ``has_eid``)."""
    for i in prange(m):
        r = MB.lt_winner(P, N, wu[i], wv[i], copt)
        if r >= 0:
            e = eid[i] if has_eid else np.int64(i)
            if atomics.cas(fa, r, -1, ou[e]) == -1:
                fb[r] = ov[e]


@njit(parallel=True, cache=True)
def alter_edges(P, wu, wv, eid, has_eid):
    """Alter: every edge becomes (P[u], P[v]), self loops dropped; returns the new
    lists, their ids (``eid`` itself unless ``has_eid``) and how many changed."""
    m = wu.size
    nchunks = 256
    size = (m + nchunks - 1) // nchunks
    kept = np.zeros(nchunks + 1, np.int64)
    moved = np.zeros(nchunks, np.int64)
    for c in prange(nchunks):
        k = 0
        d = 0
        for i in range(c * size, min(m, (c + 1) * size)):
            a, b = MB.Alter(P, wu[i], wv[i])
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
    neid = np.empty(kept[nchunks], eid.dtype) if has_eid else eid
    for c in prange(nchunks):
        o = kept[c]
        for i in range(c * size, min(m, (c + 1) * size)):
            a, b = MB.Alter(P, wu[i], wv[i])
            if a != b:
                nu[o] = a
                nv[o] = b
                if has_eid:
                    neid[o] = eid[i]
                o += 1
    return nu, nv, neid, moved.sum()


@njit(parallel=True, cache=True)
def lp_round(P, eu, ev, m, flag):
    changed = 0
    for i in prange(m):
        if MB.LabelPropEdge(P, eu[i], ev[i]):
            changed += 1
    flag[0] += changed


@njit(parallel=True, cache=True)
def stergiou_round(cur, prev, eu, ev, m):
    for i in prange(m):
        MB.StergiouEdge(cur, prev, eu[i], ev[i])


@njit(parallel=True, cache=True)
def link_coo(P, src, dst, m, record, fa, fb, method):
    """ECL-CC's / Afforest's hooking over an edge list."""
    for i in prange(m):
        r = MB.link(P, src[i], dst[i], method)
        if record:
            record_edge(fa, fb, r, src[i], dst[i])


@njit(parallel=True, cache=True)
def link_csr(P, indptr, indices, active, method, fa, fb):
    for t in prange(active.size):
        v = active[t]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            r = MB.link(P, v, w, method)
            record_edge(fa, fb, r, v, w)


@njit(parallel=True, cache=True)
def mixed_link_batch(P, kinds, src, dst, m, out, method):
    """Inserts (kind 0) and queries (kind 1) at once: the hooks are root-based,
    so a query's root check is linearizable as for UnionAsync."""
    for i in prange(m):
        if kinds[i] == 0:
            MB.link(P, src[i], dst[i], method)
        else:
            out[i] = UF.same_set_any(P, src[i], dst[i], UNION_ASYNC, FIND_NAIVE)


@njit(parallel=True, cache=True)
def gather_edges(P, indptr, indices, active, nact, offsets, lmax, contract, eu, ev):
    for t in prange(nact):
        MB.GatherEdges(P, indptr, indices, active[t], offsets[t], lmax, contract, eu, ev)


# -- the launch interface of gconn.pipeline.finishes -------------------------

#: kind -> the kernel; a launch passes its arguments, then the key's codes
KERNELS = {"copy": copy_pass, "shortcut": shortcut_pass, "lt_update": lt_update_pass,
           "stergiou_shortcut": stergiou_shortcut_pass, "endpoints": shortcut_endpoints, "sv_round": sv_round,
           "sv_winners": sv_winners, "sv_classic_round": sv_classic_round, "lt_connect": lt_connect_pass,
           "lt_winners": lt_winners, "lp_round": lp_round, "stergiou_round": stergiou_round, "link": link_coo,
           "mixed_link": mixed_link_batch, "gather_edges": gather_edges, "alter": alter_edges}

#: their serial twins, for launches over fewer than SERIAL_BELOW items (as union-find batches)
SERIAL = {kind: serial_twin(kernel) for kind, kernel in KERNELS.items()}


class Launches:
    """The CPU's launches of :mod:`gconn.pipeline.finishes`: ``prange``
    loops, or their serial twins below ``SERIAL_BELOW`` items; the round's
    flag is the sum of what the passes changed."""

    xp = np

    def __init__(self, id_dtype):
        self.flagv = np.zeros(1, np.int64)
        self.none = np.full(1, -1, id_dtype)

    def __call__(self, kind, key, nthreads, *args):
        return (SERIAL if nthreads < SERIAL_BELOW else KERNELS)[kind](*args, *key)

    @staticmethod
    def v(a):
        return a

    def clear(self):
        self.flagv[0] = 0

    def changed(self) -> bool:
        return bool(self.flagv[0])

    def alter(self, P, wu, wv, wua, wva, eid, has_eid):
        nu, nv, eid, moved = self("alter", (), wu.size, P, wu, wv, eid, has_eid)
        self.flagv[0] += moved
        return nu, nv, eid

    @staticmethod
    def hook(s, work) -> int:
        if work is None:
            m = int(s.src.size)
            link_coo(s.P, s.src, s.dst, m, s.fa.size > 0, s.fa, s.fb, s.plan.link)
            return m
        link_csr(s.P, s.indptr, s.indices, work, s.plan.link, s.fa, s.fb)
        return int(degree_sum(s.indptr, work))


def finish(s, work):
    """A non-union-find finish over all edges (``work`` None) or the gathered
    work; returns (edges inspected, rounds)."""
    if s.plan.family == TRAVERSAL:
        return _bfs.components(s.indptr, s.indices, s.P)
    return drivers.finish(Launches(s.graph.id_dtype), s, work)
