"""The subcommands that read no graph file: generate, info, variants, demo, warmup, cache, bench."""
from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time

import numpy as np

from gconn.bench.harness import add_arguments, generate, human_size, progress, resolve_backend, run_from_args
from gconn.cli import common as C
from gconn.graph import Graph


_SPECS_EPILOG = "generator specs:"


class _SpecsHelp(argparse.RawDescriptionHelpFormatter):
    """The generator specs in ``gconn generate -h`` only: the generators import numba."""

    def add_text(self, text):
        if text is _SPECS_EPILOG:
            from gconn.graph.generators import spec_help
            text = f"{text}\n{spec_help()}"
        super().add_text(text)


def add_parsers(add) -> None:
    p = add("generate", cmd_generate, "generate a graph and write it to a file")
    p.formatter_class = _SpecsHelp
    p.epilog = _SPECS_EPILOG
    p.add_argument("spec", metavar="SPEC", help="e.g. rmat:scale=20,ef=16, kron:22, ba:n=1000000,m=16, "
                                               "er:n=1000000,d=16, grid:4096,keep=0.7, mesh:1024, path:1000")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the file; its extension picks the format (.mtx, .el, .graph, .npy, .npz, .gcb, +.gz)")

    p = add("info", cmd_info, "versions, threads and whether a CUDA GPU is usable")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = add("variants", cmd_variants, "list the valid variant names")
    p.add_argument("--problem", choices=("cc", "forest", "incremental"), default="cc",
                   help="cc (default), forest or incremental")

    p = add("demo", cmd_demo, f"components of a built-in example ({C.EXAMPLE_SPEC}), checked against scipy")
    p.add_argument("-b", "--backend", default="auto", choices=("auto", "cpu", "gpu"))

    p = add("warmup", cmd_warmup, "compile the common commands' kernels once (after installing): the CPU's "
                                  "into numba's cache, the GPU's into gconn's")
    p.add_argument("-b", "--backend", default="auto", choices=("auto", "cpu", "gpu"),
                   help="auto (default): the CPU's, and the GPU's when one is usable")

    p = add("cache", cmd_cache, "the compiled GPU kernels (GCONN_KERNEL_CACHE): where, how many, how large")
    p.add_argument("--clear", action="store_true", help="remove the cached kernels")

    p = add("bench", cmd_bench, "benchmark variants x graphs against scipy and NetworkX")
    add_arguments(p)


def cmd_generate(args, parser) -> int:
    from gconn.io import save
    C.check_graph_path(args.output)
    g, times = generate(args.spec, show=C.show_progress(args))
    t0 = time.perf_counter()
    save(g, args.output)
    times["save"] = time.perf_counter() - t0
    C.print_fields([("graph", args.spec), ("n", f"{g.n:,}"), ("m", f"{g.m:,}"),
                   ("time", ", ".join(f"{k} {C.fmt_s(v)}" for k, v in times.items())),
                   ("wrote", args.output)])
    return 0


def _version_of(module: str, dist: str | None = None) -> str | None:
    """The version of an importable module, or None when it does not import."""
    import importlib
    import importlib.metadata
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001 -- a broken optional install reads as absent
        return None
    try:
        return importlib.metadata.version(dist or module)
    except importlib.metadata.PackageNotFoundError:
        return getattr(mod, "__version__", "unknown version")


def gpu_device() -> dict | None:
    """Name and memory of CUDA device 0 through CuPy, or None."""
    try:
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
    except Exception:  # noqa: BLE001 -- no CuPy, no driver or no device: all mean none
        return None
    name = props["name"]
    return {"name": name.decode() if isinstance(name, bytes) else str(name),
            "memory_gib": round(props["totalGlobalMem"] / 2**30, 1)}


def cmd_info(args, parser) -> int:
    import numba
    import scipy
    from gconn import __version__
    from gconn.design import PROBLEMS, variants
    from gconn.backends.gpu import staging
    found, why = gpu_status()
    device = gpu_device() if found else None
    info = {
        "gconn": __version__, "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "numpy": np.__version__, "scipy": scipy.__version__, "numba": numba.__version__,
        "numba_threads": numba.get_num_threads(), "numba_threading_layer": staging.threading_layer(),
        "openmp_wait": _openmp_wait(),
        "numba_cuda": _version_of("numba_cuda", "numba-cuda"), "cupy": _version_of("cupy"),
        "gpu": device, "gpu_unavailable_reason": None if found else why,
        "variants": {p: len(variants(p)) for p in PROBLEMS},
    }
    gpu_line = (f"{device['name']}, {device['memory_gib']} GiB" if device else "found") if found \
        else f"none ({why})"
    C.report(args, info, [
        ("gconn", info["gconn"]), ("python", info["python"]), ("numpy", info["numpy"]),
        ("scipy", info["scipy"]),
        ("numba", f"{info['numba']} ({info['numba_threads']} threads, {info['numba_threading_layer']} layer)"),
        ("OpenMP wait", info["openmp_wait"]),
        ("numba-cuda", info["numba_cuda"] or "not importable"), ("cupy", info["cupy"] or "not importable"),
        ("CUDA GPU", gpu_line),
        ("variants", ", ".join(f"{p} {k}" for p, k in info["variants"].items())),
    ])
    if not args.json and info["numba_threading_layer"] == staging.SLOW_LAYER:
        print(f"warning: {staging.SLOW_LAYER_HINT}")
    return 0


