"""Sampling bodies written once for every target.

``follow_first`` is HB's first step seen from one vertex: follow the
smallest neighbour while it is smaller.  The automatic choice samples it
from random vertices to bound HB's coverage (paper Sec. 4.6).
``min_first_row`` puts a row's smallest neighbour first, where those two
read it, in an adjacency whose rows are otherwise in no order.
"""
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

    @jit
    def min_first_row(indptr, indices, v):
        """Swap the smallest neighbour of ``v`` to the front of its row."""
        b = indptr[v]
        e = indptr[v + 1]
        j = b
        for k in range(b + 1, e):
            if indices[k] < indices[j]:
                j = k
        if j != b:
            w = indices[j]
            indices[j] = indices[b]
            indices[b] = w

    return SimpleNamespace(follow_first=follow_first, min_first_row=min_first_row)
