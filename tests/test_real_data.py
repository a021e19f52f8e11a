"""The real graphs (conftest.DATA) against MANIFEST's component counts."""
import numpy as np
import pytest

import gconn
from gconn import design

from conftest import DATA, manifest, manifest_row
from oracles import reference

ROWS = manifest()

_cache = {}


def load(row):
    if row["file"] not in _cache:
        _cache[row["file"]] = gconn.load(DATA / row["file"])
    return _cache[row["file"]]


@pytest.mark.parametrize("row", ROWS, ids=[r["file"] for r in ROWS])
def test_auto_and_fast_variants(row):
    g = load(row)
    assert g.n == int(row["n"]) and g.m == int(row["m_undirected_simple"])
    for name in ("auto", "kout+union-async+find-halve", "hb+union-rem-cas+find-split+split-one",
                 "bfs+union-async+find-compress", "none+union-jtb+find-two-try-split"):
        k, labels = gconn.connected_components(g, algorithm=name, backend="cpu")
        assert k == int(row["components"]), name
        assert np.bincount(labels).max() == int(row["largest_component"]), name
    src, dst = gconn.spanning_forest(g, backend="cpu")
    assert src.size == g.n - int(row["components"])


@pytest.mark.parametrize("file", ["usroads.mtx", "email-Enron.el"])
def test_every_union_find_variant(file):
    row = manifest_row(file)
    assert row is not None, f"{file} not in {DATA}/MANIFEST.tsv"
    g = load(row)
    k0, l0 = reference(g)
    assert k0 == int(row["components"])
    for v in design.iter_variants("cc"):
        if v.finish in design.UNION_FINDS:
            k, labels = gconn.connected_components(g, algorithm=v.name, backend="cpu")
            assert np.array_equal(labels, l0), v.name


def test_incremental_replay_of_a_real_graph():
    row = manifest_row("cond-mat-2005.el")
    g = load(row)
    rng = np.random.default_rng(0)
    order = rng.permutation(g.m)
    ic = gconn.IncrementalConnectivity(g.n, backend="cpu")
    for chunk in np.array_split(order, 17):
        ic.insert(g.src[chunk], g.dst[chunk])
    assert ic.n_components == int(row["components"])
