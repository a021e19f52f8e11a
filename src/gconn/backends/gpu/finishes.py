"""The non-union-find finishes on the GPU: SV, Liu-Tarjan, Stergiou, label
propagation, ECL-CC, Afforest and BFS-CC.

The rule bodies are those of :mod:`gconn.backends.core.minbased`, compiled with the
GPU primitives; each kernel is made by a factory that closes over them and
over the variant's rule codes (LT's connect / update / shortcut, ECL-CC or
Afforest) as constants, like :mod:`gconn.backends.gpu.unionfind` does for union-find.
The round loops run on the host and mirror :mod:`gconn.backends.cpu.finishes`
phase for phase (same edge lists, same contraction of L_max for the
finishes that are not root-based, same forest recording, same round and
inspection counts); the kernels of a round OR a device flag that the host
reads once at the round's end.  Liu-Tarjan's Alter also compacts the edge
list on the host side (an ``xp`` boolean mask) each round.

BFS-CC runs the BFS of BFS sampling (:class:`gconn.backends.gpu.bfs.Search`) from
the smallest unvisited id, writing the BFS forest into P; the next source
is found by scanning a window of the visited levels after the last source,
so finding all sources costs O(n) reads in all rather than O(n) per
component.

>>> from gconn.backends.gpu import finishes
>>> from gconn.backends.gpu.launch import REGISTRY
>>> "lt_connect" in REGISTRY
True
"""
from __future__ import annotations

import numpy as np

from gconn.backends.core.minbased import AFFOREST, ECL_CC, FULL_SHORTCUT, build
from gconn.backends.core.unionfind import FIND_NAIVE, UNION_ASYNC
from gconn.design import HOOK_COMPRESS, LT_FINISHES, TRAVERSAL, lt_codes
from gconn.errors import not_converged
from gconn.backends.gpu._compat import cuda, view, xp
from gconn.backends.gpu.bfs import Search
from gconn.backends.gpu.launch import Launcher, kernel
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
    """A batch's endpoints, each pointed at its root (threads sharing an
    endpoint both store one of its ancestors, so the race is harmless)."""
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
        # The labels come from prev (``snapshot``) or P; one array is never
        # passed as two arguments (the simulator copies each argument).
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
    """Forest mode: the first edge whose replayed hook equals the root's
    final parent claims the root's slot."""
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
    """Forest mode, before the update phase: the first edge whose message is
    a root's minimum claims the root's slot with its input edge (``eid``
    maps altered edges back to the input when ``has_eid``)."""
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
    """Alter: edge i becomes (P[u], P[v]) in (nu, nv); the flag notes any
    edge that moved.  The host drops the edges whose ends became equal."""
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
    """ECL-CC's / Afforest's hooking over an edge list; with ``record`` the
    linked root records the edge (each root is linked at most once)."""
    link = MB.link

    def link_edges(P, src, dst, m, record, fa, fb):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            r = link(P, src[i], dst[i], method)
            record_edge(record, fa, fb, r, src[i], dst[i])

    return link_edges


@kernel("mixed_link", lambda t: (t.id, t.i8, t.id, t.id, t.I64, t.b),
        keys=[(ECL_CC,), (AFFOREST,)], offsets=False)
def make_mixed_link(method):
    """Inserts (kind 0) and queries (kind 1) of one incremental batch,
    concurrently: the hooks are lock-free and root-based, so a query's root
    check is linearizable as for UnionAsync."""
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
    """The CSR edges (v, w) of the active vertices as a list at ``offsets``;
    with ``contract`` an endpoint labelled lmax becomes lmax itself."""
    gather = MB.GatherEdges

    def gather_edges(P, indptr, indices, active, nact, offsets, lmax, contract, eu, ev):
        for t in range(cuda.grid(1), nact, cuda.gridsize(1)):
            gather(P, indptr, indices, active[t], offsets[t], lmax, contract, eu, ev)

    return gather_edges


# -- the registry --------------------------------------------------------------

#: kind -> factory(*key); keys are the rule codes the factory closes over
# -- static drivers ------------------------------------------------------------


