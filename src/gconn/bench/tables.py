"""CSV with a header: gconn's numba parser vs pyarrow's CSV reader vs
pandas.read_csv, on one generated file (``python -m gconn.bench.tables``).

The parse alone and the whole load, then names as ids; each time the median of ``--repeat`` runs
after a warm-up.

>>> from gconn.bench.tables import write_csv
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "e.csv")
>>> write_csv(path, 5, 10, seed=1)
>>> open(path).readline()
'source,target\\n'
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from gconn.bench.harness import median_time, same_partition, stamp


def write_csv(path, edges: int, n: int, seed: int = 0) -> None:
    """A 'source,target' CSV of ``edges`` random edges over ``n`` ids."""
    from gconn.io.edgelist import write_pairs
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        f.write(b"source,target\n")
        write_pairs(f, rng.integers(0, n, edges), rng.integers(0, n, edges), 0, ",")


def readers(path):
    """name -> a function reading ``path``'s two id columns into arrays."""
    import pandas as pd
    import pyarrow as pa
    from pyarrow import csv

    from gconn.io import _kernels as K
    from gconn.io._files import read_bytes
    path = Path(path)

    def numba():
        buf = read_bytes(path)
        cap = K.count_lines(buf)
        src, dst = np.empty(cap, np.int64), np.empty(cap, np.int64)
        pos = int(np.argmax(buf == 10)) + 1
        k = K.parse_pairs(buf, pos, 2, 0, -1, 2, -1, src, dst)[0]
        return src[:k], dst[:k]

    def arrow():
        table = csv.read_csv(path, convert_options=csv.ConvertOptions(
            include_columns=["source", "target"], column_types={"source": pa.int64(), "target": pa.int64()}))
        return table.column("source").to_numpy(), table.column("target").to_numpy()

    def pandas():
        df = pd.read_csv(path, usecols=[0, 1])
        return df.iloc[:, 0].to_numpy(), df.iloc[:, 1].to_numpy()

    return {"numba parser": numba, "pyarrow.csv": arrow, "pandas.read_csv": pandas}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.tables", description=__doc__.split("\n\n")[0])
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--ids", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--path", default="/tmp/gconn_bench_edges.csv")
    ap.add_argument("--names-edges", type=int, default=1_000_000,
                    help="edges of the second file, whose ids are names 'user<id>'")
    args = ap.parse_args(argv)
    print(stamp(ap.prog, argv), flush=True)
    write_csv(args.path, args.edges, args.ids)
    size = Path(args.path).stat().st_size
    print(f"{args.path}: {args.edges:,} edges, {size / 1e6:.0f} MB, median of {args.repeat} after a warm-up")
    fns = readers(args.path)
    ref = fns["numba parser"]()
    for name, fn in fns.items():
        s, d = fn()
        assert np.array_equal(s, ref[0]) and np.array_equal(d, ref[1]), name
        print(f"parse  {name:16s} {median_time(fn, args.repeat):7.2f} s")
    import gconn
    import pandas as pd
    whole = {
        "gconn.load": lambda: gconn.load(args.path),
        "pandas + as_graph": lambda: gconn.as_graph(pd.read_csv(args.path, usecols=[0, 1])),
    }
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc
    n = int(max(ref[0].max(), ref[1].max())) + 1
    k0, want = scipy_cc(sp.coo_matrix((np.ones(ref[0].size), ref), shape=(n, n)), directed=False)
    for name, fn in whole.items():
        k, labels = gconn.connected_components(fn(), backend="cpu")
        if k != k0 or not same_partition(want, labels):
            raise AssertionError(f"{name}: the loaded graph's components are not SciPy's")
        print(f"load   {name:16s} {median_time(fn, args.repeat):7.2f} s")
    _names(args)


def _names(args) -> None:
    """Names as ids: the whole load, and two ways to number the names."""
    import pandas as pd

    import gconn
    rng = np.random.default_rng(1)
    m, n = args.names_edges, max(args.names_edges // 10, 1)
    path = args.path.replace(".csv", "_names.csv")
    with open(path, "w") as f:
        f.write("from,to\n")
        f.writelines(f"user{a},user{b}\n" for a, b in zip(rng.integers(0, n, m), rng.integers(0, n, m)))
    both = np.array([f"user{i}" for i in rng.integers(0, n, 2 * m)], object)
    print(f"{path}: {m:,} edges between {n:,} names")
    codes, uniques = pd.factorize(both, sort=True)
    if not np.array_equal(codes, np.unique(both, return_inverse=True)[1]):
        raise AssertionError("pd.factorize and np.unique number the names differently")
    print(f"names  gconn.load        {median_time(lambda: gconn.load(path), args.repeat):7.2f} s")
    print(f"names  pd.factorize      {median_time(lambda: pd.factorize(both, sort=True), args.repeat):7.2f} s")
    print(f"names  np.unique         {median_time(lambda: np.unique(both, return_inverse=True), args.repeat):7.2f} s")


if __name__ == "__main__":
    main()
