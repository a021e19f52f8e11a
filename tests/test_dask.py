"""gconn.integrations.dask on a 2-worker LocalCluster, against scipy on the whole graph."""
from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from dask import delayed  # noqa: E402
from scipy.sparse.csgraph import connected_components as scipy_cc  # noqa: E402

import gconn  # noqa: E402
import gconn.integrations.dask as gd  # noqa: E402
from oracles import check_forest, same_partition  # noqa: E402


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster
    # Compile (or load) gconn's kernels here first: the workers then find
    # them in numba's on-disk cache, which they share with this process.
    gconn.connected_components(([0, 1], [1, 2]), backend="cpu")
    gconn.spanning_forest(([0, 1], [1, 2]), backend="cpu")
    # One retry after a worker death, so a task that kills every worker
    # fails fast with KilledWorker.
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        # One numba thread per worker: two workers already fill the two cores
        # CI has, and tiny parallel kernels would wait on each other.
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          env={"NUMBA_NUM_THREADS": "1"}) as cluster, Client(cluster) as c:
            yield c


def frames_ddf(parts):
    """A dask dataframe with exactly these (src, dst) partitions."""
    meta = pd.DataFrame({"src": np.zeros(0, np.int64), "dst": np.zeros(0, np.int64)})
    frames = [delayed(pd.DataFrame)({"src": np.asarray(s, np.int64), "dst": np.asarray(d, np.int64)})
              for s, d in parts]
    return dd.from_delayed(frames, meta=meta, verify_meta=False)


def split(src, dst, sizes):
    cuts = np.cumsum(sizes)[:-1]
    return list(zip(np.split(src, cuts), np.split(dst, cuts)))


