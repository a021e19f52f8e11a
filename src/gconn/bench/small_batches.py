"""Small batches on :class:`gconn.IncrementalConnectivity` (CPU backend)
beside a pure-Python union-find, in one process.

``python -m gconn.bench.small_batches [--n N] [--batches B] [--size K]``

Every case starts from the same structure of ``n`` vertices holding
``n/2`` random edges and gets the same random batches of ``K`` inserts
and ``K`` queries: the yardstick, a list of parents with path halving
doing the K unions and K finds-and-compare; ``insert(src, dst)`` then
``connected(u, v)`` with Python lists and with int64 arrays; and
``process(kinds, src, dst)`` with the 2K operations shuffled, in each
mode; and, for comparison, two cases on the checked path every batch
took before the one-call path (see :mod:`gconn.backends.cpu.unionfind`). Cases
take turns in chunks of ``--chunk`` batches (the machine's load drifts
alike for all), each call is timed alone with ``perf_counter_ns``, after
``--warmup`` batches; the table gives microseconds per batch: median,
min, p90, and the median over the yardstick's. Every answer is checked
against the yardstick's union-find.

>>> rows = run(n=200, batches=30, warmup=5, size=4)
>>> [r["case"] for r in rows][:2]
['pure-Python union-find', 'insert+connected, lists']
>>> all(r["median_us"] > 0 for r in rows)
True
"""
from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import threading
import time
from pathlib import Path

import numpy as np

MODES = ("phased", "sequential", "concurrent")


def _finder(parent: list):
    """find() with path halving on a list of parents."""
    def find(x):
        while parent[x] != x:
            parent[x] = x = parent[parent[x]]
        return x
    return find


def py_batch(parent: list, src, dst, u, v) -> list:
    """The yardstick: K unions, then K finds-and-compare, on a list of
    parents with path halving."""
    find = _finder(parent)
    for a, b in zip(src, dst):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return [find(a) == find(b) for a, b in zip(u, v)]


def _expected(parent: list, kinds, src, dst, mode: str) -> tuple:
    """A process() batch's allowed answers on the yardstick's structure, as
    (must be True, may be True) lists: each query after all inserts
    (phased), after the inserts before it (sequential), or anything between
    the state before the batch and after it (concurrent)."""
    find = _finder(parent)
    queries = [i for i, k in enumerate(kinds) if k == 1]
    before = [find(src[i]) == find(dst[i]) for i in queries]
    order = range(len(kinds))
    if mode != "sequential":
        order = [i for i in order if kinds[i] == 0] + queries
    out = {}
    for i in order:
        ra, rb = find(src[i]), find(dst[i])
        if kinds[i] == 0:
            if ra != rb:
                parent[ra] = rb
        else:
            out[i] = ra == rb
    after = [out[i] for i in queries]
    return (before, after) if mode == "concurrent" else (after, after)


def _batches(rng, n: int, count: int, size: int) -> list:
    """(src, dst, u, v, kinds, psrc, pdst) as Python lists: the insert and
    query halves, and the same operations shuffled for process()."""
    out = []
    for _ in range(count):
        s, d, u, v = (rng.integers(0, n, size).tolist() for _ in range(4))
        kinds = [0] * size + [1] * size
        perm = rng.permutation(2 * size).tolist()
        ps, pd = s + u, d + v
        out.append((s, d, u, v, [kinds[i] for i in perm], [ps[i] for i in perm], [pd[i] for i in perm]))
    return out


def _cases(modes):
    """(name, mode, call(ic, batch), arrays?, checked?) for each gconn case;
    checked: the structure takes the checked path for every batch (the
    one-call path switched off), as before it existed."""
    def pair(ic, b):
        ic.insert(b[0], b[1])
        return ic.connected(b[2], b[3])

    def mixed(ic, b):
        return ic.process(b[4], b[5], b[6])

    cases = [("insert+connected, lists", "phased", pair, False, False),
             ("insert+connected, arrays", "phased", pair, True, False)]
    for mode in modes:
        cases.append((f"process {mode}, lists", mode, mixed, False, False))
    for mode in modes:
        cases.append((f"process {mode}, arrays", mode, mixed, True, False))
    cases.append(("insert+connected, lists, checked path", "phased", pair, False, True))
    cases.append(("process phased, lists, checked path", "phased", mixed, False, True))
    return cases


