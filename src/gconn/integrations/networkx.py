"""gconn as a NetworkX backend: ``nx.connected_components(G, backend="gconn")``.

Registered through the ``networkx.backends`` entry point: the functions
of ``_nx_gconn`` run on gconn with ``backend="gconn"`` or after
``nx.config.backend_priority = ["gconn"]``.  A graph is converted once to a
:class:`ConvertedGraph`, which NetworkX caches until ``G`` changes.  gconn
runs on the CPU unless ``nx.config.backends.gconn.backend`` says "auto" or "gpu".
"""
from __future__ import annotations

from functools import partial
from itertools import chain, islice

import networkx as nx
import numpy as np
from numba import njit

from _nx_gconn import get_info

from gconn import Graph, connected_components as _gconn_components

_BACKENDS = ("auto", "cpu", "gpu")
_INT32_LIMIT = 2**31
# integer node labels spanning at most this many times n get an array lookup table
_TABLE_SPREAD = 4


class ConvertedGraph:
    """A NetworkX graph's structure: node ``i`` is ``labels[i]``; ``src``/``dst`` hold every edge
    once as node indices (each multigraph key, self loops included); attributes are not kept.

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
        self.__networkx_cache__ = {}
        self._gconn = None
        self._successors = None
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
            # a view's len() may count what its filter drops: take what iteration gives
            adj = {u: {v: list(keys) if multigraph else None for v, keys in nbrs.items()}
                   for u, nbrs in adj.items()}
        n = len(adj)
        dt = np.int32 if n < _INT32_LIMIT else np.int64
        degrees = np.fromiter(map(len, adj.values()), np.int64, n)
        total = int(degrees.sum())
        labels, dst = _neighbour_positions(list(adj), adj, total, dt)
        src = np.repeat(np.arange(n, dtype=dt), degrees)
        once = slice(None) if G.is_directed() else src <= dst
        src, dst = src[once], dst[once]
        if multigraph:
            keys = np.fromiter(map(len, chain.from_iterable(nbrs.values() for nbrs in adj.values())),
                               np.int64, total)[once]
            src, dst = np.repeat(src, keys), np.repeat(dst, keys)
        return cls(labels, src, dst, directed=G.is_directed(), multigraph=multigraph,
                   graph=dict(G.graph) if keep_graph_attrs else None)

    def to_networkx(self):
        """The same nodes and edges as a NetworkX graph of the original class."""
        cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
               (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
        H = cls[self.directed, self.multigraph]()
        H.graph.update(self.graph)
        H.add_nodes_from(self.labels.tolist())
        H.add_edges_from(zip(self.labels[self.src].tolist(), self.labels[self.dst].tolist()))
        return H

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    number_of_nodes = __len__

    def number_of_edges(self) -> int:
        return int(self.src.shape[0])

    def __repr__(self) -> str:
        kind = ", ".join(k for k, on in (("directed", self.directed), ("multigraph", self.multigraph)) if on)
        return f"ConvertedGraph(n={len(self)}, edges={self.number_of_edges()}{', ' + kind if kind else ''})"

    def gconn_graph(self) -> Graph:
        """The undirected simple :class:`gconn.Graph` (built on first use)."""
        if self._gconn is None:
            self._gconn = Graph.from_edges(self.src, self.dst, n=len(self))
        return self._gconn

    def successor_matrix(self):
        """The arcs as a SciPy CSR matrix, each row reversed: gconn's CPU Tarjan takes a row from
        its end, so components complete in NetworkX's order.

        >>> import networkx as nx
        >>> H = ConvertedGraph.from_networkx(nx.DiGraph([(0, 1), (0, 2), (2, 0)]))
        >>> A = H.successor_matrix()
        >>> A.indptr.tolist(), A.indices.tolist()
        ([0, 2, 2, 3], [2, 1, 0])
        """
        if self._successors is None:
            import scipy.sparse as sp
            n, src, dst = len(self), self.src, self.dst
            if src.size and (src[1:] < src[:-1]).any():
                by_row = np.argsort(src, kind="stable")
                src, dst = src[by_row], dst[by_row]
            indptr = np.zeros(n + 1, np.int64)
            np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
            mirror = indptr[src] + indptr[src + 1] - 1 - np.arange(src.size)
            self._successors = sp.csr_matrix((np.ones(src.size, bool), dst[mirror], indptr), shape=(n, n))
        return self._successors

    def position(self, node) -> int:
        """Index of ``node``; KeyError (as NetworkX raises) when it is absent."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.labels.tolist())}
        return self._index[node]


