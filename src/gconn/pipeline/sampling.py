"""The sampling step's drivers (paper Sec. 3.3)."""
from __future__ import annotations

import numpy as np

from gconn.design import STRIDE_RUN
from gconn.backends.cpu.bfs import Search
from gconn.backends.cpu.sampling import (KOUT_AFFOREST, KOUT_PAPER, hb_hook_first, hb_union_roots, kout_sample,
                                         pick_source, relabel_visited, stride_sample)


def sample(s, seed: int) -> int:
    """Run the plan's sampling on run state ``s``; returns the edges it
    inspected."""
    p = s.plan
    if p.sampling == "stride":
        return int(stride_sample(s.P, s.H, s.src, s.dst, STRIDE_RUN, p.stride_step(s.src.size, s.graph.n),
                                 p.fin, p.fopt, p.sopt, s.fa, s.fb))
    indptr, indices = s.indptr, s.indices
    deg = np.diff(indptr)
    if p.sampling == "kout":
        mode = KOUT_PAPER if p.kout_paper else KOUT_AFFOREST
        kout_sample(s.P, s.H, indptr, indices, p.k, mode, seed, p.fin, p.fopt, p.sopt, s.fa, s.fb)
        return int(np.minimum(deg, p.k).sum())
    if p.sampling == "hb":
        hb_hook_first(s.P, indptr, indices, p.fin, s.fa, s.fb)
        second = hb_union_roots(s.P, s.H, indptr, indices, p.hb_n, p.fin, p.fopt, p.sopt, s.fa, s.fb)
        return int(np.count_nonzero(deg)) + int(second)
    if p.sampling == "bfs":
        return bfs_sample(s, seed)
    raise ValueError(f"unknown sampling {p.sampling!r}")


def bfs_sample(s, seed: int) -> int:
    """BFS sampling: a direction-optimizing BFS from the highest-degree
    vertex of a random sample, for at most ``bfs_levels`` levels; the
    visited set is pointed at its minimum id.  Returns the edges inspected."""
    g, p, fa, fb = s.graph, s.plan, s.fa, s.fb
    src = pick_source(s.indptr, p.bfs_sample, seed)
    level = np.full(g.n, -1, np.int32)
    parent = np.full(g.n, -1, s.indices.dtype)
    search = Search(s.indptr, s.indices, level, parent)
    search.run(src, p.bfs_levels)
    visited = np.flatnonzero(level >= 0)
    mn = int(visited[0])
    relabel_visited(s.P, level, mn)
    if fa.size:
        tree = visited[visited != src]
        fa[tree] = parent[tree]
        fb[tree] = tree
        if mn != src:
            # The root's slot must stay free for a later link of the
            # root; the source has no tree edge, so move mn's there.
            fa[src], fb[src] = fa[mn], fb[mn]
            fa[mn] = fb[mn] = -1
    return search.inspected
