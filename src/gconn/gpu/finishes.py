"""The non-union-find finishes on the GPU: SV, Liu-Tarjan, Stergiou, label
propagation, ECL-CC, Afforest and BFS-CC.

The rule bodies are those of :mod:`gconn.core.minbased`, compiled with the
GPU primitives; each kernel is made by a factory that closes over them and
over the variant's rule codes (LT's connect / update / shortcut, ECL-CC or
Afforest) as constants, like :mod:`gconn.gpu.unionfind` does for union-find.
The round loops run on the host and mirror :mod:`gconn.cpu.finishes`
phase for phase (same edge lists, same contraction of L_max for the
finishes that are not root-based, same forest recording, same round and
inspection counts); the kernels of a round OR a device flag that the host
reads once at the round's end.  Liu-Tarjan's Alter also compacts the edge
list on the host side (an ``xp`` boolean mask) each round.

BFS-CC repeats the level-synchronous BFS of BFS sampling (the kernels of
:mod:`gconn.gpu.unionfind`) from the smallest unvisited id, writing the BFS
forest into P; the next source is found by scanning a window of the
visited levels after the last source, so finding all sources costs O(n)
reads in all rather than O(n) per component.

>>> from gconn.gpu import finishes as minbased
>>> "lt_connect" in minbased.FACTORIES
True
"""
from __future__ import annotations

import numpy as np
from numba import types

from ..core.minbased import FULL_SHORTCUT, build, lt_codes
from ..core.unionfind import FIND_NAIVE, UNION_ASYNC
from ..cpu.finishes import AUX_FINISHES, _max_rounds, _not_converged
from ..design import FINISH_CODE, LT_FINISHES
from . import unionfind as K
from ._compat import cuda, view, xp
from .primitives import GPU, UF, cas

MB = build(GPU)

__all__ = ["AUX_FINISHES", "finish", "insert_batch", "mixed_batch"]


# -- vertex phases: every vertex (``every``) or ``verts[:cnt]`` --------------


def make_copy():
    def mb_copy(dst, src, verts, cnt, every):
        for t in range(cuda.grid(1), cnt, cuda.gridsize(1)):
            v = t if every else verts[t]
            dst[v] = src[v]

    return mb_copy


def make_shortcut(sopt):
    shortcut = MB.shortcut

    def mb_shortcut(P, verts, cnt, every, flag):
        for t in range(cuda.grid(1), cnt, cuda.gridsize(1)):
            v = t if every else verts[t]
            if shortcut(P, v, sopt):
                flag[0] = 1

    return mb_shortcut


def make_lt_update(uopt):
    lt_update = MB.lt_update

    def lt_update_pass(P, N, verts, cnt, every, flag):
        for t in range(cuda.grid(1), cnt, cuda.gridsize(1)):
            v = t if every else verts[t]
            if lt_update(P, N, v, uopt):
                flag[0] = 1

    return lt_update_pass


def make_stergiou_shortcut():
    stergiou_shortcut = MB.StergiouShortcut

    def stergiou_shortcut_pass(cur, prev, verts, cnt, every, flag):
        for t in range(cuda.grid(1), cnt, cuda.gridsize(1)):
            v = t if every else verts[t]
            if stergiou_shortcut(cur, prev, v):
                flag[0] = 1

    return stergiou_shortcut_pass


def make_endpoints():
    """A batch's endpoints: the -1 sentinel of unseen vertices becomes the
    vertex itself (racing initializers agree), and with ``full`` every
    endpoint is pointed at its root (threads sharing an endpoint both store
    one of its ancestors, so the race is harmless)."""
    full_shortcut = MB.FullShortcut
    lazy_init = K.lazy_init

    def mb_endpoints(P, src, dst, m, full):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            lazy_init(P, src[i])
            lazy_init(P, dst[i])
            if full:
                full_shortcut(P, src[i])
                full_shortcut(P, dst[i])

    return mb_endpoints


# -- edge phases: one thread per edge of (eu, ev)[:m] -------------------------


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


def make_sv_classic_round():
    hook = MB.SVClassicHook

    def sv_classic_round(P, eu, ev, m, down, flag):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            if hook(P, eu[i], ev[i], down):
                flag[0] = 1

    return sv_classic_round


def make_lt_connect(copt):
    lt_connect = MB.lt_connect

    def lt_connect_pass(P, N, wu, wv, m):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            lt_connect(P, N, wu[i], wv[i], copt)

    return lt_connect_pass


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


def make_lp_round():
    edge = MB.LabelPropEdge

    def lp_round(P, eu, ev, m, flag):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            if edge(P, eu[i], ev[i]):
                flag[0] = 1

    return lp_round