# Fibonacci hashing: multiply by 2^64 / golden ratio, keep the top bits
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# rows, and entries per row, sampled by _mostly_themselves
_SAMPLE_ROWS = 64
_SAMPLE_ENTRIES = 16


@njit(cache=True)
def _build_table(keys):
    """An open-addressing table of ``keys`` -> positions; False when two keys are equal."""
    bits = 1
    while (1 << bits) < 2 * keys.size:
        bits += 1
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    # [slot, 0]: the key, [slot, 1]: its position (-1: empty); one cache line per probe
    table = np.empty((1 << bits, 2), np.int64)
    table[:, 1] = -1
    for i in range(keys.size):
        k = keys[i]
        s = np.int64((np.uint64(k) * _GOLDEN) >> shift)
        while table[s, 1] >= 0:
            if table[s, 0] == k:
                return table, False
            s = (s + 1) & mask
        table[s, 0] = k
        table[s, 1] = i
    return table, True


@njit(cache=True)
def _look_up(table, queries, out):
    """``out[j]``: the position of ``queries[j]`` in the table, -1 if absent."""
    mask = table.shape[0] - 1
    bits = 0
    while (1 << bits) < table.shape[0]:
        bits += 1
    shift = np.uint64(64 - bits)
    for j in range(queries.size):
        q = queries[j]
        s = np.int64((np.uint64(q) * _GOLDEN) >> shift)
        while True:
            at = table[s, 1]
            if at < 0 or table[s, 0] == q:
                out[j] = at
                break
            s = (s + 1) & mask
    return out


def _addresses(objects: np.ndarray) -> np.ndarray:
    """The addresses (CPython's ``id``) of an object array's items."""
    return np.frombuffer(objects, np.intp).astype(np.int64, copy=False)


# whether an object array's pointers are its items' ids (not on PyPy)
_PROBE = [object(), None]
_IDENTITY = _addresses(np.fromiter(_PROBE, object, 2)).tolist() == list(map(id, _PROBE))


def _neighbour_positions(nodes: list, adj: dict, total: int, dt):
    """Node labels as an array, and the node index of each of the ``total`` neighbour entries of
    ``adj``: by address when entries are mostly the node objects, else by table or hash."""
    n = len(nodes)
    neighbours = chain.from_iterable(adj.values())
    objects = np.fromiter(nodes, object, n)
    if not total:
        return objects, np.zeros(0, dt)
    if _IDENTITY:
        by_address, _ = _build_table(_addresses(objects))
        if _mostly_themselves(by_address, adj, nodes):
            entries = np.fromiter(neighbours, object, total)
            at = _look_up(by_address, _addresses(entries), np.empty(total, np.int64))
            copies = np.flatnonzero(at < 0)
            if copies.size:
                at[copies] = _by_value(nodes, iter(entries[copies].tolist()), copies.size)
            return objects, at.astype(dt, copy=False)
    if set(map(type, nodes)) == {int}:
        try:
            ints = np.fromiter(nodes, np.int64, n)
        except OverflowError:
            ints = None
        if ints is not None:
            lo, hi = int(ints.min()), int(ints.max())
            if hi - lo < _TABLE_SPREAD * n:
                table = np.empty(hi - lo + 1, dt)
                table[ints - lo] = np.arange(n, dtype=dt)
                return objects, table[np.fromiter(neighbours, np.int64, total) - lo]
    return objects, _by_value(nodes, neighbours, total).astype(dt, copy=False)


