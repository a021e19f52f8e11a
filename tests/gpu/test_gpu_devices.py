"""Several GPUs on one call (gconn.chunked.devices) on real GPUs: every GPU of the machine
where it has several, else the one GPU listed twice (two shares, two threads, one device).

    python -m pytest -m gpu tests/gpu/test_gpu_devices.py
"""
from __future__ import annotations

import numpy as np
import pytest

import gconn
from devicecases import (run_arrays, run_budget, run_cli, run_declared_n, run_errors, run_files, run_forest, run_iterator,
                         scipy_labels)
from oracles import host
from chunkedcases import components_graph

from gpucases import ON_GPU

pytestmark = ON_GPU


def _gpus() -> list:
    import cupy as cp
    k = cp.cuda.runtime.getDeviceCount()
    return list(range(k)) if k > 1 else [0, 0]


@pytest.fixture(scope="module")
def devices():
    return _gpus()


@pytest.fixture(scope="module")
def edges():
    return components_graph(np.random.default_rng(9), 300_000, 2_000_000, parts=7)


def test_arrays(edges, devices):
    run_arrays(*edges, devices)
    run_arrays(*edges, devices + devices[:1])       # more shares than GPUs: one GPU takes two


def test_iterator(edges, devices):
    src, dst, n = edges
    run_iterator(src.astype(np.int64) * 3, dst.astype(np.int64) * 3, 3 * n, devices, [100_000, 7, 1_300_000])


def test_forest(edges, devices):
    run_forest(*edges, devices)


def test_declared_n(edges, devices):
    run_declared_n(*edges, devices)


def test_files(edges, devices, tmp_path):
    run_files(*edges, devices, tmp_path)


def test_budget(edges, devices):
    # each GPU: the parent array and a few small chunks
    run_budget(*edges, devices, 6 * edges[2] + (3 << 20))


def test_errors(edges, devices):
    src, dst, _ = edges
    run_errors(src, dst, devices)
    import cupy as cp
    with pytest.raises(ValueError, match="on a GPU already"):
        gconn.connected_components((cp.asarray(src), cp.asarray(dst)), backend="gpu", devices=devices)


def test_every_gpu_alone_then_together(edges):
    """Each GPU by itself (its own kernels and placeholders), then the default device again."""
    import cupy as cp
    src, dst, n = edges
    k0, l0 = scipy_labels(src, dst)
    for d in range(cp.cuda.runtime.getDeviceCount()):
        k, labels = gconn.connected_components((src, dst), backend="gpu", devices=[d])
        assert k == k0 and np.array_equal(host(labels), l0)
    k, labels = gconn.connected_components((src, dst), backend="gpu")
    assert k == k0 and np.array_equal(host(labels), l0)


def test_cli(edges, devices, tmp_path, capsys):
    src, dst, _ = edges
    run_cli(src, dst, devices, tmp_path, capsys)


def test_benchmark_runs(capsys):
    """``python -m gconn.bench.devices`` on a small graph: its table, every GPU count's labels checked."""
    from gconn.bench import devices as bench
    assert bench.main(["--scale", "14", "--repeat", "1", "--budget", "1MB"]) == 0
    out = capsys.readouterr().out
    assert "| GPUs | first call s |" in out and "| 1 |" in out


def test_pinned_arrays_are_copied_as_they_are(edges, devices, monkeypatch):
    """Arrays in page-locked memory go to the GPU with no staging, on one GPU or several."""
    import cupyx
    from gconn.chunked import gpu as chunked_gpu
    src, dst, n = edges
    ps, pd = cupyx.empty_pinned(src.shape, src.dtype), cupyx.empty_pinned(dst.shape, dst.dtype)
    ps[:], pd[:] = src, dst
    seen = []
    real = chunked_gpu.pinned
    monkeypatch.setattr(chunked_gpu, "pinned", lambda a: seen.append(real(a)) or seen[-1])
    run_arrays(ps, pd, n, devices)
    k0, l0 = scipy_labels(src, dst)
    k, labels = gconn.connected_components((ps, pd), backend="gpu", device_memory=6 * n + (3 << 20))
    assert k == k0 and np.array_equal(host(labels), l0)
    assert seen and all(seen) and not real(src)
