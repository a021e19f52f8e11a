"""The GPU backend on a real GPU: every variant against scipy, real graphs,
10M+-edge graphs repeated to shake out races, device-resident input, limits.

    python -m pytest -m gpu tests/gpu/test_gpu.py -n 15    # pytest-xdist: kernels compile per process

Real graphs are read from conftest.DATA ($GCONN_DATA, else ../shared/data,
else the three bundled in tests/data); the device machine gets a copy of
../shared/data under the repo.
"""
from __future__ import annotations

import numpy as np
import pytest

import gconn
from gconn.graph import generators as gen
from gconn.graph import Graph

from conftest import DATA, manifest, small_graphs
from oracles import check_forest, host, reference, stream
from gpucases import check_incremental, compaction_cases, mb_variants, uf_variants

from gconn.backends import gpu
from gpucases import GPU_OK as _OK, ON_GPU

pytestmark = ON_GPU


def _same_coo(g, dg):
    """The COO derived on the device equals the host graph's."""
    return (dg.src.dtype == g.src.dtype and np.array_equal(host(dg.src), g.src)
            and np.array_equal(host(dg.dst), g.dst))


def _generated():
    """Every generator family at 10^4..10^5 edges."""
    return [
        ("kronecker-12", gen.kronecker(12, 8, seed=1)),
        ("barabasi-albert", gen.barabasi_albert(5000, 4, seed=2)),
        ("erdos-renyi", gen.erdos_renyi(20000, 1.5, seed=3)),
        ("grid-road", gen.grid_road(120, 0.6, seed=4)),
        ("triangle-mesh", gen.triangle_mesh(80)),
        ("path-permuted", gen.path(20000, permute=True, seed=5)),
        ("small-components", gen.small_components(400, 25, seed=6, p=0.1)),
    ] + [(name, Graph.from_edges(s, d, n)) for name, s, d, n in small_graphs()]


@pytest.fixture(scope="module")
def graphs():
    """(name, host graph, device graph, scipy's k and labels)."""
    out = []
    for name, g in _generated():
        k0, l0 = reference(g)
        dg = g.to_device()
        assert _same_coo(g, dg), name
        out.append((name, g, dg, k0, l0))
    return out


def _combos():
    """Each union-find (finish, find, splice) combination once: its kernels
    compile once per test process however the tests are spread."""
    return sorted({name.split("+", 1)[1] for name in uf_variants("cc")})


@pytest.mark.parametrize("combo", _combos())
def test_every_variant(combo, graphs):
    """For every sampling: connected components vs scipy, from host and
    device graphs; the spanning forest when root-based; then incremental
    batches in every mode.  The labels must equal scipy's exactly, as the
    CPU suites require of the CPU backend, so the two backends agree; calling
    the CPU backend here too would only add its compile time per variant."""
    cc, forest = set(uf_variants("cc")), set(uf_variants("forest"))
    for sampling in ("none", "kout", "hb", "bfs", "stride"):
        name = f"{sampling}+{combo}"
        assert name in cc
        for gname, g, dg, k0, l0 in graphs:
            k, labels = gconn.connected_components(g, algorithm=name, backend="gpu")
            assert isinstance(labels, np.ndarray), "host input gives NumPy labels"
            assert k == k0 and np.array_equal(labels, l0), (name, gname)
            kd, ld = gconn.connected_components(dg, algorithm=name)
            assert kd == k0 and np.array_equal(host(ld), l0), (name, gname, "device graph")
            if name in forest:
                src, dst = gconn.spanning_forest(g, algorithm=name, backend="gpu")
                check_forest(g, src, dst, k0)
    name = f"none+{combo}"
    rng = np.random.default_rng(sum(map(ord, name)))
    batches = stream(rng, 3000, 3, 2000) + stream(rng, 100_000, 2, 20_000)
    for mode in ("phased", "sequential", "concurrent"):
        check_incremental(name, batches, mode)