def _openmp_wait() -> str:
    """How OpenMP's threads wait after a loop: the user's setting, or the spin gconn set."""
    import gconn
    policy, spin = os.environ.get("OMP_WAIT_POLICY"), os.environ.get("GOMP_SPINCOUNT")
    if policy is None and spin == gconn.OMP_SPIN:
        return f"GOMP_SPINCOUNT={spin} (set by gconn: README, install)"
    said = [f"{k}={v}" for k, v in (("OMP_WAIT_POLICY", policy), ("GOMP_SPINCOUNT", spin)) if v is not None]
    return ", ".join(said) + " (yours)" if said else "OpenMP's default"


def cmd_variants(args, parser) -> int:
    from gconn.design import variants
    for name in variants(args.problem):
        print(name)
    return 0


def cmd_demo(args, parser) -> int:
    if args.backend == "auto":
        found, why = gpu_status()
        where = "a CUDA GPU" if found else f"the CPU ({why})"
    else:
        where = "a CUDA GPU" if resolve_backend(args.backend) == "gpu" else "the CPU"
    print(f"gconn demo: connected components of a generated R-MAT graph ({C.EXAMPLE_SPEC}) on {where},"
          " checked against scipy")
    from gconn.cli import build_parser
    from gconn.cli.cc import cmd_cc
    cc = build_parser().parse_args(["cc", "--example", "--compare", "--repeat", "3", "--backend", args.backend])
    cc.quiet, cc.debug = args.quiet, args.debug
    return cmd_cc(cc, cc.command_parser)


def cmd_warmup(args, parser) -> int:
    if args.backend != "gpu":
        result = warmup(show=C.show_progress(args), notice=not args.quiet)
        if result["compiled"]:
            print(f"gconn warmup: compiled {result['compiled']} CPU kernels into numba's cache in "
                  f"{C.fmt_s(result['seconds'])}; later runs load them from there")
        else:
            print(f"gconn warmup: every CPU kernel was already in numba's cache "
                  f"(checked in {C.fmt_s(result['seconds'])})")
    if args.backend == "cpu":
        return 0
    found, why = gpu_status()
    if not found and args.backend == "auto":
        print(f"gconn warmup: no GPU kernels ({why})")
        return 0
    result = warmup_gpu(show=C.show_progress(args))
    where = result["directory"]
    if where is None:
        print(f"gconn warmup: compiled {result['compiled']} GPU kernels in {C.fmt_s(result['seconds'])}, but "
              "GCONN_KERNEL_CACHE=off keeps none for later processes")
    elif result["compiled"]:
        print(f"gconn warmup: compiled {result['compiled']} GPU kernels into {where} in "
              f"{C.fmt_s(result['seconds'])} ({result['loaded']} were there already)")
    else:
        print(f"gconn warmup: every GPU kernel was already in {where} ({result['loaded']} loaded in "
              f"{C.fmt_s(result['seconds'])})")
    return 0


def cmd_cache(args, parser) -> int:
    from gconn.backends.gpu import kernel_cache
    where = kernel_cache.directory()
    if where is None:
        print("GPU kernel cache: off (GCONN_KERNEL_CACHE)")
        return 0
    if args.clear:
        print(f"GPU kernel cache: removed {kernel_cache.clear()} files from {where}")
        return 0
    found = kernel_cache.files()
    size = sum(p.stat().st_size for p in found)
    print(f"GPU kernel cache: {where}, {len(found)} kernels, {human_size(size)}")
    return 0


def cmd_bench(args, parser) -> int:
    if args.gpu is not None:
        from gconn.bench.gpu import main     # CuPy's: loaded only here
        return main(args.gpu)
    return run_from_args(args, args.bench_argv)


def gpu_status() -> tuple[bool, str]:
    """(found, why not) for a real CUDA GPU."""
    from gconn.backends import gpu
    return gpu.available(simulator_ok=False)