def make_stergiou_round():
    edge = MB.StergiouEdge

    def stergiou_round(cur, prev, eu, ev, m):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            edge(cur, prev, eu[i], ev[i])

    return stergiou_round


def make_link(method):
    """ECL-CC's / Afforest's hooking over an edge list; with ``record`` the
    linked root records the edge (each root is linked at most once)."""
    link = MB.link

    def link_edges(P, src, dst, m, record, fa, fb):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            r = link(P, src[i], dst[i], method)
            if record and r >= 0:
                fa[r] = src[i]
                fb[r] = dst[i]

    return link_edges


def make_mixed_link(method):
    """Inserts (kind 0) and queries (kind 1) of one incremental batch,
    concurrently: the hooks are lock-free and root-based, so a query's root
    check is linearizable as for UnionAsync."""
    link, same_set_any = MB.link, UF.same_set_any
    lazy_init = K.lazy_init

    def mixed_link(P, kinds, src, dst, m, out):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            u = src[i]
            v = dst[i]
            lazy_init(P, u)
            lazy_init(P, v)
            if kinds[i] == 0:
                link(P, u, v, method)
            else:
                out[i] = same_set_any(P, u, v, UNION_ASYNC, FIND_NAIVE)

    return mixed_link


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
FACTORIES = {
    "copy": make_copy,
    "shortcut": make_shortcut,
    "lt_update": make_lt_update,
    "stergiou_shortcut": make_stergiou_shortcut,
    "endpoints": make_endpoints,
    "sv_round": make_sv_round,
    "sv_winners": make_sv_winners,
    "sv_classic_round": make_sv_classic_round,
    "lt_connect": make_lt_connect,
    "lt_winners": make_lt_winners,
    "alter": make_alter,
    "lp_round": make_lp_round,
    "stergiou_round": make_stergiou_round,
    "link": make_link,
    "mixed_link": make_mixed_link,
    "gather_edges": make_gather_edges,
}


def keys(kind: str) -> list:
    """Every key the backend can ask ``kind`` for (the compile check's list)."""
    if kind == "shortcut":
        return [(0,), (FULL_SHORTCUT,)]
    if kind == "lt_update":
        return sorted({(lt_codes(f)[1],) for f in LT_FINISHES})
    if kind in ("lt_connect", "lt_winners"):
        return sorted({(lt_codes(f)[0],) for f in LT_FINISHES})
    if kind in ("link", "mixed_link"):
        return [(FINISH_CODE["ecl-cc"],), (FINISH_CODE["afforest"],)]
    return [()]


#: kinds that read the CSR offsets (the others ignore the offset dtype)
CSR_KINDS = ("gather_edges",)


def signature(kind: str, dtypes: tuple):
    """Argument types of ``kind`` for ``dtypes = (ids, offsets)``; parents
    and labels have the id dtype."""
    idt, ptr = (K._arr(d) for d in dtypes)
    i64, I64 = K._arr(np.int64), K.I64
    vert = (idt, I64, I64)              # verts, cnt, every
    edges = (idt, idt, I64)             # eu, ev, m
    sigs = {
        "copy": (idt, idt) + vert,
        "shortcut": (idt,) + vert + (i64,),
        "lt_update": (idt, idt) + vert + (i64,),
        "stergiou_shortcut": (idt, idt) + vert + (i64,),
        "endpoints": (idt,) + edges + (I64,),
        "sv_round": (idt, idt) + edges + (I64, i64),
        "sv_winners": (idt, idt) + edges + (idt, idt),
        "sv_classic_round": (idt,) + edges + (I64, i64),
        "lt_connect": (idt, idt) + edges,
        "lt_winners": (idt, idt, idt, idt, i64, I64, I64, idt, idt, idt, idt),
        "alter": (idt, idt, idt, idt, idt, I64, i64),
        "lp_round": (idt,) + edges + (i64,),
        "stergiou_round": (idt, idt) + edges,
        "link": (idt,) + edges + (I64, idt, idt),
        "mixed_link": (idt, K._arr(np.int8), idt, idt, I64, K._arr(np.bool_)),
        "gather_edges": (idt, ptr, idt, i64, I64, i64, I64, I64, idt, idt),
    }
    return types.void(*sigs[kind])


_CACHE: dict = {}


def get(kind: str, key: tuple, dtypes: tuple):
    """The kernel ``kind`` specialized to ``key`` for ``dtypes = (ids,
    offsets)``, compiled on first use."""
    if kind not in CSR_KINDS:
        dtypes = (dtypes[0], dtypes[0])
    return K.compiled(_CACHE, FACTORIES, signature, kind, key, dtypes)


