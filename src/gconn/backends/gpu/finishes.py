"""The non-union-find finishes on the GPU: SV, Liu-Tarjan, Stergiou, label
propagation, ECL-CC, Afforest and BFS-CC.  The kernels close over the rule
bodies of :mod:`gconn.backends.core.minbased` and the variant's rule codes;
the round loops are :mod:`gconn.pipeline.finishes`'s, over :class:`Launches`.

>>> from gconn.backends.gpu import finishes
>>> from gconn.backends.gpu.launch import REGISTRY
>>> "lt_connect" in REGISTRY
True
"""
from __future__ import annotations

import numpy as np

from gconn.backends.core.minbased import AFFOREST, ECL_CC, FULL_SHORTCUT, build
from gconn.backends.core.unionfind import FIND_NAIVE, UNION_ASYNC
from gconn.design import LT_FINISHES, TRAVERSAL, lt_codes
from gconn.pipeline import finishes as drivers
from gconn.backends.gpu._compat import cuda, view, xp
from gconn.backends.gpu.bfs import Search
from gconn.backends.gpu.launch import BLOCK, dtypes_key, get, kernel, launch
from gconn.backends.gpu.primitives import GPU, UF, cas, record_edge

MB = build(GPU)


# -- vertex phases: every vertex (``every``) or ``verts[:cnt]`` --------------

@kernel("copy", lambda t: (t.id, t.id, t.id, t.I64, t.I64), offsets=False)
def make_copy():
    def mb_copy(dst, src, verts, cnt, every):
        for t in range(cuda.grid(1), cnt, cuda.gridsize(1)):
            v = t if every else verts[t]
            dst[v] = src[v]

    return mb_copy


@kernel("shortcut", lambda t: (t.id, t.id, t.I64, t.I64, t.i64), keys=[(0,), (FULL_SHORTCUT,)], offsets=False)
def make_shortcut(sopt):
    shortcut = MB.shortcut

    def mb_shortcut(P, verts, cnt, every, flag):
        for t in range(cuda.grid(1), cnt, cuda.gridsize(1)):
            v = t if every else verts[t]
            if shortcut(P, v, sopt):
                flag[0] = 1

    return mb_shortcut


@kernel("lt_update", lambda t: (t.id, t.id, t.id, t.I64, t.I64, t.i64),
        keys=sorted({(lt_codes(f)[1],) for f in LT_FINISHES}), offsets=False)
def make_lt_update(uopt):
    lt_update = MB.lt_update

    def lt_update_pass(P, N, verts, cnt, every, flag):
        for t in range(cuda.grid(1), cnt, cuda.gridsize(1)):
            v = t if every else verts[t]
            if lt_update(P, N, v, uopt):
                flag[0] = 1

    return lt_update_pass


@kernel("stergiou_shortcut", lambda t: (t.id, t.id, t.id, t.I64, t.I64, t.i64), offsets=False)
def make_stergiou_shortcut():
    stergiou_shortcut = MB.StergiouShortcut

    def stergiou_shortcut_pass(cur, prev, verts, cnt, every, flag):
        for t in range(cuda.grid(1), cnt, cuda.gridsize(1)):
            v = t if every else verts[t]
            if stergiou_shortcut(cur, prev, v):
                flag[0] = 1

    return stergiou_shortcut_pass


@kernel("endpoints", lambda t: (t.id, t.id, t.id, t.I64), offsets=False)
def make_endpoints():
    """A batch's endpoints, each pointed at its root (a harmless race)."""
    full_shortcut = MB.FullShortcut

    def mb_endpoints(P, src, dst, m):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            full_shortcut(P, src[i])
            full_shortcut(P, dst[i])

    return mb_endpoints


# -- edge phases: one thread per edge of (eu, ev)[:m] -------------------------

@kernel("sv_round", lambda t: (t.id, t.id, t.id, t.id, t.I64, t.I64, t.i64), offsets=False)
def make_sv_round():
    sv_hook = MB.SVHook

    def sv_round(P, prev, eu, ev, m, snapshot, flag):
        # labels from prev (``snapshot``) or P; not one array passed twice (the simulator copies each)
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            if snapshot:
                h = sv_hook(P, prev, prev, eu[i], ev[i])
            else:
                h = sv_hook(P, P, prev, eu[i], ev[i])
            if h >= 0:
                flag[0] = 1

    return sv_round


