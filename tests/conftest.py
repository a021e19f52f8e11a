"""Shared fixtures: the real-graph data directory and small graph families.
The oracles live in ``oracles.py``."""
from __future__ import annotations

import os
from pathlib import Path

# One xdist worker a core, each with numba's OpenMP threads: spinning workers (OpenMP's default wait)
# take the cores from the other process, and a parallel region costs milliseconds instead of
# microseconds (tests/test_cpu_static.py on 2 cores: 187 s spinning, 7 s passive).  Set before any
# test starts the runtime; a user's setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def _data_dir() -> Path:
    """$GCONN_DATA, else ../shared/data, else the three graphs bundled in
    tests/data, so a clone on its own still tests real data."""
    if os.environ.get("GCONN_DATA"):
        return Path(os.environ["GCONN_DATA"])
    shared = REPO.parent / "shared" / "data"
    return shared if (shared / "MANIFEST.tsv").exists() else REPO / "tests" / "data"


DATA = _data_dir()


def manifest():
    """Rows of the real-data MANIFEST.tsv (the component-count oracles)."""
    path = DATA / "MANIFEST.tsv"
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:] if line.strip()]


def manifest_row(name: str):
    """The MANIFEST row of the graph whose file name starts with ``name``
    (``usroads.mtx`` matches ``usroads.mtx.gz``), or None."""
    return next((r for r in manifest() if Path(r["file"]).name.startswith(name)), None)


def small_graphs():
    """Small graphs of every family, as (name, src, dst, n)."""
    rng = np.random.default_rng(12345)
    out = []
    n = 300
    out.append(("sparse-random", rng.integers(0, n, 250), rng.integers(0, n, 250), n))
    out.append(("dense-random", rng.integers(0, 60, 900), rng.integers(0, 60, 900), 60))
    out.append(("star", np.zeros(99, np.int64), np.arange(1, 100), 100))
    out.append(("path", np.arange(199), np.arange(1, 200), 200))
    perm = rng.permutation(200)
    out.append(("path-permuted", perm[:-1], perm[1:], 200))
    out.append(("cycle", np.arange(150), (np.arange(150) + 1) % 150, 150))
    side = 12
    ids = np.arange(side * side).reshape(side, side)
    gs = np.r_[ids[:, :-1].ravel(), ids[:-1, :].ravel()]
    gd = np.r_[ids[:, 1:].ravel(), ids[1:, :].ravel()]
    keep = rng.random(gs.size) < 0.6
    out.append(("grid-road", gs[keep], gd[keep], side * side))
    comp = np.arange(400).reshape(80, 5)
    cs = np.r_[comp[:, :-1].ravel(), comp[:, 0]]
    cd = np.r_[comp[:, 1:].ravel(), comp[:, -1]]
    p = rng.permutation(400)
    out.append(("many-components", p[cs], p[cd], 400))
    s = np.r_[rng.integers(0, 50, 120), np.arange(10), [3, 3, 7]]
    d = np.r_[rng.integers(0, 50, 120), np.arange(10), [3, 3, 7]]
    out.append(("loops-dups-isolated", s, d, 80))
    out.append(("empty-edges", np.zeros(0, np.int64), np.zeros(0, np.int64), 7))
    hub = np.r_[np.zeros(500, np.int64), rng.integers(0, 600, 300)]
    out.append(("hub", hub, np.r_[np.arange(1, 501), rng.integers(0, 600, 300)], 600))
    return out


@pytest.fixture(scope="session")
def graphs():
    import gconn
    return [(name, gconn.Graph.from_edges(s, d, n)) for name, s, d, n in small_graphs()]


# -- the NetworkX backend (tests/test_networkx_backend.py, tests/gpu) ------------
NX_BACKENDS_EP = "gconn.integrations.networkx:BackendInterface"
NX_INFO_EP = "_nx_gconn:get_info"


@pytest.fixture
def nx_gconn(monkeypatch):
    """NetworkX with the ``gconn`` backend known to it, as the entry points make
    it once gconn is installed (a test run may use a source checkout), and
    set to gconn's CPU backend."""
    from importlib.metadata import EntryPoint

    import networkx as nx
    from networkx.utils import backends as nxb

    import _nx_gconn
    if "gconn" not in nxb.backends:
        monkeypatch.setitem(nxb.backends, "gconn",
                            EntryPoint(name="gconn", value=NX_BACKENDS_EP, group="networkx.backends"))
        monkeypatch.setitem(nxb.backend_info, "gconn", _nx_gconn.get_info())
        monkeypatch.setattr(nx.config, "backends", nx.utils.Config(
            gconn=nx.utils.Config(**_nx_gconn.get_info()["default_config"]), **nx.config.backends))
        monkeypatch.setattr(nxb._dispatchable, "__call__", nxb._dispatchable._call_if_any_backends_installed)
    monkeypatch.setattr(nx.config.backends.gconn, "backend", "cpu")
    # NetworkX notes each use of a cached conversion; the tests do that on purpose.
    monkeypatch.setattr(nx.config, "warnings_to_ignore", nx.config.warnings_to_ignore | {"cache"})
    return nx
