"""Several GPUs on one call (gconn.chunked.devices) in numba's CUDA simulator: one simulated
GPU listed several times, each listing a share; the shares run in turn.

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_devices.py
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from devicecases import (run_arrays, run_budget, run_cli, run_declared_n, run_errors, run_files, run_forest, run_iterator,
                         scipy_labels)
from chunkedcases import components_graph

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]


@pytest.fixture(scope="module")
def edges():
    return components_graph(np.random.default_rng(8), 40, 60)


@pytest.mark.parametrize("shares", [1, 2, 3, 5])
def test_arrays_in_parts(edges, shares):
    run_arrays(*edges, [0] * shares)


def test_iterator_dealt(edges):
    src, dst, n = edges
    run_iterator(src * 40, dst * 40, n * 40, [0, 0, 0], [4, 1, 9])


def test_forest(edges):
    run_forest(*edges, [0, 0, 0])


def test_declared_n(edges):
    run_declared_n(*edges, [0, 0])


def test_files(edges, tmp_path):
    run_files(*edges, [0, 0], tmp_path)


def test_budget(edges, monkeypatch):
    from gconn.chunked import gpu as chunked_gpu
    monkeypatch.setattr(chunked_gpu, "CHUNK_EDGES", 8)
    run_budget(*edges, [0, 0], 2000)


def test_errors(edges):
    src, dst, _ = edges
    run_errors(src, dst, [0, 0])


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 30), st.integers(0, 60), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_any_split_gives_scipys_labels(n, m, shares, seed):
    """Random graphs, random numbers of shares: the merge is exact whatever the split."""
    import gconn
    from oracles import host
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m).astype(np.int32)
    dst = rng.integers(0, n, m).astype(np.int32)
    if m == 0:
        return
    k0, l0 = scipy_labels(src, dst, int(max(src.max(), dst.max())) + 1)
    k, labels = gconn.connected_components((src, dst), backend="gpu", devices=[0] * shares)
    assert k == k0 and np.array_equal(host(labels), l0)


def test_cli(edges, tmp_path, capsys):
    src, dst, _ = edges
    run_cli(src, dst, [0, 0], tmp_path, capsys)