def _mostly_themselves(by_address, adj: dict, nodes: list) -> bool:
    """Whether most sampled neighbour entries are the node objects themselves."""
    step = max(len(nodes) // _SAMPLE_ROWS, 1)
    # a few entries per row: a hub's row alone could hold most of the graph
    sample = [v for u in nodes[::step] for v in islice(adj[u], _SAMPLE_ENTRIES)]
    if not sample:
        return True
    found = _look_up(by_address, _addresses(np.fromiter(sample, object, len(sample))),
                     np.empty(len(sample), np.int64))
    return 2 * int((found >= 0).sum()) >= len(sample)


def _by_value(nodes: list, values, count: int) -> np.ndarray:
    """Positions in ``nodes`` of ``count`` values: by hash when no two nodes share one, else a dict."""
    by_hash, unique = _build_table(np.fromiter(map(hash, nodes), np.int64, len(nodes)))
    if not unique:
        index = {v: i for i, v in enumerate(nodes)}
        return np.fromiter(map(index.__getitem__, values), np.int64, count)
    at = _look_up(by_hash, np.fromiter(map(hash, values), np.int64, count), np.empty(count, np.int64))
    if (at < 0).any():
        raise KeyError("a neighbour that is not a node of the graph")
    return at


def _options() -> tuple[str, str]:
    """(backend, algorithm) from ``nx.config.backends.gconn``."""
    cfg = getattr(nx.config.backends, "gconn", None)
    if cfg is None:  # entry points not installed
        cfg = get_info()["default_config"]
    backend, algorithm = cfg["backend"], cfg["algorithm"]
    if backend not in _BACKENDS:
        raise ValueError(f"nx.config.backends.gconn.backend must be one of {', '.join(_BACKENDS)}; "
                         f"got {backend!r}")
    return backend, algorithm


def _components(G: ConvertedGraph, strong: bool = False, return_labels: bool = True):
    """``(k, labels)`` or ``k`` of the weak or strong components (the configured algorithm: weak only)."""
    backend, algorithm = _options()
    if strong:
        return _gconn_components(G.successor_matrix(), connection="strong", backend=backend,
                                 return_labels=return_labels)
    return _gconn_components(G.gconn_graph(), backend=backend, algorithm=algorithm,
                             return_labels=return_labels)


def _count(G: ConvertedGraph, strong: bool = False) -> int:
    return _components(G, strong, return_labels=False)


def _component_sets(G: ConvertedGraph, strong: bool = False):
    """A fresh set of nodes per component in NetworkX's order (gconn numbers them in G's node order)."""
    k, labels = _components(G, strong)
    members = G.labels[np.argsort(labels, kind="stable")].tolist()
    ends = np.cumsum(np.bincount(labels, minlength=k)).tolist()
    return (set(members[a:b]) for a, b in zip([0, *ends], ends))


def _node_component(G: ConvertedGraph, n) -> set:
    i = G.position(n)
    _, labels = _components(G)
    return set(G.labels[np.flatnonzero(labels == labels[i])].tolist())


def _not_null(G: ConvertedGraph, message: str) -> None:
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept(message)


def _connected(G: ConvertedGraph, strong: bool = False) -> bool:
    _not_null(G, "Connectivity is undefined for the null graph.")
    return _count(G, strong) == 1


def _only(directed: bool, answer):
    """``answer`` as a backend function for directed or for undirected graphs only, as in NetworkX."""
    def call(G, *args, **kwargs):
        if G.directed != directed:
            raise nx.NetworkXNotImplemented(f"not implemented for {'un' if directed else ''}directed type")
        return answer(G, *args, **kwargs)
    return staticmethod(call)


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
        """Always, and should_run too: the conversion is paid once per graph (NetworkX caches it)."""
        return True

    should_run = can_run

    connected_components = _only(False, _component_sets)
    number_connected_components = _only(False, _count)
    is_connected = _only(False, _connected)
    node_connected_component = _only(False, _node_component)
    weakly_connected_components = _only(True, _component_sets)
    number_weakly_connected_components = _only(True, _count)
    is_weakly_connected = _only(True, _connected)
    strongly_connected_components = _only(True, partial(_component_sets, strong=True))
    number_strongly_connected_components = _only(True, partial(_count, strong=True))
    is_strongly_connected = _only(True, partial(_connected, strong=True))

    # -- either: a spanning forest has n - k edges ----------------------------
    @staticmethod
    def is_forest(G) -> bool:
        _not_null(G, "G has no nodes.")
        n, m = len(G), G.number_of_edges()
        return m < n and m == n - _count(G)

    @staticmethod
    def is_tree(G) -> bool:
        _not_null(G, "G has no nodes.")
        return G.number_of_edges() == len(G) - 1 and _count(G) == 1
