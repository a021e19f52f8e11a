"""The sampling step (paper Sec. 3.3), once for every backend, over its
sampling module ``k``: ``xp``, the samplers ``kout(s, seed, count)``,
``hb(s, seed, count)`` and ``stride(s, count)`` (edges inspected; counted
only when ``count``), and for BFS ``bfs_source(s, seed)``, ``search(s,
level, parent)`` (with ``run(source, levels)`` and ``inspected``) and
``relabel_visited(s, level, mn)``.

>>> import gconn
>>> from gconn.backends import cpu
>>> from gconn.design import Plan, Variant
>>> from gconn.pipeline import run
>>> run(gconn.Graph.from_edges([0, 1], [1, 2]), Plan.of(Variant.parse("bfs+sv")), cpu)[0].tolist()
[0, 0, 0]
"""
from __future__ import annotations

import numpy as np


def sample(k, s, seed: int, count: bool) -> int:
    """Run the plan's sampling on run state ``s``; returns the edges it inspected."""
    sampling = s.plan.sampling
    if sampling == "stride":
        return k.stride(s, count)
    if sampling == "kout":
        return k.kout(s, seed, count)
    if sampling == "hb":
        return k.hb(s, seed, count)
    if sampling == "bfs":
        return bfs_sample(k, s, seed)
    raise ValueError(f"unknown sampling {sampling!r}")


def bfs_sample(k, s, seed: int) -> int:
    """A BFS of at most ``bfs_levels`` levels; the visited set points at its minimum id: edges inspected."""
    xp, n, idt = k.xp, s.graph.n, s.graph.id_dtype
    source = k.bfs_source(s, seed)
    level = xp.full(n, -1, np.int32)
    parent = xp.full(n, -1, idt)
    search = k.search(s, level, parent)
    search.run(source, s.plan.bfs_levels)
    visited = level >= 0
    mn = int(xp.argmax(visited))
    k.relabel_visited(s, level, mn)
    if s.fa.size:
        # tree edges sit in their child's slot; the minimum stays a root, so its slot must stay
        # free for a later link: mn's edge moves to the source's (empty) slot
        visited[source] = False
        xp.copyto(s.fa, parent, where=visited)
        xp.copyto(s.fb, xp.arange(n, dtype=idt), where=visited)
        if mn != source:
            s.fa[source], s.fb[source] = s.fa[mn], s.fb[mn]
            s.fa[mn] = s.fb[mn] = -1
    return search.inspected
