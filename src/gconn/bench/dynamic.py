"""``python -m gconn.bench.dynamic``: batches of insertions and deletions through
``gconn.DynamicConnectivity`` on the CPU (or ``--backend gpu``), beside NetworKit's
``DynConnectedComponents`` fed the same batches (CPU only) and beside recomputing the
components from scratch (``gconn.connected_components`` on the edges present, on the
same backend: on the GPU from device arrays, uploaded before the clock) after each batch.

The graph is loaded (10% of its distinct edges held back), then each batch of b
updates deletes f*b random present edges and inserts b - f*b held-back ones, in a
random order; all three see the same batches.  Times are wall clock per batch,
median (min-max) of the rounds after a warm-up; every batch's components are
checked against the recomputed ones (NetworKit's count too).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from gconn.bench.harness import Timing, md_table, stamp


def simple_edges(spec: str):
    """The distinct edges (u < v, no self loops) of a generated graph, shuffled, and n.

    >>> s, d, n = simple_edges("grid:8,keep=1")
    >>> n, s.size, bool((s < d).all())
    (64, 112, True)
    """
    from gconn.graph.build import upper_csr
    from gconn.graph.generators import edges_from_spec
    src, dst, n = edges_from_spec(spec)
    # gconn's parallel row sort gives the pairs in sorted order (with NumPy's unique of the pairs
    # this took 82 s for kron:scale=22 on the H200 machine, generation included)
    ptr, col = upper_csr(src, dst, n, np.int32)
    order = np.random.default_rng(0).permutation(col.size)
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(ptr))
    return rows[order], col[order], n


class Stream:
    """The present edges and the held-back ones, each a pair of arrays; batches drawn from them."""

    def __init__(self, src, dst, seed: int = 1):
        cut = src.size // 10
        self.held = [src[:cut].copy(), dst[:cut].copy()]
        self.live = [src[cut:].copy(), dst[cut:].copy()]
        self.rng = np.random.default_rng(seed)

    def batch(self, size: int, deletes: float):
        """``(kinds, src, dst)`` of one batch (0 insert, 2 delete), applied to the pools."""
        d = min(int(round(size * deletes)), self.live[0].size)
        i = min(size - d, self.held[0].size)
        gone = self.rng.choice(self.live[0].size, d, replace=False)
        back = self.rng.choice(self.held[0].size, i, replace=False)
        ds, dd = self.live[0][gone], self.live[1][gone]
        ins, ind = self.held[0][back], self.held[1][back]
        keep_live = np.ones(self.live[0].size, bool)
        keep_live[gone] = False
        keep_held = np.ones(self.held[0].size, bool)
        keep_held[back] = False
        self.live = [np.concatenate([self.live[0][keep_live], ins]), np.concatenate([self.live[1][keep_live], ind])]
        self.held = [np.concatenate([self.held[0][keep_held], ds]), np.concatenate([self.held[1][keep_held], dd])]
        order = self.rng.permutation(d + i)
        kinds = np.r_[np.full(d, 2, np.int8), np.zeros(i, np.int8)][order]
        return kinds, np.r_[ds, ins][order], np.r_[dd, ind][order]


def _networkit(n: int, src, dst):
    import networkit as nk
    g = nk.Graph(n)
    for u, v in zip(src.tolist(), dst.tolist()):
        g.addEdge(u, v)
    g.indexEdges()      # DynConnectedComponents tracks edges by id
    dcc = nk.components.DynConnectedComponents(g)
    dcc.run()
    return nk, g, dcc


def _nk_batch(nk, g, dcc, kinds, src, dst) -> None:
    """The batch as NetworKit takes a mixed stream: each change to the graph, then its event (its
    ``updateBatch`` after all the changes counts components wrongly on mixed batches: 4036 for 4035
    on kron:scale=14, batches of 1,000 with 10% deletions, NetworKit 11.3)."""
    add, remove = nk.dynamics.GraphEventType.EDGE_ADDITION, nk.dynamics.GraphEventType.EDGE_REMOVAL
    event = nk.dynamics.GraphEvent
    for k, u, v in zip(kinds.tolist(), src.tolist(), dst.tolist()):
        if k == 0:
            g.addEdge(u, v)
            dcc.update(event(add, u, v, 1.0))
        else:
            g.removeEdge(u, v)
            dcc.update(event(remove, u, v, 1.0))


def run(spec: str, sizes: list, fractions: list, rounds: int, networkit: int = 10**4, log=print,
        backend: str = "cpu", on_device: bool = False, kernels: bool = False, back_to_back: bool = False) -> list:
    """One row per (batch size, deletion fraction): seconds per batch of each way, checked;
    NetworKit for batches of at most ``networkit`` updates (0: never; never on the GPU); on the
    GPU, ``on_device`` gives the batches as CuPy arrays (uploaded before the clock), and
    ``kernels`` times each of the structure's kernels by CUDA events (the row's ``"kernels"``:
    milliseconds a batch by kernel).  ``back_to_back``: a row's batches drawn first and run one
    after another (as a replayed log runs them), the components checked and recomputed after the
    last; without NetworKit."""
    import gconn
    src, dst, n = simple_edges(spec)
    gpu = backend == "gpu"
    if gpu:
        import cupy as cp
        sync = cp.cuda.Device().synchronize
        networkit = 0
    else:
        sync = lambda: None     # noqa: E731

    def recompute(live):
        k, labels = gconn.connected_components(tuple(live), backend=backend)
        sync()
        return k, labels

    # compiled (or loaded) first
    gconn.DynamicConnectivity(backend=backend).process([0, 0, 2, 1], [0, 1, 0, 0], [1, 2, 1, 2])
    rows = []
    for size in sizes:
        for f in fractions:
            stream = Stream(src, dst)
            t0 = time.perf_counter()
            dc = gconn.DynamicConnectivity(n, graph=gconn.Graph.from_edges(*stream.live, n=n), backend=backend)
            sync()
            build = time.perf_counter() - t0
            nk = _networkit(n, *stream.live) if size <= networkit and not back_to_back else None
            times = {"gconn": [], "networkit": [], "recompute": []}
            spent = []

            def batch(kinds, s, d):
                if kernels:
                    dc._state.events = []
                sync()
                t0 = time.perf_counter()
                dc.process(kinds, s, d)
                sync()
                if kernels:
                    spent.append(_by_kernel(dc._state.events))
                    dc._state.events = None
                return time.perf_counter() - t0

            def check(r, k0, l0):
                l0 = l0.get() if gpu else l0
                k, labels = dc.components()
                if l0.size < n:     # isolated vertices past the largest id present
                    extra = n - l0.size
                    l0, k0 = np.r_[l0, np.arange(k0, k0 + extra)], k0 + extra
                if k != k0 or not np.array_equal(labels, l0):
                    raise AssertionError(f"batch {r} of {size} ({f:.0%} deletions): components unlike SciPy's")
                if nk is not None and nk[2].numberOfComponents() != k:
                    raise AssertionError(f"NetworKit counts {nk[2].numberOfComponents()} components, not {k}")

            drawn = []
            for r in range(rounds + 1):
                drawn.append(stream.batch(size, f))
                if on_device:
                    drawn[-1] = tuple(cp.asarray(a) for a in drawn[-1])
                if back_to_back:
                    continue
                live = tuple(cp.asarray(a) for a in stream.live) if gpu else stream.live
                b = drawn.pop()
                took = batch(*b)
                t1 = time.perf_counter()
                k0, l0 = recompute(live)
                t2 = time.perf_counter()
                if nk is not None:
                    _nk_batch(*nk, *b)
                t3 = time.perf_counter()
                check(r, k0, l0)
                if r:
                    times["gconn"].append(took)
                    times["recompute"].append(t2 - t1)
                    if nk is not None:
                        times["networkit"].append(t3 - t2)
            if back_to_back:
                times["gconn"] = [batch(*b) for b in drawn][1:]
                live = tuple(cp.asarray(a) for a in stream.live) if gpu else stream.live
                for r in range(rounds + 1):
                    t1 = time.perf_counter()
                    k0, l0 = recompute(live)
                    if r:
                        times["recompute"].append(time.perf_counter() - t1)
                check(rounds, k0, l0)
            row = {"size": size, "deletes": f, "build_s": build, **{w: Timing(t) for w, t in times.items() if t}}
            if kernels:
                row["kernels"] = {k: Timing(b.get(k, 0.0) for b in spent[1:]) for k in set().union(*spent[1:])}
            rows.append(row)
            nk_part = f", NetworKit {row['networkit']:.4f} s" if "networkit" in row else ""
            log(f"{size:>9,} updates, {f:.0%} deletions: gconn {row['gconn']:.4f} s, recompute "
                f"{row['recompute']:.4f} s{nk_part} (built in {build:.3f} s)")
    return rows


def _by_kernel(events) -> dict:
    """Milliseconds by kernel of one batch's launches."""
    import cupy as cp
    out = {}
    for kind, start, end in events:
        out[kind] = out.get(kind, 0.0) + cp.cuda.get_elapsed_time(start, end)
    return out


