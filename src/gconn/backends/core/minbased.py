"""Min-based finishes beyond union-find, written once for every target:
``build(pr)`` compiles the per-edge and per-vertex rule bodies with a
backend's primitives; the backends supply the loops and rounds around them.
SV (root-based, the paper's) and sv-classic (GPU-CC), Liu-Tarjan's rules,
Stergiou, label propagation, ECL-CC and Afforest.  Every rule keeps
``P[v] <= v`` except sv-classic's smaller-under-larger rounds; hooks that a
spanning forest records return the hooked root or -1."""
from __future__ import annotations

from gconn.backends.core.primitives import namespace
from gconn.design import FINISH_CODE, LT_CONNECT_CODE, LT_SHORTCUT_CODE, LT_UPDATE_CODE

ECL_CC = FINISH_CODE["ecl-cc"]
AFFOREST = FINISH_CODE["afforest"]

CONNECT, PARENT_CONNECT, EXTENDED_CONNECT = (LT_CONNECT_CODE[r] for r in ("connect", "parent-connect",
                                                                          "extended-connect"))
UPDATE, ROOT_UPDATE = LT_UPDATE_CODE["update"], LT_UPDATE_CODE["root-update"]
SHORTCUT, FULL_SHORTCUT = LT_SHORTCUT_CODE["shortcut"], LT_SHORTCUT_CODE["full-shortcut"]