# -- the other finishes (gconn.backends.gpu.finishes) -----------------------------------


@pytest.fixture(scope="module")
def mb_graphs():
    """(name, host graph, scipy's k and labels): many small components (many
    BFS-CC searches) and ~1M edges with a giant component."""
    out = []
    for name, g in (("small-components", gen.small_components(400, 25, seed=6, p=0.1)),
                    ("erdos-renyi-1M", gen.erdos_renyi(250_000, 8, seed=21))):
        k0, l0 = reference(g)
        out.append((name, g, k0, l0))
    return out


def _mb_finishes():
    return sorted({name.split("+", 1)[1] for name in mb_variants("cc")})


@pytest.mark.parametrize("finish", _mb_finishes())
def test_every_other_finish(finish, mb_graphs):
    """Every sampling: connected components vs scipy, the spanning forest
    when root-based; incremental batches in every mode when root-based."""
    cc, forest, inc = set(mb_variants("cc")), set(mb_variants("forest")), set(mb_variants("incremental"))
    for sampling in ("none", "kout", "hb", "bfs"):
        name = f"{sampling}+{finish}"
        if name not in cc:
            continue
        for gname, g, k0, l0 in mb_graphs:
            k, labels = gconn.connected_components(g, algorithm=name, backend="gpu")
            assert k == k0 and np.array_equal(labels, l0), (name, gname)
            if name in forest:
                src, dst = gconn.spanning_forest(g, algorithm=name, backend="gpu")
                check_forest(g, src, dst, k0)
    name = f"none+{finish}"
    if name in inc:
        rng = np.random.default_rng(sum(map(ord, name)))
        batches = stream(rng, 3000, 3, 2000) + stream(rng, 100_000, 2, 20_000)
        for mode in ("phased", "sequential", "concurrent"):
            check_incremental(name, batches, mode)


# -- real graphs -------------------------------------------------------------

ROWS = manifest()


@pytest.mark.parametrize("algorithm, params", [("kout+union-rem-cas+find-naive+split-one", {}),
                                               ("kout+union-async+find-halve", dict(k=3)),
                                               ("none+union-rem-cas+find-naive+split-one", {}),
                                               ("none+union-async+find-halve", {})])
def test_forest_recorded_by_position(algorithm, params, graphs, monkeypatch):
    """A forest recorded in its edges' slots past the roots' (k-out with k = 2: edge reorganization's
    pairs of lanes), on the graphs of low degree and scattered ids, the size threshold lowered to them."""
    from gconn import design
    monkeypatch.setattr(design, "AUTO_GPU_PATH_EDGES", 1)
    plan = design.Plan.of(design.Variant.parse(algorithm, "forest").with_params(**params))
    by = []
    for name, g, dg, k0, _ in graphs:
        dg.adjacency()
        by.append(design.forest_by_position(dg, plan))
        src, dst = gconn.spanning_forest(dg, algorithm=algorithm, **params)
        check_forest(g, host(src), host(dst), k0)
    assert by.count(algorithm.split("+")[0].replace("none", "edges")) >= 2, by


@pytest.mark.parametrize("row", ROWS, ids=[r["file"] for r in ROWS])
def test_real_graphs(row):
    g = gconn.load(DATA / row["file"])
    k0, l0 = reference(g)
    assert k0 == int(row["components"])
    for name in ("auto", "kout+union-async+find-compress", "hb+union-rem-cas+find-split+splice",
                 "bfs+union-async+find-halve", "none+union-jtb+find-two-try-split",
                 "kout+union-rem-lock+find-naive+halve-one", "hb+union-hooks+find-split",
                 "kout+union-early+find-compress"):
        k, labels = gconn.connected_components(g, algorithm=name, backend="gpu")
        assert k == k0 and np.array_equal(labels, l0), name
    src, dst = gconn.spanning_forest(g, algorithm="kout+union-async+find-compress", backend="gpu")
    check_forest(g, src, dst, k0)


