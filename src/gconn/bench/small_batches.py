"""Small batches on :class:`gconn.IncrementalConnectivity` (CPU backend)
beside a pure-Python union-find, in one process.

``python -m gconn.bench.small_batches [--n N] [--batches B] [--size K]
[--variants V ...] [--tree A --tree B ...]``

Every case starts from ``n`` vertices holding ``n/2`` random edges and
gets the same batches of ``K`` inserts and ``K`` queries: the yardstick (a
list of parents with path halving); ``insert`` then ``connected`` with
lists and int64 arrays; ``process`` with the operations shuffled, in each
mode; and two cases on the checked path (the one-call path off).  Cases
take turns in chunks of ``--chunk`` batches, each call timed alone after
``--warmup`` batches; the table gives microseconds per batch (median, min,
p90, median over the yardstick's).  Every answer is checked.

``--variants`` times the named variants (``gconn.variants("incremental")``,
``sv`` for ``none+sv``) instead, each with ``insert+connected`` and
``process`` in every mode, on int64 arrays.  ``--tree`` (repeatable) runs
the whole comparison in a fresh process per source tree (``PYTHONPATH``
set to it), the trees taking turns ``--rounds`` times; the table gives
each tree's median over rounds and the ratio last / first.

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
    """The yardstick: K unions, then K finds-and-compare."""
    find = _finder(parent)
    for a, b in zip(src, dst):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return [find(a) == find(b) for a, b in zip(u, v)]


def _expected(parent: list, kinds, src, dst, mode: str) -> tuple:
    """A process() batch's allowed answers in ``mode``, as (must be True, may be True) lists."""
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
    """(src, dst, u, v, kinds, psrc, pdst) lists: inserts, queries, and both shuffled."""
    out = []
    for _ in range(count):
        s, d, u, v = (rng.integers(0, n, size).tolist() for _ in range(4))
        kinds = [0] * size + [1] * size
        perm = rng.permutation(2 * size).tolist()
        ps, pd = s + u, d + v
        out.append((s, d, u, v, [kinds[i] for i in perm], [ps[i] for i in perm], [pd[i] for i in perm]))
    return out


def _pair(ic, b):
    ic.insert(b[0], b[1])
    return ic.connected(b[2], b[3])


def _mixed(ic, b):
    return ic.process(b[4], b[5], b[6])


def _cases(modes, variants=None):
    """(name, algorithm, mode, call(ic, batch), arrays?, checked path?) per gconn case."""
    if variants:
        cases = []
        for v in variants:
            cases.append((f"{v}: insert+connected", v, "phased", _pair, True, False))
            cases.extend((f"{v}: process {mode}", v, mode, _mixed, True, False) for mode in modes)
        return cases
    kinds = (("lists", False), ("arrays", True))
    cases = [(f"insert+connected, {kind}", "auto", "phased", _pair, arrays, False) for kind, arrays in kinds]
    cases += [(f"process {mode}, {kind}", "auto", mode, _mixed, arrays, False) for kind, arrays in kinds
              for mode in modes]
    return cases + [("insert+connected, lists, checked path", "auto", "phased", _pair, False, True),
                    ("process phased, lists, checked path", "auto", "phased", _mixed, False, True)]


