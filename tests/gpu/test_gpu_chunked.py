"""Streamed union-find on a real GPU: pinned staging with few and many
copy threads, chunk sizes, memory-mapped files, the device memory budget,
against SciPy.

    python -m pytest -m gpu tests/gpu/test_gpu_chunked.py
"""
from __future__ import annotations

import gc

import numpy as np
import pytest

import gconn

from oracles import host
from chunkedcases import (check_labels, chunked, components_graph, quarter_of_graph, run_arrays_growing,
                         run_bad_ids, run_budget, run_budget_resizes, run_chunk_sizes, run_csr, run_csr_errors, run_forest,
                         run_one_chunk, run_snap_header, run_sparse_ids_before_the_range, run_text_chunks, run_text_cli,
                         run_text_errors_and_fallbacks, run_text_formats,
                         run_unknown_n, run_unsettled_errors, spy_landings)

from gpucases import GPU_OK as _OK, ON_GPU

pytestmark = ON_GPU

if _OK:
    from gconn.chunked import gpu as chunked_gpu


@pytest.fixture(scope="module")
def edges():
    return components_graph(np.random.default_rng(5), 200_000, 1_000_000, parts=7)


@pytest.mark.parametrize("threads", [1, 4, None])
def test_pinned_staging(edges, threads):
    """Staged copies filled by one, four and all threads, with chunks that
    cut through every component."""
    src, dst, n = edges
    for c in (1 << 12, 300_007, src.size):
        st = chunked_gpu.chunked_union((src, dst), chunk_edges=c, copy_threads=threads)
        roots, _, _, n_out = st.result()
        check_labels(src, dst, n_out, roots)
        assert st.chunks == -(-src.size // c)


def test_chunk_size_one():
    src, dst, n = components_graph(np.random.default_rng(6), 300, 600)
    run_chunk_sizes(chunked_gpu, src, dst, n, [1, src.size])


def test_unknown_n_and_int64(edges):
    src, dst, n = edges
    run_unknown_n(chunked_gpu, src, dst, n, [100_000, 7, 250_001])
    run_unknown_n(chunked_gpu, src.astype(np.int64) * 3, dst.astype(np.int64) * 3, 3 * n, [333_333])


def test_strided_columns_and_memmaps(edges, tmp_path):
    """An (m, 2) array (strided columns) and memory-mapped files (read-only
    mappings), staged as they are."""
    src, dst, n = edges
    pairs = np.stack([src, dst], axis=1)
    k, labels = gconn.connected_components(pairs, backend="gpu")
    check_labels(src, dst, labels.size, labels)
    np.save(tmp_path / "e.npy", pairs)
    gconn.save(gconn.Graph.from_edges(src, dst, n), tmp_path / "g.gcb")
    for path in ("e.npy", "g.gcb"):
        st = chunked_gpu.chunked_union(str(tmp_path / path), chunk_edges=1 << 16)
        roots, _, _, n_out = st.result()
        check_labels(src, dst, n_out, roots)


def test_budget_four_times_over(edges):
    src, dst, n = edges
    stats = run_budget(src, dst, n, quarter_of_graph(src, dst, n), "hb+union-async+find-halve")
    assert stats.chunks >= 4


def test_edge_buffers_widen_and_shrink_under_a_budget(edges, monkeypatch):
    src, dst, _ = edges
    run_budget_resizes(chunked_gpu, src, dst, monkeypatch)


def test_widening_waits_for_nothing_on_the_host(edges, monkeypatch):
    """The buffers widen after the first chunk of an unknown n while that
    chunk is copied and unioned: no stream synchronize inside ``_widen``
    (the copies into the new buffers wait on the device), and the labels
    are SciPy's."""
    src, dst, n = edges
    in_widen, waits, widths = [False], [], []
    sync, widen = chunked_gpu._CudaPipe.sync, chunked_gpu.ChunkedUnion._widen

    def counted_sync(self):
        waits.append(in_widen[0])
        return sync(self)

    def marked_widen(self, left):
        in_widen[0] = True
        try:
            return widen(self, left)
        finally:
            in_widen[0] = False
            widths.append(self.chunk_edges)

    monkeypatch.setattr(chunked_gpu._CudaPipe, "sync", counted_sync)
    monkeypatch.setattr(chunked_gpu.ChunkedUnion, "_widen", marked_widen)
    # the parent array takes a quarter of the budget
    st = chunked_gpu.chunked_union((src, dst), device_memory=4 * n * src.itemsize)
    roots, _, _, n_out = st.result()
    check_labels(src, dst, n_out, roots)
    assert widths and max(widths) > st._floor, (widths, st._floor)
    assert waits and not any(waits), waits


def test_forest_and_iterator(edges):
    src, dst, n = edges
    run_forest(src, dst, n, device_memory=quarter_of_graph(src, dst, n))
    k, labels = gconn.connected_components(chunked(src, dst, [123_457]), backend="gpu")
    check_labels(src, dst, labels.size, labels)
    assert isinstance(labels, np.ndarray)


def test_bad_ids(edges):
    src, dst, _ = edges
    run_bad_ids(chunked_gpu, src, dst, 1 << 16)


def test_arrays_checked_on_the_device_grow_the_parents(edges):
    """Sorted by growing id, chunks outrun the parent array (the host
    learns the ids only from the bounds the unions send back) and are
    unioned again."""
    src, dst, _ = edges
    run_arrays_growing(chunked_gpu, src, dst, 1 << 16)


def test_errors_of_a_feed_settled_after_its_labels(edges, monkeypatch):
    src, dst, n = edges
    run_unsettled_errors(chunked_gpu, src, dst, n, monkeypatch)


def test_csr_streamed(edges):
    """A CSR's column ids streamed, rows found on the device, chunks that
    cut rows; errors found by the device; a SciPy matrix end to end."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc
    src, dst, n = edges
    run_csr(chunked_gpu, src, dst, n, [1 << 12, 300_007, src.size])
    run_csr_errors(chunked_gpu, src, dst, n, 1 << 16)
    A = sp.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(n, n))
    k0, want = scipy_cc(A, directed=False)
    k, labels, stats = gconn.connected_components(A, backend="gpu", return_stats=True)
    assert stats.chunked and k == k0 and np.array_equal(labels, want)


@pytest.mark.parametrize("known_n", [False, True])
def test_native_feed_takes_the_chunks_after_the_first(edges, known_n, monkeypatch):
    """The chunks go through the native feed (``chunked_gpu._pump``), more
    than ``PUMP_CHUNKS`` of them, ids growing past the parent array
    included, from arrays and from a CSR; the labels are SciPy's and the
    same as with every chunk through the host's loop."""
    import scipy.sparse as sp
    src, dst, n = edges
    starts = []
    real = chunked_gpu._pump
    monkeypatch.setattr(chunked_gpu, "_pump", lambda *a: starts.append(int(a[-1][chunked_gpu._A])) or real(*a))
    monkeypatch.setattr(chunked_gpu, "cold", lambda: False)      # a process that has loaded numba's CPU kernels
    order = np.argsort(np.maximum(src, dst), kind="stable")         # ids that grow chunk by chunk
    csr = sp.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(n, n))
    cases = [(src, dst), (src[order], dst[order]), chunked_gpu.HostEdges.of_csr(csr.indptr, csr.indices, n)]
    for edges_ in cases:
        for pump in (True, False):
            monkeypatch.setattr(chunked_gpu, "PUMP", pump)
            starts.clear()
            chunk = 1 << 12
            st = chunked_gpu.chunked_union(edges_, chunk_edges=chunk, n=n if known_n else None)
            roots, _, _, n_out = st.result()
            check_labels(src, dst, n_out, roots)
            if pump:
                first = starts[0] if starts else None
                assert first == (0 if known_n or isinstance(edges_, chunked_gpu.HostEdges) else chunk), starts
                assert len(starts) > src.size // chunk // chunked_gpu.PUMP_CHUNKS, starts
                pumped = roots
            else:
                assert starts == [] and np.array_equal(host(roots), host(pumped))


