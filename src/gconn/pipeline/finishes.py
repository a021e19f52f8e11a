"""The finishes that are not union-find, once for every backend: round loops (SV, Liu-Tarjan,
Stergiou, label propagation), ECL-CC's and Afforest's hooking, edge gathering, incremental batches.

A backend's ``finishes.Launches`` ``k``: ``k(kind, key, nthreads, *args)`` launches kernel ``kind``
on rule codes ``key``; ``xp``, ``v(a)`` (``a`` as a launch takes it), ``none``; ``flagv``,
``clear()``, ``changed()`` (a round's change flag); ``alter(...)`` (Liu-Tarjan's Alter);
``hook(s, work)``.  Vertex passes take ``(verts, count, every)``.

>>> import numpy as np
>>> from gconn.backends.cpu.finishes import Launches
>>> from gconn.design import Plan, Variant
>>> P = np.arange(4, dtype=np.int32)
>>> src, dst, none = np.array([0, 2], np.int32), np.array([1, 3], np.int32), P[:0]
>>> run_rounds(Launches(P.dtype), Plan.of(Variant.parse("none+label-prop")), P, None, src, dst, None, none, none, 10)
(2, 4)
>>> P.tolist()
[0, 0, 2, 2]
"""
from __future__ import annotations

import numpy as np

from gconn.design import HOOK_COMPRESS, LT_FINISHES, LT_SHORTCUT_CODE, Plan
from gconn.errors import not_converged

#: the shortcut rule of SV's and ECL-CC's / Afforest's compression
FULL_SHORTCUT = LT_SHORTCUT_CODE["full-shortcut"]


def run_rounds(k, plan: Plan, P, aux, eu, ev, verts, fa, fb, max_rounds: int):
    """Rounds over (eu, ev) until one changes nothing; returns (rounds, edge
    inspections).  ``verts`` None: every vertex; a non-empty ``fa`` records the forest."""
    f = plan.finish
    if f in LT_FINISHES:
        return _lt_rounds(k, plan, P, aux, eu, ev, verts, fa, fb, max_rounds)
    record = fa.size > 0
    m = int(eu.size)
    Pv, euv, evv, vs, flag = k.v(P), k.v(eu), k.v(ev), _vertices(k, P, verts), k.flagv
    cnt = vs[1]
    if f == "sv":
        prev = k.v(aux)
        k("copy", (), cnt, prev, Pv, *vs)
        inspected = 0
        for r in range(1, max_rounds + 1):
            k.clear()
            k("sv_round", (), m, Pv, prev, euv, evv, m, int(record), flag)
            inspected += m
            hooked = k.changed()
            if record and hooked:
                k("sv_winners", (), m, Pv, prev, euv, evv, m, k.v(fa), k.v(fb))
                inspected += m
            k("shortcut", (FULL_SHORTCUT,), cnt, Pv, *vs, flag)
            k("copy", (), cnt, prev, Pv, *vs)
            if not hooked:
                return r, inspected
    elif f == "sv-classic":
        for r in range(1, max_rounds + 1):
            k.clear()
            k("sv_classic_round", (), m, Pv, euv, evv, m, int(r % 2 == 1), flag)
            hooked = k.changed()
            k("shortcut", (FULL_SHORTCUT,), cnt, Pv, *vs, flag)
            if not hooked:
                return r, r * m
    elif f == "stergiou":
        prev = k.v(aux)
        k("copy", (), cnt, prev, Pv, *vs)
        for r in range(1, max_rounds + 1):
            k.clear()
            k("stergiou_round", (), m, Pv, prev, euv, evv, m)
            k("stergiou_shortcut", (), cnt, Pv, prev, *vs, flag)
            if not k.changed():
                return r, r * m
    elif f == "label-prop":
        for r in range(1, max_rounds + 1):
            k.clear()
            k("lp_round", (), m, Pv, euv, evv, m, flag)
            if not k.changed():
                return r, r * m
    else:
        raise ValueError(f"{f} is not a round-based finish")
    raise not_converged(plan.name, max_rounds)


def _vertices(k, P, verts):
    if verts is None:
        return k.none, int(P.size), 1
    return k.v(verts), int(verts.size), 0


def _lt_rounds(k, plan, P, N, eu, ev, verts, fa, fb, max_rounds):
    copt, uopt, sopt, alter = plan.lt
    record = fa.size > 0
    Pv, Nv, vs, flag = k.v(P), k.v(N), _vertices(k, P, verts), k.flagv
    cnt = vs[1]
    wu, wv = eu, ev
    # altered edges are compacted every round: the forest needs their input edge's index
    has_eid = record and alter
    eid = k.xp.arange(eu.size, dtype=np.int64) if has_eid else k.xp.zeros(1, np.int64)
    fav, fbv, euv, evv = k.v(fa), k.v(fb), k.v(eu), k.v(ev)
    inspected = 0
    for r in range(1, max_rounds + 1):
        m = int(wu.size)
        wuv, wvv = k.v(wu), k.v(wv)
        k.clear()
        k("copy", (), cnt, Nv, Pv, *vs)
        k("lt_connect", (copt,), m, Pv, Nv, wuv, wvv, m)
        inspected += m
        if record and m:    # (an empty eid has no device pointer to pass)
            k("lt_winners", (copt,), m, Pv, Nv, wuv, wvv, k.v(eid), int(has_eid), m, euv, evv, fav, fbv)
            inspected += m
        k("lt_update", (uopt,), cnt, Pv, Nv, *vs, flag)
        k("shortcut", (sopt,), cnt, Pv, *vs, flag)
        if alter:
            inspected += m
            wu, wv, eid = k.alter(Pv, wu, wv, wuv, wvv, eid, has_eid)
        if not k.changed():
            return r, inspected
    raise not_converged(plan.name, max_rounds)


