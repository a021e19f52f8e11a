"""Input-handling costs: relabelling sparse ids, and the strict Matrix Market
syntax pass; each the median of ``--repeat`` runs after a warm-up beside its peer.

    python -m gconn.bench.inputs --edges 16000000 --distinct 4000000 --mtx graph.mtx
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from gconn.bench.harness import median_time, stamp


def _unique_peer(src, dst):
    ids, inverse = np.unique(np.concatenate([src, dst]), return_inverse=True)
    return inverse[:src.size], inverse[src.size:], ids


def relabel_times(edges: int, distinct: int, span: int, repeat: int, seed: int = 1) -> dict:
    """Seconds for dense_ids, np.unique and a relabelling Graph build on ``edges`` random edges
    among ``distinct`` ids from [0, span); the two relabellings must agree.

    >>> t = relabel_times(1000, 100, 2**40, 1)
    >>> sorted(t)
    ['dense_ids', 'from_edges_relabel', 'np_unique']
    """
    from gconn.graph import Graph
    from gconn.graph.relabel import dense_ids
    rng = np.random.default_rng(seed)
    pool = np.unique(rng.integers(0, span, distinct))
    src = pool[rng.integers(0, pool.size, edges)]
    dst = pool[rng.integers(0, pool.size, edges)]
    ours = dense_ids(src, dst)
    peer = _unique_peer(src, dst)
    if not all(np.array_equal(a, b) for a, b in zip(ours, peer)):
        raise AssertionError("dense_ids and np.unique disagree")
    return {"dense_ids": median_time(lambda: dense_ids(src, dst), repeat),
            "np_unique": median_time(lambda: _unique_peer(src, dst), repeat),
            "from_edges_relabel": median_time(lambda: Graph.from_edges(src, dst, relabel=True), repeat)}


def auto_overhead(edges: int, n: int, repeat: int, seed: int = 2) -> dict:
    """Seconds for Graph.from_edges on dense ids with relabel=False and relabel="auto".

    >>> sorted(auto_overhead(100, 10, 1))
    ['auto', 'plain']
    """
    from gconn.graph import Graph
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, edges)
    dst = rng.integers(0, n, edges)
    return {"plain": median_time(lambda: Graph.from_edges(src, dst), repeat),
            "auto": median_time(lambda: Graph.from_edges(src, dst, relabel="auto"), repeat)}


def mtx_syntax_times(path, repeat: int) -> dict:
    """Seconds for gconn.load of a .mtx with the strict syntax pass, without it, and the pass alone."""
    from gconn.io import load, mtx
    path = Path(path)
    strict = median_time(lambda: load(path), repeat)
    check = mtx._check_syntax
    with open(path, "rb") as f:
        header = mtx._read_header(path, f)
    alone = median_time(lambda: check(path, header), repeat)
    mtx._check_syntax = lambda *args: None
    try:
        lenient = median_time(lambda: load(path), repeat)
    finally:
        mtx._check_syntax = check
    return {"strict": strict, "lenient": lenient, "pass": alone}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m gconn.bench.inputs", description=__doc__.splitlines()[0])
    p.add_argument("--edges", type=int, default=16_000_000)
    p.add_argument("--distinct", type=int, default=4_000_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--mtx", help="a Matrix Market file for the syntax-pass cost")
    args = p.parse_args(argv)
    print(stamp(p.prog, argv), flush=True)
    for name, span in (("table path, ids in [0, 16 x distinct)", 16 * args.distinct),
                       ("hash path, ids in [0, 2^40)", 2**40)):
        t = relabel_times(args.edges, args.distinct, span, args.repeat)
        print(f"relabel {args.edges:,} edges, {args.distinct:,} ids, {name}: dense_ids {t['dense_ids']:.2f} s, "
              f"np.unique {t['np_unique']:.2f} s ({t['np_unique'] / t['dense_ids']:.1f}x), "
              f"Graph.from_edges(relabel=True) {t['from_edges_relabel']:.2f} s", flush=True)
    t = auto_overhead(args.edges, args.distinct, args.repeat)
    print(f"Graph.from_edges on dense ids 0..{args.distinct:,}: {t['plain']:.2f} s, with relabel='auto' "
          f"{t['auto']:.2f} s", flush=True)
    if args.mtx:
        t = mtx_syntax_times(args.mtx, args.repeat)
        ms = {k: v.scaled(1e3) for k, v in t.items()}
        print(f"load {Path(args.mtx).name}: {ms['strict']:.0f} ms strict, {ms['lenient']:.0f} ms "
              f"without the syntax pass (the pass alone {ms['pass']:.0f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