def test_a_cold_process_copies_on_numpy(edges, monkeypatch):
    """Before numba's CPU kernels load (staging.cold), host arrays go through NumPy's copies, the host's
    loop and not the native feed, labels landing in pages NumPy touched: SciPy's labels all the same."""
    from gconn.backends.gpu import staging
    src, dst, n = edges
    for mod in (staging, chunked_gpu):
        monkeypatch.setattr(mod, "cold", lambda: True)
    monkeypatch.setattr(staging, "_KEPT", [])       # the landings' memory kept apart from other tests'
    monkeypatch.setattr(chunked_gpu, "_pump", lambda *a: pytest.fail("the native feed ran in a cold process"))
    monkeypatch.setattr(staging, "_touch", lambda b: pytest.fail("numba touched the landing's pages"))
    monkeypatch.setattr(chunked_gpu, "LAND_BYTES", 1024)
    whole = chunked_gpu.CHUNK_EDGES
    for chunk in (1 << 12, whole):       # many chunks, and the one-chunk path
        monkeypatch.setattr(chunked_gpu, "CHUNK_EDGES", chunk)
        for s, d in ((src, dst), (src.astype(np.int64), dst.astype(np.int64))):
            k, labels, stats = gconn.connected_components((s, d), backend="gpu", return_stats=True)
            check_labels(src, dst, labels.size, labels)
            assert (stats.chunks > 1) == (chunk < whole)


