"""Streamed union-find (gconn.chunked.gpu) in numba's CUDA simulator.

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_chunked.py

There are no streams or pinned buffers in the simulator: the chunks are
plain copies, and the chunking, the growth of the parent array, the
validation and the budget decision run as on a GPU (the pinned path is
tested by test_gpu_chunked.py on a real GPU).
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from chunkedcases import (check_labels, chunked, components_graph, quarter_of_graph, run_arrays_growing,
                         run_bad_ids, run_budget, run_budget_resizes, run_chunk_sizes, run_csr, run_csr_errors, run_forest,
                         run_one_chunk, run_unknown_n, run_unsettled_errors, spy_landings)

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]

if SIM:
    import gconn
    from gconn.chunked import gpu_feed as feed, gpu as chunked_gpu


@pytest.fixture(scope="module")
def edges():
    return components_graph(np.random.default_rng(3), 40, 48)


@pytest.fixture(scope="module")
def dense():
    """m >> n, so that a budget 4x smaller than the graph still holds O(n)."""
    return components_graph(np.random.default_rng(4), 40, 400)


def test_chunks_cut_through_components(edges):
    """Chunk sizes 1, a few and m: SciPy's partition each time."""
    src, dst, n = edges
    run_chunk_sizes(chunked_gpu, src, dst, n, [1, 7, src.size])


@pytest.mark.parametrize("variant", ["none+union-rem-cas+find-split+split-one", "none+union-hooks+find-compress",
                                     "none+union-rem-lock+find-halve", "none+union-jtb+find-two-try-split"])
def test_union_find_variants(edges, variant):
    src, dst, n = edges
    run_chunk_sizes(chunked_gpu, src, dst, n, [9], variant)


def test_unknown_n_grows_the_parent_array(edges):
    """An iterator of uneven chunks and ids far beyond the first capacity."""
    src, dst, n = edges
    big_src, big_dst = src * 50, dst * 50      # ids up to ~2000: several doublings from 16
    run_unknown_n(chunked_gpu, big_src, big_dst, n * 50, [5, 1, 13])


def test_memory_budget_four_times_over(dense):
    """The graph's arrays need 4x the budget: streamed, SciPy's partition,
    with a sampling variant asked for (streamed with its finish)."""
    src, dst, n = dense
    limit = quarter_of_graph(src, dst, n)
    stats = run_budget(src, dst, n, limit, "kout+union-async+find-halve")
    assert stats.variant == "none+union-async+find-halve"


