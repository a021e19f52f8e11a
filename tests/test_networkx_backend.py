"""gconn as a NetworkX backend (gconn.integrations.networkx), compared with NetworkX itself.

NetworkX's own test suite also runs against the backend in CI (.ci/nx-tests).
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import _nx_gconn
import gconn
from gconn.integrations.networkx import BackendInterface, ConvertedGraph

from conftest import NX_BACKENDS_EP as BACKENDS_EP, NX_INFO_EP as INFO_EP

REPO = Path(__file__).resolve().parents[1]
UNDIRECTED = ("connected_components", "number_connected_components", "is_connected",
              "node_connected_component")
STRONG = ("strongly_connected_components", "number_strongly_connected_components", "is_strongly_connected")
DIRECTED = ("weakly_connected_components", "number_weakly_connected_components", "is_weakly_connected") + STRONG
CLASSES = (nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph)


pytestmark = pytest.mark.usefixtures("nx_gconn")


# -- registration ------------------------------------------------------------
def test_entry_points_in_pyproject_resolve():
    tomllib = pytest.importorskip("tomllib")
    eps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]
    assert eps["networkx.backends"] == {"gconn": BACKENDS_EP}
    assert eps["networkx.backend_info"] == {"gconn": INFO_EP}
    iface = EntryPoint(name="gconn", value=BACKENDS_EP, group="networkx.backends").load()
    info = EntryPoint(name="gconn", value=INFO_EP, group="networkx.backend_info").load()()
    assert iface is BackendInterface
    assert info["backend_name"] == "gconn"
    # Every function the info advertises exists, and every one that exists is advertised.
    for name in info["functions"]:
        assert callable(getattr(iface, name)), name
    assert set(info["functions"]) == set(UNDIRECTED + DIRECTED + ("is_forest", "is_tree"))


def test_backend_info_imports_nothing_heavy():
    # `import networkx` calls get_info(); it must not pull in gconn or numpy.
    env = dict(os.environ, PYTHONPATH=str(Path(_nx_gconn.__file__).resolve().parents[1]))
    code = ("import sys, _nx_gconn; _nx_gconn.get_info(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('gconn', 'numpy', 'networkx')))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- differential against NetworkX on random graphs ------------------------------
def _copy(v):
    """An equal object that is not ``v`` itself where Python can make one
    (not for small ints, one-character strings and bools)."""
    return pickle.loads(pickle.dumps(v))


LABELS = st.one_of(st.integers(-5, 40), st.integers(10**6, 10**6 + 9), st.text("abc", max_size=2), st.tuples(st.integers(0, 3), st.text("xy", max_size=1)))


@st.composite
def graphs(draw, labels=LABELS):
    cls = draw(st.sampled_from(CLASSES))
    nodes = draw(st.lists(labels, max_size=25, unique=True))
    G = cls()
    G.add_nodes_from(nodes)
    if nodes:
        # Repeated pairs become multi-edges, (v, v) self loops; some nodes stay isolated.
        pairs = st.tuples(st.sampled_from(nodes), st.sampled_from(nodes))
        # Some edges name their ends by equal copies of the node objects.
        copies = st.booleans()
        G.add_edges_from((_copy(u) if cu else u, _copy(v) if cv else v)
                         for (u, v), cu, cv in draw(st.lists(st.tuples(pairs, copies, copies), max_size=40)))
    return G


def _ours(fn, G, *args):
    return getattr(nx, fn)(G, *args, backend="gconn")


def _theirs(fn, G, *args):
    return getattr(nx, fn)(G, *args, backend="networkx")


def _same_outcome(fn, G, *args):
    """Same value (and type) or the same exception as NetworkX."""
    try:
        expected = _theirs(fn, G, *args)
    except nx.NetworkXException as e:
        with pytest.raises(type(e)):
            _ours(fn, G, *args)
        return
    got = _ours(fn, G, *args)
    if fn.endswith("components") and not fn.startswith("number"):
        expected, got = list(expected), list(got)
        # Same components, yielded in the same order.
        assert got == expected
        assert all(type(c) is set for c in got)
    else:
        assert got == expected and type(got) is type(expected), (fn, got, expected)


@settings(max_examples=100, deadline=None)
@given(graphs())
def test_matches_networkx(G):
    for fn in UNDIRECTED[:-1] + DIRECTED + ("is_forest", "is_tree"):
        _same_outcome(fn, G)
    for v in list(G)[:5]:
        _same_outcome("node_connected_component", G, v)


@st.composite
def digraphs(draw):
    """Directed graphs with more arcs per node than graphs() draws, so
    that strong components of several nodes are common."""
    cls = draw(st.sampled_from([nx.DiGraph, nx.MultiDiGraph]))
    n = draw(st.integers(0, 40))
    names = draw(st.sampled_from([list(range(n)), [f"v{i}" for i in range(n)],
                                  [(i % 3, str(i)) for i in range(n)][::-1]]))
    G = cls()
    G.add_nodes_from(names)
    if n:
        arcs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.booleans())
        G.add_edges_from((names[a], _copy(names[b]) if copy else names[b])
                         for a, b, copy in draw(st.lists(arcs, max_size=3 * n)))
    return G


@settings(max_examples=150, deadline=None)
@given(digraphs())
def test_strong_matches_networkx(G):
    # Same components in the same order (the order NetworkX's Tarjan
    # completes them), same counts, same answers and exceptions.
    for fn in STRONG + ("weakly_connected_components",):
        _same_outcome(fn, G)


@settings(max_examples=60, deadline=None)
@given(graphs(labels=st.integers(0, 30)))
def test_matches_networkx_on_int_nodes(G):
    # Integer labels take the lookup-table path (0..n-1 in order above all).
    for fn in ("connected_components", "weakly_connected_components", "is_forest", "is_tree"):
        _same_outcome(fn, G)


LABEL_KINDS = {
    "range": list(range(50)),                          # 0..n-1 in order
    "reversed": list(range(49, -1, -1)),               # 0..n-1 reversed
    "shifted": list(range(1000, 1050)),
    "negative": list(range(-25, 25)),
    "spread": [i * 10**6 for i in range(50)],          # too spread out for a lookup table
    "huge": [2**70 + i for i in range(50)],            # beyond int64
    "numpy": [np.int64(i) for i in range(50)],         # not Python ints: kept as given
    "bools": [True, False] + list(range(2, 50)),       # equal to 1 and 0 but kept
    "str": [f"v{i}" for i in range(50)],
    "hash-clash": ["v", -1, -2] + list(range(47)),     # hash(-1) == hash(-2): dict lookup
}


@pytest.mark.parametrize("by_address", [True, False], ids=["addresses", "no-addresses"])
@pytest.mark.parametrize("edges_of", ["the nodes", "copies", "both"])
@pytest.mark.parametrize("kind", LABEL_KINDS)
def test_label_kinds(kind, edges_of, by_address, monkeypatch):
    # Edges added with the node objects themselves (found by address), with
    # equal copies (found by value), or half and half; and all found by
    # value, as where ids are not addresses (not CPython).
    from gconn.integrations import networkx as nx_backend
    monkeypatch.setattr(nx_backend, "_IDENTITY", by_address and nx_backend._IDENTITY)
    nodes = LABEL_KINDS[kind]
    rng = np.random.default_rng(7)
    G = nx.Graph()
    G.add_nodes_from(nodes)
    for i, (a, b) in enumerate(rng.integers(0, len(nodes), (40, 2)).tolist()):
        copy = edges_of == "copies" or (edges_of == "both" and i % 2)
        G.add_edge(*((_copy(nodes[a]), _copy(nodes[b])) if copy else (nodes[a], nodes[b])))
    got = list(nx.connected_components(G, backend="gconn"))
    assert got == list(nx.connected_components(G, backend="networkx"))
    # The graph's own node objects come back, never the copies.
    by_id = {id(v) for v in nodes}
    assert all(id(v) in by_id for c in got for v in c)
    assert sum(map(len, got)) == len(nodes)


def _half_copied(copied: int):
    """50 edges between 100 string nodes; ``copied`` of each edge's ends
    (0, 1 or 2) are equal copies of the node objects."""
    names = [f"node {i}" for i in range(100)]
    G = nx.Graph()
    G.add_nodes_from(names)
    for i in range(0, 99, 2):
        u, v = names[i], names[i + 1]
        G.add_edge(_copy(u) if copied == 2 else u, _copy(v) if copied else v)
    return G


@pytest.mark.parametrize("copied, by_value", [(0, []), (1, [50]), (2, [100])])
def test_neighbours_found_by_address_or_value(monkeypatch, copied, by_value):
    # Neighbour entries that are the node objects are found by address,
    # equal copies by value.
    from gconn.integrations import networkx as nx_backend
    counts = []
    real = nx_backend._by_value
    monkeypatch.setattr(nx_backend, "_by_value", lambda nodes, values, count: counts.append(count)
                        or real(nodes, values, count))
    assert nx.number_connected_components(_half_copied(copied), backend="gconn") == 50
    assert counts == by_value


@pytest.mark.parametrize("copied, by_address", [(0, True), (1, True), (2, False)])
def test_address_lookup_only_when_it_pays(copied, by_address):
    # With most entries copies, looking them up by address first is wasted.
    from gconn.integrations import networkx as nx_backend
    G = _half_copied(copied)
    nodes = list(G)
    table, _ = nx_backend._build_table(nx_backend._addresses(np.fromiter(nodes, object, len(nodes))))
    assert nx_backend._mostly_themselves(table, G._adj, nodes) is by_address


def test_labels_are_the_original_objects():
    a = ("x", 1)
    b = tuple(list(a))  # equal to `a` but another object; the graph holds `a`
    assert b == a and b is not a
    G = nx.Graph([(a, "z")])
    (comp,) = nx.connected_components(G, backend="gconn")
    assert any(v is a for v in comp) and not any(v is b for v in comp)


# -- NetworkX's semantics ------------------------------------------------------
@pytest.mark.parametrize("cls", CLASSES)
def test_null_graph(cls):
    G = cls()
    if G.is_directed():
        for kind in ("weakly", "strongly"):
            assert list(getattr(nx, f"{kind}_connected_components")(G, backend="gconn")) == []
            assert getattr(nx, f"number_{kind}_connected_components")(G, backend="gconn") == 0
            with pytest.raises(nx.NetworkXPointlessConcept, match="null graph"):
                getattr(nx, f"is_{kind}_connected")(G, backend="gconn")
    else:
        assert list(nx.connected_components(G, backend="gconn")) == []
        assert nx.number_connected_components(G, backend="gconn") == 0
        with pytest.raises(nx.NetworkXPointlessConcept, match="null graph"):
            nx.is_connected(G, backend="gconn")
    for fn in ("is_forest", "is_tree"):
        with pytest.raises(nx.NetworkXPointlessConcept, match="no nodes"):
            getattr(nx, fn)(G, backend="gconn")


@pytest.mark.parametrize("cls", CLASSES)
def test_wrong_direction_raises(cls):
    G = cls([(1, 2)])
    wrong = UNDIRECTED if G.is_directed() else DIRECTED
    for fn in wrong:
        args = (1,) if fn == "node_connected_component" else ()
        with pytest.raises(nx.NetworkXNotImplemented):
            _ours(fn, G, *args)
        # The backend checks too, for calls that reach it directly.
        with pytest.raises(nx.NetworkXNotImplemented, match="not implemented for"):
            getattr(BackendInterface, fn)(BackendInterface.convert_from_nx(G), *args)


@pytest.mark.parametrize("cls", [nx.DiGraph, nx.MultiDiGraph])
def test_strong_components_by_hand(cls):
    # 0 -> 1 <-> 2 -> 3 (self loop) and 4 <-> 5 twice, 6 isolated.
    G = cls([(0, 1), (1, 2), (2, 1), (2, 3), (3, 3), (4, 5), (5, 4), (4, 5)])
    G.add_node(6)
    got = list(nx.strongly_connected_components(G, backend="gconn"))
    assert got == [{3}, {1, 2}, {0}, {4, 5}, {6}]
    assert got == list(nx.strongly_connected_components(G, backend="networkx"))
    assert nx.number_strongly_connected_components(G, backend="gconn") == 5
    assert nx.is_strongly_connected(G, backend="gconn") is False
    G.add_edges_from([(3, 0), (1, 4), (5, 6), (6, 0)])
    assert nx.is_strongly_connected(G, backend="gconn") is True
    assert nx.number_strongly_connected_components(G, backend="gconn") == 1
    # One node, with or without a self loop, is strongly connected.
    assert nx.is_strongly_connected(cls([(7, 7)]), backend="gconn") is True
    H = cls()
    H.add_node("only")
    assert nx.is_strongly_connected(H, backend="gconn") is True


def test_strong_order_follows_adjacency_order():
    # NetworkX's depth-first search takes successors in insertion order: from
    # 0 it reaches 2 before 1 here, so {2} completes first.
    G = nx.DiGraph([(0, 2), (0, 1)])
    assert list(nx.strongly_connected_components(G, backend="gconn")) == [{2}, {1}, {0}]
    G = nx.DiGraph([(0, 1), (0, 2)])
    assert list(nx.strongly_connected_components(G, backend="gconn")) == [{1}, {2}, {0}]


def test_strong_ignores_the_undirected_algorithm(monkeypatch):
    # nx.config.backends.gconn.algorithm names an undirected variant.
    monkeypatch.setattr(nx.config.backends.gconn, "algorithm", "none+union-hooks+find-naive")
    assert nx.number_strongly_connected_components(nx.DiGraph([(0, 1), (1, 0)]), backend="gconn") == 1


def test_node_not_in_graph():
    with pytest.raises(KeyError):
        nx.node_connected_component(nx.path_graph(3), 7, backend="gconn")


@pytest.mark.parametrize("edges, forest, tree", [
    ([(0, 1), (1, 2)], True, True),
    ([(0, 1), (2, 3)], True, False),
    ([(0, 1), (1, 2), (2, 0)], False, False),
    ([(0, 0)], False, False),                 # a self loop is a cycle
])
@pytest.mark.parametrize("cls", CLASSES)
def test_forest_and_tree(edges, forest, tree, cls):
    G = cls(edges)
    assert nx.is_forest(G, backend="gconn") is forest
    assert nx.is_tree(G, backend="gconn") is tree


@pytest.mark.parametrize("cls", [nx.MultiGraph, nx.MultiDiGraph, nx.DiGraph])
def test_two_edges_between_two_nodes_are_a_cycle(cls):
    # Parallel edges, or u->v with v->u, count as a cycle, as in NetworkX.
    G = cls([(0, 1), (0, 1)] if cls().is_multigraph() else [(0, 1), (1, 0)])
    assert nx.is_forest(G, backend="gconn") is False
    assert nx.is_tree(G, backend="gconn") is False


def test_results_are_python_types():
    G = nx.path_graph(5)
    G.add_node(9)
    n = nx.number_connected_components(G, backend="gconn")
    assert type(n) is int and n == 2
    assert type(nx.is_connected(G, backend="gconn")) is bool
    comp = nx.node_connected_component(G, 0, backend="gconn")
    assert comp == {0, 1, 2, 3, 4} and all(type(v) is int for v in comp)


def test_fresh_sets_per_component():
    G = nx.Graph([(0, 1), (2, 3), (4, 5)])
    seen = set()
    for c in nx.connected_components(G, backend="gconn"):
        assert not seen & c
        seen |= c
        c.clear()  # emptying one set must not touch the others
    assert seen == set(range(6))
    first = next(nx.connected_components(G, backend="gconn"))
    assert first == {0, 1}


# -- conversion and its cache ----------------------------------------------------
@pytest.fixture
def conversions(monkeypatch):
    calls = []
    convert = BackendInterface.convert_from_nx

    def counting(graph, *args, **kwargs):
        calls.append(graph)
        return convert(graph, *args, **kwargs)
    monkeypatch.setattr(BackendInterface, "convert_from_nx", staticmethod(counting))
    return calls


def test_converted_graph_is_cached(conversions):
    G = nx.Graph([("a", "b"), ("c", "d")])
    assert nx.number_connected_components(G, backend="gconn") == 2
    assert len(conversions) == 1
    list(nx.connected_components(G, backend="gconn"))
    assert nx.is_forest(G, backend="gconn") is True
    assert nx.node_connected_component(G, "a", backend="gconn") == {"a", "b"}
    assert len(conversions) == 1
    G.add_edge("b", "c")  # NetworkX clears the cache on changes through its methods
    assert nx.number_connected_components(G, backend="gconn") == 1
    assert len(conversions) == 2


def test_backend_priority_runs_on_gconn(conversions, monkeypatch):
    monkeypatch.setattr(nx.config.backend_priority, "algos", ["gconn"])
    G = nx.cycle_graph(6)
    assert nx.is_connected(G) is True
    assert nx.number_connected_components(G) == 1
    assert conversions == [G]


def test_convert_round_trip():
    for cls in CLASSES:
        G = cls([("a", "b"), ("a", "b"), ("c", "c"), ("b", "a")], name="g")
        G.add_node(("iso",))
        H = BackendInterface.convert_from_nx(G, preserve_graph_attrs=True)
        assert H.number_of_edges() == G.number_of_edges()
        back = BackendInterface.convert_to_nx(H)
        assert type(back) is cls and back.graph == {"name": "g"}
        assert list(back.nodes) == list(G.nodes)
        assert sorted(map(repr, back.edges)) == sorted(map(repr, G.edges))
    assert BackendInterface.convert_to_nx(3) == 3


def test_convert_rejects_non_graphs():
    with pytest.raises(TypeError, match="argument 'G' of connected_components is a dict"):
        BackendInterface.convert_from_nx({1: [2]}, name="connected_components", graph_name="G")


@pytest.mark.parametrize("cls", CLASSES)
def test_graph_views(cls):
    G = cls([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (0, 1), (5, 5)])
    views = [G.subgraph([0, 1, 3, 4, 5]), G.edge_subgraph(list(G.edges)[:3]),
             nx.restricted_view(G, [2], list(G.edges)[-2:])]
    if not G.is_directed():
        views.append(G.to_directed(as_view=True))
    for view in views:
        for fn in ("connected_components", "weakly_connected_components", "strongly_connected_components",
                   "number_connected_components", "is_forest", "is_tree"):
            _same_outcome(fn, view)
        assert ConvertedGraph.from_networkx(view).number_of_edges() == view.number_of_edges()


# -- configuration --------------------------------------------------------------
def test_config_backend_is_checked(monkeypatch):
    monkeypatch.setattr(nx.config.backends.gconn, "backend", "tpu")
    with pytest.raises(ValueError, match=r"nx.config.backends.gconn.backend must be one of auto, cpu, gpu"):
        nx.number_connected_components(nx.path_graph(3), backend="gconn")


def test_config_auto_and_algorithm(monkeypatch):
    # 'auto' is gconn's own choice (the CPU on a machine without a GPU).
    monkeypatch.setattr(nx.config.backends.gconn, "backend", "auto")
    monkeypatch.setattr(nx.config.backends.gconn, "algorithm", "none+union-hooks+find-naive")
    G = nx.Graph([(0, 1), (2, 3)])
    assert nx.number_connected_components(G, backend="gconn") == 2
    monkeypatch.setattr(nx.config.backends.gconn, "algorithm", "no-such-variant")
    with pytest.raises(ValueError):
        nx.number_connected_components(G, backend="gconn")


def test_config_gpu_without_a_gpu(monkeypatch):
    from gconn.backends import gpu
    if gpu.available(simulator_ok=True)[0]:
        pytest.skip("a GPU is usable here; tests/gpu covers this backend on it")
    monkeypatch.setattr(nx.config.backends.gconn, "backend", "gpu")
    with pytest.raises(gconn.GPUUnavailableError):
        nx.number_connected_components(nx.path_graph(3), backend="gconn")