def test_one_chunk(edges, monkeypatch):
    src, dst, n = edges
    run_one_chunk(chunked_gpu, src, dst, monkeypatch)


def test_matches_the_resident_path(edges):
    src, dst, n = edges
    k, labels, stats = gconn.connected_components((src, dst), backend="gpu", return_stats=True)
    g = gconn.Graph.from_edges(src, dst)
    k2, labels2 = gconn.connected_components(g, backend="gpu")
    assert stats.chunked and k == k2 and np.array_equal(host(labels), host(labels2))


def test_labels_land_in_a_host_array_made_while_streaming(monkeypatch):
    """The labels come back into the host memory the stream wrote while the
    device finished: n's size where n is known, the parent array's
    capacity where it is not; where a later chunk outgrows it, into a new
    array.  Memory kept from dropped labels is registered with the driver,
    and unregistered once another region replaces it.  Every result
    against SciPy."""
    import cupy as cp
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc

    from gconn.backends.gpu import staging
    monkeypatch.setattr(staging, "_KEPT", [])       # no region kept by an earlier test (registered already)
    made = spy_landings(chunked_gpu, monkeypatch, 1000)
    rng = np.random.default_rng(11)
    src, dst = (rng.integers(0, 1500, 5000).astype(np.int32) for _ in range(2))

    def want(s, d):
        n = int(max(s.max(), d.max())) + 1
        return scipy_cc(sp.coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)), directed=False)

    k, labels = gconn.connected_components((src, dst), backend="gpu")
    k0, want_labels = want(src, dst)
    assert k == k0 and np.array_equal(labels, want_labels)
    assert len(made) == 1 and made[0].nbytes >= labels.nbytes == 4 * 1500
    assert labels.ctypes.data == made[0].address
    address = labels.ctypes.data
    del labels
    gc.collect()        # the labels are gone: the next call's land in their memory, pages written
    k, labels = gconn.connected_components((src, dst), backend="gpu")
    assert k == k0 and np.array_equal(labels, want_labels) and labels.ctypes.data == address == made[1].address
    # registered as it was kept: the fetch was one DMA into it (1: cudaMemoryTypeHost)
    assert not made[0].pinned and made[1].pinned
    assert cp.cuda.runtime.pointerGetAttributes(address).type == 1
    made.clear()
    kept = labels       # while they are read, the next call's labels land elsewhere
    k, labels = gconn.connected_components((src, dst), backend="gpu")
    assert np.array_equal(labels, want_labels) and labels.ctypes.data != address and kept.ctypes.data == address
    made.clear()
    big, big_dst = np.append(src, np.int32(300_000)), np.append(dst, np.int32(7))  # the last chunk grows the parents
    k, labels = gconn.connected_components((big, big_dst), backend="gpu")
    k0, want_labels = want(big, big_dst)
    assert k == k0 and np.array_equal(labels, want_labels) and len(made) == 1
    made.clear()
    A = sp.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(1600, 1600))
    k0, want_labels = scipy_cc(A, directed=False)
    k, labels = gconn.connected_components(A, backend="gpu")
    assert k == k0 and np.array_equal(labels, want_labels) and len(made) == 1 \
        and labels.ctypes.data == made[0].address
    del kept, labels
    gc.collect()        # the first memory is replaced by a later call's, and unregistered (0: unregistered)
    assert cp.cuda.runtime.pointerGetAttributes(address).type == 0


