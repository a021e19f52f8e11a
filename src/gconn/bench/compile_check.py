"""Compile every GPU kernel to PTX without a GPU (CI's check of the GPU backend).

    python -m gconn.bench.compile_check [--jobs N] [--quick]

Each kernel of the registry (:mod:`gconn.backends.gpu.launch`), for every specialization the
backend can ask for, for int32 and int64 ids (int32 ids also with int64 offsets where a kernel
reads CSR offsets).  With no device, this module (and only it) answers numba-cuda's question for
the compute capability with Hopper's (9, 0).

>>> from gconn.bench.compile_check import jobs
>>> len(jobs(quick=True)) > 10
True
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
import types

CC = (9, 0)
#: (ids, offsets) pairs; parents follow the ids (int64 for UnionJTB)
ID_PAIRS = (("int32", "int32"), ("int64", "int64"))
MIXED_PAIR = ("int32", "int64")


def _load_kernels():
    """Import every module that registers kernels; the registry."""
    from gconn.backends.gpu import scc as scc_gpu  # noqa: F401
    from gconn.backends.gpu import bfs, dynamic, finishes, graph, ops, replay, sampling, unionfind  # noqa: F401
    from gconn.chunked import gpu as stream  # noqa: F401
    from gconn.backends.gpu.launch import REGISTRY
    return REGISTRY


def jobs(quick: bool = False) -> list:
    """Every (kind, key, dtypes) to compile: union kernels with every union-find combination for
    ID_PAIRS and one per finish for MIXED_PAIR (or one per finish throughout, ``quick``); the
    others with each of their keys, MIXED_PAIR only where they read offsets."""
    from gconn.design import Plan, iter_variants
    from gconn.backends.gpu.launch import dtypes_key
    from gconn.backends.gpu.unionfind import TRACK_BOUNDS, TRACK_FIT

    registry = _load_kernels()
    every, per_finish = {}, {}
    for v in iter_variants("cc"):
        if v.is_union_find:
            p = Plan.of(v)
            every.setdefault((p.fin, p.fopt, p.sopt), p.jtb)
            per_finish.setdefault(p.fin, ((p.fin, p.fopt, p.sopt), p.jtb))
    out = []
    for ids, ptr in ID_PAIRS + (MIXED_PAIR,):
        mixed = (ids, ptr) == MIXED_PAIR
        combos = per_finish.values() if quick or mixed else every.items()
        for kind, spec in registry.items():
            if mixed and not spec.offsets:
                continue
            if spec.keys == "union":
                keys = list(combos)
            elif spec.keys == "jtb":
                keys = [((False,), False), ((True,), True)]
            else:
                keys = [(key, False) for key in spec.keys]
            for key, jtb in keys:
                out.append((kind, key, dtypes_key(ids, ptr, "int64" if jtb else ids)))
        if not mixed:
            # coo_ops checking ids on the device: the extra code does not depend on the union codes
            for key, jtb in per_finish.values():
                for track in (TRACK_BOUNDS, TRACK_FIT):
                    out.append(("coo_ops", key + (track,), dtypes_key(ids, ptr, "int64" if jtb else ids)))
    return out


def _compile(job):
    from numba import cuda

    from gconn.backends.gpu.launch import signature
    registry = _load_kernels()
    kind, key, dtypes = job
    spec = registry[kind]
    if not spec.offsets:
        dtypes = (dtypes[0], dtypes[0], dtypes[2])
    try:
        ptx, _ = cuda.compile_ptx(spec.factory(*key), signature(kind, dtypes), cc=CC)
        return job, None if ".entry" in ptx else "no kernel entry in the PTX"
    except Exception:
        return job, traceback.format_exc(limit=3)


def _init():
    """Pretend a device of compute capability CC to numba-cuda."""
    import numba.cuda.dispatcher as dispatcher
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=CC)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gconn.bench.compile_check", description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="compiler processes")
    ap.add_argument("--quick", action="store_true", help="one find/splice combination per finish")
    args = ap.parse_args(argv)
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0"):
        print("unset NUMBA_ENABLE_CUDASIM: the simulator compiles nothing", file=sys.stderr)
        return 2
    todo = jobs(args.quick)
    t0 = time.perf_counter()
    results = []

    def report(done):
        # CI shows a line per tenth of the kernels while it waits
        for result in done:
            results.append(result)
            if len(results) % max(1, len(todo) // 10) == 0 or len(results) == len(todo):
                print(f"compile_check: {len(results)} of {len(todo)} kernels, {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr, flush=True)

    if args.jobs > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(args.jobs, initializer=_init) as pool:
            report(pool.imap_unordered(_compile, todo, chunksize=1))
    else:
        _init()
        report(map(_compile, todo))
    failed = [(j, err) for j, err in results if err]
    for (kind, key, dts), err in failed:
        print(f"FAILED {kind} {key} {dts}:\n{err}", file=sys.stderr)
    print(f"compiled {len(results) - len(failed)} of {len(results)} kernels for sm_{CC[0]}{CC[1]} "
          f"in {time.perf_counter() - t0:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
