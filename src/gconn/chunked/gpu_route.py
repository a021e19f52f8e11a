"""Whether a GPU run streams host edges through ``gconn.chunked.gpu_union``
instead of building a resident graph (issue 11): the one decision the API
asks for, before any Graph is built.

* Raw host edges -- ``(src, dst)`` NumPy integer arrays (memory-mapped
  ones included), an ``(m, 2)`` array, a ``.gcb``/``.npy`` path, an
  iterator of ``(src, dst)`` chunks -- stream whenever the variant is
  union-find without sampling, the automatic choice included: those need
  only the edge list, and copying it in overlapped chunks is never slower
  than copying it whole first.
* A text edge list that ``gconn.io.chunks.of_file`` reads in chunks
  (integer ids; ``source=``/``target=`` columns included) streams under
  the same condition: it is parsed chunk by chunk on the host while the
  GPU copies and unites the chunks before, so host memory stays
  O(n + chunk), not O(m).  Any other file, or a variant that needs the
  graph, is loaded whole.
* A host ``Graph`` or SciPy sparse matrix streams when the automatic
  choice for it is union-find without sampling (it has no adjacency
  yet): a matrix's CSR as it is, only its column ids copied, each entry's
  row found on the device.
* Any host input (a ``Graph``, a SciPy sparse matrix) whose resident
  arrays would not fit the device memory budget (``device_memory=`` or ``GCONN_DEVICE_MEMORY``, never more than
  what is free) streams with a union-find variant: the requested finish
  when it is one, else :data:`STREAM_VARIANT`.  ``Stats.streamed`` says so.

>>> import numpy as np
>>> raw_edges((np.array([0, 1]), np.array([1, 2]))) is not None
True
>>> raw_edges(([0, 1], [1, 2])) is None    # lists are built as a Graph
True
"""
from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from gconn import design
from gconn.design import Plan, Variant
from gconn.graph import Graph
from gconn.pipeline.stats import Stats

#: the variant of an automatic choice that streams
STREAM_VARIANT = "none+union-async+find-halve"


def _int_array(a) -> bool:
    # uint64 ids may not fit int64: the resident path says which one
    return isinstance(a, np.ndarray) and a.ndim == 1 and (
        a.dtype.kind == "i" or (a.dtype.kind == "u" and a.dtype.itemsize < 8))


def raw_edges(obj):
    """``obj`` as a stream source when it is raw host edges, else None."""
    if isinstance(obj, tuple) and len(obj) == 2 and all(_int_array(a) for a in obj):
        return obj
    if isinstance(obj, np.ndarray) and obj.ndim == 2 and obj.shape[1] == 2 and obj.shape[0] != 2 \
            and _int_array(obj[:, 0]):
        return obj
    if isinstance(obj, (str, os.PathLike)) and os.fspath(obj).endswith((".gcb", ".npy")):
        return obj
    if isinstance(obj, Iterator):
        return obj
    return None


def _edge_list(info):
    """The chunks of a text edge list that streams (``info`` its
    :class:`~gconn.io.FileInfo`), else None."""
    from gconn.io.chunks import of_file
    if info is None or info.format != "edgelist":
        return None
    edges = of_file(info)
    return None if isinstance(edges, str) else edges


def _asked(algorithm, problem: str, params: dict) -> Variant:
    """The variant asked for; the automatic choice is :data:`STREAM_VARIANT`."""
    design.check_param_names(params)
    auto = algorithm is None or (isinstance(algorithm, str) and algorithm == "auto")
    return Variant.parse(STREAM_VARIANT if auto else algorithm, problem)


def _edges_only(v: Variant) -> bool:
    """Whether ``v`` reads only the edge list (union-find without sampling)."""
    return v.sampling == "none" and v.is_union_find


def _host_matrix(obj) -> bool:
    return type(obj).__module__.startswith("scipy.sparse") and hasattr(obj, "tocsr")