@pytest.mark.parametrize("size,piece", [(10, 1 << 26), (1 << 16, 1 << 26), (1_000_003, 1 << 12), (1 << 20, 1 << 22)])
def test_put_and_fetch_in_pieces(size, piece, monkeypatch):
    """Arrays go over and results come back through two pinned pieces
    taking turns: every element, odd sizes, one piece and many, strided."""
    import cupy as cp

    from gconn.backends.gpu import staging
    monkeypatch.setattr(staging, "PIECE_BYTES", piece)
    monkeypatch.setattr(staging, "FETCH_PIECE_BYTES", piece)
    dev = cp.arange(size, dtype=cp.int32) * 3 - 7
    out = staging.fetch(dev)
    assert isinstance(out, np.ndarray) and np.array_equal(out, dev.get())
    assert np.array_equal(staging.fetch(dev[::2]), dev[::2].get())
    host = np.random.default_rng(size).integers(-2**40, 2**40, size)
    back = staging.put(host)
    assert isinstance(back, cp.ndarray) and back.dtype == host.dtype and np.array_equal(back.get(), host)
    assert np.array_equal(staging.put(host[::3]).get(), host[::3])


def test_staging_buffers_are_kept_between_runs(monkeypatch):
    """A run gives its pinned staging pieces (and the pinned slots of the
    chunks' bounds) back when its feed ends and the next run takes them:
    allocating them took most of a 64M-edge run on the H100."""
    import cupy as cp
    src = np.arange(100_000, dtype=np.int32)
    dst = (src + 1) % src.size
    chunked_gpu.chunked_union((src, dst)).result()
    assert chunked_gpu._PINNED
    allocs = []
    real = cp.cuda.alloc_pinned_memory
    monkeypatch.setattr(cp.cuda, "alloc_pinned_memory", lambda nbytes: allocs.append(nbytes) or real(nbytes))
    st = chunked_gpu.chunked_union((src, dst))
    assert allocs == [] and st._pipe.ring is None and chunked_gpu._PINNED and chunked_gpu._BOUNDS
    check_labels(src, dst, src.size, st.result()[0])


def test_on_a_stream_of_the_callers(edges):
    """Under ``with cupy.cuda.Stream()`` the unions wait for their copies on
    that stream (the compute stream is CuPy's current one, not the null
    stream), and the parent array, of unknown size, grows on it."""
    import cupy as cp
    src, dst, n = edges
    with cp.cuda.Stream(non_blocking=True):
        st = chunked_gpu.chunked_union((src, dst), chunk_edges=1 << 14)
        roots = st.result()[0]
        check_labels(src, dst, st.result()[3], roots)


def test_snap_header(tmp_path):
    run_snap_header(*components_graph(np.random.default_rng(9), 5_000, 20_000, parts=3), tmp_path)


def test_text_edge_lists_streamed(edges, tmp_path, monkeypatch):
    """A text edge list parsed in chunks and streamed: chunk sizes, gzip,
    CSV columns, a spanning forest, errors and fallbacks."""
    src, dst, n = edges
    run_text_chunks(src, dst, n, tmp_path, monkeypatch, [99_991, src.size])
    run_text_formats(src, dst, n, tmp_path)
    run_text_errors_and_fallbacks(tmp_path)


