"""Checks shared by the simulator and real-GPU tests of the GPU backend."""
from __future__ import annotations

import pytest

import gconn
from gconn import design
from oracles import replay_incremental


def uf_variants(problem: str = "cc", sampling: str | None = None) -> list[str]:
    """The union-find variants."""
    return [v.name for v in design.iter_variants(problem)
            if v.is_union_find and (sampling is None or v.sampling == sampling)]


def mb_variants(problem: str = "cc", sampling: str | None = None) -> list[str]:
    """The variants of the other finishes (gconn.backends.gpu.finishes)."""
    return [v.name for v in design.iter_variants(problem)
            if not v.is_union_find and (sampling is None or v.sampling == sampling)]


def check_incremental(name: str, batches, mode: str) -> None:
    """Run ``batches`` of (kinds, src, dst) through the GPU backend in
    ``mode`` and check them with the sequential union-find oracle."""
    ic = gconn.IncrementalConnectivity(algorithm=name, backend="gpu", mode=mode)
    replay_incremental(ic, batches, mode, exact=design.Variant.parse(name, "incremental").phase_separated)


def compaction_cases(n: int, parts: int):
    """Parent arrays of ``n`` vertices in ``parts`` random parts, as
    (parents, min_rooted, flat, roots), roots being each vertex's root:
    flat ones rooted at each part's smallest vertex, then at its largest
    (roots that are not the minima); then trees not yet compressed, rooted
    at the smallest vertex: each member pointing at the member of half its
    rank in the part (depth log2 of the part's size), and chains (each
    member at the one before it)."""
    import numpy as np
    part = np.random.default_rng(n + parts).integers(0, parts, n)
    lowest = np.full(parts, n)
    np.minimum.at(lowest, part, np.arange(n))
    highest = np.full(parts, -1)
    np.maximum.at(highest, part, np.arange(n))
    order = np.argsort(part, kind="stable")
    starts = np.searchsorted(part[order], part[order])
    rank = np.arange(n) - starts
    halved, chained = np.empty(n, np.int64), np.empty(n, np.int64)
    halved[order] = order[starts + rank // 2]
    chained[order] = order[starts + np.maximum(rank - 1, 0)]
    flat = lowest[part]
    return ((flat, True, True, flat), (highest[part], False, True, highest[part]),
            (halved, True, False, flat), (chained, True, False, flat))


def _usable():
    try:
        from gconn.backends import gpu
        return gpu.available(simulator_ok=False)
    except Exception as e:  # pragma: no cover - reported as the skip reason
        return False, str(e)


#: whether the real-GPU tests can run here, and why not
GPU_OK, GPU_WHY = _usable()
#: the marks of a real-GPU test module
ON_GPU = [pytest.mark.gpu, pytest.mark.skipif(not GPU_OK, reason=f"no usable GPU: {GPU_WHY}")]