def _resident_bytes(obj, plan: Plan, forest: bool) -> int:
    """Device bytes of a resident run: the graph's arrays (COO and CSR)
    and what the plan allocates beside them."""
    if isinstance(obj, Graph):
        n, m, ib = obj.n, obj.m_input, obj.id_dtype.itemsize
        # only the form the plan reads goes to the device (gconn.graph's forms)
        arrays = 2 * m * ib if plan.needs == "edges" else (n + 1) * 8 + 2 * m * ib
        return arrays + plan.device_bytes(n, m, ib, 8, forest, 1)
    if isinstance(obj, (str, os.PathLike)):
        size = os.path.getsize(obj)
        return 2 * size + plan.device_bytes(0, size // 8, 4, 8, forest, 1)
    if isinstance(obj, tuple):
        m, ib = obj[0].size, max(obj[0].itemsize, 4)
    else:
        m, ib = obj.shape[0], max(obj.itemsize, 4)
    # n <= 2m; indptr, indices (2m), src, dst
    return 2 * m * 8 + 4 * m * ib + plan.device_bytes(2 * m, m, ib, 8, forest, 1)


def _stream_variant(v: Variant, problem: str) -> Variant:
    if v.is_union_find and (problem == "cc" or v.root_based):
        return Variant("none", v.finish, v.find, v.splice)
    return Variant.parse(STREAM_VARIANT, problem)


def _graph_edges(graph: Graph):
    """What of a host graph streams: a matrix's CSR as it is (the rows of
    its entries are found on the device), else the edge list the graph
    holds (each edge once where the canonical form is built)."""
    from gconn.chunked.gpu_union import HostEdges
    f = graph._forms
    if "input-csr" in f and not ("edges" in f or "canonical" in f):
        return HostEdges.of_csr(*f["input-csr"], graph.n)
    return graph.edges()


def run(graph, be, algorithm, problem: str, params: dict, *, forest: bool, device_memory, return_stats: bool,
        info=None, relabel=False):
    """Stream ``graph`` on the GPU backend ``be`` when it should (see the
    module docstring): ``(plan, stats, roots, forest_src, forest_dst)`` on
    the device, the labels' host memory (:class:`~gconn.backends.gpu.staging.Landing`,
    or None) and ``settle``, or None to take the resident path.  ``info``
    is a file's :class:`~gconn.io.FileInfo` (a text edge list streams by its dialect).
    ``relabel="auto"``: ids found sparse before the arrays are sized by
    them give None (the resident route relabels them).

    The results may still be in the making: work queued after them on the
    current stream follows them, and ``settle()``, to be called once that
    work has been waited for, raises the input's errors (see
    :meth:`gconn.chunked.gpu_union.Streamer.feed`)."""
    if be.NAME != "gpu":
        return None
    if _host_matrix(graph):
        # as a lazy Graph (its CSR kept as it is): streamed when it does not fit
        graph = Graph.from_scipy(graph)
    src = raw_edges(graph)
    text = src is None and isinstance(graph, (str, os.PathLike))
    if src is None and not text and not (isinstance(graph, Graph) and not graph.on_gpu):
        return None
    from gconn.chunked import gpu_union as stream
    asked = _asked(algorithm, problem, params)
    edges_only = _edges_only(asked)
    if text:
        src = _edge_list(info) if edges_only else None
        if src is None:
            return None
    limit = stream.budget(device_memory)
    chosen = False
    if isinstance(graph, Graph) and algorithm in (None, "auto"):
        # a host graph: the automatic choice it would get resident (no
        # adjacency on it yet: union-find over its edges, which stream; a
        # variant asked for by name runs resident, with its phases' Stats)
        asked = design.choose(graph, problem, backend="gpu", streamed=True)
        chosen = edges_only = _edges_only(asked)
    if src is not None and edges_only or chosen:
        v = asked.with_params(**params)
    elif isinstance(graph, Iterator) or _resident_bytes(graph, Plan.of(asked), forest) > limit:
        v = _stream_variant(asked, problem)     # sampling options do not apply to it
    else:
        return None
    if isinstance(graph, Graph):
        src = _graph_edges(graph)
    plan = Plan.of(v)
    # a file's declared vertex count (EdgeChunks.n) keeps its isolated vertices
    n = graph.n if isinstance(graph, Graph) else getattr(src, "n", None)
    st = stream.Streamer(plan, n=n, forest=forest, limit=limit, land=not forest, sparse=relabel == "auto")
    try:
        st.feed(src if isinstance(src, stream.HostEdges) else stream.HostEdges(src), settle=False)
    except stream.SparseIds:
        return None     # sparse ids under relabel="auto": the resident route relabels them
    except stream.WiderIds:
        if not text:
            raise
        return None     # a file's ids outgrow int32 after its first chunk: it is loaded whole
    roots, fa, fb, n = st.result()
    if isinstance(graph, Graph) and roots.dtype != graph.id_dtype:
        # labels in the graph's id type, as the resident path gives them
        roots, fa, fb = (a.astype(graph.id_dtype) for a in (roots, fa, fb))
    stats = None
    if return_stats:
        stats = Stats(variant=plan.name, backend=be.NAME, n=n, m=st.edges, streamed=True, chunks=st.chunks,
                      chunk_edges=st.chunk_edges)
        stats.phase_times["stream"] = st.seconds
        stats.edge_inspections["finish"] = st.edges
    return plan, stats, roots, fa, fb, st.landing, st.settle