def run(n: int = 100_000, batches: int = 3000, warmup: int = 300, size: int = 10, seed: int = 0,
        modes=MODES, chunk: int = 250) -> list:
    """Time every case on the same batches; returns one dict per case."""
    import gconn
    rng = np.random.default_rng(seed)
    s0, d0 = rng.integers(0, n, n // 2), rng.integers(0, n, n // 2)
    work = _batches(rng, n, warmup + batches, size)
    as_arrays = [tuple(np.asarray(x, np.int64) for x in b) for b in work]
    ref = list(range(n))
    py_batch(ref, s0.tolist(), d0.tolist(), [], [])
    cases = []
    for name, mode, call, arrays, checked in _cases(modes):
        ic = gconn.IncrementalConnectivity(n, backend="cpu", mode=mode)
        ic.insert(s0, d0)
        if checked:
            ic._small_below = 0
        cases.append((name, mode, call, as_arrays if arrays else work, ic, list(ref), [], []))
    parent = list(ref)
    ref_times, ref_answers = [], []
    everyone = [(None, None, None, work, None, parent, ref_times, ref_answers)] + cases
    # Cases take turns chunk by chunk: within a chunk a case has the caches
    # to itself (batch by batch, each would pay for the misses the others
    # cause), and across chunks the machine's load drifts alike for all
    for lo in range(0, warmup + batches, chunk):
        for name, mode, call, inputs, ic, state, times, answers in everyone:
            for i in range(lo, min(lo + chunk, warmup + batches)):
                b = inputs[i]
                if call is None:
                    t0 = time.perf_counter_ns()
                    got = py_batch(state, b[0], b[1], b[2], b[3])
                    t1 = time.perf_counter_ns()
                else:
                    t0 = time.perf_counter_ns()
                    got = call(ic, b)
                    t1 = time.perf_counter_ns()
                if i >= warmup:
                    times.append(t1 - t0)
                answers.append(got)
    rows = [_row("pure-Python union-find", ref_times, None)]
    for name, mode, call, inputs, ic, check, times, answers in cases:
        for i, b in enumerate(work):
            if call.__name__ == "pair":
                low = high = py_batch(check, b[0], b[1], b[2], b[3])
            else:
                low, high = _expected(check, b[4], b[5], b[6], mode)
            got = np.asarray(answers[i]).tolist()
            if len(got) != len(low) or any((lo and not g) or (g and not hi) for g, lo, hi in zip(got, low, high)):
                raise AssertionError(f"{name}: batch {i} answered {got}, the union-find {low} (up to {high})")
        rows.append(_row(name, times, rows[0]["median_us"]))
    lock = threading.Lock()
    times = []
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        with lock:
            pass
        times.append(time.perf_counter_ns() - t0)
    rows.append(_row("(an uncontended lock, with-block)", times, rows[0]["median_us"]))
    return rows


def _row(case: str, ns: list, ref_median) -> dict:
    us = np.asarray(ns, np.float64) / 1e3
    med = float(np.median(us))
    return {"case": case, "median_us": med, "min_us": float(us.min()), "p90_us": float(np.percentile(us, 90)),
            "vs_python": med / ref_median if ref_median else 1.0}


def table(rows: list) -> str:
    from gconn.bench.harness import md_table
    return md_table(["case", "median us:", "min us:", "p90 us:", "median / pure Python:"],
                    [[r["case"], f"{r['median_us']:.2f}", f"{r['min_us']:.2f}", f"{r['p90_us']:.2f}",
                      f"{r['vs_python']:.2f}"] for r in rows])


def _revision() -> str:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "describe", "--always", "--dirty"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def main(argv=None) -> int:
    import gconn

    from gconn.bench.harness import cpu_snapshot, load_note, machine
    p = argparse.ArgumentParser(prog="python -m gconn.bench.small_batches", description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100_000, help="vertices of the structure (default 100000)")
    p.add_argument("--batches", type=int, default=3000, help="timed batches per case (default 3000)")
    p.add_argument("--warmup", type=int, default=300, help="untimed batches first (default 300)")
    p.add_argument("--size", type=int, default=10, help="inserts and queries per batch (default 10)")
    p.add_argument("--chunk", type=int, default=250, help="batches a case runs before the next takes over "
                   "(default 250)")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    before, load = cpu_snapshot(), os.getloadavg()
    rows = run(a.n, a.batches, a.warmup, a.size, a.seed, chunk=a.chunk)
    note = load_note(before)
    print(f"# Small batches: {a.size} inserts + {a.size} queries per batch, n = {a.n}, "
          f"{a.batches} batches per case after {a.warmup} of warm-up")
    print(f"{datetime.datetime.now().astimezone().isoformat(timespec='seconds')}; gconn {gconn.__version__} "
          f"at {_revision()}")
    print(machine())
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {note or 'CPU share of others unknown'}")
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
