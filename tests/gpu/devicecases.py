"""Checks of a call on several GPUs (``devices=``, gconn.chunked.devices), shared by the
simulator tests and the real-GPU tests.  ``devices`` lists an id more than once where the
machine has one GPU: each listing takes a share, so the merge is tested all the same."""
from __future__ import annotations

import numpy as np
import pytest

import gconn
from gconn.graph import Graph
from oracles import check_forest, host, reference, same_partition
from chunkedcases import chunked, write_edge_list


def scipy_labels(src, dst, n=None):
    """SciPy's (k, labels), n the largest id + 1 unless given."""
    return reference(Graph.from_edges(src, dst, int(max(src.max(), dst.max())) + 1 if n is None else n))


def run_arrays(src, dst, n, devices):
    """Contiguous parts of arrays: SciPy's labels exactly, and each share's edges in the stats."""
    k0, l0 = scipy_labels(src, dst)
    k, labels, stats = gconn.connected_components((src, dst), backend="gpu", devices=devices, return_stats=True)
    assert k == k0 and np.array_equal(host(labels), l0)
    assert [s["device"] for s in stats.shares] == list(devices)
    assert sum(s["edges"] for s in stats.shares) == src.size == stats.m
    assert stats.chunked and stats.edge_inspections["merge"] <= (len(devices) - 1) * n


def run_iterator(src, dst, n, devices, sizes):
    """Chunks of an iterator dealt to the shares, ids growing each share's parent array."""
    k0, l0 = scipy_labels(src, dst)
    k, labels = gconn.connected_components(chunked(src, dst, sizes), backend="gpu", devices=devices)
    assert k == k0 and np.array_equal(host(labels), l0)


def run_forest(src, dst, n, devices):
    """The shares' forests merged: a spanning forest of all the edges, in input ids."""
    g = Graph.from_edges(src, dst, n)
    k0, _ = reference(g)
    fs, fd = gconn.spanning_forest((src, dst), backend="gpu", devices=devices)
    check_forest(g, host(fs), host(fd), k0)
    fs, fd = gconn.spanning_forest(chunked(src, dst, [3, 11]), backend="gpu", devices=devices)
    check_forest(g, host(fs), host(fd), k0)


def run_declared_n(src, dst, n, devices):
    """A Graph's n keeps the isolated vertices past the largest id; a .npy file is memory mapped."""
    g = Graph.from_edges(src, dst, n + 5)
    k0, l0 = reference(g)
    k, labels = gconn.connected_components(g, backend="gpu", devices=devices)
    assert labels.size == n + 5 and k == k0 and np.array_equal(host(labels), l0)


def run_files(src, dst, n, devices, folder):
    k0, l0 = scipy_labels(src, dst)
    npy, text = folder / "edges.npy", folder / "edges.txt"
    np.save(npy, np.stack([src, dst], axis=1))
    write_edge_list(text, src, dst)
    for path in (npy, text):
        k, labels = gconn.connected_components(str(path), backend="gpu", devices=devices)
        assert k == k0 and same_partition(host(labels), l0), path


def run_budget(src, dst, n, devices, limit):
    """Each GPU held to ``limit`` bytes: its share goes in several chunks."""
    k0, l0 = scipy_labels(src, dst)
    k, labels, stats = gconn.connected_components((src, dst), backend="gpu", devices=devices,
                                                  device_memory=limit, return_stats=True)
    assert k == k0 and np.array_equal(host(labels), l0)
    assert all(s["chunks"] > 1 for s in stats.shares)


def run_errors(src, dst, devices):
    """A bad id in a later share is named by its place in the input; options that do not apply are errors."""
    bad = src.copy()
    at = src.size - 2
    bad[at] = -7
    with pytest.raises(ValueError, match=rf"share.*negative vertex id -7 \(src\[{at}\]\)"):
        gconn.connected_components((bad, dst), backend="gpu", devices=devices)
    with pytest.raises(ValueError, match=rf"negative vertex id -7 \(src\[{at}\]\)"):
        gconn.connected_components(chunked(bad, dst, [5, 3]), backend="gpu", devices=devices)
    with pytest.raises(ValueError, match="union-find without sampling"):
        gconn.connected_components((src, dst), backend="gpu", devices=devices, algorithm="kout+union-async+find-halve")
    with pytest.raises(ValueError, match="backend='cpu' uses none"):
        gconn.connected_components((src, dst), backend="cpu", devices=devices)
    with pytest.raises(ValueError, match="relabel="):
        gconn.connected_components((src, dst), backend="gpu", devices=devices, relabel=True)
    with pytest.raises(ValueError, match="there is no GPU 64"):
        gconn.connected_components((src, dst), backend="gpu", devices=[0, 64])
    with pytest.raises(ValueError, match="names no GPU"):
        gconn.connected_components((src, dst), backend="gpu", devices=[])
    with pytest.raises(TypeError, match="not a GPU id"):
        gconn.connected_components((src, dst), backend="gpu", devices=[0, True])
    with pytest.raises(TypeError, match="a list of GPU ids"):
        gconn.connected_components((src, dst), backend="gpu", devices=2)


def run_cli(src, dst, devices, folder, capsys):
    """``gconn cc|forest --devices``: a file shared among the GPUs, a generated graph too."""
    import json
    from gconn import cli
    path = folder / "g.el"
    write_edge_list(path, src, dst)
    g = Graph.from_edges(src, dst, int(max(src.max(), dst.max())) + 1)
    k0, l0 = reference(g)
    ids = ",".join(map(str, devices))

    def summary(*argv):
        assert cli.main([*map(str, argv), "--quiet", "--json", "--devices", ids]) == 0
        return json.loads(capsys.readouterr().out)

    out = summary("cc", path, "-o", folder / "labels.txt", "--labels-format", "plain")
    assert out["route"] == "devices" and out["components"] == k0 and out["n"] == g.n and out["m"] == src.size
    assert np.array_equal(np.loadtxt(folder / "labels.txt", dtype=np.int64), l0)
    out = summary("forest", path, "-o", folder / "forest.el")
    assert out["components"] == k0
    f = gconn.load(str(folder / "forest.el"))
    check_forest(g, f.src, f.dst, k0)
    out = summary("cc", "--generate", "rmat:scale=6")
    rs, rd, rn = gconn.graph.generators.edges_from_spec("rmat:scale=6")
    assert out["components"] == reference(Graph.from_edges(rs, rd, rn))[0]
    assert cli.main(["cc", str(path), "--devices", "0,x"]) == 2
    assert "expected GPU ids such as 0,1 or all, got '0,x'" in capsys.readouterr().err
