"""gconn as a NetworkX backend: ``nx.connected_components(G, backend="gconn")``.

Installing gconn registers the backend through the ``networkx.backends``
entry point, so the calls below run on gconn either with ``backend="gconn"``
or, for every call, after ``nx.config.backend_priority = ["gconn"]``:
connected components, weakly connected components, their counts,
``is_connected``, ``is_weakly_connected``, ``node_connected_component``,
``is_forest`` and ``is_tree``.

A NetworkX graph is converted once to a :class:`ConvertedGraph` (node labels
mapped to 0..n-1); NetworkX keeps it in ``G.__networkx_cache__`` and drops
it when ``G`` changes through its methods, so repeated calls on the same
graph skip the conversion.  gconn runs on the CPU unless
``nx.config.backends.gconn.backend`` says ``"auto"`` or ``"gpu"``.

>>> import networkx as nx
>>> from gconn.nx_backend import BackendInterface, ConvertedGraph
>>> G = ConvertedGraph.from_networkx(nx.Graph([("a", "b"), ("c", "d")]))
>>> sorted(sorted(c) for c in BackendInterface.connected_components(G))
[['a', 'b'], ['c', 'd']]
"""
from __future__ import annotations

from itertools import chain

import networkx as nx
import numpy as np

from _nx_gconn import get_info

from . import Graph, connected_components as _gconn_components

_BACKENDS = ("auto", "cpu", "gpu")
_INT32_LIMIT = 2**31
# Integer node labels spanning at most this many times n get an array lookup
# table instead of a dict: the table's memory stays proportional to n.
_TABLE_SPREAD = 4


