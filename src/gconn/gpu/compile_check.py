"""Compile every GPU kernel to PTX without a GPU (CI's check of the GPU backend).

    python -m gconn.gpu.compile_check [--jobs N] [--quick]

Compiles each kernel kind of :mod:`gconn.gpu.unionfind` for every
specialization the backend can ask for: the union kernels for every
union-find (finish, find, splice) combination of ``gconn.variants``, the
others for UnionJTB records or not, each for int32 and int64 vertex ids
(int32 ids also with int64 offsets for the CSR kernels); and each kernel
of :mod:`gconn.gpu.finishes` for every rule code it is specialized on
(``minbased.keys``), for the same ids.  Prints the count and exits
non-zero on any failure.

numba-cuda asks the current device for its compute capability when it
compiles a kernel that calls device functions; with no device this module
(and only this module) substitutes a Hopper (9, 0) answer.

>>> from gconn.gpu.compile_check import jobs
>>> len(jobs(quick=True)) > 10
True
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import traceback

CC = (9, 0)
#: (ids, offsets) pairs; parents follow the ids (int64 for UnionJTB)
ID_PAIRS = (("int32", "int32"), ("int64", "int64"))
MIXED_PAIR = ("int32", "int64")


def _pretend_device():
    import numba.cuda.dispatcher as dispatcher

    class _Device:
        compute_capability = CC

    dispatcher.get_current_device = lambda: _Device()


def jobs(quick: bool = False) -> list:
    """Every (module, kind, key, dtypes) to compile.  The union kernels get
    every union-find combination for the id pairs of ID_PAIRS, and one
    combination per finish for MIXED_PAIR (the offset width is independent
    of the codes); ``quick`` keeps one combination per finish throughout.
    The min-based kernels get every key; MIXED_PAIR only where they read
    offsets."""
    from ..design import iter_variants
    from . import unionfind as K
    from . import finishes as MB
    from .backend import Codes

    every, per_finish = {}, {}
    for v in iter_variants("cc"):
        if v.is_union_find:
            c = Codes(v, "int32")
            every.setdefault(c.union_key, c.jtb)
            per_finish.setdefault(c.fin, (c.union_key, c.jtb))
    out = []
    for ids, ptr in ID_PAIRS + (MIXED_PAIR,):
        mixed = (ids, ptr) == MIXED_PAIR
        combos = per_finish.values() if quick or mixed else every.items()
        for kind in K.FACTORIES:
            if mixed and kind in K.NO_OFFSETS:
                continue
            if kind in K.UNION_KINDS:
                keys = [(key, jtb) for key, jtb in combos]
            elif kind in K.JTB_KINDS:
                keys = [((False,), False), ((True,), True)]
            else:
                keys = [((), False)]
            for key, jtb in keys:
                out.append(("kernels", kind, key, K.dtypes_key(ids, ptr, "int64" if jtb else ids)))
        for kind in MB.FACTORIES:
            if mixed and kind not in MB.CSR_KINDS:
                continue
            for key in MB.keys(kind):
                out.append(("minbased", kind, key, (ids, ptr if kind in MB.CSR_KINDS else ids)))
    return out


def _compile(job):
    from numba import cuda

    from . import unionfind as K
    from . import finishes as MB
    module, kind, key, dtypes = job
    mod = K if module == "kernels" else MB
    if module == "kernels" and kind in K.NO_OFFSETS:
        dtypes = (dtypes[0], dtypes[0], dtypes[2])
    try:
        ptx, _ = cuda.compile_ptx(mod.FACTORIES[kind](*key), mod.signature(kind, dtypes), cc=CC)
        return job, None if ".entry" in ptx else "no kernel entry in the PTX"
    except Exception:
        return job, traceback.format_exc(limit=3)


def _init():
    _pretend_device()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gconn.gpu.compile_check", description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="compiler processes")
    ap.add_argument("--quick", action="store_true", help="one find/splice combination per finish")
    args = ap.parse_args(argv)
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0"):
        print("unset NUMBA_ENABLE_CUDASIM: the simulator compiles nothing", file=sys.stderr)
        return 2
    todo = jobs(args.quick)
    t0 = time.perf_counter()
    if args.jobs > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(args.jobs, initializer=_init) as pool:
            results = pool.map(_compile, todo, chunksize=1)
    else:
        _init()
        results = [_compile(j) for j in todo]
    failed = [(j, err) for j, err in results if err]
    for (module, kind, key, dts), err in failed:
        print(f"FAILED {module}.{kind} {key} {dts}:\n{err}", file=sys.stderr)
    print(f"compiled {len(results) - len(failed)} of {len(results)} kernels for sm_{CC[0]}{CC[1]} "
          f"in {time.perf_counter() - t0:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
