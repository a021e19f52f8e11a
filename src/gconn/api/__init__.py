"""Public entry points: a call is described (:mod:`gconn.inputs`), routed (:mod:`gconn.api.dispatch`),
and its result shaped here."""
from __future__ import annotations

import importlib

import numpy as np

from gconn import design
from gconn.api import dispatch
from gconn.inputs.adjacency import strong_requested
from gconn.api.dispatch import Call
from gconn.graph import relabel_option
from gconn.api.incremental import IncrementalConnectivity  # noqa: F401 -- part of the API, beside the static calls
from gconn.api.dynamic import DynamicConnectivity  # noqa: F401
from gconn.inputs import describe
from gconn.inputs import labels_table, output_option
from gconn.errors import note

_out = dispatch.out_array


def _run(graph, call, source, target):
    """The call's outcome and its input (a ``Source``); the stats record the input's kind and the
    guesses made reading it, each warned (:class:`gconn.InputNote`)."""
    src = describe(graph, source=source, target=target)
    out = dispatch.run(src, call)
    notes = list(src.notes) + list(src.read_notes)
    note(notes, stacklevel=4)
    if out.stats is not None:
        out.stats.input = {"kind": src.kind, "notes": notes}
        if src.kind == "file":
            out.stats.input.update(format=src.file.format, decided_by=src.file.how)
            if src.file.dialect is not None:
                out.stats.input["dialect"] = src.file.dialect.describe()
    return out, src


