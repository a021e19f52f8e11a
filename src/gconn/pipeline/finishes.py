"""The round-based finishes' drivers and the incremental batches of the
root-based finishes that are not union-find."""
from __future__ import annotations

import numpy as np

from gconn.backends.core.minbased import FULL_SHORTCUT
from gconn.design import HOOK_COMPRESS, LT_FINISHES, Plan
from gconn.errors import not_converged
from gconn.backends.cpu.finishes import (_no_verts, alter_edges, copy_pass, link_coo, lp_round, lt_connect_pass,
                                         lt_update_pass, lt_winners, mixed_link_batch, shortcut_endpoints,
                                         shortcut_pass, stergiou_round, stergiou_shortcut_pass, sv_classic_round,
                                         sv_round, sv_winners)


def run_rounds(plan: Plan, P, aux, eu, ev, verts, fa, fb, max_rounds: int):
    """Rounds of a round-based finish over the edge list (eu, ev) until one
    changes nothing; returns (rounds, edge inspections).  ``aux`` is the
    n-array the finish keeps beside P; with a non-empty ``fa`` the hooks of
    a root-based finish are recorded there.

    >>> P = np.arange(4, dtype=np.int32)
    >>> src, dst, none = np.array([0, 2], np.int32), np.array([1, 3], np.int32), P[:0]
    >>> from gconn.design import Variant
    >>> plan = Plan.of(Variant.parse("none+label-prop"))
    >>> run_rounds(plan, P, None, src, dst, none, none, none, 10)
    (2, 4)
    >>> P.tolist()
    [0, 0, 2, 2]
    """
    f = plan.finish
    record = fa.size > 0
    m = eu.size
    if f == "sv":
        prev = aux
        copy_pass(prev, P, verts)
        # The paper's hooks read the live labels; replaying them for the
        # forest needs the round's snapshot instead.
        R = prev if record else P
        inspected = 0
        for r in range(1, max_rounds + 1):
            hooked = sv_round(P, R, prev, eu, ev)
            inspected += m
            if record and hooked:
                sv_winners(P, prev, eu, ev, fa, fb)
                inspected += m
            shortcut_pass(P, verts, FULL_SHORTCUT)
            copy_pass(prev, P, verts)
            if not hooked:
                return r, inspected
    elif f == "sv-classic":
        for r in range(1, max_rounds + 1):
            hooked = sv_classic_round(P, eu, ev, r % 2 == 1)
            shortcut_pass(P, verts, FULL_SHORTCUT)
            if not hooked:
                return r, r * m
    elif f in LT_FINISHES:
        return _lt_rounds(plan, P, aux, eu, ev, verts, fa, fb, max_rounds)
    elif f == "stergiou":
        prev = aux
        copy_pass(prev, P, verts)
        for r in range(1, max_rounds + 1):
            stergiou_round(P, prev, eu, ev)
            if not stergiou_shortcut_pass(P, prev, verts):
                return r, r * m
    elif f == "label-prop":
        for r in range(1, max_rounds + 1):
            if not lp_round(P, eu, ev):
                return r, r * m
    else:
        raise ValueError(f"{f} is not a round-based finish")
    raise not_converged(plan.name, max_rounds)


def _lt_rounds(plan, P, N, eu, ev, verts, fa, fb, max_rounds):
    copt, uopt, sopt, alter = plan.lt
    record = fa.size > 0
    wu, wv = eu, ev
    # Altered edges are compacted every round; the forest needs their
    # input edge, so carry its index along.
    eid = np.arange(eu.size, dtype=np.int64) if record and alter else np.empty(0, np.int64)
    inspected = 0
    for r in range(1, max_rounds + 1):
        copy_pass(N, P, verts)
        lt_connect_pass(P, N, wu, wv, copt)
        inspected += wu.size
        if record:
            lt_winners(P, N, wu, wv, eid, eu, ev, copt, fa, fb)
            inspected += wu.size
        changed = lt_update_pass(P, N, verts, uopt)
        changed += shortcut_pass(P, verts, sopt)
        if alter:
            inspected += wu.size
            wu, wv, eid, moved = alter_edges(P, wu, wv, eid)
            changed += moved
        if not changed:
            return r, inspected
    raise not_converged(plan.name, max_rounds)


def insert_batch(plan: Plan, P, aux, src, dst) -> None:
    """Insert a batch with a root-based non-union-find finish.

    ECL-CC / Afforest hook each edge once and compress the batch's
    endpoints.  SV and root-based LT run rounds on the batch's edges alone
    until nothing changes (earlier batches are never re-inspected): every
    endpoint is first pointed at its root, and the vertex phases then run
    over the endpoints and their roots -- the only vertices whose parents
    such a batch can change.

    >>> P = np.arange(4, dtype=np.int32)
    >>> from gconn.design import Variant
    >>> insert_batch(Plan.of(Variant.parse("none+sv")), P, np.empty_like(P), P[3:], P[1:2])
    >>> P.tolist()
    [0, 1, 2, 1]
    """
    if plan.family == HOOK_COMPRESS:
        link_coo(P, src, dst, plan.link, _no_verts(P), _no_verts(P))
        shortcut_endpoints(P, src, dst)
        return
    shortcut_endpoints(P, src, dst)
    verts = np.unique(np.concatenate([src, dst, P[src], P[dst]]))
    run_rounds(plan, P, aux, src, dst, verts, _no_verts(P), _no_verts(P), plan.max_rounds(P.size))


def mixed_batch(plan: Plan, P, aux, kinds, src, dst, query) -> np.ndarray:
    """A mixed batch; ``query(src, dst)`` answers queries.  ECL-CC and
    Afforest run inserts and queries concurrently; the round-synchronous SV
    and LT have no per-edge insert to interleave with, so their batch runs
    its inserts to convergence first and then answers its queries (which
    the concurrent mode's contract allows).

    >>> P = np.arange(4, dtype=np.int32)
    >>> kinds, src, dst = np.array([0, 1], np.int8), np.array([3, 1], np.int32), np.array([1, 3], np.int32)
    >>> ask = lambda s, d: P[s] == P[d]
    >>> from gconn.design import Variant
    >>> mixed_batch(Plan.of(Variant.parse("none+lt-prf")), P, np.empty_like(P), kinds, src, dst, ask).tolist()
    [False, True]
    """
    if plan.family == HOOK_COMPRESS:
        out = np.zeros(kinds.size, np.bool_)
        mixed_link_batch(P, kinds, src, dst, plan.link, out)
        return out
    ins = kinds == 0
    if ins.any():
        insert_batch(plan, P, aux, src[ins], dst[ins])
    out = np.zeros(kinds.size, np.bool_)
    q = ~ins
    if q.any():
        out[q] = query(src[q], dst[q])
    return out