def report(rows: list, spec: str, n: int, m: int, backend: str = "cpu", on_device: bool = False,
           back_to_back: bool = False) -> str:
    nk = any("networkit" in r for r in rows)
    columns = ["batch:", "deletions:", "gconn s:", "updates/s:", "recompute s:", "recompute / gconn:"]
    cells = [[f"{r['size']:,}", f"{r['deletes']:.0%}", f"{r['gconn']:.4f}", f"{r['size'] / r['gconn']:,.0f}",
              f"{r['recompute']:.4f}", f"{r['recompute'] / r['gconn']:.1f}x"] for r in rows]
    if nk:
        columns += ["NetworKit s:", "NetworKit / gconn:"]
        for r, row in zip(rows, cells):
            row += [f"{r['networkit']:.4f}", f"{r['networkit'] / r['gconn']:.1f}x"] if "networkit" in r else ["", ""]
    lines = [f"{spec}: n = {n:,}, {m:,} distinct edges (90% present at the start); DynamicConnectivity and "
             f"the recomputation on the {backend.upper()}"
             + ("; the batches as CuPy arrays" if on_device else "")
             + ("; the batches back to back" if back_to_back else ""), "", md_table(columns, cells)]
    if any("kernels" in r for r in rows):
        lines += ["", "The structure's kernels, ms a batch by CUDA events (each launch's span, its host side "
                      "included where the GPU waited; CuPy's own operations not counted), the largest first:", ""]
        for r in rows:
            ks = sorted(r["kernels"].items(), key=lambda kv: -float(kv[1]))
            total = Timing(map(sum, zip(*(t.samples for _, t in ks)))) if ks else 0.0
            lines.append(f"- {r['size']:,}, {r['deletes']:.0%}: all {total:.3f}; "
                         + ", ".join(f"{k} {float(t):.3f}" for k, t in ks if float(t) >= 0.01))
    lines += ["", f"Building the structure from the graph's {int(m - m // 10):,} edges present, once a row: "
                  f"{Timing(r['build_s'] for r in rows):.3f} s (over {len(rows)} row{'s' if len(rows) > 1 else ''}: "
                  "median (min-max))."]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.dynamic", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", default="kronecker:scale=18", help="a generator spec (default kronecker:scale=18)")
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma list of batch sizes")
    ap.add_argument("--deletes", default="0.1,0.5,0.9", help="comma list of deletion fractions")
    ap.add_argument("--rounds", type=int, default=5, help="timed batches a row, after one warm-up batch")
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="cpu",
                    help="where DynamicConnectivity and the recomputation run (default cpu)")
    ap.add_argument("--networkit-max", type=int, default=10**4, metavar="B",
                    help="NetworKit for batches of at most B updates (it takes ~10 us an update; 0: never)")
    ap.add_argument("--batches-on-device", action="store_true",
                    help="on the GPU: each batch as CuPy arrays, uploaded before the clock (default: NumPy arrays)")
    ap.add_argument("--back-to-back", action="store_true",
                    help="a row's batches run one after another, as a replayed log runs them (checked and recomputed "
                         "after the last; no NetworKit); by default each batch follows the last one's recomputation "
                         "and check, as between a user's other work")
    ap.add_argument("--kernels", action="store_true",
                    help="on the GPU: each of the structure's kernels timed by CUDA events (this slows the batches)")
    args = ap.parse_args(argv)
    for flag, on in (("--batches-on-device", args.batches_on_device), ("--kernels", args.kernels)):
        if on and args.backend != "gpu":
            ap.error(f"{flag} needs --backend gpu")
    print(stamp(ap.prog, argv), flush=True)
    sizes = [int(x) for x in args.sizes.split(",")]
    fractions = [float(x) for x in args.deletes.split(",")]
    src, _, n = simple_edges(args.graph)
    rows = run(args.graph, sizes, fractions, args.rounds, args.networkit_max, log=lambda s: print(s, flush=True),
               backend=args.backend, on_device=args.batches_on_device, kernels=args.kernels,
               back_to_back=args.back_to_back)
    print()
    print(report(rows, args.graph, n, src.size, args.backend, args.batches_on_device, args.back_to_back))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