def run(n: int = 100_000, batches: int = 3000, warmup: int = 300, size: int = 10, seed: int = 0,
        modes=MODES, chunk: int = 250, variants=None) -> list:
    """Time every case on the same batches; returns one dict per case."""
    import gconn
    rng = np.random.default_rng(seed)
    s0, d0 = rng.integers(0, n, n // 2), rng.integers(0, n, n // 2)
    work = _batches(rng, n, warmup + batches, size)
    as_arrays = [tuple(np.asarray(x, np.int64) for x in b) for b in work]
    ref = list(range(n))
    py_batch(ref, s0.tolist(), d0.tolist(), [], [])
    cases = []
    for name, algorithm, mode, call, arrays, checked in _cases(modes, variants):
        ic = gconn.IncrementalConnectivity(n, algorithm=algorithm, backend="cpu", mode=mode)
        ic.insert(s0, d0)
        if checked:
            ic._small_below = 0
        cases.append((name, mode, call, as_arrays if arrays else work, ic, list(ref), [], []))
    parent, ref_times = list(ref), []
    yardstick = (None, None, lambda _, b: py_batch(parent, b[0], b[1], b[2], b[3]), work, None, None,
                 ref_times, [])
    # turns by chunks: a case has the caches to itself, and the load drifts alike for all
    for lo in range(0, warmup + batches, chunk):
        for name, mode, call, inputs, ic, state, times, answers in [yardstick] + cases:
            for i in range(lo, min(lo + chunk, warmup + batches)):
                b = inputs[i]
                t0 = time.perf_counter_ns()
                got = call(ic, b)
                t1 = time.perf_counter_ns()
                if i >= warmup:
                    times.append(t1 - t0)
                answers.append(got)
    rows = [_row("pure-Python union-find", ref_times, None)]
    for name, mode, call, inputs, ic, check, times, answers in cases:
        for i, b in enumerate(work):
            if call is _pair:
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


def in_trees(trees: list, args: list, rounds: int) -> list:
    """Rows of each case, one column per tree: the median over ``rounds``
    fresh processes (``PYTHONPATH`` = the tree) of its median, in turns."""
    from gconn.bench.harness import child_json, turns
    # this file, not the tree's: the trees differ in the library alone
    code = "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    per = turns(trees, lambda t, _: child_json(t, code, __file__, "--json", *args), rounds, warmup=0)
    rows = []
    for i, row in enumerate(per[trees[0]][0]):
        meds = [float(np.median([run[i]["median_us"] for run in per[t]])) for t in trees]
        rows.append([row["case"], *(f"{m:.2f}" for m in meds), f"{meds[-1] / meds[0]:.3f}"])
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m gconn.bench.small_batches", description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100_000, help="vertices of the structure (default 100000)")
    p.add_argument("--batches", type=int, default=3000, help="timed batches per case (default 3000)")
    p.add_argument("--warmup", type=int, default=300, help="untimed batches first (default 300)")
    p.add_argument("--size", type=int, default=10, help="inserts and queries per batch (default 10)")
    p.add_argument("--chunk", type=int, default=250, help="batches a case runs before the next takes over "
                   "(default 250)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variants", nargs="+", help="variants to time (default: the automatic choice's cases)")
    p.add_argument("--tree", action="append", help="a source tree to time in turns (repeatable)")
    p.add_argument("--rounds", type=int, default=3, help="turns of the trees (default 3)")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.json:
        import json
        print(json.dumps(run(a.n, a.batches, a.warmup, a.size, a.seed, chunk=a.chunk, variants=a.variants)))
        return 0
    # not at the top: a --json child runs this file beside another tree's gconn
    from gconn.bench.harness import cpu_snapshot, load_note, machine, md_table
    before, load = cpu_snapshot(), os.getloadavg()
    if a.tree:
        args = [f"--n={a.n}", f"--batches={a.batches}", f"--warmup={a.warmup}", f"--size={a.size}",
                f"--chunk={a.chunk}", f"--seed={a.seed}"]
        if a.variants:
            args += ["--variants", *a.variants]
        rows = in_trees(a.tree, args, a.rounds)
        out = md_table(["case", *(f"tree {i + 1}, median us:" for i in range(len(a.tree))), "last / first:"],
                       rows)
        trees = "; ".join(f"tree {i + 1}: {t}" for i, t in enumerate(a.tree))
        head = f"{trees}; median over {a.rounds} rounds in turns"
    else:
        import gconn
        out = table(run(a.n, a.batches, a.warmup, a.size, a.seed, chunk=a.chunk, variants=a.variants))
        stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        head = f"{stamp}; gconn {gconn.__version__} at {_revision()}"
    note = load_note(before)
    print(f"# Small batches: {a.size} inserts + {a.size} queries per batch, n = {a.n}, "
          f"{a.batches} batches per case after {a.warmup} of warm-up")
    print(head)
    print(machine())
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {note or 'CPU share of others unknown'}")
    print()
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