# -- 10M+ edges, repeated: races show up as changing answers ---------------------

LARGE_VARIANTS = ("auto", "kout+union-async+find-compress", "kout+union-async+find-halve",
                  "hb+union-rem-cas+find-split+splice", "none+union-async+find-compress",
                  "none+union-rem-lock+find-halve+split-one", "kout+union-hooks+find-naive",
                  "hb+union-early+find-split", "bfs+union-jtb+find-two-try-split", "kout+union-jtb+find-naive")


@pytest.fixture(scope="module")
def large():
    out = []
    for name, g in (("kronecker-20", gen.kronecker(20, 16, seed=11)),
                    ("grid-road-2048", gen.grid_road(2048, 0.7, seed=12)),
                    ("path-4M", gen.path(1 << 22))):
        k0, l0 = reference(g)
        dg = g.to_device()
        assert _same_coo(g, dg), name       # 2m > COO_CHUNK: derived in several steps
        out.append((name, dg, k0, l0))
    return out


@pytest.mark.parametrize("name", LARGE_VARIANTS)
def test_large_graphs_repeated(name, large):
    for gname, dg, k0, l0 in large:
        for _ in range(5):
            k, labels = gconn.connected_components(dg, algorithm=name)
            assert k == k0 and np.array_equal(host(labels), l0), (name, gname)
    gname, dg, k0, _ = large[0]
    assert dg.m >= 10_000_000, gname
    if name == "auto" or gconn.design.Variant.parse(name).root_based:
        for _ in range(2):
            src, dst = gconn.spanning_forest(dg, algorithm=name)
            assert src.size == dg.n - k0


def test_large_incremental_single_batch(large):
    gname, dg, k0, l0 = large[0]
    for name in ("none+union-async+find-halve", "none+union-rem-cas+find-split+splice",
                 "none+union-jtb+find-two-try-split"):
        for _ in range(3):
            ic = gconn.IncrementalConnectivity(dg.n, algorithm=name, backend="gpu")
            ic.insert(dg.src, dg.dst)
            assert ic.n_components == k0
            assert np.array_equal(host(ic.labels()), l0), name


_HB_CHAIN = """
import sys, time
import gconn
from gconn.graph import generators as gen
from gconn.backends.gpu.backend import sync
dg = gen.path(1 << 22).to_device()
for name in sys.argv[1:]:
    for i in range(4):
        sync()
        t = time.perf_counter()
        k, labels = gconn.connected_components(dg, algorithm=name)
        sync()
        print(name, i, k, int(labels.max()), time.perf_counter() - t, flush=True)
"""


def test_hb_on_an_ordered_path_is_fast():
    """HB's first step makes the path 0-1-...-n one chain of n vertices,
    which the compression must flatten at once: path halving over a
    grid-stride loop took from a few hundred ms to over 40 s there.  In a
    child process, so that a hang fails this test instead of stalling the
    suite; the first call compiles, the later ones must take well under a
    second (about a millisecond on the H100)."""
    import os
    import subprocess
    import sys
    names = ("hb+union-rem-cas+find-halve+splice", "hb+union-async+find-halve", "hb+union-jtb+find-two-try-split")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", _HB_CHAIN, *names], capture_output=True, text=True, timeout=240,
                         env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split() for line in out.stdout.splitlines()]
    assert [(r[0], r[1]) for r in rows] == [(n, str(i)) for n in names for i in range(4)]
    for name, i, k, top, seconds in rows:
        assert (k, top) == ("1", "0"), name
        if i != "0":
            assert float(seconds) < 0.5, (name, i, seconds)


# -- device-resident input, ids, stats, limits ---------------------------------

