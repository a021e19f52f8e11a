"""Text edge lists parsed in chunks and streamed to the GPU
(gconn.streaming) in numba's CUDA simulator.

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_stream_files.py
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from streamcases import (components_graph, run_text_chunks, run_text_cli, run_text_errors_and_fallbacks,
                         run_text_formats)

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]


@pytest.fixture(scope="module")
def edges():
    return components_graph(np.random.default_rng(6), 30, 24)


def test_chunks_cut_through_components(edges, tmp_path, monkeypatch):
    src, dst, n = edges
    run_text_chunks(src, dst, n, tmp_path, monkeypatch, [1, 7, src.size])


def test_gzip_and_csv_columns(edges, tmp_path):
    run_text_formats(*edges, tmp_path)


def test_errors_and_fallbacks(tmp_path):
    run_text_errors_and_fallbacks(tmp_path)


def test_cli(edges, tmp_path, capsys):
    run_text_cli(*edges, tmp_path, capsys)
