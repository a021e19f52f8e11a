"""Checks shared by the simulator and real-GPU tests of the GPU backend."""
from __future__ import annotations

import gconn
from gconn import design
from oracles import replay_incremental


def uf_variants(problem: str = "cc", sampling: str | None = None) -> list[str]:
    """The union-find variants."""
    return [v.name for v in design.iter_variants(problem)
            if v.is_union_find and (sampling is None or v.sampling == sampling)]


def mb_variants(problem: str = "cc", sampling: str | None = None) -> list[str]:
    """The variants of the other finishes (gconn.gpu.finishes)."""
    return [v.name for v in design.iter_variants(problem)
            if not v.is_union_find and (sampling is None or v.sampling == sampling)]


def check_incremental(name: str, batches, mode: str) -> None:
    """Run ``batches`` of (kinds, src, dst) through the GPU backend in
    ``mode`` and check them with the sequential union-find oracle."""
    ic = gconn.IncrementalConnectivity(algorithm=name, backend="gpu", mode=mode)
    replay_incremental(ic, batches, mode, exact=design.Variant.parse(name, "incremental").phase_separated)