def finish(s, work):
    """Run a non-union-find finish on run state ``s`` (P holds the sampled
    labels, compressed; ``arange`` without sampling); ``work`` is None
    without sampling (all edges, COO), else the gathered edge list.
    Returns (edges inspected, rounds)."""
    g, p = s.graph, s.plan
    go = Launcher(g.id_dtype, s.ptr_dtype)
    P = s.P
    if p.family == TRAVERSAL:
        return bfs_components(s, P)
    eu, ev = (s.src, s.dst) if work is None else work
    m = int(eu.size)
    if p.family == HOOK_COMPRESS:
        go("link", (p.link,), m, view(P), go.v(eu), go.v(ev), m, s.record, go.v(s.fa), go.v(s.fb))
        # ECL-CC's / Afforest's own compression step, after all hooks.
        go("shortcut", (FULL_SHORTCUT,), g.n, view(P), go.none, g.n, 1, go.flagv)
        return m, 0
    rounds, inspected = run_rounds(p, P, s.H, eu, ev, None, s.fa, s.fb, p.max_rounds(g.n), go)
    return inspected, rounds


def gather_edges(s, lmax: int):
    """The CSR edges of the vertices whose label is not ``lmax``, as a
    list, contracting L_max where the plan asks (:mod:`gconn.pipeline`)."""
    g, P = s.graph, s.P
    go = Launcher(g.id_dtype, s.ptr_dtype)
    active = xp.flatnonzero(P != lmax).astype(np.int64)
    deg = (s.indptr[active + 1] - s.indptr[active]).astype(np.int64)
    offsets = xp.zeros(active.size + 1, np.int64)
    xp.cumsum(deg, out=offsets[1:])
    total = int(offsets[-1])
    eu, ev = xp.empty(total, go.idt), xp.empty(total, go.idt)
    if total:
        go("gather_edges", (), int(active.size), view(P), view(s.indptr), view(s.indices), view(active),
           int(active.size), view(offsets), int(lmax), int(s.plan.contract), view(eu), view(ev))
    return eu, ev


def run_rounds(plan, P, aux, eu, ev, verts, fa, fb, max_rounds, go):
    """Rounds of a round-based finish over the edge list (eu, ev) until one
    changes nothing, as :func:`gconn.backends.cpu.finishes.run_rounds`; returns
    (rounds, edge inspections).  ``verts`` None means every vertex."""
    f = plan.finish
    record = fa.size > 0
    m = int(eu.size)
    every = verts is None
    cnt = int(P.size if every else verts.size)
    Pv, euv, evv = view(P), go.v(eu), go.v(ev)
    vv = go.none if every else go.v(verts)
    vert = (vv, cnt, int(every))
    flag = go.flagv
    if f == "sv":
        prevv = view(aux)
        go("copy", (), cnt, prevv, Pv, *vert)
        # The paper's hooks read the live labels; replaying them for the
        # forest needs the round's snapshot instead.
        inspected = 0
        for r in range(1, max_rounds + 1):
            go.clear()
            go("sv_round", (), m, Pv, prevv, euv, evv, m, int(record), flag)
            inspected += m
            hooked = go.changed()
            if record and hooked:
                go("sv_winners", (), m, Pv, prevv, euv, evv, m, view(fa), view(fb))
                inspected += m
            go("shortcut", (FULL_SHORTCUT,), cnt, Pv, *vert, flag)
            go("copy", (), cnt, prevv, Pv, *vert)
            if not hooked:
                return r, inspected
    elif f == "sv-classic":
        for r in range(1, max_rounds + 1):
            go.clear()
            go("sv_classic_round", (), m, Pv, euv, evv, m, int(r % 2 == 1), flag)
            hooked = go.changed()
            go("shortcut", (FULL_SHORTCUT,), cnt, Pv, *vert, flag)
            if not hooked:
                return r, r * m
    elif f in LT_FINISHES:
        return _lt_rounds(plan, P, aux, eu, ev, vert, fa, fb, max_rounds, go)
    elif f == "stergiou":
        prevv = view(aux)
        go("copy", (), cnt, prevv, Pv, *vert)
        for r in range(1, max_rounds + 1):
            go.clear()
            go("stergiou_round", (), m, Pv, prevv, euv, evv, m)
            go("stergiou_shortcut", (), cnt, Pv, prevv, *vert, flag)
            if not go.changed():
                return r, r * m
    elif f == "label-prop":
        for r in range(1, max_rounds + 1):
            go.clear()
            go("lp_round", (), m, Pv, euv, evv, m, flag)
            if not go.changed():
                return r, r * m
    else:
        raise ValueError(f"{f} is not a round-based finish")
    raise not_converged(plan.name, max_rounds)


