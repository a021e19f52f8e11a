"""``python -m gconn.bench.scc``: gconn.integrations.csgraph against scipy.sparse.csgraph
on one random digraph, strong and weak components, in one process.

Both get the same ``csr_matrix``, must agree on every label, and run ``--repeat`` times in turns.

>>> from gconn.bench.scc import random_digraph
>>> random_digraph(100, 300, seed=1).nnz <= 300
True
"""
from __future__ import annotations

import argparse

import numpy as np

from gconn.bench.harness import Timing, in_turns, stamp


def random_digraph(n: int, m: int, seed: int = 0):
    """m arcs with uniform random ends (duplicates merged) as a scipy CSR."""
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m, dtype=np.int32)
    dst = rng.integers(0, n, m, dtype=np.int32)
    return sp.csr_matrix((np.ones(m), (src, dst)), shape=(n, n))


def main(argv=None) -> int:
    from scipy.sparse.csgraph import connected_components as scipy_cc

    from gconn.integrations.csgraph import connected_components as gconn_cc

    p = argparse.ArgumentParser(prog="python -m gconn.bench.scc", description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=250_000, help="vertices (default 250000)")
    p.add_argument("--m", type=int, default=1_000_000, help="random arcs (default 1000000)")
    p.add_argument("--repeat", type=int, default=7, help="timed runs per side (default 7)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    print(stamp(p.prog, argv), flush=True)
    A = random_digraph(args.n, args.m, args.seed)
    print(f"random digraph: n={args.n}, arcs={A.nnz} (of {args.m} drawn), seed={args.seed}")
    for connection in ("strong", "weak"):
        ours = lambda: gconn_cc(A, connection=connection)  # noqa: E731
        theirs = lambda: scipy_cc(A, connection=connection)  # noqa: E731
        k, labels = ours()
        k0, labels0 = theirs()
        if k != k0 or not np.array_equal(labels, labels0):
            raise SystemExit(f"{connection}: gconn and SciPy disagree ({k} vs {k0} components)")
        a, b = (Timing(t).scaled(1e3) for t in in_turns([ours, theirs], args.repeat, warmup=0))
        print(f"{connection:6s} k={k:<8d} gconn.integrations.csgraph {a:8.1f} ms   scipy {b:8.1f} ms   "
              f"scipy/gconn {b / a:5.2f}x   (median (min-max) of {args.repeat})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
