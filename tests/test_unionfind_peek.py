"""The union-find bodies of gconn.backends.core with a ``peek`` that returns stale
parents, as the GPU's L1 can within a kernel (gconn.backends.gpu.primitives): every union rule must
still give SciPy's partition, every query the right answer, and no union
may spin on a stale root.

The bodies run as plain Python (``jit`` is the identity) over arrays
that remember every value each slot held: ``load``, ``cas`` and ``store``
see the newest, ``peek`` any of them, drawn at random -- a harsher
reader than an L1 line, which only ever gets newer.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gconn.backends.core.primitives import Primitives
from gconn.backends.core.unionfind import UNION_JTB, build
from gconn.design import FIND_CODE, FINISH_CODE, SPLICE_CODE, Variant

import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from oracles import component_minima, same_partition


class StaleMemory:
    """The primitives over arrays read through a model of an SM's L1: a
    peek of a slot not in the cache reads the array and keeps the value; a
    later peek returns the kept value until the slot is evicted (with
    probability ``evict`` per peek; 0: never).  Plain stores write through
    the cache; a CAS does not (atomics are performed in L2), so after
    another "thread's" CAS a kept value is stale.  ``kernel()`` empties the
    cache, as a kernel launch does."""

    #: peeks one union or query may make before it counts as spinning
    SPIN = 20_000

    def __init__(self, seed: int, evict: float = 0.0):
        self.rng = np.random.default_rng(seed)
        self.evict = evict
        self.cache: dict = {}
        self.peeks = 0

    def kernel(self):
        self.cache.clear()

    def primitives(self) -> Primitives:
        def load(a, i):
            return a[i]

        def peek(a, i):
            self.peeks += 1
            if self.peeks > self.SPIN:
                raise RuntimeError("a union or query spins on stale parents")
            key = (id(a), int(i))
            if key not in self.cache or (self.evict and self.rng.random() < self.evict):
                self.cache[key] = a[i]
            return self.cache[key]

        def store(a, i, v):
            a[i] = v
            key = (id(a), int(i))
            if key in self.cache:
                self.cache[key] = a[i]

        def cas(a, i, old, new):
            seen = a[i]
            if seen == old:
                a[i] = new
            return seen

        def atomic_min(a, i, v):
            old = a[i]
            if v < old:
                a[i] = v
            return old

        def atomic_add(a, i, v):
            old = a[i]
            a[i] = old + v
            return old

        return Primitives(jit=lambda f: f, load=load, store=store, cas=cas, atomic_min=atomic_min,
                          atomic_add=atomic_add, fence=lambda: None, peek=peek)


VARIANTS = [Variant.parse(name, "incremental") for name in (
    "none+union-async+find-naive", "none+union-async+find-split", "none+union-async+find-halve",
    "none+union-async+find-compress", "none+union-hooks+find-halve", "none+union-early+find-split",
    "none+union-rem-cas+find-halve+splice", "none+union-rem-cas+find-split+split-one",
    "none+union-rem-cas+find-naive+halve-one", "none+union-rem-lock+find-halve+split-one",
    "none+union-jtb+find-two-try-split")]


def _codes(v: Variant):
    return FINISH_CODE[v.finish], FIND_CODE[v.find], SPLICE_CODE[v.splice] if v.splice else 0


def _state(v: Variant, n: int):
    # parents, and UnionJTB's records (rank 0, parent v), start as v
    P = np.arange(n, dtype=np.int64)
    H = np.full(n, -1 if v.finish == "union-hooks" else 0, np.int64)
    return P, H


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.name)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), density=st.floats(0.2, 2.5),
       sorted_edges=st.booleans(), evict=st.sampled_from([0.0, 0.05, 0.5]))
def test_unions_on_stale_parents_give_the_partition(v, seed, n, density, sorted_edges, evict):
    rng = np.random.default_rng(seed)
    m = max(1, int(density * n))
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    if sorted_edges:        # sorted input builds the long chains stale reads used to hide
        src, dst = np.minimum(src, dst), np.maximum(src, dst)
        order = np.lexsort((dst, src))
        src, dst = src[order], dst[order]
    mem = StaleMemory(seed, evict)
    uf = build(mem.primitives())
    fin, fopt, sopt = _codes(v)
    P, H = _state(v, n)
    linked = []
    for a, b in zip(src.tolist(), dst.tolist()):
        mem.peeks = 0
        r = uf.union_any(P, H, a, b, fin, fopt, sopt)
        if r >= 0:
            linked.append(r)
    k, labels = connected_components(sp.coo_matrix((np.ones(m), (src, dst)), shape=(n, n)), directed=False)
    # each link joins two sets: n - k links, each at a distinct root
    assert len(linked) == n - k and len(set(linked)) == len(linked)
    mem.kernel()
    roots = np.array([uf.find_any(P, x, fin, fopt) for x in range(n)])
    assert same_partition(roots, labels)
    if fin != UNION_JTB:
        # min-rooted: every root is its component's smallest id
        assert np.array_equal(roots, component_minima(labels))
    for _ in range(20):
        a, b = rng.integers(0, n, 2).tolist()
        mem.peeks = 0
        assert bool(uf.same_set_any(P, a, b, fin, fopt)) == bool(labels[a] == labels[b])


def test_the_harness_catches_a_union_that_trusts_stale_parents():
    """The check above can fail: with ``load`` as stale as ``peek`` (a rule
    with no coherent retry), re-uniting a linked vertex whose "root" was
    cached before the link spins -- its CAS fails every time -- and the
    harness says so; with the real ``load`` the same union ends."""
    codes = _codes(Variant.parse("none+union-async+find-naive", "incremental"))
    for stale_load in (False, True):
        mem = StaleMemory(0)
        pr = mem.primitives()
        if stale_load:
            pr = Primitives(jit=pr.jit, load=pr.peek, store=pr.store, cas=pr.cas, atomic_min=pr.atomic_min,
                            atomic_add=pr.atomic_add, fence=pr.fence, peek=pr.peek)
        uf = build(pr)
        P = np.arange(3, dtype=np.int64)
        H = np.zeros(3, np.int64)
        pr.peek(P, 1)                                   # slot 1 cached as a root
        assert uf.union_any(P, H, 1, 0, *codes) == 1    # linked by CAS: the cache is now stale
        mem.peeks = 0
        if stale_load:
            with pytest.raises(RuntimeError, match="spins"):
                uf.union_any(P, H, 1, 0, *codes)
        else:
            assert uf.union_any(P, H, 1, 0, *codes) == -1      # already one set
