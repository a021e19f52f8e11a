"""Sampling on the GPU (paper Sec. 3.3): k-out with CSR coalescing and edge
reorganization, HB, BFS sampling, and stride sampling over an edge list, for
the drivers of :mod:`gconn.pipeline.sampling`.

>>> from gconn.backends.gpu import sampling
>>> from gconn.backends.gpu.launch import REGISTRY
>>> "sample_csr" in REGISTRY
True
"""
from __future__ import annotations

import numpy as np

from gconn.backends.gpu._compat import WARP_INTRINSICS, cuda, view, xp
from gconn.backends.gpu.bfs import Search
from gconn.backends.gpu.launch import FULL_MASK, WARP, kernel, launch
from gconn.backends.gpu.primitives import RECORD_POSITION, U64, UF, rand64, record_edge, record_position
from gconn.backends.gpu.unionfind import jtb_fin

KOUT_PAPER = 0      # first edge + k-1 random edges (paper Alg. k-out)
KOUT_AFFOREST = 1   # the first k edges (Afforest)
HB_ROOTS = 2        # HB step 2: the first N edges of vertices still roots


@kernel("sample_csr", lambda t: (t.P, t.P, t.ptr, t.id) + (t.I64,) * 6 + (t.id, t.id), keys="union")
def make_sample_csr(fin, fopt, sopt):
    """k-out and HB's second step, thread ``g`` on edge ``g % k`` of vertex ``g // k``; ``er``:
    edge reorganization (k = 2, Afforest mode), a pair of lanes swapping the edges read.  A forest
    recorded by position (k-out) fills slots n + g (``er``: n + 2v and n + 2v + 1)."""
    union_any, parent_of = UF.union_any, UF.parent_of
    warp = WARP_INTRINSICS

    def sample_csr(P, H, indptr, indices, n, k, mode, seed, er, record, fa, fb):
        g = cuda.grid(1)
        if warp and er:
            lane = g & 1
            v0 = g - lane
            v1 = v0 + 1
            a = -1
            b = -1
            if v0 < n and indptr[v0] + lane < indptr[v0 + 1]:
                a = indices[indptr[v0] + lane]
            if v1 < n and indptr[v1] + lane < indptr[v1 + 1]:
                b = indices[indptr[v1] + lane]
            send = b if lane == 0 else a
            got = cuda.shfl_xor_sync(FULL_MASK, send, 1)
            v = v0 if lane == 0 else v1
            e0 = a if lane == 0 else got
            e1 = got if lane == 0 else b
            if v < n:
                r0 = union_any(P, H, v, e0, fin, fopt, sopt) if e0 >= 0 else -1
                r1 = union_any(P, H, v, e1, fin, fopt, sopt) if e1 >= 0 else -1
                if record == RECORD_POSITION:
                    record_position(fa, fb, n + 2 * v, r0, v, e0)
                    record_position(fa, fb, n + 2 * v + 1, r1, v, e1)
                else:
                    record_edge(record, fa, fb, r0, v, e0)
                    record_edge(record, fa, fb, r1, v, e1)
            return
        v = g // k
        i = g - v * k
        if v >= n:
            return
        s = indptr[v]
        d = indptr[v + 1] - s
        r = -1
        w = -1
        if i < d and (mode != HB_ROOTS or parent_of(P, v, fin) == v):
            if mode == HB_ROOTS or mode == KOUT_AFFOREST or i == 0:
                j = s + i
            else:
                j = s + 1 + np.int64(rand64(v, i * 0x10000 + seed) % U64(d - 1))
            w = indices[j]
            r = union_any(P, H, v, w, fin, fopt, sopt)
        if record == RECORD_POSITION:
            record_position(fa, fb, n + g, r, v, w)
        else:
            record_edge(record, fa, fb, r, v, w)

    return sample_csr


@kernel("hb_hook", lambda t: (t.P, t.ptr, t.id, t.I64, t.I64, t.id, t.id), keys="jtb")
def make_hb_hook(jtb):
    """HB step 1, also P's initialization: v points at its smallest neighbour when smaller."""
    fin = jtb_fin(jtb)
    set_parent = UF.set_parent

    def hb_hook(P, indptr, indices, n, record, fa, fb):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            w = v
            if indptr[v + 1] > indptr[v]:
                w = min(v, indices[indptr[v]])
            P[v] = v
            if w < v:
                set_parent(P, v, w, fin)
                if record:
                    fa[v] = v
                    fb[v] = w

    return hb_hook


@kernel("bfs_relabel", lambda t: (t.P, t.lvl, t.I64, t.I64), keys="jtb", offsets=False)
def make_bfs_relabel(jtb):
    """Point every visited vertex at the visited set's minimum id."""
    fin = jtb_fin(jtb)
    set_parent = UF.set_parent

    def bfs_relabel(P, level, n, mn):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            if level[v] >= 0:
                set_parent(P, v, mn, fin)

    return bfs_relabel


# -- the samplers of gconn.pipeline.sampling ---------------------------------

def kout(s, seed: int, count: bool) -> int:
    p, n = s.plan, s.graph.n
    mode = KOUT_PAPER if p.kout_paper else KOUT_AFFOREST
    er = int(WARP_INTRINSICS and p.k == 2 and mode == KOUT_AFFOREST)    # edge reorganization
    launch(s.kernel("sample_csr"), n if er else n * p.k, s.Pv, s.Hv, s.ipv, s.ixv, n, p.k, mode, seed, er,
           RECORD_POSITION if s.by_position == "kout" else s.record, s.fav, s.fbv)
    return int(xp.minimum(s.indptr[1:] - s.indptr[:-1], p.k).sum()) if count else 0


def hb(s, seed: int, count: bool) -> int:
    p, n = s.plan, s.graph.n
    launch(s.kernel("hb_hook"), n, s.Pv, s.ipv, s.ixv, n, s.record, s.fav, s.fbv, persistent=True)
    inspected = 0
    if count:
        deg = s.indptr[1:] - s.indptr[:-1]
        labels = (s.P & 0xFFFFFFFF) if p.jtb else s.P
        roots = labels == xp.arange(n, dtype=labels.dtype)
        inspected = int(xp.count_nonzero(deg)) + int(xp.minimum(deg[roots], p.hb_n).sum())
    launch(s.kernel("sample_csr"), n * p.hb_n, s.Pv, s.Hv, s.ipv, s.ixv, n, p.hb_n, HB_ROOTS, seed, 0,
           s.record, s.fav, s.fbv)
    return inspected
def stride(s, count: bool) -> int:
    """Stride sampling: the COO union kernel, its 32-edge chunks ``step`` apart."""
    m = int(s.src.size)
    step = s.plan.stride_step(m, s.graph.n)
    s.union_edges(step)
    if not count:
        return 0
    runs = (m + step - 1) // step
    return (runs - 1) * WARP + min(WARP, m - (runs - 1) * step) if runs else 0


def bfs_source(s, seed: int) -> int:
    """The highest-degree vertex of a random sample."""
    n, k = s.graph.n, s.plan.bfs_sample
    cand = xp.random.RandomState(seed).randint(0, n, size=min(k, n)) if n > k else xp.arange(n)
    return int(cand[int(xp.argmax(s.indptr[cand + 1] - s.indptr[cand]))])


def search(s, level, parent) -> Search:
    return Search(s, level, parent)


def relabel_visited(s, level, mn: int) -> None:
    launch(s.kernel("bfs_relabel"), s.graph.n, s.Pv, view(level), s.graph.n, mn, persistent=True)
