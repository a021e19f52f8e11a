"""``python -m gconn.bench.dask_bench``: gconn.integrations.dask on a LocalCluster against
one process that reads every file and calls gconn.connected_components.

The graph is an R-MAT edge sample (duplicates and self loops kept) in Parquet files, n =
2^scale.  Single-process runs are fresh subprocesses (own peak RSS), alternating with the Dask
runs on one cluster; times are wall clock from the first read to labels in memory.  CPU: one
thread per worker.  ``--cuda``: dask-cuda's LocalCUDACluster, one worker per GPU in ``--gpus``,
the GPU backend everywhere (peak host RSS only).
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from gconn.bench.harness import stamp


def peak_rss_mib() -> float:
    """This process's peak resident memory so far, in MiB (Linux): VmHWM, not ru_maxrss, which in a
    spawned child starts at its parent's peak.

    >>> peak_rss_mib() > 0
    True
    """
    with open("/proc/self/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith("VmHWM:"))) / 1024


def write_parquet(directory, scale: int, edge_factor: int, files: int, seed: int = 0) -> list:
    """An R-MAT edge sample as ``files`` Parquet files (src, dst), written unless there already.

    >>> import tempfile
    >>> paths = write_parquet(tempfile.mkdtemp(), 8, 4, 2)
    >>> [p.name for p in paths]
    ['rmat-8-4-0-of-2.parquet', 'rmat-8-4-1-of-2.parquet']
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from gconn.graph.generators import rmat_edges
    directory = Path(directory)
    paths = [directory / f"rmat-{scale}-{edge_factor}-{i}-of-{files}.parquet" for i in range(files)]
    if all(p.exists() for p in paths):
        return paths
    directory.mkdir(parents=True, exist_ok=True)
    src, dst, _ = rmat_edges(scale, edge_factor, seed=seed)
    cuts = np.linspace(0, src.size, files + 1).astype(np.int64)
    for p, a, b in zip(paths, cuts[:-1], cuts[1:]):
        pq.write_table(pa.table({"src": src[a:b], "dst": dst[a:b]}), p)
    return paths


def single_process(paths, backend: str, n: int) -> dict:
    """Read every file in this process and run gconn.connected_components: one warm-up, one timed.

    >>> import tempfile
    >>> r = single_process(write_parquet(tempfile.mkdtemp(), 8, 4, 2), "cpu", 256)
    >>> r["n"], r["k"] > 0, len(r["seconds"])
    (256, True, 1)
    """
    import gconn
    from gconn.bench.harness import time_calls
    runs = list(time_calls(lambda: gconn.connected_components(gconn.Graph.from_edges(*_read_edges(paths), n=n),
                                                              backend=backend), 1, 1))
    k, labels = runs[-1][1]
    return {"seconds": [s for s, _ in runs], "k": int(k), "n": int(labels.size), "peak_mib": peak_rss_mib()}


def _read_edges(paths) -> tuple:
    import pyarrow.parquet as pq
    tables = [pq.read_table(p, columns=["src", "dst"]) for p in paths]
    return tuple(np.concatenate([t.column(c).to_numpy() for t in tables]) for c in ("src", "dst"))


def _single_subprocess(paths, backend: str, n: int) -> dict:
    """single_process in a fresh interpreter, so that its peak RSS is its own."""
    from gconn.bench.harness import child_json, this_tree
    code = ("import json, sys; from gconn.bench.dask_bench import single_process; "
            "print(json.dumps(single_process(sys.argv[3:], sys.argv[1], int(sys.argv[2]))))")
    return child_json(this_tree(), code, backend, n, *paths)


def _cluster(workers: int, cuda: bool, gpus: str | None):
    if cuda:
        from dask_cuda import LocalCUDACluster
        return LocalCUDACluster(CUDA_VISIBLE_DEVICES=gpus, dashboard_address=None)
    from distributed import LocalCluster
    # the workers share the machine's cores
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"})