def finish(k, s, work):
    """A finish that is neither union-find nor BFS-CC (``work`` None: all
    edges); returns (edges inspected, rounds).

    >>> import gconn
    >>> gconn.connected_components(([0, 2], [1, 3]), algorithm="none+lt-prf", backend="cpu")
    (2, array([0, 0, 1, 1], dtype=int32))
    """
    p = s.plan
    if p.family == HOOK_COMPRESS:
        inspected = k.hook(s, work)
        n = s.graph.n
        k("shortcut", (FULL_SHORTCUT,), n, k.v(s.P), *_vertices(k, s.P, None), k.flagv)
        return inspected, 0
    eu, ev = (s.src, s.dst) if work is None else work
    rounds, inspected = run_rounds(k, p, s.P, s.H, eu, ev, None, s.fa, s.fb, p.max_rounds(s.graph.n))
    return inspected, rounds


def gather_edges(k, P, indptr, indices, active, lmax: int, contract: bool):
    """The CSR edges of the ``active`` vertices; ``contract`` maps ``lmax``'s vertices to lmax."""
    xp = k.xp
    offsets = xp.zeros(active.size + 1, np.int64)
    xp.cumsum((indptr[active + 1] - indptr[active]).astype(np.int64, copy=False), out=offsets[1:])
    total = int(offsets[-1])
    eu, ev = xp.empty(total, indices.dtype), xp.empty(total, indices.dtype)
    if total:
        nact = int(active.size)
        k("gather_edges", (), nact, k.v(P), k.v(indptr), k.v(indices), k.v(active), nact, k.v(offsets), int(lmax),
          int(contract), k.v(eu), k.v(ev))
    return eu, ev


# -- incremental batches -----------------------------------------------------

def insert_batch(k, plan: Plan, P, aux, src, dst) -> None:
    """Insert a batch with a root-based finish that is not union-find: ECL-CC /
    Afforest hook each edge once; SV and LT run rounds on the batch's edges over
    its endpoints and their roots (the only vertices whose parents it can change).

    >>> from gconn.backends.cpu.finishes import Launches
    >>> from gconn.design import Variant
    >>> P = np.arange(4, dtype=np.int32)
    >>> insert_batch(Launches(P.dtype), Plan.of(Variant.parse("none+sv")), P, np.empty_like(P), P[3:], P[1:2])
    >>> P.tolist()
    [0, 1, 2, 1]
    """
    m = int(src.size)
    if m == 0:
        return
    Pv, sv, dv = k.v(P), k.v(src), k.v(dst)
    if plan.family == HOOK_COMPRESS:
        k("link", (plan.link,), m, Pv, sv, dv, m, 0, k.none, k.none)
        k("endpoints", (), m, Pv, sv, dv, m)
        return
    k("endpoints", (), m, Pv, sv, dv, m)
    xp = k.xp
    verts = xp.unique(xp.concatenate([src, dst, P[src], P[dst]])).astype(P.dtype, copy=False)
    none = xp.empty(0, P.dtype)
    run_rounds(k, plan, P, aux, src, dst, verts, none, none, plan.max_rounds(P.size))


def mixed_batch(k, plan: Plan, P, aux, kinds, src, dst, query):
    """A mixed batch; ``query(src, dst)`` answers queries.  SV and LT insert
    first, then answer (which concurrent mode allows).

    >>> from gconn.backends.cpu.finishes import Launches
    >>> from gconn.design import Variant
    >>> P = np.arange(4, dtype=np.int32)
    >>> kinds, src, dst = np.array([0, 1], np.int8), np.array([3, 1], np.int32), np.array([1, 3], np.int32)
    >>> ask = lambda s, d: P[s] == P[d]
    >>> mixed_batch(Launches(P.dtype), Plan.of(Variant.parse("none+lt-prf")), P, np.empty_like(P), kinds, src, dst, ask).tolist()
    [False, True]
    """
    xp = k.xp
    out = xp.zeros(kinds.size, np.bool_)
    if plan.family == HOOK_COMPRESS:
        m = int(kinds.size)
        if m:
            k("mixed_link", (plan.link,), m, k.v(P), k.v(kinds), k.v(src), k.v(dst), m, k.v(out))
        return out
    ins = kinds == 0
    insert_batch(k, plan, P, aux, xp.ascontiguousarray(src[ins]), xp.ascontiguousarray(dst[ins]))
    q = xp.flatnonzero(~ins)
    if q.size:
        out[q] = query(xp.ascontiguousarray(src[q]), xp.ascontiguousarray(dst[q]))
    return out