class _Launcher:
    """Launches for one id dtype, with the round's "changed" flag."""

    def __init__(self, id_dtype, ptr_dtype=None):
        self.idt = np.dtype(id_dtype)
        self.dtypes = (self.idt.name, np.dtype(ptr_dtype or id_dtype).name)
        self.flag = xp.zeros(1, np.int64)
        self.flagv = view(self.flag)
        self.none = view(xp.full(1, -1, self.idt))
        #: the forest arrays of a run that records nothing
        self.empty = xp.empty(0, self.idt)

    def __call__(self, kind, key, nthreads, *args):
        K.launch(get(kind, key, self.dtypes), nthreads, *args, persistent=True)

    def clear(self):
        self.flag.fill(0)

    def changed(self) -> bool:
        return bool(int(self.flag[0]))


# -- static drivers ------------------------------------------------------------


def finish(graph, variant, P, aux, fa, fb, stats, lmax=None) -> int:
    """Run a non-union-find finish on the device array P (sampled labels,
    compressed; ``arange`` without sampling); returns the edges it
    inspected.  ``lmax`` is None without sampling (all edges, COO);
    otherwise the CSR edges of the vertices not labelled lmax are gathered
    into a list, contracting L_max for finishes that are not root-based
    (see :mod:`gconn.cpu.finishes` for why)."""
    go = _Launcher(graph.id_dtype, graph.indptr.dtype)
    f = variant.finish
    record = fa.size > 0
    if f == "bfs-cc":
        inspected, rounds = bfs_components(graph, P, go)
        if stats is not None:
            stats.rounds = rounds
        return inspected
    if lmax is None:
        eu, ev = graph.src, graph.dst
    else:
        eu, ev = _gather(graph, P, lmax, not variant.root_based, go)
    m = int(eu.size)
    if f in ("ecl-cc", "afforest"):
        fav, fbv = (view(fa), view(fb)) if record else (go.none, go.none)
        go("link", (FINISH_CODE[f],), m, view(P), _v(eu, go), _v(ev, go), m, int(record), fav, fbv)
        # ECL-CC's / Afforest's own compression step, after all hooks.
        go("shortcut", (FULL_SHORTCUT,), graph.n, view(P), go.none, graph.n, 1, go.flagv)
        return m
    rounds, inspected = run_rounds(f, P, aux, eu, ev, None, fa, fb, _max_rounds(variant, graph.n),
                                   variant.name, go)
    if stats is not None:
        stats.rounds = rounds
    return inspected


def _v(a, go):
    """A kernel view, or the placeholder for an empty array (no pointer)."""
    return view(a) if a.size else go.none


def _gather(graph, P, lmax, contract, go):
    """The CSR edges of the vertices whose label is not lmax, as a list."""
    active = xp.flatnonzero(P != lmax).astype(np.int64)
    deg = (graph.indptr[active + 1] - graph.indptr[active]).astype(np.int64)
    offsets = xp.zeros(active.size + 1, np.int64)
    xp.cumsum(deg, out=offsets[1:])
    total = int(offsets[-1])
    eu, ev = xp.empty(total, go.idt), xp.empty(total, go.idt)
    if total:
        go("gather_edges", (), int(active.size), view(P), view(graph.indptr), view(graph.indices),
           view(active), int(active.size), view(offsets), int(lmax), int(contract), view(eu), view(ev))
    return eu, ev


def run_rounds(f, P, aux, eu, ev, verts, fa, fb, max_rounds, name, go):
    """Rounds of a round-based finish over the edge list (eu, ev) until one
    changes nothing, as :func:`gconn.cpu.finishes.run_rounds`; returns
    (rounds, edge inspections).  ``verts`` None means every vertex."""
    record = fa.size > 0
    m = int(eu.size)
    every = verts is None
    cnt = int(P.size if every else verts.size)
    Pv, euv, evv = view(P), _v(eu, go), _v(ev, go)
    vv = go.none if every else _v(verts, go)
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
        return _lt_rounds(f, P, aux, eu, ev, vert, fa, fb, max_rounds, name, go)
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
    raise _not_converged(name, max_rounds)


def _lt_rounds(f, P, N, eu, ev, vert, fa, fb, max_rounds, name, go):
    copt, uopt, sopt, alter = lt_codes(f)
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
    euv, evv = _v(eu, go), _v(ev, go)
    inspected = 0
    for r in range(1, max_rounds + 1):
        m = int(wu.size)
        wuv, wvv = _v(wu, go), _v(wv, go)
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
            go("alter", (), m, Pv, wuv, wvv, _v(nu, go), _v(nv, go), m, flag)
            keep = nu != nv
            wu, wv = nu[keep], nv[keep]
            if has_eid:
                eid = eid[keep]
        if not go.changed():
            return r, inspected
    raise _not_converged(name, max_rounds)