def compare(paths, n: int, repeats: int, workers: int, backend: str, fan_in: int,
            cuda: bool = False, gpus: str | None = None) -> dict:
    """Timed runs of gconn.integrations.dask.connected_components on a fresh local cluster after
    one warm-up, each after a :func:`single_process` subprocess; the labels are checked against
    one process's (the client's peak includes them).

    >>> import tempfile
    >>> r = compare(write_parquet(tempfile.mkdtemp(), 8, 4, 2), 256, 1, 1, "cpu", 2)
    >>> r["n"], len(r["dask_seconds"]), len(r["single_seconds"]), len(r["worker_peak_mib"])
    (256, 1, 1, 1)
    """
    from distributed import Client

    import gconn
    import gconn.integrations.dask as gd
    out = {"dask_seconds": [], "single_seconds": [], "single_peak_mib": 0.0, "load": []}
    with _cluster(workers, cuda, gpus) as cluster, Client(cluster) as client:
        client.wait_for_workers(1)
        gd.connected_components(paths, n=n, backend=backend, fan_in=fan_in)
        for _ in range(repeats):
            single = _single_subprocess(paths, backend, n)
            out["single_seconds"] += single["seconds"]
            out["single_peak_mib"] = max(out["single_peak_mib"], single["peak_mib"])
            t0 = time.perf_counter()
            k, labels = gd.connected_components(paths, n=n, backend=backend, fan_in=fan_in)
            out["dask_seconds"].append(time.perf_counter() - t0)
            out["load"].append(os.getloadavg()[0])
        got = labels.compute()
        out["worker_peak_mib"] = sorted(client.run(peak_rss_mib).values())
    out["client_peak_mib"] = peak_rss_mib()
    k0, want = gconn.connected_components(gconn.Graph.from_edges(*_read_edges(paths), n=n), backend=backend)
    if k != k0 or not np.array_equal(got, want):
        raise AssertionError(f"gconn.integrations.dask disagrees with one process: k={k} vs {k0}")
    out.update(k=int(k), n=int(got.size))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.dask_bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default="bench-out/dask", help="where the Parquet files go")
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--fan-in", type=int, default=4)
    ap.add_argument("--cuda", action="store_true", help="dask-cuda LocalCUDACluster, GPU backend")
    ap.add_argument("--gpus", default="0", help="CUDA_VISIBLE_DEVICES for --cuda (default 0)")
    args = ap.parse_args(argv)
    print(stamp(ap.prog, argv), flush=True)
    import pyarrow.parquet as pq
    backend = "gpu" if args.cuda else "cpu"
    paths = write_parquet(args.dir, args.scale, args.edge_factor, args.files)
    m = sum(pq.read_metadata(p).num_rows for p in paths)
    print(f"R-MAT scale {args.scale}, {m:,} edge samples in {len(paths)} Parquet files, "
          f"backend {backend}", flush=True)
    n = 1 << args.scale
    r = compare(paths, n, args.repeats, args.workers, backend, args.fan_in, args.cuda, args.gpus)
    t1 = statistics.median(r["single_seconds"])
    td = statistics.median(r["dask_seconds"])
    print(f"components: {r['k']:,} of n={r['n']:,} (same labels as one process)")
    print(f"one process: median {t1:.2f} s of {[round(x, 2) for x in r['single_seconds']]}, "
          f"peak RSS {r['single_peak_mib']:.0f} MiB")
    where = "GPU" if args.cuda else f"{args.workers} workers"
    print(f"gconn.integrations.dask ({where}, fan-in {args.fan_in}): median {td:.2f} s of "
          f"{[round(x, 2) for x in r['dask_seconds']]}, peak RSS per worker "
          f"{[round(x) for x in r['worker_peak_mib']]} MiB, client+scheduler "
          f"{r['client_peak_mib']:.0f} MiB")
    print(f"ratio (one process / gconn.integrations.dask): {t1 / td:.2f}x; 1-min load average after each "
          f"Dask run: {[round(x, 1) for x in r['load']]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