def test_scipy_matrix_streams(dense):
    """A SciPy matrix streams its CSR, with SciPy's labels: under a budget
    4x below its graph, and with the automatic choice whatever the budget;
    a variant that samples, when it fits, is run on the resident graph."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc
    src, dst, n = dense
    A = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    k0, want = scipy_cc(A, directed=False)
    limit = quarter_of_graph(src, dst, n)
    k, labels, stats = gconn.connected_components(A, backend="gpu", device_memory=limit, return_stats=True)
    assert stats.chunked and stats.chunks > 1 and k == k0 and np.array_equal(labels, want)
    k, labels, stats = gconn.connected_components(A, backend="gpu", return_stats=True)
    assert stats.chunked and k == k0 and np.array_equal(labels, want)
    k, labels, stats = gconn.connected_components(A, backend="gpu", algorithm="kout+union-async+find-halve",
                                                  return_stats=True)
    assert not stats.chunked and k == k0 and np.array_equal(labels, want)


def test_arrays_checked_on_the_device_grow_the_parents(dense):
    src, dst, _ = dense
    run_arrays_growing(chunked_gpu, src, dst, 7)


def test_edge_buffers_widen_and_shrink_under_a_budget(monkeypatch):
    src, dst, _ = components_graph(np.random.default_rng(8), 1000, 3000)
    run_budget_resizes(chunked_gpu, src, dst, monkeypatch)


def test_csr_streamed_in_chunks_that_cut_rows(edges):
    src, dst, n = edges
    run_csr(chunked_gpu, src, dst, n, [1, 5, src.size])


def test_csr_errors(dense):
    src, dst, n = dense
    run_csr_errors(chunked_gpu, src, dst, n, 16)


def test_errors_of_a_feed_settled_after_its_labels(dense, monkeypatch):
    src, dst, n = dense
    run_unsettled_errors(chunked_gpu, src, dst, n, monkeypatch)


def test_one_chunk(dense, monkeypatch):
    src, dst, n = dense
    run_one_chunk(chunked_gpu, src, dst, monkeypatch)


def test_budget_from_the_environment(dense, monkeypatch):
    src, dst, n = dense
    monkeypatch.setenv("GCONN_DEVICE_MEMORY", str(quarter_of_graph(src, dst, n)))
    _, _, stats = gconn.connected_components((src, dst), backend="gpu", algorithm="hb+ecl-cc", return_stats=True)
    assert stats.chunked and stats.chunks > 1


def test_vertices_beyond_the_budget(edges):
    src, dst, n = edges
    with pytest.raises(MemoryError, match=r"n=\d+.*budget of"):
        chunked_gpu.chunked_union((src * 1000, dst * 1000), device_memory=4096)


def test_spanning_forest_from_the_stream(dense):
    src, dst, n = dense
    run_forest(src, dst, n, device_memory=quarter_of_graph(src, dst, n))


def test_bad_ids_name_chunk_and_offset(edges):
    src, dst, _ = edges
    run_bad_ids(chunked_gpu, src, dst, 8)


def test_files_are_memory_mapped(edges, tmp_path):
    src, dst, n = edges
    g = gconn.Graph.from_edges(src, dst, n + 3)
    gconn.save(g, tmp_path / "g.gcb")
    st = chunked_gpu.chunked_union(str(tmp_path / "g.gcb"), chunk_edges=11)
    roots, _, _, n_out = st.result()
    assert n_out == n + 3           # the file's n, isolated vertices included
    check_labels(src, dst, n + 3, roots)
    np.save(tmp_path / "e.npy", np.stack([src, dst], axis=1))
    k, labels = gconn.connected_components(str(tmp_path / "e.npy"), backend="gpu")
    check_labels(src, dst, labels.size, labels)


def test_hot_path_streams_host_arrays(edges):
    """(src, dst) NumPy arrays and the automatic choice: streamed, one chunk."""
    src, dst, n = edges
    k, labels, stats = gconn.connected_components((src, dst), backend="gpu", return_stats=True)
    assert stats.chunked and stats.chunks == 1
    check_labels(src, dst, n, labels)
    it = chunked(src, dst, [10])
    k2, labels2 = gconn.connected_components(it, backend="gpu")
    assert k2 == k and np.array_equal(labels2, labels)


def test_the_labels_host_array_fits_them(edges, monkeypatch):
    """The host memory a streamed call's labels will come back into (made
    while the device finishes): as large as the parent array where n is
    unknown, n elements where it is known, none for a spanning forest.
    (The fetch into it runs on a GPU: test_gpu_chunked.)"""
    import scipy.sparse as sp
    src, dst, n = edges
    made = spy_landings(chunked_gpu, monkeypatch, 5)
    order = np.argsort(np.maximum(src, dst), kind="stable")   # the first chunk holds the smallest ids
    k, labels = gconn.connected_components((src[order], dst[order]), backend="gpu")
    assert len(made) == 1 and made[0].nbytes >= labels.nbytes and labels.dtype == np.int32
    made.clear()
    k, labels = gconn.connected_components(gconn.Graph.from_edges(src, dst, n=n + 3), backend="gpu")
    assert len(made) == 1 and made[0].nbytes == labels.nbytes == 4 * (n + 3)
    made.clear()
    A = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n + 5, n + 5))
    k, labels = gconn.connected_components(A, backend="gpu")
    assert len(made) == 1 and made[0].nbytes == labels.nbytes == 4 * (n + 5)
    made.clear()
    gconn.spanning_forest((src, dst), backend="gpu")
    assert made == []


def test_landing_memory_is_kept_once_every_view_of_the_labels_is_gone():
    """A landing's memory goes back to be kept only when its array and
    every view of it are gone; the next landing that fits takes it, pages
    written, and never while a view still reads it."""
    import gc

    from gconn.backends.gpu import staging
    gc.collect()        # nothing else given back below (arrays go by their counts)
    first = staging.landing(1000, np.int32)
    region = first.region
    a = first.array(1000, np.int32)
    a[:] = 7
    view = a[10:20].reshape(2, 5)
    address = a.ctypes.data
    del a
    b = staging.landing(1000, np.int32)        # the memory is still read through the view
    assert b.region is not region and b.address != address and (view == 7).all()
    assert b.array(1001, np.int32) is None     # does not fit; usable again for what does
    c = b.array(500, np.int64)
    assert c is not None and c.ctypes.data == b.address and b.array(1, np.int32) is None
    del view
    d = staging.landing(999, np.int32)         # the latest region given back
    assert d.region is region and d.address == address and d.array(999, np.int32).size == 999


def test_landing_memory_above_the_bound_is_freed(monkeypatch):
    """Memory of dropped labels larger than KEEP_BYTES is not kept: the
    next landing gets new memory, and the region kept before stays."""
    import gc

    from gconn.backends.gpu import staging
    gc.collect()
    land = staging.landing(1024, np.int32)
    kept = land.region
    small = land.array(1024, np.int32)
    del small
    monkeypatch.setattr(staging, "KEEP_BYTES", 8192)
    large = staging.landing(4096, np.int32).array(4096, np.int32)
    del large
    assert staging.landing(1024, np.int32).region is kept


def test_kept_landing_memory_is_registered_once_and_unregistered_when_replaced(monkeypatch):
    """Memory of dropped labels is registered (page-locked) as it is kept,
    whole pages from a page boundary; a landing made from it says so, and
    keeps its pages past the labels; the region it is replaced by is
    registered and the old one unregistered; a failed registration leaves
    a region as it was.  (Registration is the driver's; here a recorder.)"""
    import gc

    from gconn.backends.gpu import staging
    gc.collect()
    calls, refuse = [], []

    def register(address, nbytes):
        if refuse:
            raise RuntimeError("refused")
        calls.append(("register", address, nbytes))

    monkeypatch.setattr(staging, "_register",
                        lambda: (register, lambda address: calls.append(("unregister", address))))
    monkeypatch.setattr(staging, "_KEPT", [])
    first = staging.landing(3000, np.int32)
    region = first.region
    assert region.buf.ctypes.data % staging.PAGE == 0 and region.buf.nbytes % staging.PAGE == 0
    a = first.array(3000, np.int32)
    assert not first.pinned and calls == []
    a[:] = 5
    del a
    assert calls == [("register", region.buf.ctypes.data, 12288)] and region.pinned == 12288
    again = staging.landing(2000, np.int32)
    assert again.region is region
    b = again.array(2000, np.int32)
    assert again.pinned and calls == [("register", region.buf.ctypes.data, 12288)]   # once
    del b
    assert len(calls) == 1
    big = staging.Landing(4 * staging.REGION)         # outgrows the kept region: new memory
    other = big.region
    assert other is not region
    c = big.array(4 * staging.REGION, np.uint8)
    assert not big.pinned
    del c                                               # kept instead of the first, which goes
    del region, again, first
    gc.collect()
    assert calls[1:] == [("register", other.buf.ctypes.data, 4 * staging.REGION),
                         ("unregister", calls[0][1])]
    small = staging.landing(1000, np.uint8)
    assert small.region is other
    d = small.array(1000, np.uint8)
    assert small.pinned and other.written == 4 * staging.REGION    # pages past the labels kept
    del d, small
    refuse.append(True)
    e = staging.Landing(5 * staging.REGION)             # too large for the kept region
    fresh = e.region
    arr = e.array(10, np.int64)
    del arr
    assert staging._KEPT == [fresh] and fresh.pinned == 0
    del other
    gc.collect()
    assert calls[-1] == ("unregister", calls[1][1])


def test_landing_gives_back_the_pages_past_its_labels():
    """Labels smaller than their landing (n unknown: the parent array's
    capacity) keep the pages they fill; those past them go back to the
    kernel, and a later landing writes them again before it is used."""
    import gc

    from gconn.backends.gpu import staging
    gc.collect()
    big = 4 * staging.REGION
    land = staging.Landing(big)
    assert land.nbytes == big
    region = land.region
    small = land.array(1000, np.uint8)
    assert region.written < big and region.written >= 1000
    if sys.platform.startswith("linux"):
        assert region.written <= staging.REGION
    del small
    again = staging.Landing(big)
    assert again.region is region and region.written == big
    out = again.array(big // 8, np.int64)
    out[:] = np.arange(big // 8)
    assert out.sum() == (big // 8) * (big // 8 - 1) // 2


@pytest.mark.parametrize("threads,k", [(1, 10), (2, 1 << 16), (2, (1 << 16) + 3), (2, 300_007)])
def test_staging_copies_and_bounds(threads, k):
    """The parallel host copy into staging buffers: every element, cast,
    from strided columns, with the ids' bounds read on the way."""
    import numba

    from gconn.backends.gpu.staging import stage
    rng = np.random.default_rng(k)
    a = rng.integers(-5, 1 << 30, k)
    pairs = np.stack([a, a[::-1]], axis=1)
    out_a, out_b = np.zeros(k + 3, np.int32), np.zeros(k, np.int64)
    with chunked_gpu._threads(threads):
        assert numba.get_num_threads() == min(threads, numba.config.NUMBA_NUM_THREADS)
        assert stage(out_a, a) == (int(a.min()), int(a.max()))
        assert stage(out_b, pairs[:, 1]) == (int(a.min()), int(a.max()))
    assert np.array_equal(out_a[:k], a) and not out_a[k:].any() and np.array_equal(out_b, a[::-1])
    assert stage(out_b, a[:0]) == (0, -1)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("k", [1, 10, 1 << 16, (1 << 16) + 3, 2 * (1 << 16) + 1, 300_007])
def test_staging_plain_copies(threads, k, monkeypatch):
    """copy_into: contiguous ids of the pieces' type go by one memcpy share
    a thread (every element, whatever the split), others are cast by
    blocks, and copies below PASS_SERIAL_BELOW on the calling thread;
    nothing past ``a.size`` is written."""
    from gconn.backends.gpu import staging
    monkeypatch.setattr(staging, "cold", lambda: False)     # numba's copies, whatever ran before
    shares = []
    real = staging.copy_shares
    monkeypatch.setattr(staging, "copy_shares", lambda *a: shares.append(a[0].size) or real(*a))
    rng = np.random.default_rng(k)
    a = rng.integers(-2**31, 2**31 - 1, k).astype(np.int32)
    readonly = a.copy()
    readonly.flags.writeable = False
    wide = rng.integers(-5, 1 << 30, (k, 2))
    with chunked_gpu._threads(threads):
        for src in (a, readonly):
            out = np.full(k + 5, 7, np.int32)
            staging.copy_into(out, src)
            assert np.array_equal(out[:k], a) and (out[k:] == 7).all()
        assert shares == ([k, k] if k >= staging.PASS_SERIAL_BELOW else [])
        out = np.full(k + 1, 7, np.int64)
        staging.copy_into(out, wide[:, 1])          # strided (but for one row): by blocks
        assert np.array_equal(out[:k], wide[:, 1]) and out[k] == 7
        out = np.full(k, 7, np.int32)
        staging.copy_into(out, wide[:, 0].copy())   # int64 into int32 pieces: cast
        assert np.array_equal(out, wide[:, 0])
    assert shares == ([k, k] if k >= staging.PASS_SERIAL_BELOW else [])


def test_sparse_ids_fail_as_on_the_resident_path():
    src = np.array([0, 2**40], np.int64)
    with pytest.raises(gconn.VertexRangeError, match="relabel=True"):
        gconn.connected_components((src, src[::-1].copy()), backend="gpu")


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_device_id_bounds(dtype):
    """The one-kernel id check of device edges: the largest id, and the
    first negative id named as the host check names it."""
    from gconn.backends.gpu.graph import device_id_range
    rng = np.random.default_rng(1)
    src = rng.integers(0, 1000, 777).astype(dtype)
    dst = rng.integers(0, 5000, 777).astype(dtype)
    assert device_id_range(src, dst) == max(src.max(), dst.max())
    assert device_id_range(src, dst.astype(np.uint16)) == max(src.max(), dst.max())   # mixed: the host check
    bad = dst.copy()
    bad[500] = -3
    with pytest.raises(ValueError, match=r"negative vertex id -3 \(dst\[500\]\)"):
        device_id_range(src, bad)


class FakeDriver:
    """The driver calls of ``feed._pump`` as ctypes functions over host
    memory: copies are ``memmove``s, and a launch reads its parameters
    through the kernelParams pointers, as the driver does, and keeps the
    chunk its source and destination arrays hold at that moment.
    ``fail`` = (call name, n): the n-th call of that name returns 700."""

    def __init__(self, fail=None):
        import ctypes

        from gconn.chunked import gpu_feed as driver
        self.log, self.launches, self.fail, self.count = [], [], fail, {}
        self.fields = None

        def wrap(name, fn):
            def call(*args):
                self.count[name] = self.count.get(name, 0) + 1
                if self.fail and self.fail == (name, self.count[name]):
                    return 700
                self.log.append((name,) + args)
                return fn(*args) or 0
            widths = driver.SIGNATURES[name]
            proto = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.c_uint64 if w == 64 else ctypes.c_uint32
                                                        for w in widths])
            return proto(call)

        def launch(f, gx, gy, gz, bx, by, bz, shared, stream_, params, extra):
            ptrs = ctypes.cast(params, ctypes.POINTER(ctypes.c_uint64))
            value = lambda i: ctypes.c_int64.from_address(ptrs[i]).value      # noqa: E731
            arrays = []
            for side in (14, 21):               # src, dst: (meminfo, parent, size, itemsize, data, shape, stride)
                size, data = value(side + 2), value(side + 4)
                assert value(side + 5) == size
                arrays.append(np.ctypeslib.as_array(ctypes.cast(data, ctypes.POINTER(ctypes.c_int32)),
                                                    (size,)).copy() if size else np.empty(0, np.int32))
            self.launches.append(dict(m=value(35), row=value(67), grid=gx, block=bx, src=arrays[0], dst=arrays[1]))

        self.keep = [wrap("cuEventSynchronize", lambda e: None),
                     wrap("cuEventRecord", lambda e, s: None),
                     wrap("cuStreamWaitEvent", lambda s, e, f: None),
                     wrap("cuMemcpyHtoDAsync_v2", lambda d, h, n, s: ctypes.memmove(d, h, n) and None),
                     wrap("cuMemcpyDtoHAsync_v2", lambda h, d, n, s: ctypes.memmove(h, d, n) and None),
                     wrap("cuLaunchKernel", launch)]
        self.fns = np.array([ctypes.cast(f, ctypes.c_void_p).value for f in self.keep], np.int64)


def pump_case(m, chunk, piece, ring=3, *, cap=1 << 40, watch=False, devb=None, whole=None, src=True, fail=None):
    """A feed of m edges through ``feed._pump`` with a fake driver:
    (driver, control array, src, dst, device bounds, host bounds)."""
    drv = FakeDriver(fail)
    rng = np.random.default_rng(m * 7 + chunk)
    s, d = (rng.integers(0, 1 << 30, m).astype(np.int32) for _ in range(2))
    pieces = np.full((ring, piece + 2), -1, np.int32)       # rows longer than a piece, as a kept block may be
    bufs = [(np.zeros(chunk, np.int32), np.zeros(chunk, np.int32)) for _ in range(chunked_gpu.BUFFERS)]
    dbuf = np.array([(a.ctypes.data, b.ctypes.data) for a, b in bufs], np.int64)
    params = np.zeros((chunked_gpu.BUFFERS, 68), np.int64)
    for row, (a, b) in zip(params, bufs):
        row[14 + 4], row[21 + 4] = a.ctypes.data, b.ctypes.data
    ptrs = (np.arange(params.size, dtype=np.int64) * 8 + params.ctypes.data).reshape(params.shape)
    at = np.array([35, 16, 19, 18, 23, 26, 67], np.int64)
    rows = -(-m // chunk)
    devb = np.zeros(2 * rows, np.int64) if devb is None else devb
    hostb = np.full(2 * rows, feed._NOT_BACK, np.int64)
    events = np.arange(1000, 1000 + ring + 2 * chunked_gpu.BUFFERS, dtype=np.int64)
    c = np.zeros(feed._CONTROL, np.int64)
    c[feed._M], c[feed._CHUNK], c[feed._ROWS], c[feed._CAP], c[feed._WATCH] = m, chunk, rows, cap, watch
    c[feed._PIECE], c[feed._PIECES], c[feed._ISZ], c[feed._SHARES] = piece, pieces.ctypes.data, 4, 2
    c[feed._SRC], c[feed._WHOLE] = src, 0 if whole is None else whole.ctypes.data
    c[feed._COPY], c[feed._COMPUTE], c[feed._KERNEL], c[feed._GRIDS], c[feed._BLOCK] = 11, 12, 13, 5, 4
    c[feed._PTRS], c[feed._HOSTB], c[feed._DEVB], c[feed._LIMIT] = (ptrs.ctypes.data, hostb.ctypes.data,
                                                                           devb.ctypes.data, 1 << 20)
    feed._pump(drv.fns, s if src else s[:0], d, pieces, events, dbuf, params, at, hostb, c)
    return drv, c, s, d, hostb


@pytest.mark.parametrize("m,chunk,piece", [(1, 1, 1), (10, 4, 3), (37, 8, 8), (1000, 96, 17), (64, 64, 1000)])
def test_pump_sends_every_chunk_through_the_ring(m, chunk, piece):
    """The native feed: each chunk's ids reach its device buffers whole
    before its launch (through every piece of the ring, each refilled only
    after a wait on its event and copied right after its fill), the launch
    sees the chunk's size and bounds row and a grid for it, and each
    chunk's bounds come back to the host after its launch."""
    from gconn.chunked.gpu import BUFFERS
    drv, c, s, d, hostb = pump_case(m, chunk, piece)
    assert c[feed._A] == m and c[feed._ERR] == 0 and c[feed._SLOT] == -(-m // chunk)
    got = drv.launches
    assert [g["row"] for g in got] == list(range(len(got))) and len(got) == -(-m // chunk)
    assert np.array_equal(np.concatenate([g["src"] for g in got]), s)
    assert np.array_equal(np.concatenate([g["dst"] for g in got]), d)
    for g in got:
        assert g["m"] == g["src"].size and g["block"] == 4 and g["grid"] == min(-(-g["m"] // 4), 5)
    ring_events = set(range(1000, 1003))
    waited = set()
    for i, (name, *args) in enumerate(drv.log):
        if name == "cuEventSynchronize":
            waited.add(args[0])
        if name == "cuMemcpyHtoDAsync_v2":
            j = (args[1] - c[feed._PIECES]) // ((piece + 2) * 4)
            assert 1000 + j in waited and args[3] == 11           # its piece was waited for, on the copy stream
            waited.discard(1000 + j)
            assert drv.log[i + 1][:3] == ("cuEventRecord", 1000 + j, 11)
    assert waited <= ring_events
    # per chunk: wait for the buffer's last union, copies, copied -> compute, launch, bounds back, unioned
    marks = [(name, args[0]) for name, *args in drv.log if name != "cuEventSynchronize"
             and not (name == "cuEventRecord" and args[0] < 1003) and name != "cuMemcpyHtoDAsync_v2"]
    for k in range(len(got)):
        b = k % BUFFERS
        assert marks[6 * k:6 * k + 6] == [("cuStreamWaitEvent", 11), ("cuEventRecord", 1003 + b),
                                          ("cuStreamWaitEvent", 12), ("cuLaunchKernel", 13),
                                          ("cuMemcpyDtoHAsync_v2", hostb.ctypes.data + 16 * k),
                                          ("cuEventRecord", 1003 + BUFFERS + b)]


def test_pump_stops_where_the_parent_array_must_grow():
    """With n unknown, the pump reads the bounds back so far before each
    chunk and stops, for the host to grow the parent array, at the first
    chunk after one that held an id beyond it; with n known it does not
    look."""
    m, chunk = 40, 4
    devb = np.zeros(2 * 10, np.int64)
    devb[1::2] = 50
    devb[2 * 3 + 1] = 120               # chunk 3's largest id
    drv, c, *_ = pump_case(m, chunk, 4, cap=100, watch=True, devb=devb)
    assert c[feed._A] == 4 * chunk and len(drv.launches) == 4
    assert c[feed._ARRIVED] == 4 and c[feed._TOP] == 120
    drv, c, *_ = pump_case(m, chunk, 4, cap=100, watch=False, devb=devb)
    assert c[feed._A] == m


def test_pump_csr_rows_and_failed_calls():
    """A CSR (no source ids staged) takes each chunk's rows from the rows
    found whole; a failed driver call stops the pump at its chunk with the
    error and the call's name."""
    from gconn.chunked import gpu_feed as driver
    m, chunk = 30, 8
    whole = np.arange(m, dtype=np.int32) * 5
    drv, c, s, d, _ = pump_case(m, chunk, 3, whole=whole, src=False)
    assert np.array_equal(np.concatenate([g["src"] for g in drv.launches]), whole)
    assert np.array_equal(np.concatenate([g["dst"] for g in drv.launches]), d)
    copies = [name for name, *_ in drv.log].count("cuMemcpyHtoDAsync_v2")
    assert copies == sum(-(-min(chunk, m - o) // 3) for o in range(0, m, chunk))     # the column ids only
    drv, c, *_ = pump_case(m, chunk, 3, fail=("cuLaunchKernel", 2))
    assert c[feed._ERR] == 700 and driver.NAMES[c[feed._CALL]] == "cuLaunchKernel"
    assert c[feed._A] == chunk and c[feed._ROW] == 1 and len(drv.launches) == 1


def test_pump_runs_when_loaded_from_numbas_cache(tmp_path):
    """The pump compiled in one process and loaded from numba's disk cache
    in the next feeds as it did, also when the functions it is built from
    came from that cache when it was compiled (a pump whose copy was a
    cached function of its own calling the parallel
    ``staging.copy_shares`` crashed in the third process here)."""
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    code = (f"import sys; sys.path[:0] = [{here!r}, {os.path.dirname(here)!r}]\n"
            "import test_cudasim_chunked as t\n"
            "drv, c, s, d, _ = t.pump_case(1000, 96, 17)\n"
            "assert c[t.feed._A] == 1000 and len(drv.launches) == 11\n"
            "print('fed')\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    for i in range(3):
        if i == 1:      # the pump compiled again, over what it calls loaded from the cache
            for f in tmp_path.rglob("*_pump*"):
                f.unlink()
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0 and run.stdout.strip() == "fed", (i, run.returncode, run.stderr[-3000:])
        assert list(tmp_path.rglob("*_pump*.nbi"))