def test_device_input_stays_on_device():
    import cupy as cp
    import cupyx.scipy.sparse as csp
    rng = np.random.default_rng(0)
    s, d = rng.integers(0, 5000, 6000), rng.integers(0, 5000, 6000)
    s[:10] = d[:10]                                   # self loops and duplicates
    g = Graph.from_edges(s, d, 5000)
    k0, l0 = reference(g)
    dg = Graph.from_edges(cp.asarray(s), cp.asarray(d), 5000)
    assert dg.on_gpu and dg == g
    k, labels = gconn.connected_components(dg)
    assert isinstance(labels, cp.ndarray) and k == k0 and np.array_equal(labels.get(), l0)
    A = csp.coo_matrix((cp.ones(s.size), (cp.asarray(s), cp.asarray(d))), shape=(5000, 5000))
    k, labels = gconn.connected_components(A.tocsr())
    assert k == k0 and np.array_equal(labels.get(), l0)
    src, dst = gconn.spanning_forest(dg)
    assert isinstance(src, cp.ndarray)
    check_forest(g, src.get(), dst.get(), k0)
    ic = gconn.IncrementalConnectivity(algorithm="none+union-async+find-halve", backend="gpu")
    ic.insert(cp.asarray(s), cp.asarray(d))
    assert ic.n_components == k0 - (5000 - ic.n)          # ids past the largest one are not seen
    with pytest.raises(ValueError, match="negative"):
        ic.insert(cp.asarray([-1]), cp.asarray([0]))
    with pytest.raises(TypeError, match="integers"):
        ic.insert(cp.asarray([0.5]), cp.asarray([0.0]))


def test_device_batches_are_checked_before_their_unions():
    """CuPy batches into an IncrementalConnectivity: ids past the capacity grow it, a negative id is an
    error with nothing of its batch inserted; int64 ids into int32 ids and strided columns too."""
    import cupy as cp
    rng = np.random.default_rng(4)
    s, d = rng.integers(0, 3000, 4000), rng.integers(0, 3000, 4000)
    for name in ("none+union-async+find-halve", "none+union-jtb+find-two-try-split"):
        ic = gconn.IncrementalConnectivity(3000, algorithm=name, backend="gpu")
        ic.insert(cp.asarray(s[:2000], np.int32), cp.asarray(d[:2000], np.int32))
        before = host(ic.labels())
        with pytest.raises(ValueError, match="negative"):
            ic.insert(cp.asarray([5, -1], np.int32), cp.asarray([6, 7], np.int32))
        assert np.array_equal(host(ic.labels()), before), name          # 5-6 not inserted either
        ic.insert(cp.asarray(s[2000:3000]), cp.asarray(d[2000:3000]))  # int64: the checked path
        wide = cp.asarray(np.stack([s[3000:], d[3000:]]).T.astype(np.int32))
        ic.insert(wide[:, 0], wide[:, 1])                                # strided columns
        ic.insert(cp.asarray([2999, 5000], np.int32), cp.asarray([7000, 4999], np.int32))   # grows
        assert ic.n == 7001
        g = Graph.from_edges(np.r_[s, 2999, 5000], np.r_[d, 7000, 4999], 7001)
        k0, l0 = reference(g)
        assert ic.n_components == k0 and np.array_equal(host(ic.labels()), l0), name


def test_bad_device_edges():
    import cupy as cp
    with pytest.raises(ValueError, match="negative"):
        Graph.from_edges(cp.asarray([0, -2]), cp.asarray([1, 1]))
    with pytest.raises(ValueError, match="out of range"):
        Graph.from_edges(cp.asarray([0, 5]), cp.asarray([1, 1]), n=3)
    with pytest.raises(TypeError, match="integers"):
        Graph.from_edges(cp.asarray([0.0]), cp.asarray([1.0]))


