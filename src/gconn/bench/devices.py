"""``python -m gconn.bench.devices``: one call on 1, 2, 4 ... GPUs of this host (``devices=``)
over an R-MAT graph in host memory larger than each GPU's memory budget, beside the pinned
copies alone on as many GPUs.

For each number of GPUs k: the end-to-end time of ``gconn.connected_components((src, dst),
devices=[0..k-1], device_memory=BUDGET)`` (host arrays in, host labels out; first call, then
the median of repeats with its spread), where the time goes (the shares' feeds, the merge,
the labels), each GPU's link throughput and peak memory, and two yardsticks, k threads at once
each doing half of a share's work alone: copying its share from pinned memory to its GPU
(``copies alone``), and filling pinned staging pieces with its share on the host, as the
feeds do (``fills alone``).  Every k's labels are checked against one GPU's.
"""
from __future__ import annotations

import argparse
import threading
import time

import numpy as np

from gconn.bench.harness import Timing, md_table, stamp


def _gpu_counts(total: int, asked: str | None) -> list:
    """1, 2, 4 ... up to ``total`` GPUs, or the counts asked for.

    >>> _gpu_counts(4, None), _gpu_counts(2, None), _gpu_counts(4, "1,3")
    ([1, 2, 4], [1, 2], [1, 3])
    """
    if asked:
        counts = [int(x) for x in asked.split(",")]
        if any(not 1 <= c <= total for c in counts):
            raise SystemExit(f"--gpus {asked}: this machine has {total} GPU(s)")
        return counts
    out = [1 << i for i in range(total.bit_length())]
    return out if out[-1] == total else out + [total]