def _lt_rounds(plan, P, N, eu, ev, vert, fa, fb, max_rounds, go):
    copt, uopt, sopt, alter = plan.lt
    record = fa.size > 0
    Pv, Nv = view(P), view(N)
    cnt = vert[1]
    flag = go.flagv
    wu, wv = eu, ev
    # Altered edges are compacted every round; the forest needs their
    # input edge, so carry its index along.
    has_eid = record and alter
    eid = xp.arange(eu.size, dtype=np.int64) if has_eid else xp.zeros(1, np.int64)
    fav, fbv = (view(fa), view(fb)) if record else (go.none, go.none)
    euv, evv = go.v(eu), go.v(ev)
    inspected = 0
    for r in range(1, max_rounds + 1):
        m = int(wu.size)
        wuv, wvv = go.v(wu), go.v(wv)
        go.clear()
        go("copy", (), cnt, Nv, Pv, *vert)
        go("lt_connect", (copt,), m, Pv, Nv, wuv, wvv, m)
        inspected += m
        if record and m:    # (an empty eid has no device pointer to pass)
            go("lt_winners", (copt,), m, Pv, Nv, wuv, wvv, view(eid), int(has_eid), m, euv, evv, fav, fbv)
            inspected += m
        go("lt_update", (uopt,), cnt, Pv, Nv, *vert, flag)
        go("shortcut", (sopt,), cnt, Pv, *vert, flag)
        if alter:
            inspected += m
            nu, nv = xp.empty_like(wu), xp.empty_like(wv)
            go("alter", (), m, Pv, wuv, wvv, go.v(nu), go.v(nv), m, flag)
            keep = nu != nv
            wu, wv = nu[keep], nv[keep]
            if has_eid:
                eid = eid[keep]
        if not go.changed():
            return r, inspected
    raise not_converged(plan.name, max_rounds)


def bfs_components(graph, P):
    """BFS-CC on ``graph`` (anything with ``n``, ``id_dtype`` and an
    adjacency ``indptr``/``indices``, such as a run state): a
    direction-optimizing BFS from each not-yet-visited vertex
    in id order (as :func:`gconn.backends.cpu.bfs.components`), writing the BFS
    forest into P (``arange``: each source, its component's minimum, stays
    a root).  Returns (edges inspected, BFS levels over all searches)."""
    # Isolated vertices get level 0 without a search.
    level = xp.full(graph.n, -1, np.int32)
    level[graph.indptr[1:] == graph.indptr[:-1]] = 0
    search = Search(graph, level, P)
    for s in _sources(level):
        search.run(s)
    return search.inspected, search.levels


#: unvisited flags read back per window when looking for the next source
SOURCE_WINDOW = 1 << 16


def _sources(level):
    """The BFS sources in id order: the first unvisited vertex after the
    previous source, looked up in host copies of windows of ``level`` (one
    readback per search, of at most SOURCE_WINDOW flags)."""
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


# -- incremental batches -------------------------------------------------------


def insert_batch(plan, P, aux, src, dst) -> None:
    """Insert a batch with a root-based non-union-find finish, as
    :func:`gconn.backends.cpu.finishes.insert_batch`."""
    go = Launcher(P.dtype)
    m = int(src.size)
    if m == 0:
        return
    Pv, sv, dv = view(P), view(src), view(dst)
    if plan.family == HOOK_COMPRESS:
        go("link", (plan.link,), m, Pv, sv, dv, m, 0, go.none, go.none)
        go("endpoints", (), m, Pv, sv, dv, m)
        return
    go("endpoints", (), m, Pv, sv, dv, m)
    verts = xp.unique(xp.concatenate([src, dst, P[src], P[dst]])).astype(P.dtype)
    run_rounds(plan, P, aux, src, dst, verts, go.empty, go.empty, plan.max_rounds(P.size), go)


def mixed_batch(plan, P, aux, kinds, src, dst, query):
    """A mixed batch, as :func:`gconn.backends.cpu.finishes.mixed_batch`: ECL-CC and
    Afforest run inserts and queries concurrently; SV and LT run the inserts
    to convergence first, then ``query(src, dst)`` answers the queries."""
    out = xp.zeros(kinds.size, np.bool_)
    if plan.family == HOOK_COMPRESS:
        m = int(kinds.size)
        if m:
            go = Launcher(P.dtype)
            go("mixed_link", (plan.link,), m, view(P), view(kinds), view(src), view(dst),
               m, view(out))
        return out
    ins = kinds == 0
    insert_batch(plan, P, aux, xp.ascontiguousarray(src[ins]), xp.ascontiguousarray(dst[ins]))
    q = xp.flatnonzero(~ins)
    if q.size:
        out[q] = query(xp.ascontiguousarray(src[q]), xp.ascontiguousarray(dst[q]))
    return out