def test_int64_ids(graphs):
    for gname, g, _, k0, l0 in graphs[:4]:
        g64 = Graph(g.n, g.indptr.astype(np.int64), g.indices.astype(np.int64), g.src.astype(np.int64),
                    g.dst.astype(np.int64))
        for name in ("kout+union-async+find-compress", "hb+union-jtb+find-two-try-split",
                     "none+union-rem-cas+find-halve+splice", "bfs+union-hooks+find-halve"):
            k, labels = gconn.connected_components(g64, algorithm=name, backend="gpu")
            assert labels.dtype == np.int64 and k == k0 and np.array_equal(labels, l0), (gname, name)
    from gconn.design import Variant
    st = gpu.IncrementalState(Variant.parse("none+union-jtb+find-two-try-split", "incremental"), np.int64)
    st.reserve(5000)
    st.insert(gpu.asarray([0, 4999], np.int64), gpu.asarray([4999, 7], np.int64))
    assert host(st.query(gpu.asarray([7], np.int64), gpu.asarray([0], np.int64))).tolist() == [True]


def test_auto_picks_the_gpu_and_fills_stats(graphs):
    _, g, _, k0, _ = graphs[0]
    k, _, st = gconn.connected_components(g, return_stats=True)
    assert st.backend == "gpu" and k == k0 and st.device_time > 0
    # the sampled pipeline's stats need a sampling variant (a graph built
    # from edges gets none from the automatic choice)
    k, _, st = gconn.connected_components(g, algorithm="kout+union-async", return_stats=True)
    assert st.backend == "gpu" and k == k0
    assert st.device_time > 0 and {"sample", "lmax", "finish", "finalize"} <= set(st.phase_times)
    assert 0 < st.coverage <= 1 and st.lmax is not None and st.inter_component is not None
    assert st.edge_inspections["sample"] > 0


def test_too_large_for_the_gpu_is_a_clear_memory_error():
    import cupy as cp
    n = 1 << 40
    z = cp.zeros(0, np.int64)
    fake = Graph(n, cp.zeros(2, np.int64), z, z, z, device="gpu")
    with pytest.raises(MemoryError, match="needs about .* GiB of GPU memory but only .* GiB is free"):
        gconn.connected_components(fake, algorithm="none+union-async")
    with pytest.raises(MemoryError, match="GiB"):
        gconn.IncrementalConnectivity(n, backend="gpu")
    # the device is still fine afterwards
    assert gconn.connected_components(([0, 1], [1, 2]), backend="gpu")[0] == 1


def test_row_probe_on_the_device_and_the_choice_on_chains():
    """A device graph's row probe agrees with its host graph's; a mesh
    numbered along it gets HB from the automatic choice, a path numbered
    along it UnionRemCAS with FindNaive, and the same path with shuffled ids
    neither; all with SciPy's components."""
    import cupy as cp
    from gconn import design
    ms, md, mn = gen.triangle_mesh_edges(300)
    ps, pd, pn = gen.path_edges(50_000)
    p = np.random.default_rng(3).permutation(pn)
    for (s, d, n), chosen in (((ms, md, mn), "hb+union-rem-cas+find-halve+splice"),
                              ((ps, pd, pn), "none+union-rem-cas+find-naive+splice"),
                              ((p[ps], p[pd], pn), "none+union-rem-cas+find-split+split-one")):
        h = Graph.from_edges(s, d, n)
        g = Graph.from_edges(cp.asarray(s), cp.asarray(d), n)
        h.adjacency()
        g.adjacency()
        assert g.hb_roots() == h.hb_roots() and g.ids_local() == h.ids_local()
        assert design.choose(g, backend="gpu").name == chosen
        k0, l0 = reference(h)
        k, labels = gconn.connected_components(g)
        assert k == k0
        np.testing.assert_array_equal(host(labels), l0)