class ConvertedGraph:
    """The structure of a NetworkX graph, as the gconn backend holds it.

    Node ``i`` is ``labels[i]`` (``G``'s node order); ``src``/``dst`` hold
    every NetworkX edge exactly once as node indices (each key of a
    multigraph, self loops included), so ``number_of_edges`` matches
    NetworkX.  Attributes are not carried over: no implemented function
    reads them.

    >>> import networkx as nx
    >>> H = ConvertedGraph.from_networkx(nx.MultiGraph([(1, 2), (1, 2), (3, 3)]))
    >>> H, H.number_of_edges()
    (ConvertedGraph(n=3, edges=3, multigraph), 3)
    """

    __networkx_backend__ = "gconn"

    def __init__(self, labels: np.ndarray, src: np.ndarray, dst: np.ndarray, *,
                 directed: bool, multigraph: bool, graph: dict | None = None):
        self.labels = labels
        self.src = src
        self.dst = dst
        self.directed = directed
        self.multigraph = multigraph
        self.graph = {} if graph is None else graph
        # NetworkX caches this graph's own conversions (back to networkx) here.
        self.__networkx_cache__ = {}
        self._gconn = None
        self._index = None

    @classmethod
    def from_networkx(cls, G, *, keep_graph_attrs: bool = False) -> "ConvertedGraph":
        """Convert a NetworkX graph of any of the four classes (or a view).

        >>> import networkx as nx
        >>> H = ConvertedGraph.from_networkx(nx.path_graph(["a", "b", "c"]))
        >>> H.labels.tolist(), H.src.tolist(), H.dst.tolist()
        (['a', 'b', 'c'], [0, 1], [1, 2])
        """
        adj = G._adj
        multigraph = G.is_multigraph()
        if not isinstance(adj, dict):
            # A graph view filters as it iterates, and its len() may count
            # what the filter drops: take what iteration gives.
            adj = {u: {v: list(keys) if multigraph else None for v, keys in nbrs.items()}
                   for u, nbrs in adj.items()}
        n = len(adj)
        dt = np.int32 if n < _INT32_LIMIT else np.int64
        labels, positions = _node_positions(list(adj), dt)
        degrees = np.fromiter(map(len, adj.values()), np.int64, n)
        total = int(degrees.sum())
        dst = positions(chain.from_iterable(adj.values()), total)
        src = np.repeat(np.arange(n, dtype=dt), degrees)
        keys = None
        if multigraph:
            keys = np.fromiter(map(len, chain.from_iterable(nbrs.values() for nbrs in adj.values())),
                               np.int64, total)
        if not G.is_directed():
            # An undirected edge sits in both endpoints' neighbour dicts.
            once = src <= dst
            src, dst = src[once], dst[once]
            keys = keys[once] if keys is not None else None
        if keys is not None:
            src, dst = np.repeat(src, keys), np.repeat(dst, keys)
        return cls(labels, src, dst, directed=G.is_directed(), multigraph=multigraph,
                   graph=dict(G.graph) if keep_graph_attrs else None)

    def to_networkx(self):
        """The same nodes and edges as a NetworkX graph of the original class
        (without attributes).

        >>> import networkx as nx
        >>> H = ConvertedGraph.from_networkx(nx.DiGraph([(2, 1)])).to_networkx()
        >>> type(H).__name__, list(H.edges)
        ('DiGraph', [(2, 1)])
        """
        cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
               (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
        H = cls[self.directed, self.multigraph]()
        H.graph.update(self.graph)
        H.add_nodes_from(self.labels.tolist())
        H.add_edges_from(zip(self.labels[self.src].tolist(), self.labels[self.dst].tolist()))
        return H

    # -- what NetworkX's dispatch and decorators ask of a graph ------------
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    def number_of_nodes(self) -> int:
        return len(self)

    def number_of_edges(self) -> int:
        """Edges as NetworkX counts them: each key of a multigraph, each
        direction of a digraph, and self loops."""
        return int(self.src.shape[0])

    def __repr__(self) -> str:
        kind = ", ".join(k for k, on in (("directed", self.directed), ("multigraph", self.multigraph)) if on)
        return f"ConvertedGraph(n={len(self)}, edges={self.number_of_edges()}{', ' + kind if kind else ''})"

    # -- for the algorithms --------------------------------------------------
    def gconn_graph(self) -> Graph:
        """The undirected simple :class:`gconn.Graph` (built on first use)."""
        if self._gconn is None:
            self._gconn = Graph.from_edges(self.src, self.dst, n=len(self))
        return self._gconn

    def position(self, node) -> int:
        """Index of ``node``; KeyError (as NetworkX raises) when it is absent."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.labels.tolist())}
        return self._index[node]


def _node_positions(nodes: list, dt):
    """Node labels as an array, and a function mapping an iterator of
    ``count`` labels to their positions in ``nodes``.

    Python-int labels in a narrow range (0..n-1 above all) use an array
    lookup table.  Other labels are found by their hash when no two nodes
    share one (a label equal to a node has the node's hash), with NumPy
    doing the search; a dict is the fallback.
    """
    n = len(nodes)
    if n and set(map(type, nodes)) == {int}:
        try:
            ints = np.fromiter(nodes, np.int64, n)
        except OverflowError:
            ints = None
        if ints is not None:
            lo, hi = int(ints.min()), int(ints.max())
            if hi - lo < _TABLE_SPREAD * n:
                table = np.empty(hi - lo + 1, dt)
                table[ints - lo] = np.arange(n, dtype=dt)

                def from_table(values, count):
                    return table[np.fromiter(values, np.int64, count) - lo]
                return ints, from_table
    labels = np.fromiter(nodes, object, n)
    hashes = np.fromiter(map(hash, nodes), np.int64, n)
    by_hash = np.argsort(hashes).astype(dt)
    sorted_hashes = hashes[by_hash]

    def from_dict(values, count):
        index = {v: i for i, v in enumerate(nodes)}
        return np.fromiter(map(index.__getitem__, values), dt, count)

    if n > 1 and (sorted_hashes[1:] == sorted_hashes[:-1]).any():
        return labels, from_dict

    def from_hash(values, count):
        wanted = np.fromiter(map(hash, values), np.int64, count)
        at = np.minimum(np.searchsorted(sorted_hashes, wanted), max(n - 1, 0))
        if count and not (sorted_hashes[at] == wanted).all():
            raise KeyError("a neighbour that is not a node of the graph")
        return by_hash[at]
    return labels, from_hash


def _options() -> tuple[str, str]:
    """(backend, algorithm) from ``nx.config.backends.gconn``."""
    cfg = getattr(nx.config.backends, "gconn", None)
    if cfg is None:  # the backend is in use without its entry points installed
        cfg = get_info()["default_config"]
    backend, algorithm = cfg["backend"], cfg["algorithm"]
    if backend not in _BACKENDS:
        raise ValueError(f"nx.config.backends.gconn.backend must be one of {', '.join(_BACKENDS)}; "
                         f"got {backend!r}")
    return backend, algorithm


def _require(G: ConvertedGraph, directed: bool) -> None:
    if G.directed != directed:
        raise nx.NetworkXNotImplemented(f"not implemented for {'un' if directed else ''}directed type")


def _count(G: ConvertedGraph) -> int:
    backend, algorithm = _options()
    return _gconn_components(G.gconn_graph(), backend=backend, algorithm=algorithm, return_labels=False)


def _labels(G: ConvertedGraph) -> tuple[int, np.ndarray]:
    backend, algorithm = _options()
    return _gconn_components(G.gconn_graph(), backend=backend, algorithm=algorithm)


def _component_sets(G: ConvertedGraph):
    """A fresh set of nodes per component, in the order NetworkX yields them:
    gconn numbers components by their first vertex, which is G's node order."""
    k, labels = _labels(G)
    order = np.argsort(labels, kind="stable")
    ends = np.cumsum(np.bincount(labels, minlength=k)).tolist()
    members = G.labels[order].tolist()
    return _sets(members, ends)


def _sets(members: list, ends: list):
    start = 0
    for end in ends:
        yield set(members[start:end])
        start = end


# NetworkX's messages for the null graph.
_UNDEFINED = "Connectivity is undefined for the null graph."
_NO_NODES = "G has no nodes."


def _not_null(G: ConvertedGraph, message: str) -> None:
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept(message)


class BackendInterface:
    """The object behind the ``networkx.backends`` entry point ``gconn``.

    >>> import networkx as nx
    >>> G = BackendInterface.convert_from_nx(nx.path_graph(4))
    >>> BackendInterface.is_tree(G), BackendInterface.number_connected_components(G)
    (True, 1)
    """

    @staticmethod
    def convert_from_nx(graph, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None) -> ConvertedGraph:
        """NetworkX graph -> :class:`ConvertedGraph` (attributes are not needed)."""
        if not isinstance(graph, nx.Graph):
            raise TypeError(f"the gconn backend converts networkx graphs; argument {graph_name!r} "
                            f"of {name} is a {type(graph).__name__}")
        return ConvertedGraph.from_networkx(graph, keep_graph_attrs=bool(preserve_graph_attrs))

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """Results go back unchanged; a :class:`ConvertedGraph` becomes a NetworkX graph."""
        return obj.to_networkx() if isinstance(obj, ConvertedGraph) else obj

    @staticmethod
    def can_run(name, args, kwargs) -> bool:
        """Every implemented function runs on any graph with any arguments."""
        return True

    @staticmethod
    def should_run(name, args, kwargs) -> bool:
        """Always: listing gconn in ``backend_priority`` asks for it, and the
        conversion is paid once per graph (NetworkX caches it)."""
        return True

    # -- undirected -----------------------------------------------------------
    @staticmethod
    def connected_components(G):
        _require(G, directed=False)
        return _component_sets(G)

    @staticmethod
    def number_connected_components(G) -> int:
        _require(G, directed=False)
        return _count(G)

    @staticmethod
    def is_connected(G) -> bool:
        _require(G, directed=False)
        _not_null(G, _UNDEFINED)
        return _count(G) == 1

    @staticmethod
    def node_connected_component(G, n) -> set:
        _require(G, directed=False)
        i = G.position(n)
        _, labels = _labels(G)
        return set(G.labels[np.flatnonzero(labels == labels[i])].tolist())

    # -- directed -------------------------------------------------------------
    @staticmethod
    def weakly_connected_components(G):
        _require(G, directed=True)
        return _component_sets(G)

    @staticmethod
    def number_weakly_connected_components(G) -> int:
        _require(G, directed=True)
        return _count(G)

    @staticmethod
    def is_weakly_connected(G) -> bool:
        _require(G, directed=True)
        _not_null(G, _UNDEFINED)
        return _count(G) == 1

    # -- either: a spanning forest has n - k edges ----------------------------
    @staticmethod
    def is_forest(G) -> bool:
        _not_null(G, _NO_NODES)
        n, m = len(G), G.number_of_edges()
        return m < n and m == n - _count(G)

    @staticmethod
    def is_tree(G) -> bool:
        _not_null(G, _NO_NODES)
        return G.number_of_edges() == len(G) - 1 and _count(G) == 1
