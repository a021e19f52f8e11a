"""Concurrent union-find, written once for every target (paper appendix).

``build(pr)`` compiles the bodies with a backend's primitives.  Every union
returns the root it linked (for the spanning forest) or -1.  All but UnionJTB
keep parent id <= child id (each root is its tree's minimum); UnionJTB links
by rank, packing ``rank << 32 | parent`` so that one 64-bit CAS checks both."""
from __future__ import annotations

import numpy as np

from gconn.backends.core.primitives import namespace
from gconn.design import FIND_CODE, FINISH_CODE, SPLICE_CODE

FIND_NAIVE = FIND_CODE["find-naive"]
FIND_SPLIT = FIND_CODE["find-split"]
FIND_HALVE = FIND_CODE["find-halve"]
FIND_COMPRESS = FIND_CODE["find-compress"]
FIND_TWO_TRY = FIND_CODE["find-two-try-split"]

UNION_ASYNC = FINISH_CODE["union-async"]
UNION_HOOKS = FINISH_CODE["union-hooks"]
UNION_EARLY = FINISH_CODE["union-early"]
UNION_REM_CAS = FINISH_CODE["union-rem-cas"]
UNION_REM_LOCK = FINISH_CODE["union-rem-lock"]
UNION_JTB = FINISH_CODE["union-jtb"]

SPLIT_ONE = SPLICE_CODE["split-one"]
HALVE_ONE = SPLICE_CODE["halve-one"]
SPLICE_ATOMIC = SPLICE_CODE["splice"]

#: steps a find takes on peeked parents before reading them coherently
PEEK_STEPS = 16

#: UnionJTB record layout
JTB_MASK = 0xFFFFFFFF
JTB_SHIFT = 32


