"""The peer of ``gconn cc FILE`` for a whole edge-list file, the SciPy way.

``pandas.read_csv``, ``coo_matrix -> tocsr`` and SciPy's ``connected_components`` in one process,
for its wall time and peak memory::

    python -m gconn.bench.files edges.el        # prints one JSON line
"""
from __future__ import annotations

import argparse
import json
import time


def pandas_scipy(path: str) -> dict:
    """Components of the space-separated file ('#' comments) the pandas + SciPy way; each step's time."""
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components
    t0 = time.perf_counter()
    df = pd.read_csv(path, sep=" ", comment="#", header=None, names=["src", "dst"])
    src, dst = df["src"].to_numpy(), df["dst"].to_numpy()
    t1 = time.perf_counter()
    n = int(max(src.max(), dst.max())) + 1 if src.size else 0
    A = sp.coo_matrix((np.ones(src.size, np.bool_), (src, dst)), shape=(n, n)).tocsr()
    t2 = time.perf_counter()
    k, _ = connected_components(A, directed=False)
    t3 = time.perf_counter()
    return {"n": n, "m": int(src.size), "components": int(k), "read_csv_s": t1 - t0, "coo_to_csr_s": t2 - t1,
            "connected_components_s": t3 - t2, "total_s": t3 - t0}


def main(argv=None) -> int:
    """Run the peer on one file and print its JSON line.

    >>> import tempfile, os, contextlib, io
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> with open(path, "w") as f:
    ...     _ = f.write("# c\\n0 1\\n2 3\\n")
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     code = main([path])
    >>> code, json.loads(out.getvalue())["components"]
    (0, 2)
    """
    parser = argparse.ArgumentParser(prog="python -m gconn.bench.files", description=__doc__.splitlines()[0])
    parser.add_argument("path", help="a space-separated edge list")
    args = parser.parse_args(argv)
    print(json.dumps(pandas_scipy(args.path)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