def test_text_edge_list_cli(edges, tmp_path, capsys):
    run_text_cli(*edges, tmp_path, capsys)


def test_sparse_ids_stop_the_stream_before_the_range(tmp_path, monkeypatch):
    run_sparse_ids_before_the_range(tmp_path, monkeypatch)


def test_cli_automatic_backend_of_files(tmp_path, capsys):
    """``gconn cc`` without ``--backend``: a text edge list runs on the CPU
    (its parse is the run either way), a ``.gcb`` file on the GPU; each with
    SciPy's number of components."""
    import json
    from gconn import cli
    from chunkedcases import write_edge_list
    from oracles import reference
    src, dst, n = components_graph(np.random.default_rng(9), 5000, 20_000, parts=3)
    g = gconn.Graph.from_edges(src, dst, n)
    k0, _ = reference(g)
    write_edge_list(tmp_path / "g.el", src, dst)
    gconn.save(g, str(tmp_path / "g.gcb"))
    for name, argv, backend in (("g.el", [], "cpu"), ("g.el", ["-b", "gpu"], "gpu"), ("g.gcb", [], "gpu")):
        assert cli.main(["cc", str(tmp_path / name), "--quiet", "--json", *argv]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["backend"] == backend and out["components"] == k0, (name, argv)


def test_the_big_graph_bench_at_a_small_size():
    """``python -m gconn.bench.chunked --big`` (a graph larger than the GPU,
    every label checked against its block), at 2^16 vertices: the harness's
    own path, its yardstick and its check."""
    from gconn.bench.chunked import bench_big
    lines = []
    out = bench_big(100_000, lines.append, n=1 << 16, block=1 << 10)
    assert out["m"] == 100_000 + (1 << 16) - 64 and len(out["seconds"]) == len(out["chunked_seconds"]) == 2
    assert out["pinned_gbs"] > 0 and "the chunked phase" in lines[-2]
    assert "every label is its block: True" in lines[-1]


def test_the_big_kronecker_bench_at_a_small_size():
    """``python -m gconn.bench.chunked --big-kronecker`` at scale 12: its
    runs, and its check against the CPU backend."""
    from gconn.bench.chunked import bench_big_kronecker
    lines = []
    out = bench_big_kronecker(12, lines.append)
    assert out["n"] == 1 << 12 and out["m"] == 16 << 12 and len(out["seconds"]) == 2
    assert "edges whose ends have different labels: 0" in lines[-1]


def test_the_host_arrays_bench_checks_every_way_it_times(monkeypatch):
    """``python -m gconn.bench.chunked --quick`` on Erdos-Renyi: every part runs and
    each way timed is checked; a chunked run with wrong roots fails the run."""
    import cupy as cp

    from gconn.bench import gpu as gpu_bench
    from gconn.bench import chunked
    from gconn.chunked.gpu import ChunkedUnion
    lines = []
    row = chunked.bench_graph("er", True, 2, lines.append)
    assert row["e2e_ms"] > 0 and set(row["sweep"]) == set(chunked.CHUNKS) and row["budget"]["chunks"] > 1
    assert row["matrix"]["nnz"] > 0 and set(row["machinery"]) == {"arrays", "SciPy CSR", "copies"}
    # each figure with its spread: two repeats give median (min-max)
    assert any("ms = " in line and ") ms" in line for line in lines)
    real = ChunkedUnion.result

    def every_vertex_alone(self):
        roots, *rest = real(self)
        return (cp.arange(roots.size, dtype=roots.dtype), *rest)

    monkeypatch.setattr(ChunkedUnion, "result", every_vertex_alone)
    with pytest.raises(gpu_bench.WrongLabels, match="Erdos-Renyi"):
        chunked.bench_graph("er", True, 1, lines.append, parts=("sweep",))