def connected_components(graph=None, directed=True, connection="weak", return_labels=True, *, csgraph=None,
                         algorithm="auto", backend="auto", compact=True, return_stats=False, seed=0, relabel=False,
                         source=None, target=None, output="array", device_memory=None, devices=None, **params):
    """Connected components, scipy-compatible: ``(n_components, labels)``, labels 0..k-1 numbered
    as ``scipy.sparse.csgraph.connected_components`` numbers them (``compact=False``: each
    component's smallest id); ``return_stats=True`` appends a :class:`~gconn.pipeline.stats.Stats`.

    ``directed``, ``connection``, ``return_labels`` and ``csgraph=`` are SciPy's
    (``connection='strong'``: strongly connected components, :mod:`gconn.api.scc`); for SciPy's
    input rules exactly, use :mod:`gconn.integrations.csgraph`.
    ``relabel=True`` (edge arrays, tables, files) counts only the ids that occur, ``"auto"`` where
    they are sparse; the result is then ``(n_components, labels, ids)``, ``labels[i]`` the component
    of input id (or name) ``ids[i]``.  ``source=``/``target=`` name the edge columns of a table or
    file (default: a pair named ``src``/``dst``, ``source``/``target``, ... else the first two).
    ``device_memory`` (bytes or e.g. ``"4GB"``; default ``GCONN_DEVICE_MEMORY``, else all free) bounds
    the GPU's use: larger host graphs go in chunks.
    ``output="pandas"`` or ``"polars"`` returns ``(n_components, table)`` (``vertex``, ``component``).
    ``devices=[0, 1]`` (or ``"all"``) shares host edges among those GPUs, each sending its part in chunks over
    its own link (:mod:`gconn.chunked.devices`); ``device_memory`` then bounds each one.

    >>> import gconn
    >>> gconn.connected_components(([0, 2], [1, 3]), backend="cpu")
    (2, array([0, 0, 1, 1], dtype=int32))
    >>> gconn.connected_components(([0, 1, 2], [1, 2, 1]), connection="strong", backend="cpu")
    (2, array([1, 0, 0], dtype=int32))
    >>> k, labels, ids = gconn.connected_components(([7, 3000000000], [9, 5]), backend="cpu",
    ...                                             relabel=True)
    >>> k, labels.tolist(), ids.tolist()
    (2, [0, 1, 1, 0], [5, 7, 9, 3000000000])
    >>> import pandas as pd
    >>> edges = pd.DataFrame({"a": ["x", "y", "p"], "b": ["y", "z", "q"]})
    >>> k, labels, names = gconn.connected_components(edges, backend="cpu", relabel=True)
    >>> k, labels.tolist(), names.tolist()
    (2, [0, 0, 1, 1, 1], ['p', 'q', 'x', 'y', 'z'])
    >>> k, table = gconn.connected_components(edges, backend="cpu", output="pandas")
    >>> table.to_dict("list")
    {'vertex': ['p', 'q', 'x', 'y', 'z'], 'component': [0, 0, 1, 1, 1]}
    """
    if graph is not None and csgraph is not None:
        raise TypeError("connected_components() takes the graph once, as graph (first argument) or csgraph=, "
                        "not both")
    if graph is None and csgraph is None:
        raise TypeError("connected_components() needs a graph: the first argument (or csgraph=) is None")
    graph = csgraph if graph is None else graph
    if strong_requested(directed, connection):
        if params or not design.is_auto(algorithm) or relabel is not False or output != "array" \
                or source is not None or target is not None:
            raise TypeError("algorithm=, relabel=, source=, target=, output= and variant options apply to "
                            "undirected components; strong components have one method per backend (see gconn.api.scc)")
        from gconn.api.scc import strong_components     # lazily: SciPy's and NetworkX's drop-ins load it
        return strong_components(graph, backend=backend, compact=compact, return_labels=return_labels,
                                 return_stats=return_stats)
    relabel = relabel_option(relabel)
    table = output_option(output, return_labels)
    numbered = compact or not return_labels
    call = Call("cc", backend, algorithm, params, relabel, numbered, return_stats, seed, device_memory, table,
                devices=devices)
    if call.plain and relabel is False and device_memory is None:
        again = dispatch.replay(graph, backend, algorithm, numbered, seed)
        if again is not None:
            return again if return_labels else again[0]
    out, src = _run(graph, call, source, target)
    k, labels = out.result
    labels = _out(labels, out.on_gpu, out.landing)
    if out.settle is not None:
        out.settle()        # the labels have been waited for: now the input's errors
    lone = src.lone_zero(labels, call.n, relabel) if out.nodes is None else None
    if lone is not None:
        note([lone])
        if out.stats is not None:
            out.stats.input["notes"].append(lone)
    result = (int(k), labels) if return_labels else (int(k),)
    if (relabel is not False and return_labels) or table:
        xp = importlib.import_module("cupy") if out.on_gpu else np
        ids = xp.arange(labels.size, dtype=xp.int64) if out.nodes is None else out.nodes
        if not compact and out.nodes is not None:
            labels = ids[labels]
        result = (int(k), labels_table(output, ids, labels)) if table else (int(k), labels, ids)
    if return_stats:
        result = result + (out.stats,)
    return result if len(result) > 1 else result[0]


def spanning_forest(graph, *, algorithm="auto", backend="auto", return_stats=False, seed=0, relabel=False,
                    source=None, target=None, device_memory=None, devices=None, **params):
    """A spanning forest: ``(src, dst)`` arrays of n - k input edges, a tree on every component, in
    input ids (or names).  Any root-based variant works (``gconn.variants("forest")``); the other
    options (``devices=`` among them) are as in :func:`connected_components`.

    >>> import gconn
    >>> src, dst = gconn.spanning_forest(([0, 1, 0], [1, 2, 2]), backend="cpu")
    >>> len(src)
    2
    """
    if graph is None:
        raise TypeError("spanning_forest() needs a graph: the first argument is None")
    relabel = relabel_option(relabel)
    call = Call("forest", backend, algorithm, params, relabel, True, return_stats, seed, device_memory,
                devices=devices)
    out, _ = _run(graph, call, source, target)
    fa, fb = (_out(a, out.on_gpu) for a in out.result)
    if out.settle is not None:
        out.settle()
    if relabel is not False and out.nodes is not None:
        fa, fb = out.nodes[fa], out.nodes[fb]
    return (fa, fb, out.stats) if return_stats else (fa, fb)

