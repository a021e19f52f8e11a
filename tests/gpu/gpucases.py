"""Checks shared by the simulator and real-GPU tests of the GPU backend."""
from __future__ import annotations

import numpy as np

import gconn
from gconn import design


def uf_variants(problem: str = "cc", sampling: str | None = None) -> list[str]:
    """The union-find variants."""
    return [v.name for v in design.iter_variants(problem)
            if v.is_union_find and (sampling is None or v.sampling == sampling)]


def mb_variants(problem: str = "cc", sampling: str | None = None) -> list[str]:
    """The variants of the other finishes (gconn.gpu.finishes)."""
    return [v.name for v in design.iter_variants(problem)
            if not v.is_union_find and (sampling is None or v.sampling == sampling)]


def host(x) -> np.ndarray:
    """A result as a NumPy array (CuPy arrays are copied back)."""
    return x.get() if hasattr(x, "get") else np.asarray(x)


class SeqUF:
    """A sequential union-find: the reference for incremental batches."""

    def __init__(self):
        self.p = []

    def find(self, x):
        while len(self.p) <= x:
            self.p.append(len(self.p))
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.p[max(a, b)] = min(a, b)


def check_incremental(name: str, batches, mode: str) -> None:
    """Run ``batches`` of (kinds, src, dst) through the GPU backend in
    ``mode`` and compare every answer and the final labels with SeqUF."""
    from conftest import same_partition
    ic = gconn.IncrementalConnectivity(algorithm=name, backend="gpu", mode=mode)
    ref = SeqUF()
    for kinds, s, d in batches:
        before = [ref.find(a) == ref.find(b) for a, b in zip(s, d)]
        expect = []
        if mode == "sequential":
            for k, a, b in zip(kinds, s, d):
                if k == 0:
                    ref.union(a, b)
                else:
                    expect.append(ref.find(a) == ref.find(b))
        else:
            for k, a, b in zip(kinds, s, d):
                if k == 0:
                    ref.union(a, b)
            expect = [ref.find(a) == ref.find(b) for k, a, b in zip(kinds, s, d) if k == 1]
        got = host(ic.process(kinds, s, d)).tolist()
        if mode == "concurrent" and not design.Variant.parse(name, "incremental").phase_separated:
            q = np.flatnonzero(kinds == 1)
            for ans, i, after in zip(got, q, expect):
                assert (not before[i] or ans) and (after or not ans), name
        else:
            assert got == expect, (name, mode)
    roots = np.array([ref.find(x) for x in range(ic.n)])
    assert same_partition(host(ic.labels()), np.unique(roots, return_inverse=True)[1]), name
    assert ic.n_components == len(np.unique(roots)), name


def stream(rng, n: int, batches: int, size: int):
    """Random mixed batches over ids < n (40% queries)."""
    out = []
    for _ in range(batches):
        kinds = (rng.random(size) < 0.4).astype(np.int8)
        out.append((kinds, rng.integers(0, n, size), rng.integers(0, n, size)))
    return out