def build(pr):
    jit, load, store, cas, fence = pr.jit, pr.load, pr.store, pr.cas, pr.fence
    reread = pr.reread or load
    peek = pr.peek or load

    # -- finds and splices, made twice: reading parents with ``load`` (coherent) and ``peek`` (GPU:
    # L1-cached, maybe stale).  A stale parent is still an ancestor, so a peeked find terminates at a
    # past root, and only a CAS on it tells; the unions peek in their first pass and read coherently
    # after a failed link (a stale root would fail its CAS until the line left the L1).  A peeked
    # find walks PEEK_STEPS steps, then coherently: stale parents hide others' halving on long chains.
    @jit
    def _unused(P, u):
        return u

    def finds(ld, then):
        limit = PEEK_STEPS if then is not None else 0
        naive_then, split_then, halve_then, compress_then = (_unused,) * 4 if then is None else (
            then.FindNaive, then.FindSplit, then.FindHalve, then.FindCompress)

        @jit
        def FindNaive(P, u):
            steps = 0
            while True:
                p = ld(P, u)
                if p == u:
                    return u
                u = p
                steps += 1
                if limit and steps == limit:
                    return naive_then(P, u)

        @jit
        def FindSplit(P, u):
            v = ld(P, u)
            steps = 0
            while True:
                w = ld(P, v)
                if v == w:
                    return v
                cas(P, u, v, w)
                u = v
                v = w
                steps += 1
                if limit and steps == limit:
                    return split_then(P, u)

        @jit
        def FindHalve(P, u):
            # the CAS returns u's parent as it is now, fresher than a peek
            steps = 0
            while True:
                v = ld(P, u)
                w = ld(P, v)
                if v == w:
                    return v
                seen = cas(P, u, v, w)
                u = w if seen == v else seen
                steps += 1
                if limit and steps == limit:
                    return halve_then(P, u)

        @jit
        def FindCompress(P, u):
            r = u
            steps = 0
            while True:
                p = ld(P, r)
                if p == r:
                    break
                r = p
                steps += 1
                if limit and steps == limit:
                    r = compress_then(P, r)
                    break
            # parents only decrease towards the root: "> r" bounds the rewrite to this path
            while True:
                j = ld(P, u)
                if j <= r:
                    break
                store(P, u, r)
                u = j
            return r

        @jit
        def find(P, u, opt):
            if opt == FIND_SPLIT:
                return FindSplit(P, u)
            if opt == FIND_HALVE:
                return FindHalve(P, u)
            if opt == FIND_COMPRESS:
                return FindCompress(P, u)
            return FindNaive(P, u)

        @jit
        def SplitAtomicOne(P, ru, rv):
            v = ld(P, ru)
            w = ld(P, v)
            if v != w:
                cas(P, ru, v, w)
            return v

        @jit
        def HalveAtomicOne(P, ru, rv):
            v = ld(P, ru)
            w = ld(P, v)
            if v != w:
                cas(P, ru, v, w)
            return w

        @jit
        def SpliceAtomic(P, ru, rv):
            pu = ld(P, ru)
            pv = ld(P, rv)
            if pv < pu:
                cas(P, ru, pu, pv)
            return pu

        @jit
        def splice(P, ru, rv, opt):
            if opt == SPLICE_ATOMIC:
                return SpliceAtomic(P, ru, rv)
            if opt == HALVE_ONE:
                return HalveAtomicOne(P, ru, rv)
            return SplitAtomicOne(P, ru, rv)

        return namespace(pr, "finds", locals())

    coherent = finds(load, None)
    find, splice = coherent.find, coherent.splice
    cached = finds(peek, coherent) if pr.peek is not None else coherent
    find_peeked, splice_peeked = cached.find, cached.splice

    @jit
    def read(P, i, fresh):
        if fresh:
            return load(P, i)
        return peek(P, i)

    @jit
    def splice_read(P, ru, rv, opt, fresh):
        if fresh:
            return splice(P, ru, rv, opt)
        return splice_peeked(P, ru, rv, opt)

    # -- unions: "peek says root" is checked by the CAS that links it (a peeked non-root is never
    # stale); equal roots or parents, even read at different moments, mean the sets are one
    @jit
    def UnionAsync(P, u, v, fopt):
        pu = find_peeked(P, u, fopt)
        pv = find_peeked(P, v, fopt)
        while pu != pv:
            if pu < pv:
                pu, pv = pv, pu
            if peek(P, pu) == pu and cas(P, pu, pu, pv) == pu:
                return pu
            pu = find(P, pu, fopt)
            pv = find(P, pv, fopt)
        return -1

    @jit
    def UnionHooks(P, H, u, v, fopt):
        # the CAS goes to the hooks array: the parent array sees uncontended writes
        pu = find_peeked(P, u, fopt)
        pv = find_peeked(P, v, fopt)
        while pu != pv:
            if pu < pv:
                pu, pv = pv, pu
            if peek(P, pu) == pu and cas(H, pu, -1, pv) == -1:
                store(P, pu, pv)
                fence()
                return pu
            pu = find(P, pu, fopt)
            pv = find(P, pv, fopt)
        return -1

    @jit
    def UnionEarly(P, u, v, fopt):
        pu = u
        pv = v
        linked = -1
        fresh = False
        while pu != pv:
            if pu < pv:
                pu, pv = pv, pu
            if read(P, pu, fresh) == pu:
                if cas(P, pu, pu, pv) == pu:
                    linked = pu
                    break
                fresh = True
            z = read(P, pu, fresh)
            w = read(P, z, fresh)
            if z != w:
                cas(P, pu, z, w)
            pu = w
        if fopt != FIND_NAIVE:
            find_peeked(P, u, fopt)
            find_peeked(P, v, fopt)
        return linked

    @jit
    def UnionRemCAS(P, u, v, fopt, sopt):
        ru = u
        rv = v
        linked = -1
        fresh = False
        while True:
            pu = read(P, ru, fresh)
            pv = read(P, rv, fresh)
            if pu == pv:
                break
            if pu < pv:
                ru, rv = rv, ru
                pu, pv = pv, pu
            if ru == pu:
                if cas(P, ru, ru, pv) == ru:
                    linked = ru
                    break
                fresh = True
            else:
                ru = splice_read(P, ru, rv, sopt, fresh)
        if linked >= 0 and fopt != FIND_NAIVE:
            find_peeked(P, u, fopt)
            find_peeked(P, v, fopt)
        return linked

    @jit
    def UnionRemLock(P, L, u, v, fopt, sopt):
        # a try-lock, never a spin (no thread waits on another); inside it every read is re-read
        ru = u
        rv = v
        linked = -1
        fresh = False
        while True:
            pu = read(P, ru, fresh)
            pv = read(P, rv, fresh)
            if pu == pv:
                break
            if pu < pv:
                ru, rv = rv, ru
                pu, pv = pv, pu
            if ru == pu:
                if cas(L, ru, 0, 1) == 0:
                    # the lock's CAS orders nothing else (relaxed on the GPU): the fences do
                    fence()
                    pv = reread(P, rv)
                    if reread(P, ru) == ru and ru > pv:
                        store(P, ru, pv)
                        linked = ru
                    fence()
                    cas(L, ru, 1, 0)
                    if linked >= 0:
                        break
                fresh = True
            else:
                ru = splice_read(P, ru, rv, sopt, fresh)
        if linked >= 0 and fopt != FIND_NAIVE:
            find_peeked(P, u, fopt)
            find_peeked(P, v, fopt)
        return linked

    @jit
    def union(P, H, u, v, fin, fopt, sopt):
        """Any union rule but JTB; ``H``: hooks (UnionHooks) or locks (UnionRemLock)."""
        if fin == UNION_ASYNC:
            return UnionAsync(P, u, v, fopt)
        if fin == UNION_REM_CAS:
            return UnionRemCAS(P, u, v, fopt, sopt)
        if fin == UNION_HOOKS:
            return UnionHooks(P, H, u, v, fopt)
        if fin == UNION_EARLY:
            return UnionEarly(P, u, v, fopt)
        return UnionRemLock(P, H, u, v, fopt, sopt)

    @jit
    def SameSet(P, u, v, fopt):
        # linearizable (Jayanti-Tarjan): equal roots mean connected; two roots both still roots,
        # read coherently after the finds, mean not connected at that moment
        u = find_peeked(P, u, fopt)
        v = find_peeked(P, v, fopt)
        while u != v:
            if load(P, u) == u and load(P, v) == v:
                return False
            u = find(P, u, fopt)
            v = find(P, v, fopt)
        return True

    # -- UnionJTB: randomized linking by rank on packed records --------------
    @jit
    def jtb_parent(rec):
        return rec & JTB_MASK

    @jit
    def jtb_rank(rec):
        return rec >> JTB_SHIFT

    @jit
    def jtb_pack(rank, parent):
        return (rank << JTB_SHIFT) | parent

    @jit
    def jtb_priority(x):
        # a fixed pseudo-random order breaks rank ties; unsigned 64-bit products of 32-bit
        # values cannot overflow (NumPy scalars in the CUDA simulator raise on overflow)
        h = (np.uint64(x) * np.uint64(0x9E3779B1)) & np.uint64(0xFFFFFFFF)
        h ^= h >> np.uint64(16)
        h = (h * np.uint64(0x85EBCA6B)) & np.uint64(0xFFFFFFFF)
        h ^= h >> np.uint64(13)
        return h

    @jit
    def FindSimple(P, u):
        while True:
            p = jtb_parent(load(P, u))
            if p == u:
                return u
            u = p

    @jit
    def FindTwoTrySplit(P, u):
        while True:
            ru = load(P, u)
            v = jtb_parent(ru)
            if v == u:
                return u
            w = jtb_parent(load(P, v))
            if v == w:
                return v
            # try the split twice; if u's record keeps changing, move on
            seen = cas(P, u, ru, jtb_pack(jtb_rank(ru), w))
            if seen != ru:
                v = jtb_parent(seen)
                if v == u:
                    return u
                w = jtb_parent(load(P, v))
                if v == w:
                    return v
                cas(P, u, seen, jtb_pack(jtb_rank(seen), w))
            u = v

    @jit
    def find_jtb(P, u, opt):
        if opt == FIND_TWO_TRY:
            return FindTwoTrySplit(P, u)
        return FindSimple(P, u)

    @jit
    def UnionJTB(P, u, v, fopt):
        while True:
            u = find_jtb(P, u, fopt)
            v = find_jtb(P, v, fopt)
            if u == v:
                return -1
            ru = load(P, u)
            rv = load(P, v)
            if jtb_parent(ru) != u or jtb_parent(rv) != v:
                continue
            ku = jtb_rank(ru)
            kv = jtb_rank(rv)
            if ku > kv or (ku == kv and jtb_priority(u) > jtb_priority(v)):
                u, v = v, u
                ru, rv = rv, ru
                ku, kv = kv, ku
            # u has the lower (rank, priority); the CAS fails if u's rank changed meanwhile
            if cas(P, u, ru, jtb_pack(ku, v)) == ru:
                if ku == kv:
                    cas(P, v, rv, jtb_pack(kv + 1, v))
                return u

    @jit
    def SameSetJTB(P, u, v, fopt):
        while True:
            u = find_jtb(P, u, fopt)
            v = find_jtb(P, v, fopt)
            if u == v:
                return True
            if jtb_parent(load(P, u)) == u:
                return False

    # -- one entry point per operation, any finish: runtime codes on the CPU, constants on the GPU
    @jit
    def parent_of(P, v, fin):
        # peeked: only read where no union changes it or a stale value is harmless
        if fin == UNION_JTB:
            return jtb_parent(load(P, v))
        return peek(P, v)

    @jit
    def set_parent(P, v, p, fin):
        """Point v at p with a plain write (no concurrent unions)."""
        if fin == UNION_JTB:
            store(P, v, jtb_pack(jtb_rank(load(P, v)), p))
        else:
            store(P, v, p)

    @jit
    def find_any(P, u, fin, fopt):
        """A find for phases without concurrent unions (peeked parents)."""
        if fin == UNION_JTB:
            return find_jtb(P, u, fopt)
        return find_peeked(P, u, fopt)

    @jit
    def union_any(P, H, u, v, fin, fopt, sopt):
        if fin == UNION_JTB:
            return UnionJTB(P, u, v, fopt)
        return union(P, H, u, v, fin, fopt, sopt)

    @jit
    def same_set_any(P, u, v, fin, fopt):
        if fin == UNION_JTB:
            return SameSetJTB(P, u, v, fopt)
        return SameSet(P, u, v, fopt)

    # the coherent finds and splices (FindNaive, ..., SpliceAtomic) and the rest
    return namespace(pr, "unionfind", {**vars(coherent), **locals(), "finds": None})