def components_graph(n, m, seed):
    """Random edges over n vertices in ~n/8 components, shuffled, so every
    partition cuts through components."""
    rng = np.random.default_rng(seed)
    comp = rng.integers(0, max(n // 8, 1), n)
    order = np.argsort(comp, kind="stable")
    src = rng.integers(0, n, m)
    # Partner in the same component: a neighbour in component order.
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(n)
    step = rng.integers(-3, 4, m)
    dst = order[np.clip(pos[src] + step, 0, n - 1)]
    dst = np.where(comp[dst] == comp[src], dst, src)
    return src.astype(np.int64), dst.astype(np.int64)


def reference(src, dst, n):
    A = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    return scipy_cc(A, directed=False)


def assert_labels(k, labels, src, dst, n):
    k0, l0 = reference(src, dst, n)
    assert k == k0
    got = labels.compute()
    assert np.array_equal(got, l0)


def assert_forest(forest_ddf, src, dst, n):
    f = forest_ddf.compute()
    assert list(f.columns) == ["source", "target"]
    g = gconn.Graph.from_edges(src, dst, n=n)
    k0, _ = reference(src, dst, n)
    check_forest(g, f["source"].to_numpy(), f["target"].to_numpy(), k0)


def test_partitions_cut_through_components(client):
    n = 3000
    src, dst = components_graph(n, 5000, seed=1)
    ddf = frames_ddf(split(src, dst, [700, 1300, 1000, 2000]))
    k, labels = gd.connected_components(ddf, n=n, backend="cpu")
    assert isinstance(labels, da.Array)
    assert_labels(k, labels, src, dst, n)
    assert_forest(gd.spanning_forest(ddf, backend="cpu"), src, dst, n)


def test_edge_columns_found_by_their_names(client):
    """A dataframe whose weight comes first: its src and dst columns are the edges."""
    n = 500
    src, dst = components_graph(n, 700, seed=4)
    ddf = dd.from_pandas(pd.DataFrame({"w": np.ones(src.size, np.int64), "src": src, "dst": dst}), npartitions=3)
    k, labels = gd.connected_components(ddf, n=n, backend="cpu")
    assert_labels(k, labels, src, dst, n)
    k, labels = gd.connected_components(ddf, n=n, backend="cpu", source="src")     # dst, its partner
    assert_labels(k, labels, src, dst, n)
    with pytest.raises(ValueError, match="source and target are the same column 'w'"):
        gd.connected_components(ddf, n=n, backend="cpu", target="w")


def test_empty_and_skewed_partitions(client):
    n = 2000
    src, dst = components_graph(n, 4000, seed=2)
    parts = split(src, dst, [0, 3500, 0, 1, 0, 499, 0])
    ddf = frames_ddf(parts)
    k, labels = gd.connected_components(ddf, backend="cpu", fan_in=2, chunk_size=300)
    hi = int(max(src.max(), dst.max())) + 1
    assert labels.numblocks[0] == -(-hi // 300)
    assert_labels(k, labels, src, dst, hi)
    assert_forest(gd.spanning_forest(ddf, backend="cpu", chunk_size=100), src, dst, hi)


def test_one_partition(client):
    n = 500
    src, dst = components_graph(n, 600, seed=3)
    ddf = frames_ddf([(src, dst)])
    k, labels = gd.connected_components(ddf, n=n, backend="cpu")
    assert_labels(k, labels, src, dst, n)
    assert_forest(gd.spanning_forest(ddf, backend="cpu"), src, dst, n)


def test_a_dask_collection_passed_to_gconn_names_the_dask_functions():
    """gconn.connected_components does not compute a Dask collection whole: it says which function does."""
    ddf = frames_ddf([(np.array([0, 1]), np.array([1, 2]))])
    for obj in (ddf, da.from_array(np.array([[0, 1], [1, 2]]))):
        with pytest.raises(TypeError, match=r"a Dask \w+ is computed by its partitions: pass it to "
                                            r"gconn.integrations.dask.connected_components"):
            gconn.connected_components(obj, backend="cpu")


def test_64_partitions(client):
    n = 5000
    src, dst = components_graph(n, 9000, seed=4)
    ddf = dd.from_pandas(pd.DataFrame({"a": src, "b": dst}), npartitions=64, sort=False)
    assert ddf.npartitions == 64
    k, labels = gd.connected_components(ddf, n=n, backend="cpu", fan_in=4)
    assert_labels(k, labels, src, dst, n)
    assert_forest(gd.spanning_forest(ddf, backend="cpu", fan_in=3), src, dst, n)


def test_ids_beyond_2_31_are_relabelled(client):
    n = 4000
    src, dst = components_graph(n, 6000, seed=5)
    rng = np.random.default_rng(5)
    ids = np.sort(rng.choice(2**62, n, replace=False)) + 2**31
    # Self loops on vertices with no other edge are vertices too.
    lonely = np.setdiff1d(np.arange(n), np.r_[src, dst])[:5]
    s = np.r_[ids[src], ids[lonely]]
    d = np.r_[ids[dst], ids[lonely]]
    ddf = frames_ddf(split(s, d, [1000, 0, 2000, s.size - 3000]))
    k, out = gd.connected_components(ddf, backend="cpu", chunk_size=700)
    assert isinstance(out, dd.DataFrame)
    df = out.compute()
    used = np.unique(np.r_[src, dst, lonely])
    assert np.array_equal(df["vertex"].to_numpy(), ids[used])
    # scipy on the graph relabelled to the vertices that appear.
    rs, rd = np.searchsorted(used, np.r_[src, lonely]), np.searchsorted(used, np.r_[dst, lonely])
    k0, l0 = reference(rs, rd, used.size)
    assert k == k0
    assert np.array_equal(df["label"].to_numpy(), l0)
    f = gd.spanning_forest(ddf, backend="cpu").compute()
    fs = np.searchsorted(ids, f["source"].to_numpy())
    fd = np.searchsorted(ids, f["target"].to_numpy())
    assert np.array_equal(ids[fs], f["source"].to_numpy())
    g = gconn.Graph.from_edges(src, dst, n=n)
    check_forest(g, fs, fd, reference(src, dst, n)[0])
    with pytest.raises(ValueError, match="sparse"):
        gd.connected_components(ddf, output="array", backend="cpu")


def test_dense_ids_as_dataframe_and_array_input(client):
    n = 1000
    src, dst = components_graph(n, 1500, seed=6)
    arr = da.from_array(np.stack([src, dst], axis=1).astype(np.int32), chunks=(200, 1))
    k, df = gd.connected_components(arr, output="dataframe", backend="cpu")
    df = df.compute()
    used = np.unique(np.r_[src, dst])
    assert np.array_equal(df["vertex"].to_numpy(), used)
    k0, l0 = reference(src, dst, n)
    assert same_partition(df["label"].to_numpy(), l0[used])
    k, labels = gd.connected_components(arr, n=n, backend="cpu")
    assert_labels(k, labels, src, dst, n)


def test_files(client, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    n = 1200
    src, dst = components_graph(n, 2000, seed=7)
    parts = split(src, dst, [400, 400, 400, 400, 400])
    (s0, d0), (s1, d1), (s2, d2), (s3, d3), (s4, d4) = parts
    pq.write_table(pa.table({"x": s0 * 0, "u": s0, "v": d0}), tmp_path / "a.parquet")
    pd.DataFrame({"u": s1, "v": d1}).to_csv(tmp_path / "b.csv", index=False)
    pd.DataFrame({"u": s2, "v": d2}).to_csv(tmp_path / "c.csv", index=False, header=False)
    np.save(tmp_path / "d.npy", np.stack([s3, d3], axis=1))
    gconn.save(gconn.Graph.from_edges(s4, d4, n=n), tmp_path / "e.gcb")
    files = [tmp_path / "a.parquet", tmp_path / "b.csv", tmp_path / "c.csv", tmp_path / "d.npy",
             str(tmp_path / "e.gcb")]
    # Parquet and headed CSV columns by name (.npy and .gcb have no names).
    k, labels = gd.connected_components(files[:2] + files[3:], source="u", target="v", backend="cpu")
    s, d = np.r_[s0, s1, s3, s4], np.r_[d0, d1, d3, d4]
    assert_labels(k, labels, s, d, n)
    # A headerless CSV by position; the first two columns by default.
    k, labels = gd.connected_components(files[2:], source=0, backend="cpu")
    s, d = np.r_[s2, s3, s4], np.r_[d2, d3, d4]
    assert_labels(k, labels, s, d, n)
    assert_forest(gd.spanning_forest(str(tmp_path / "[cde].*"), backend="cpu"), s, d, n)
    # by default a Parquet file's or a CSV header's columns named u and v, else the first two
    k, labels = gd.connected_components(files, backend="cpu")
    s, d = np.r_[s0, s1, s2, s3, s4], np.r_[d0, d1, d2, d3, d4]
    assert_labels(k, labels, s, d, n)
    # Gzipped CSV: the header test reads the decompressed first line.
    pd.DataFrame({"u": s2, "v": d2}).to_csv(tmp_path / "g.csv.gz", index=False, header=False)
    k, labels = gd.connected_components([tmp_path / "g.csv.gz"], n=n, backend="cpu")
    assert_labels(k, labels, s2, d2, n)


def test_incremental(client):
    n = 2000
    src, dst = components_graph(n, 3000, seed=8)
    inc = gd.IncrementalForest(backend="cpu", fan_in=2)
    rng = np.random.default_rng(8)
    u, v = rng.integers(0, n + 10, 500), rng.integers(0, n + 10, 500)
    for a, b in ((0, 1000), (1000, 1001), (1001, 3000)):
        inc.add(frames_ddf(split(src[a:b], dst[a:b], [(b - a) // 2, b - a - (b - a) // 2])))
        s, d = src[:b], dst[:b]
        hi = int(max(s.max(), d.max())) + 1
        k0, l0 = reference(s, d, hi)
        k, labels = inc.labels()
        assert k == k0 == inc.n_components
        assert np.array_equal(labels.compute(), l0)
        seen = (u < hi) & (v < hi)
        want = (u == v) | (seen & (l0[np.minimum(u, hi - 1)] == l0[np.minimum(v, hi - 1)]))
        assert np.array_equal(inc.connected(u, v), want)
    assert_forest(inc.spanning_forest(), src, dst, hi)
    k, df = inc.labels(output="dataframe")
    assert np.array_equal(df.compute()["vertex"].to_numpy(), np.unique(np.r_[src, dst]))


def test_local_scheduler_without_client():
    src, dst = components_graph(300, 400, seed=9)
    ddf = frames_ddf(split(src, dst, [100, 0, 300]))
    k, labels = gd.connected_components(ddf, n=300, backend="cpu", client=False)
    assert_labels(k, labels, src, dst, 300)
    assert_forest(gd.spanning_forest(ddf, backend="cpu", client=False), src, dst, 300)


def _flaky_partition(i, marker, src, dst):
    # Partition 0 kills its worker the first time it is read.
    if i == 0 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return pd.DataFrame({"src": src, "dst": dst})


def _deadly_partition(i, src, dst):
    os._exit(1)


def test_worker_killed_mid_run(client, tmp_path):
    n = 1500
    src, dst = components_graph(n, 2500, seed=10)
    parts = split(src, dst, [800, 900, 800])
    marker = str(tmp_path / "died")
    ddf = dd.from_map(_flaky_partition, range(3), [marker] * 3, [p[0] for p in parts],
                      [p[1] for p in parts], enforce_metadata=False,
                      meta=pd.DataFrame({"src": np.zeros(0, np.int64), "dst": np.zeros(0, np.int64)}))
    k, labels = gd.connected_components(ddf, n=n, backend="cpu")
    assert os.path.exists(marker), "the worker was not killed"
    assert_labels(k, labels, src, dst, n)
    client.wait_for_workers(2, timeout=60)


def test_worker_killed_every_time_is_a_clear_error(client):
    from distributed import KilledWorker
    ddf = dd.from_map(_deadly_partition, range(1), [np.arange(3)], [np.arange(3)],
                      enforce_metadata=False,
                      meta=pd.DataFrame({"src": np.zeros(0, np.int64), "dst": np.zeros(0, np.int64)}))
    with pytest.raises(KilledWorker):
        gd.connected_components(ddf, backend="cpu")
    client.wait_for_workers(2, timeout=60)


def test_errors(client, tmp_path):
    good = frames_ddf([([0, 1], [1, 2])])
    with pytest.raises(ValueError, match="'w' is not a column"):
        gd.connected_components(good, source="w")
    with pytest.raises(ValueError, match="same column"):
        gd.connected_components(good, source="src", target="src")
    floats = dd.from_pandas(pd.DataFrame({"a": [0.0, 1.0], "b": [1, 2]}), npartitions=1)
    with pytest.raises(TypeError, match="column 'a' has float dtype"):
        gd.connected_components(floats)
    with pytest.raises(TypeError, match="float dtype"):
        gd.connected_components(da.from_array(np.array([[0.0, 1.0]])))
    with pytest.raises(ValueError, match="shape"):
        gd.connected_components(da.from_array(np.zeros((3, 3), np.int64)))
    one = dd.from_pandas(pd.DataFrame({"a": [0, 1]}), npartitions=1)
    with pytest.raises(ValueError, match="1 column"):
        gd.connected_components(one)
    negative = frames_ddf([([0, 1], [1, 2]), ([3, -4], [5, 6])])
    with pytest.raises(ValueError, match=r"partition 1, column 'src': negative vertex id -4 \(row 1\)"):
        gd.connected_components(negative, backend="cpu")
    huge = dd.from_pandas(pd.DataFrame({"a": np.array([2**63], np.uint64), "b": [1]}), npartitions=1)
    with pytest.raises(ValueError, match="beyond 2\\^63"):
        gd.connected_components(huge, backend="cpu")
    with pytest.raises(ValueError, match="every partition holds no edges"):
        gd.connected_components(frames_ddf([([], []), ([], [])]), backend="cpu")
    with pytest.raises(ValueError, match="every partition holds no edges"):
        gd.spanning_forest(frames_ddf([([], [])]), backend="cpu")
    k, labels = gd.connected_components(frames_ddf([([], [])]), n=3, backend="cpu")
    assert k == 3 and labels.compute().tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="out of range for n=2"):
        gd.connected_components(good, n=2, backend="cpu")
    with pytest.raises(ValueError, match="no partitions or files"):
        gd.connected_components([])
    with pytest.raises(FileNotFoundError, match="no file matches"):
        gd.connected_components(str(tmp_path / "*.parquet"))
    pd.DataFrame({"u": [0.5], "v": [1.0]}).to_csv(tmp_path / "f.csv", index=False)
    with pytest.raises(ValueError, match="f.csv, line 2, column 1: '0.5' is not a vertex id"):
        gd.connected_components([tmp_path / "f.csv"], backend="cpu")
    with pytest.raises(TypeError, match="cannot read edges from int"):
        gd.connected_components(5)
    with pytest.raises(ValueError, match="fan_in"):
        gd.connected_components(good, fan_in=1)
    with pytest.raises(ValueError, match="unknown output"):
        gd.connected_components(good, output="list")
    with pytest.raises(ValueError, match="unknown backend"):
        gd.spanning_forest(good, backend="tpu")
    inc = gd.IncrementalForest(backend="cpu")
    with pytest.raises(ValueError, match="no edges"):
        inc.connected([0], [1])
