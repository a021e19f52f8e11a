"""The static pipeline, once for every backend: the paper's Algorithm 1
(connectivity) and Algorithm 2 (spanning forest), ``init -> sample ->
compress -> L_max -> gather -> finish -> finalize`` over a backend's steps
(the protocol in docs/ARCHITECTURE.md); this module fixes their order,
timing and counting.

Skipping L_max's edges is safe for a root-based finish (L_max's tree only
grows through its root); the others may move a vertex out of its tree, so
their gathered edges contract L_max to its root (``Plan.contract``).

>>> import gconn
>>> from gconn.backends import cpu
>>> from gconn.design import Plan, Variant
>>> g = gconn.Graph.from_edges([0, 2], [1, 3])
>>> roots, _, _ = run(g, Plan.of(Variant.parse("kout+union-async")), cpu)
>>> roots.tolist()
[0, 0, 2, 2]
"""
from __future__ import annotations

from contextlib import nullcontext

from gconn.design import Plan
from gconn.pipeline.stats import Stats


def run(graph, plan: Plan, backend, *, forest: bool = False, stats: Stats | None = None, seed: int = 0):
    """Run ``plan`` on ``graph``: (roots, forest_src, forest_dst), forest slots -1 where no edge is."""
    return _run(graph, plan, backend, forest, stats, seed, backend.finalize)


def components(graph, plan: Plan, backend, *, stats: Stats | None = None, seed: int = 0):
    """Run ``plan`` on ``graph`` to (k, labels 0..k-1 numbered as scipy's); k
    may be a 0-d device array.

    >>> import gconn
    >>> from gconn.backends import cpu
    >>> from gconn.design import Plan, Variant
    >>> k, labels = components(gconn.Graph.from_edges([2, 3], [3, 4]), Plan.of(Variant.parse("union-async")), cpu)
    >>> int(k), labels.tolist()
    (3, [0, 1, 2, 2, 2])
    """
    return _run(graph, plan, backend, False, stats, seed, backend.number)


def _run(graph, plan: Plan, backend, forest: bool, stats: Stats | None, seed: int, last):
    count = stats is not None

    def phase(name):
        return stats.phase(name, sync=backend.sync) if count else nullcontext()

    with backend.scope(graph, plan, forest, stats):
        state = backend.init(graph, plan, forest)
        work = None
        if plan.sampling != "none" and graph.m_input > 0:
            with phase("sample"):
                sampled = backend.sample(state, seed, count)
                backend.compress(state)
            lmax = None
            if plan.gathers:
                with phase("lmax"):
                    lmax = backend.lmax(state, seed)
                    work = backend.gather(state, lmax)
            if count:
                stats.edge_inspections["sample"] = sampled
                backend.sample_stats(state, lmax, work, stats)
        with phase("finish"):
            inspected, rounds = backend.finish(state, work)
        if count:
            if inspected is not None:
                stats.edge_inspections["finish"] = inspected
            stats.rounds = rounds
        with phase("finalize"):
            return last(state)