def build(pr):
    jit, load, store, cas, atomic_min = pr.jit, pr.load, pr.store, pr.cas, pr.atomic_min

    # -- shortcut phases (only the vertex's own slot is written) ----------
    @jit
    def Shortcut(P, v):
        """One step of path compression; True if P[v] changed."""
        p = load(P, v)
        g = load(P, p)
        if g != p:
            store(P, v, g)
            return True
        return False

    @jit
    def FullShortcut(P, v):
        """Point v at its root; True if P[v] changed."""
        changed = False
        while True:
            p = load(P, v)
            g = load(P, p)
            if g == p:
                return changed
            store(P, v, g)
            changed = True

    @jit
    def shortcut(P, v, sopt):
        if sopt == FULL_SHORTCUT:
            return FullShortcut(P, v)
        return Shortcut(P, v)

    # -- Shiloach-Vishkin, the paper's root-based adaptation ---------------
    @jit
    def SVHook(P, R, prev, u, v):
        """Labels from R (P, or the round's snapshot ``prev`` when a forest replays
        the hooks); the hooked root h or -1."""
        pu = load(R, u)
        pv = load(R, v)
        lo = min(pu, pv)
        h = max(pu, pv)
        if lo != h and load(prev, h) == h:
            atomic_min(P, h, lo)
            return h
        return -1

    @jit
    def SVWinner(P, prev, u, v):
        """The root whose final parent this edge's hook set, or -1."""
        pu = load(prev, u)
        pv = load(prev, v)
        lo = min(pu, pv)
        h = max(pu, pv)
        if lo != h and load(prev, h) == h and load(P, h) == lo:
            return h
        return -1

    # -- classic Shiloach-Vishkin (GPU-CC) ---------------------------------
    @jit
    def SVClassicHook(P, u, v, down):
        """Hook a root with a plain write, larger under smaller (``down``) or the
        reverse.  A racing write may lose a hook (its edge is seen next round);
        a round's hooks all point one way, so they close no cycle."""
        pu = load(P, u)
        pv = load(P, v)
        if pu == pv:
            return False
        lo = min(pu, pv)
        hi = max(pu, pv)
        if down:
            if load(P, hi) == hi:
                store(P, hi, lo)
                return True
        elif load(P, lo) == lo:
            store(P, lo, hi)
            return True
        return False

    # -- Liu-Tarjan rules ---------------------------------------------------
    @jit
    def lt_message(P, u, v, copt):
        """The one message (target, value) of Connect or ParentConnect that can
        lower a parent; (-1, -1) when the ends are equal."""
        a = u
        b = v
        if copt == PARENT_CONNECT:
            a = load(P, u)
            b = load(P, v)
        if a < b:
            return b, a
        if b < a:
            return a, b
        return -1, -1

    @jit
    def lt_connect(P, N, u, v, copt):
        if copt == EXTENDED_CONNECT:
            x = load(P, u)
            y = load(P, v)
            if y < x:
                atomic_min(N, u, y)
                atomic_min(N, x, y)
            elif x < y:
                atomic_min(N, v, x)
                atomic_min(N, y, x)
        else:
            t, m = lt_message(P, u, v, copt)
            if t >= 0:
                atomic_min(N, t, m)

    @jit
    def lt_update(P, N, v, uopt):
        """Update: P[v] takes its minimum message; RootUpdate: only if v is a root."""
        p = load(P, v)
        m = load(N, v)
        if m < p and (uopt == UPDATE or p == v):
            store(P, v, m)
            return True
        return False

    @jit
    def lt_winner(P, N, u, v, copt):
        """The root that this edge's message will hook, or -1 (between connect and update)."""
        t, m = lt_message(P, u, v, copt)
        if t >= 0 and load(P, t) == t and load(N, t) == m:
            return t
        return -1

    @jit
    def Alter(P, u, v):
        return load(P, u), load(P, v)

    # -- label propagation and Stergiou -------------------------------------
    @jit
    def LabelPropEdge(P, u, v):
        a = load(P, u)
        b = load(P, v)
        if a < b:
            return atomic_min(P, v, a) > a
        if b < a:
            return atomic_min(P, u, b) > b
        return False

    @jit
    def StergiouEdge(cur, prev, u, v):
        """Label propagation reading the previous round's labels only."""
        a = load(prev, u)
        b = load(prev, v)
        if a < b:
            atomic_min(cur, v, a)
        elif b < a:
            atomic_min(cur, u, b)

    @jit
    def StergiouShortcut(cur, prev, v):
        """Shortcut through cur and retire the label into prev; True if it changed."""
        c = load(cur, v)
        g = load(cur, c)
        if g != c:
            store(cur, v, g)
            c = g
        if c != load(prev, v):
            store(prev, v, c)
            return True
        return False

    # -- ECL-CC and Afforest ------------------------------------------------
    @jit
    def EclFind(P, v):
        """Find with intermediate pointer jumping (plain writes of ancestors to non-roots)."""
        prev = v
        cur = load(P, v)
        while True:
            nxt = load(P, cur)
            if nxt == cur:
                return cur
            store(P, prev, nxt)
            prev = cur
            cur = nxt

    @jit
    def EclHook(P, u, v):
        ru = EclFind(P, u)
        rv = EclFind(P, v)
        while ru != rv:
            if ru < rv:
                ru, rv = rv, ru
            seen = cas(P, ru, ru, rv)
            if seen == ru:
                return ru
            ru = EclFind(P, seen)
            rv = EclFind(P, rv)
        return -1

    @jit
    def AfforestLink(P, u, v):
        """Climb both chains, CAS the higher root under the lower value until they meet."""
        p1 = load(P, u)
        p2 = load(P, v)
        while p1 != p2:
            hi = max(p1, p2)
            lo = min(p1, p2)
            ph = load(P, hi)
            if ph == lo:
                return -1
            if ph == hi and cas(P, hi, hi, lo) == hi:
                return hi
            p1 = load(P, load(P, hi))
            p2 = load(P, lo)
        return -1

    @jit
    def GatherEdges(P, indptr, indices, v, o, lmax, contract, eu, ev):
        """v's CSR edges to eu/ev from slot o; ``contract`` maps lmax's vertices to lmax."""
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            eu[o] = v
            ev[o] = lmax if contract and P[w] == lmax else w
            o += 1

    @jit
    def link(P, u, v, method):
        if method == AFFOREST:
            return AfforestLink(P, u, v)
        return EclHook(P, u, v)

    return namespace(pr, "minbased", locals())