#: ``gconn warmup``'s runs (problem, algorithm, incremental mode): every automatic choice on the CPU.
WARMUP_RUNS = (*((problem, f"{sampling}+union-async+find-halve", "phased")
                 for problem in ("cc", "forest") for sampling in ("none", "kout", "hb")),
               *(("incremental", "auto", mode) for mode in ("phased", "sequential", "concurrent")))


def warmup(show: bool = True, notice: bool = True) -> dict:
    """Compile (or load) the CPU kernels of the common commands: graph construction, readers and
    writers, chunked files, GPU transfers' host side, generators and every automatic choice.
    Returns ``{"seconds": s, "compiled": count}``.

    >>> warmup(show=False, notice=False)["compiled"] >= 0
    True
    """
    from gconn.graph import generators
    from gconn import io
    from gconn.chunked import cpu as chunked_cpu
    from gconn.chunked import gpu_feed as feed
    from gconn.backends.gpu import staging
    t0 = time.perf_counter()
    with progress(show, total=len(WARMUP_RUNS) + 2, desc="kernels", unit="step") as bar:
        with C.watch_compiles(notice=notice) as watch:
            for spec in ("rmat:scale=5,ef=4", "ba:n=40,m=2"):
                Graph.from_edges(*generators.edges_from_spec(spec)[:2])
            bar.update()
            with tempfile.TemporaryDirectory() as tmp:
                g = Graph.from_edges([0, 1, 3], [1, 2, 4])
                for ext in (".mtx", ".el", ".graph", ".npy", ".gcb"):
                    io.save(g, os.path.join(tmp, "g" + ext))
                    io.load(os.path.join(tmp, "g" + ext))
            chunked_cpu.warm(chunked_cpu.plan_of("auto", "cc", {}))
            staging.warm()
            feed.warm()
            bar.update()
        compiled = watch.count
        for problem, algorithm, mode in WARMUP_RUNS:
            r = C.prepare_kernels(problem, "cpu", algorithm, mode=mode, notice=notice)
            compiled += r["compiled"]
            bar.update()
    return {"seconds": time.perf_counter() - t0, "compiled": compiled}


def warmup_gpu(show: bool = True) -> dict:
    """Compile (or load) the GPU kernels of the common calls into :mod:`gconn.backends.gpu.kernel_cache`
    (host arrays, a file, a CSR matrix, :data:`gconn.design.AUTO_GPU_VARIANTS`, incremental
    batches, the dynamic structure).  Returns ``{"seconds", "compiled", "loaded", "directory"}``."""
    import scipy.sparse as sp
    from gconn import api, io
    from gconn.design import AUTO_GPU_VARIANTS
    from gconn.backends.gpu import dynamic, kernel_cache, replay
    resolve_backend("gpu")
    import cupy as cp
    before = dict(kernel_cache.COUNTS)
    t0 = time.perf_counter()
    src = np.array([0, 1, 2, 3, 4, 4, 4, 5, 5, 6, 8], np.int64)
    dst = np.array([1, 2, 3, 4, 5, 6, 7, 6, 7, 7, 9], np.int64)
    steps = 2 + sum(len(v) for v in AUTO_GPU_VARIANTS.values())
    with progress(show, total=steps, desc="GPU kernels", unit="step") as bar:
        for dt in (np.int32, np.int64):
            api.connected_components((src.astype(dt), dst.astype(dt)), backend="gpu")
            api.spanning_forest((src.astype(dt), dst.astype(dt)), backend="gpu")
        n = int(max(src.max(), dst.max())) + 1
        api.connected_components(sp.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(n, n)),
                                 backend="gpu")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "g.el")
            io.save(Graph.from_edges(src, dst), path)
            api.connected_components(path, backend="gpu")
        bar.update()
        g = Graph.from_edges(cp.asarray(src.astype(np.int32)), cp.asarray(dst.astype(np.int32)))
        for problem, names in AUTO_GPU_VARIANTS.items():
            run = api.connected_components if problem == "cc" else api.spanning_forest
            for name in names:
                run(g, algorithm=name, backend="gpu")
                bar.update()
        ic = api.IncrementalConnectivity(int(src.max()) + 2, backend="gpu")
        ic.process(np.arange(src.size, dtype=np.int8) % 2, src, dst)
        ic.insert(dst, src)
        ic.connected(src, dst)
        ic.labels()
        replay._scalar_out()        # a resident call's capture launches it
        dynamic.warm()
        bar.update()
    return {"seconds": time.perf_counter() - t0, "directory": kernel_cache.directory(),
            "compiled": kernel_cache.COUNTS["compiled"] - before["compiled"],
            "loaded": kernel_cache.COUNTS["loaded"] - before["loaded"]}