class PinnedShares:
    """The yardsticks: the edges' bytes in pinned memory, cut as the shares are, each GPU's part
    copied by its own thread through a device buffer it reuses; and the fills alone."""

    PIECE = 1 << 28

    def __init__(self, arrays, gpus: int):
        import cupy as cp

        from gconn.chunked.gpu import PIECE_BYTES, RING
        self.arrays = arrays
        self.rings = [np.frombuffer(cp.cuda.alloc_pinned_memory(RING * PIECE_BYTES), np.uint8).reshape(RING, -1)
                      for _ in range(gpus)]
        self.parts = []
        for a in arrays:
            mem = cp.cuda.alloc_pinned_memory(a.nbytes)
            h = np.frombuffer(mem, a.dtype, a.size)
            h[:] = a
            self.parts.append((mem, h))
        self.bufs, self.streams = [], []
        for d in range(gpus):
            with cp.cuda.Device(d):
                self.bufs.append(cp.empty(self.PIECE, np.uint8))
                self.streams.append(cp.cuda.Stream(non_blocking=True))

    def copy(self, k: int) -> float:
        """Seconds for GPUs 0..k-1 to copy their shares at once."""
        import cupy as cp
        rt = cp.cuda.runtime

        def one(d):
            with cp.cuda.Device(d):
                buf, stream = self.bufs[d], self.streams[d]
                for _, h in self.parts:
                    lo, hi = h.size * d // k * h.itemsize, h.size * (d + 1) // k * h.itemsize
                    for a in range(lo, hi, self.PIECE):
                        rt.memcpyAsync(buf.data.ptr, h.ctypes.data + a, min(self.PIECE, hi - a),
                                       rt.memcpyHostToDevice, stream.ptr)
                stream.synchronize()

        return _at_once(one, k)

    def fill(self, k: int) -> float:
        """Seconds for k threads to fill their staging rings with their shares (no copy to a GPU), the
        cores split among them as the feeds split them."""
        import numba

        from gconn.backends.gpu.staging import SHARES, copy_shares
        threads = max(1, numba.config.NUMBA_NUM_THREADS // k)

        def one(d):
            numba.set_num_threads(threads)
            ring = self.rings[d]
            turn = 0
            for a in self.arrays:
                piece = ring.shape[1] // a.itemsize
                lo, hi = a.size * d // k, a.size * (d + 1) // k
                for s in range(lo, hi, piece):
                    part = a[s:min(s + piece, hi)]
                    copy_shares(ring[turn % len(ring)].view(a.dtype)[:part.size], part, SHARES)
                    turn += 1

        return _at_once(one, k)


def _at_once(one, k: int) -> float:
    """Seconds for ``one(0)`` .. ``one(k - 1)`` run in k threads at once.

    >>> _at_once(lambda d: None, 2) < 1
    True
    """
    threads = [threading.Thread(target=one, args=(d,)) for d in range(k)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def _peaks(k: int) -> list:
    """Each GPU's CuPy pool size in bytes (its high-water mark since the last :func:`_reset`)."""
    import cupy as cp
    out = []
    for d in range(k):
        with cp.cuda.Device(d):
            out.append(cp.get_default_memory_pool().total_bytes())
    return out


def _reset(k: int) -> None:
    import cupy as cp
    for d in range(k):
        with cp.cuda.Device(d):
            cp.get_default_memory_pool().free_all_blocks()


def run_counts(src, dst, counts: list, budget: str, repeat: int, warmup: int, log=print) -> list:
    """One row per GPU count: times, phases, rates, peaks, the yardstick (module docstring)."""
    import gconn
    nbytes = src.nbytes + dst.nbytes
    pinned = PinnedShares((src, dst), max(counts))
    rows, expect = [], None
    for k in counts:
        devices = list(range(k))
        call = lambda devices=devices: gconn.connected_components((src, dst), backend="gpu", devices=devices,  # noqa: E731
                                                  device_memory=budget, return_stats=True)
        _reset(k)
        t0 = time.perf_counter()
        first = call()
        first_s = time.perf_counter() - t0
        peaks = _peaks(k)
        walls, stats, copies, fills = [], [], [], []
        for r in range(warmup + repeat):
            copy_s, fill_s = pinned.copy(k), pinned.fill(k)
            t0 = time.perf_counter()
            out = call()
            wall = time.perf_counter() - t0
            if r >= warmup:
                walls.append(wall)
                copies.append(copy_s)
                fills.append(fill_s)
                stats.append(out[2])
        k_found, labels, _ = out
        if expect is None:
            expect = (k_found, labels)
        elif k_found != expect[0] or not np.array_equal(labels, expect[1]):
            raise AssertionError(f"{k} GPUs: {k_found} components, labels unlike one GPU's ({expect[0]})")
        for s in (first[2], out[2]):
            if sum(x["edges"] for x in s.shares) != src.size:
                raise AssertionError(f"{k} GPUs: the shares hold {sum(x['edges'] for x in s.shares)} edges")
        feeds = Timing(s.phase_times["shares"] for s in stats)
        copy, fill = Timing(copies), Timing(fills)
        row = {"gpus": k, "k": int(k_found), "first_s": first_s, "wall_s": Timing(walls), "feeds_s": feeds,
               "merge_s": Timing(s.phase_times["merge"] for s in stats),
               "labels_s": Timing(s.phase_times["labels"] for s in stats),
               "copy_alone_s": copy, "link_gbs": [Timing(nbytes / k / x["seconds"] / 1e9 for x in
                                                          (s.shares[d] for s in stats)) for d in range(k)],
               "feeds_gbs": nbytes / feeds / 1e9, "copy_alone_gbs": nbytes / copy / 1e9,
               "fill_alone_gbs": nbytes / fill / 1e9,
               "peak_gib": [p / 2**30 for p in peaks], "chunks": [x["chunks"] for x in out[2].shares]}
        rows.append(row)
        log(f"{k} GPU(s): first call {first_s:.3f} s; repeated {row['wall_s']:.3f} s (feeds {feeds:.3f}, merge "
            f"{row['merge_s']:.3f}, labels {row['labels_s']:.3f}); copies alone {copy:.3f} s, fills alone {fill:.3f} s")
    return rows


def report(rows: list, m: int, n: int, budget: str, memory: str = "pageable") -> str:
    one = rows[0]["wall_s"]
    cells = [[r["gpus"], f"{r['first_s']:.3f}", f"{r['wall_s']:.3f}", f"{one / r['wall_s']:.2f}x", f"{r['feeds_s']:.3f}",
              f"{r['merge_s']:.3f}", f"{r['labels_s']:.3f}", f"{r['feeds_gbs']:.1f}", f"{r['copy_alone_gbs']:.1f}",
              f"{r['fill_alone_gbs']:.1f}", f"{r['feeds_gbs'] / r['copy_alone_gbs']:.0%}",
              ", ".join(f"{x:.1f}" for x in r["link_gbs"]), ", ".join(f"{x:.2f}" for x in r["peak_gib"]),
              ", ".join(map(str, r["chunks"]))] for r in rows]
    return "\n".join([f"R-MAT, n = {n:,}, m = {m:,} edge samples (int32 arrays in {memory} host memory), budget "
                      f"{budget} a GPU", "",
                      md_table(["GPUs:", "first call s:", "repeated s:", "speedup:", "feeds s:", "merge s:",
                                "labels s:", "feeds GB/s:", "copies alone GB/s:", "fills alone GB/s:",
                                "feeds / copies:", "per-GPU link GB/s", "per-GPU peak GiB", "chunks"], cells)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.devices", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=27, help="R-MAT scale: n = 2^scale (default 27)")
    ap.add_argument("--edge-factor", type=int, default=16, help="edge samples per vertex (default 16)")
    ap.add_argument("--budget", default="4GB", help="each GPU's device_memory (default 4GB)")
    ap.add_argument("--gpus", help="comma list of GPU counts (default 1, 2, 4 ... up to all)")
    ap.add_argument("--pinned", action="store_true",
                    help="the edges in page-locked host memory (copied with no staging), not pageable")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    args = ap.parse_args(argv)
    print(stamp(ap.prog, argv), flush=True)
    import cupy as cp

    from gconn.graph.generators import rmat_edges
    counts = _gpu_counts(cp.cuda.runtime.getDeviceCount(), args.gpus)
    t0 = time.perf_counter()
    src, dst, n = rmat_edges(args.scale, args.edge_factor, seed=1)
    if args.pinned:
        import cupyx
        pinned = [cupyx.empty_pinned(a.shape, a.dtype) for a in (src, dst)]
        for out, a in zip(pinned, (src, dst)):
            out[:] = a
        src, dst = pinned
    print(f"R-MAT scale {args.scale}: {src.size:,} edges, {(src.nbytes + dst.nbytes) / 2**30:.1f} GiB, made in "
          f"{time.perf_counter() - t0:.1f} s; GPUs {', '.join(cp.cuda.runtime.getDeviceProperties(d)['name'].decode() for d in range(max(counts)))}",
          flush=True)
    rows = run_counts(src, dst, counts, args.budget, args.repeat, args.warmup, log=lambda s: print(s, flush=True))
    print()
    print(report(rows, src.size, n, args.budget, "page-locked" if args.pinned else "pageable"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