def test_bound_launch_checks_its_arrays():
    """A bound launch (the compaction's last kernel, made again after each
    replay) takes only arrays of its signature's type, and launches what
    the usual launch would."""
    import cupy as cp
    from gconn.backends.gpu import launch as L, ops
    roots = cp.asarray(np.array([0, 0, 2, 0, 2, 5], np.int32))
    k, want = ops.compact(roots, min_rooted=True)
    n = roots.size
    local, sums = cp.empty(n, np.int32), cp.empty(1, np.int32)
    dts = L.dtypes_key(np.int32, np.int32, np.int32)
    rv, mv = ops.view(roots), L.dummy(np.int32)
    L.launch(L.get("compact_local", (True, False), dts), L.BLOCK, rv, n, mv, ops.view(local), ops.view(sums))
    L.launch(L.get("compact_tiles", (False,), dts), ops.SCAN_BLOCK, ops.view(sums), 1, L.dummy(np.int64),
             block=ops.SCAN_BLOCK)
    last = L.bind(L.get("compact_labels", (True, True), dts), n, rv, n, mv, ops.view(local), ops.view(sums))
    with pytest.raises(TypeError, match="int32"):
        last(cp.empty(n, np.int64))
    with pytest.raises(TypeError, match="takes 1 arrays"):
        last()
    labels = cp.empty(n, np.int32)
    last(labels)
    assert int(k) == 3 and host(labels).tolist() == host(want).tolist() == [0, 0, 1, 0, 1, 2]


@pytest.mark.parametrize("tiles", [1, 31, 1025, 8191, 8192, 8193, 70_001])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_the_tile_scan_is_an_inclusive_prefix_sum(tiles, dtype):
    """compact_tiles alone against NumPy: fewer sums than threads, a
    partial and a whole round of the warp path, and several rounds; and
    the checked scan of a run with unchecked ids, whose last sum (k) is -1
    where the flags show an id that did not fit, the flags cleared."""
    import cupy as cp
    from gconn.backends.gpu import launch as L
    from gconn.backends.gpu import ops
    sums = np.random.default_rng(tiles).integers(0, 2049, tiles).astype(dtype)
    want = np.cumsum(sums)
    for flags in (None, [0, 1], [1, 1], [0, 0]):
        dev = cp.asarray(sums)
        f = None if flags is None else cp.asarray(np.array(flags, np.int64))
        L.launch(L.get("compact_tiles", (f is not None,), L.dtypes_key(dtype, dtype, dtype)), ops.SCAN_BLOCK,
                 ops.view(dev), tiles, L.dummy(np.int64) if f is None else ops.view(f), block=ops.SCAN_BLOCK)
        got = cp.asnumpy(dev)
        assert np.array_equal(got[:-1], want[:-1])
        assert got[-1] == (want[-1] if flags in (None, [0, 1]) else -1)
        if f is not None:
            assert cp.asnumpy(f).tolist() == [0, 0]


@pytest.mark.parametrize("n,parts", [(1, 1), (2047, 5), (2049, 2049), (100_000, 30_000), (3_000_000, 1),
                                     (3_000_000, 1000), (3_000_000, 2_900_000), (17_000_000, 40_000)])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_compaction_of_any_roots(n, parts, dtype):
    """Labels in SciPy's order from roots that are the minima and roots
    that are not, against the CPU's compaction: sizes on and across the
    2048-vertex tiles, more tiles than the scanning block has threads
    (the warp-ballot path the simulator cannot run), and more than one
    round of the tile scan (17M vertices); parent arrays not yet
    compressed come back compressed.  Every other case reads the roots
    from a view one item into its memory (not 16-byte aligned: the
    labels kernel's 4-byte path)."""
    import cupy as cp
    from gconn.backends import cpu
    from gconn.backends.gpu import ops
    for i, (parents, min_rooted, flat, roots) in enumerate(compaction_cases(n, parts)):
        want_k, want = cpu.compact(roots.astype(dtype))
        P = cp.empty(n + i % 2, dtype)[i % 2:]
        P[...] = cp.asarray(parents.astype(dtype))
        assert (P.data.ptr % 16 == 0) == (i % 2 == 0)
        k, labels = ops.compact(P, min_rooted=min_rooted, flat=flat)
        assert int(k) == want_k and np.array_equal(cp.asnumpy(labels), want), (min_rooted, flat)
        if not flat:        # the first kernel also compresses the parents
            assert np.array_equal(cp.asnumpy(P), roots), min_rooted
