"""Sampling bodies written once for every target.

``follow_first`` is HB's first step seen from one vertex: follow the
smallest neighbour while it is smaller.  The automatic choice samples it
from random vertices to bound HB's coverage (paper Sec. 4.6); the
adjacency puts each row's smallest neighbour first for it
(:func:`gconn.graph.build.min_first_row`)."""
from __future__ import annotations

from types import SimpleNamespace


def build(pr) -> SimpleNamespace:
    jit = pr.jit

    @jit
    def follow_first(indptr, indices, v, max_steps):
        """Where HB's first step sends ``v``; -1 past ``max_steps`` steps."""
        steps = 0
        while steps < max_steps and indptr[v + 1] > indptr[v]:
            w = indices[indptr[v]]
            if w >= v:
                break
            v = w
            steps += 1
        return v if steps < max_steps else -1

    return SimpleNamespace(follow_first=follow_first)