@kernel("sv_winners", lambda t: (t.id, t.id, t.id, t.id, t.I64, t.id, t.id), offsets=False)
def make_sv_winners():
    """Forest mode: the first edge whose hook equals the root's final parent claims its slot."""
    sv_winner = MB.SVWinner

    def sv_winners(P, prev, eu, ev, m, fa, fb):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            h = sv_winner(P, prev, eu[i], ev[i])
            if h >= 0 and cas(fa, h, -1, eu[i]) == -1:
                fb[h] = ev[i]

    return sv_winners


@kernel("sv_classic_round", lambda t: (t.id, t.id, t.id, t.I64, t.I64, t.i64), offsets=False)
def make_sv_classic_round():
    hook = MB.SVClassicHook

    def sv_classic_round(P, eu, ev, m, down, flag):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            if hook(P, eu[i], ev[i], down):
                flag[0] = 1

    return sv_classic_round


@kernel("lt_connect", lambda t: (t.id, t.id, t.id, t.id, t.I64),
        keys=sorted({(lt_codes(f)[0],) for f in LT_FINISHES}), offsets=False)
def make_lt_connect(copt):
    lt_connect = MB.lt_connect

    def lt_connect_pass(P, N, wu, wv, m):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            lt_connect(P, N, wu[i], wv[i], copt)

    return lt_connect_pass


@kernel("lt_winners", lambda t: (t.id, t.id, t.id, t.id, t.i64, t.I64, t.I64, t.id, t.id, t.id, t.id),
        keys=sorted({(lt_codes(f)[0],) for f in LT_FINISHES}), offsets=False)
def make_lt_winners(copt):
    """Forest mode: the first edge whose message is a root's minimum claims its slot."""
    lt_winner = MB.lt_winner

    def lt_winners(P, N, wu, wv, eid, has_eid, m, ou, ov, fa, fb):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            r = lt_winner(P, N, wu[i], wv[i], copt)
            if r >= 0:
                e = eid[i] if has_eid else i
                if cas(fa, r, -1, ou[e]) == -1:
                    fb[r] = ov[e]

    return lt_winners


@kernel("alter", lambda t: (t.id, t.id, t.id, t.id, t.id, t.I64, t.i64), offsets=False)
def make_alter():
    """Alter: edge i becomes (P[u], P[v]) in (nu, nv); the flag notes a move."""
    alter = MB.Alter

    def alter_edges(P, wu, wv, nu, nv, m, flag):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            a, b = alter(P, wu[i], wv[i])
            nu[i] = a
            nv[i] = b
            if a != wu[i] or b != wv[i]:
                flag[0] = 1

    return alter_edges


@kernel("lp_round", lambda t: (t.id, t.id, t.id, t.I64, t.i64), offsets=False)
def make_lp_round():
    edge = MB.LabelPropEdge

    def lp_round(P, eu, ev, m, flag):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            if edge(P, eu[i], ev[i]):
                flag[0] = 1

    return lp_round


@kernel("stergiou_round", lambda t: (t.id, t.id, t.id, t.id, t.I64), offsets=False)
def make_stergiou_round():
    edge = MB.StergiouEdge

    def stergiou_round(cur, prev, eu, ev, m):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            edge(cur, prev, eu[i], ev[i])

    return stergiou_round


@kernel("link", lambda t: (t.id, t.id, t.id, t.I64, t.I64, t.id, t.id),
        keys=[(ECL_CC,), (AFFOREST,)], offsets=False)
def make_link(method):
    """ECL-CC's / Afforest's hooking over an edge list, recording the forest."""
    link = MB.link

    def link_edges(P, src, dst, m, record, fa, fb):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            r = link(P, src[i], dst[i], method)
            record_edge(record, fa, fb, r, src[i], dst[i])

    return link_edges


@kernel("mixed_link", lambda t: (t.id, t.i8, t.id, t.id, t.I64, t.b),
        keys=[(ECL_CC,), (AFFOREST,)], offsets=False)
