"""The static pipeline, once for every backend: the paper's Algorithm 1
(connectivity) and Algorithm 2 (spanning forest).

::

    init -> sample -> compress -> L_max -> gather -> finish -> finalize

A backend (``gconn.backends.cpu``, ``gconn.backends.gpu``) implements each step over its own
arrays; this module fixes their order, what is timed and counted, and the
seams between them:

* ``init(graph, plan, forest)`` -> a run state: the parent array (every
  vertex its own root), the plan's auxiliary array, the forest slots.
* ``sample(state, seed, count)`` runs the plan's sampling (k-out, HB, BFS
  or stride) and returns the edges it inspected (0 unless ``count``);
  ``compress(state)`` then points every vertex at its root.
* ``lmax(state, seed)`` finds L_max, the most frequent label (a handle the
  backend may keep on its device); ``gather(state, lmax)`` builds the
  finish's work: the active vertices (label != L_max) or their edges.
  Stride sampling has no adjacency to gather from: its finish runs over
  every edge, as without sampling.
* ``finish(state, work)`` runs the finish over all edges (``work`` None:
  no sampling) or over the gathered work; returns (edges inspected or
  None when only a pass would count them, rounds).
* ``finalize(state)`` -> (roots, forest_src, forest_dst); or, for
  ``components()``, ``number(state)`` -> (k, labels 0..k-1 in scipy's
  order), which may skip the compression that finalize does (the GPU's
  labels kernel finds each root itself).
* ``sample_stats(state, lmax, work, stats)`` fills Cov, IC and L_max (only
  with ``return_stats``: it reads back; ``lmax`` None after stride
  sampling, whose IC counts over the edge list).
* ``scope(graph, plan, forest, stats)``: a context around the run (device
  memory check, device timer).

The steps' shared drivers are written once as well, over a backend's
launches: :mod:`gconn.pipeline.sampling` (the samplers, BFS sampling) and
:mod:`gconn.pipeline.finishes` (the finishes that are not union-find:
round loops, hooking, gathering, incremental batches).

Skipping L_max's edges is safe for a root-based finish: L_max's tree is only
ever extended through its root.  The others may move any vertex out of its
tree (LT's Update, label propagation), which would cut a vertex of L_max off
from the L_max edges that nobody inspects; for them the gathered edges
contract L_max to its root (``Plan.contract``).

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
    """Run ``plan`` on ``graph`` (already on ``backend``); returns (roots,
    forest_src, forest_dst).  ``roots[v]`` is the root of v's tree (for
    min-rooted variants the smallest id of its component); forest arrays
    have one slot per vertex, -1 where no edge was recorded."""
    return _run(graph, plan, backend, forest, stats, seed, backend.finalize)


def components(graph, plan: Plan, backend, *, stats: Stats | None = None, seed: int = 0):
    """Run ``plan`` on ``graph`` to (k, labels): labels 0..k-1 numbered as
    scipy numbers them (k may be a 0-d device array; ``int(k)`` reads it).

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