def bfs_components(graph, P, go):
    """BFS-CC: a direction-optimizing BFS from each not-yet-visited vertex
    in id order (as :func:`gconn.cpu.bfs.components`), writing the BFS
    forest into P (``arange``: each source, its component's minimum, stays
    a root).  Returns (edges inspected, BFS levels over all searches)."""
    from .backend import BFS_ALPHA, BFS_BETA
    n = graph.n
    indptr = graph.indptr
    dts = K.dtypes_key(graph.id_dtype, indptr.dtype, graph.id_dtype)
    ipv, ixv = view(indptr), view(graph.indices)
    deg = indptr[1:] - indptr[:-1]
    # Depths run on across the searches, so ``level == depth`` always means
    # the current search; isolated vertices get level 0 without a search.
    level = xp.full(n, -1, np.int32)
    level[deg == 0] = 0
    frontier, nxt = xp.empty(max(n, 1), go.idt), xp.empty(max(n, 1), go.idt)
    counters = xp.zeros(3, np.int64)
    levelv, Pv, cv = view(level), view(P), view(counters)
    fv, nv = view(frontier), view(nxt)
    unexplored = int(indptr[-1])
    inspected = levels = depth = 0
    for s in _sources(level):
        depth += 1
        level[s] = depth
        frontier[0] = s
        nf = 1
        fe = int(indptr[s + 1] - indptr[s])
        unexplored -= fe
        bottom_up = False
        while nf > 0:
            depth += 1
            levels += 1
            # Beamer's switch, plus: never go bottom-up for a frontier that
            # would switch straight back (a bottom-up step scans all n).
            if not bottom_up and fe > unexplored / BFS_ALPHA and nf >= n / BFS_BETA:
                bottom_up = True
            elif bottom_up and nf < n / BFS_BETA:
                bottom_up = False
                counters[:] = 0
                K.launch(K.get("bfs_collect", (), dts), n, levelv, n, depth - 1, fv, cv, persistent=True)
                nf = int(counters[0])
            counters[:] = 0
            if bottom_up:
                K.launch(K.get("bfs_bottom_up", (), dts), n, ipv, ixv, n, levelv, Pv, depth, cv)
            else:
                K.launch(K.get("bfs_top_down", (), dts), nf * K.WARP, ipv, ixv, fv, nf, levelv, Pv,
                         depth, nv, cv, persistent=True)
                frontier, nxt, fv, nv = nxt, frontier, nv, fv
            nf, fe, scanned = (int(x) for x in counters.tolist())
            if not bottom_up:
                # the top-down kernel counts the edges it scanned; the
                # switch needs the new frontier's
                fe = int(deg[frontier[:nf]].sum())
            inspected += scanned
            unexplored -= fe
    return inspected, levels


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


def insert_batch(variant, P, aux, src, dst) -> None:
    """Insert a batch with a root-based non-union-find finish, as
    :func:`gconn.cpu.finishes.insert_batch`; unseen endpoints (the -1
    sentinel) are initialized first."""
    go = _Launcher(P.dtype)
    f = variant.finish
    m = int(src.size)
    if m == 0:
        return
    Pv, sv, dv = view(P), view(src), view(dst)
    if f in ("ecl-cc", "afforest"):
        go("endpoints", (), m, Pv, sv, dv, m, 0)
        go("link", (FINISH_CODE[f],), m, Pv, sv, dv, m, 0, go.none, go.none)
        go("endpoints", (), m, Pv, sv, dv, m, 1)
        return
    go("endpoints", (), m, Pv, sv, dv, m, 1)
    verts = xp.unique(xp.concatenate([src, dst, P[src], P[dst]])).astype(P.dtype)
    run_rounds(f, P, aux, src, dst, verts, go.empty, go.empty,
               _max_rounds(variant, P.size), variant.name, go)


def mixed_batch(variant, P, aux, kinds, src, dst, query):
    """A mixed batch, as :func:`gconn.cpu.finishes.mixed_batch`: ECL-CC and
    Afforest run inserts and queries concurrently; SV and LT run the inserts
    to convergence first, then ``query(src, dst)`` answers the queries."""
    out = xp.zeros(kinds.size, np.bool_)
    if variant.finish in ("ecl-cc", "afforest"):
        m = int(kinds.size)
        if m:
            go = _Launcher(P.dtype)
            go("mixed_link", (FINISH_CODE[variant.finish],), m, view(P), view(kinds), view(src), view(dst),
               m, view(out))
        return out
    ins = kinds == 0
    insert_batch(variant, P, aux, xp.ascontiguousarray(src[ins]), xp.ascontiguousarray(dst[ins]))
    q = xp.flatnonzero(~ins)
    if q.size:
        out[q] = query(xp.ascontiguousarray(src[q]), xp.ascontiguousarray(dst[q]))
    return out