def make_mixed_link(method):
    """Inserts (kind 0) and queries (kind 1) of a batch, concurrently."""
    link, same_set_any = MB.link, UF.same_set_any

    def mixed_link(P, kinds, src, dst, m, out):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            u = src[i]
            v = dst[i]
            if kinds[i] == 0:
                link(P, u, v, method)
            else:
                out[i] = same_set_any(P, u, v, UNION_ASYNC, FIND_NAIVE)

    return mixed_link


@kernel("gather_edges", lambda t: (t.id, t.ptr, t.id, t.i64, t.I64, t.i64, t.I64, t.I64, t.id, t.id))
def make_gather_edges():
    """The CSR edges of the active vertices as a list, L_max contracted where ``contract``."""
    gather = MB.GatherEdges

    def gather_edges(P, indptr, indices, active, nact, offsets, lmax, contract, eu, ev):
        for t in range(cuda.grid(1), nact, cuda.gridsize(1)):
            gather(P, indptr, indices, active[t], offsets[t], lmax, contract, eu, ev)

    return gather_edges


# -- the launch interface of gconn.pipeline.finishes ---------------------------

class Launches:
    """The GPU's launches of :mod:`gconn.pipeline.finishes`, with a device flag
    that a round's kernels set."""

    xp = xp

    def __init__(self, id_dtype, ptr_dtype=None):
        self.dtypes = dtypes_key(id_dtype, ptr_dtype or id_dtype, id_dtype)
        self.flag = xp.zeros(1, np.int64)
        self.flagv = view(self.flag)
        self.none = view(xp.full(1, -1, id_dtype))

    def __call__(self, kind, key, nthreads, *args, persistent=True, block=BLOCK):
        launch(get(kind, key, self.dtypes), nthreads, *args, persistent=persistent, block=block)

    def v(self, a):
        """A kernel view, or a placeholder for an empty array."""
        return view(a) if a.size else self.none

    def clear(self):
        self.flag.fill(0)

    def changed(self) -> bool:
        return bool(int(self.flag[0]))

    def alter(self, P, wu, wv, wua, wva, eid, has_eid):
        """Alter, dropping the edges whose ends became equal."""
        m = int(wu.size)
        nu, nv = xp.empty_like(wu), xp.empty_like(wv)
        self("alter", (), m, P, wua, wva, self.v(nu), self.v(nv), m, self.flagv)
        keep = nu != nv
        return nu[keep], nv[keep], eid[keep] if has_eid else eid

    def hook(self, s, work) -> int:
        """ECL-CC's / Afforest's hooks over all edges (``work`` None) or the gathered ones."""
        eu, ev = (s.src, s.dst) if work is None else work
        m = int(eu.size)
        self("link", (s.plan.link,), m, view(s.P), self.v(eu), self.v(ev), m, s.record, self.v(s.fa), self.v(s.fb))
        return m


# -- static drivers ------------------------------------------------------------

def finish(s, work):
    """A non-union-find finish over all edges (``work`` None) or the gathered ones: (inspected, rounds)."""
    if s.plan.family == TRAVERSAL:
        return bfs_components(s, s.P)
    return drivers.finish(Launches(s.graph.id_dtype, s.ptr_dtype), s, work)


def gather_edges(s, lmax: int):
    """The CSR edges of the vertices whose label is not ``lmax``, as a list."""
    active = xp.flatnonzero(s.P != lmax).astype(np.int64)
    return drivers.gather_edges(Launches(s.graph.id_dtype, s.ptr_dtype), s.P, s.indptr, s.indices, active, lmax,
                                s.plan.contract)


def bfs_components(graph, P):
    """BFS-CC: a BFS from each unvisited vertex in id order; (edges inspected, levels)."""
    level = xp.full(graph.n, -1, np.int32)
    level[graph.indptr[1:] == graph.indptr[:-1]] = 0      # isolated: no search
    search = Search(graph, level, P)
    for s in _sources(level):
        search.run(s)
    return search.inspected, search.levels


#: unvisited flags read back per window when looking for the next source
SOURCE_WINDOW = 1 << 16


def _sources(level):
    """The BFS sources in id order, found in windows of ``level`` read back."""
    n = level.size
    s = 0
    while s < n:
        win = level[s: s + SOURCE_WINDOW] < 0
        win = win.get() if hasattr(win, "get") else win
        i = int(np.argmax(win))
        if not win[i]:
            s += win.size
            continue
        yield s + i
        s += i + 1
