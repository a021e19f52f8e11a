"""Text edge lists parsed in chunks and streamed to the GPU
(gconn.chunked.gpu) in numba's CUDA simulator.

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_chunked_files.py
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from chunkedcases import (components_graph, run_snap_header, run_sparse_ids_before_the_range, run_text_chunks,
                         run_text_cli, run_text_errors_and_fallbacks, run_text_formats)

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


def test_snap_header(edges, tmp_path):
    run_snap_header(*edges, tmp_path)


def test_errors_and_fallbacks(tmp_path):
    run_text_errors_and_fallbacks(tmp_path)


def test_cli(edges, tmp_path, capsys):
    run_text_cli(*edges, tmp_path, capsys)


def test_ids_outgrowing_int32_after_the_first_chunk(tmp_path, monkeypatch):
    """A file whose ids pass int32 in a later block is not streamed with the
    first chunk's int32 ids: it falls back to loading, which names the
    problem (sparse ids need relabel=True) as it does for any such file."""
    import gconn
    from gconn.io import chunks
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 16)
    monkeypatch.setattr(chunks, "DEFAULT_CHUNK_EDGES", 2)
    from gconn.chunked import gpu as chunked_gpu
    returned = []
    run = chunked_gpu.run
    monkeypatch.setattr(chunked_gpu, "run", lambda *a, **k: returned.append(run(*a, **k)) or returned[-1])
    path = tmp_path / "wide.el"
    path.write_text("0 1\n1 2\n2 3\n3 4\n4 5\n5 3000000000\n")
    with pytest.raises(gconn.VertexRangeError, match="relabel=True"):
        gconn.connected_components(str(path), backend="gpu")
    assert returned == [None]       # the stream gave up (WiderIds) and the file was loaded
    k, labels, ids = gconn.connected_components(str(path), backend="gpu", relabel=True)
    assert k == 1 and ids.tolist()[-1] == 3000000000


def test_declared_n_beyond_int32_gives_int64_ids(monkeypatch):
    """A declared vertex count past the int32 range makes the streamer's ids
    int64 even when the first chunk is int32 (shown with the limit lowered)."""
    from gconn.design import Plan, Variant
    from gconn.chunked import gpu as chunked_gpu
    monkeypatch.setattr(chunked_gpu, "INT32_MAX", 100)
    st = chunked_gpu.ChunkedUnion(Plan.of(Variant.parse("none+union-async+find-halve")), n=150, limit=1 << 24)
    st.feed(chunked_gpu.HostEdges((np.array([0, 120], np.int32), np.array([149, 7], np.int32))))
    roots, _, _, n = st.result()
    assert st.idt == np.int64 and n == 150 and roots[0] == roots[149] and roots[7] == roots[120] != roots[0]


def test_sparse_ids_stop_the_stream_before_the_range(tmp_path, monkeypatch):
    run_sparse_ids_before_the_range(tmp_path, monkeypatch)
