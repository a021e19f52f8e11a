"""The NetworkX backend set to gconn's GPU backend, on a real GPU.

    python -m pytest -m gpu tests/gpu/test_nx_backend_gpu.py
"""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from gpucases import GPU_OK as _OK, ON_GPU

pytestmark = ON_GPU + [pytest.mark.usefixtures("nx_gconn")]


def _random_graph(cls, n, m, seed):
    rng = np.random.default_rng(seed)
    G = cls()
    G.add_nodes_from(f"v{i}" for i in range(n))
    G.add_edges_from((f"v{a}", f"v{b}") for a, b in rng.integers(0, n, (m, 2)).tolist())
    return G


@pytest.mark.parametrize("choice", ["gpu", "auto"])
@pytest.mark.parametrize("cls", [nx.Graph, nx.MultiDiGraph])
def test_matches_networkx_on_the_gpu(choice, cls, monkeypatch):
    monkeypatch.setattr(nx.config.backends.gconn, "backend", choice)
    G = _random_graph(cls, 20_000, 15_000, seed=3)
    cc = "weakly_connected_components" if G.is_directed() else "connected_components"
    got = list(getattr(nx, cc)(G, backend="gconn"))
    assert got == list(getattr(nx, cc)(G, backend="networkx"))
    assert all(type(c) is set for c in got)
    assert nx.is_forest(G, backend="gconn") is nx.is_forest(G, backend="networkx")
    k = getattr(nx, "number_" + cc)(G, backend="gconn")
    assert type(k) is int and k == len(got)
