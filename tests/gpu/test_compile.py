"""GPU-backend checks that need no GPU (they run in CI).

* Every kernel the backend can ask for compiles to PTX for sm_90
  (``python -m gconn.bench.compile_check``, in a subprocess: it substitutes
  a device for numba-cuda's compute-capability query).
* Without a GPU, ``backend='gpu'`` is a clear error and ``'auto'`` uses
  the CPU.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gconn

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.slow
def test_every_kernel_compiles_to_ptx():
    # 1-5 minutes on 2 cores: `python -m pytest -m slow -s` (as .ci/run does)
    # shows the check's progress lines, which it writes to stderr.
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    r = subprocess.run([sys.executable, "-m", "gconn.bench.compile_check"], env=env, stdout=subprocess.PIPE,
                       text=True, timeout=1200)
    assert r.returncode == 0, r.stdout
    assert "compiled" in r.stdout and " of " in r.stdout


_LOADS = """
from gconn.bench import compile_check
compile_check._init()
from numba import cuda, types
from gconn.backends.core.unionfind import FIND_NAIVE, SPLIT_ONE, UNION_REM_LOCK
from gconn.backends.gpu.primitives import UF, cas, reread

union_any = UF.union_any

def spin(a, out):
    while reread(a, 5) != 3:
        pass
    out[0] = 1

def twice(a, out):
    out[0] = reread(a, 1) + reread(a, 1)

def after_cas(a, out):
    x = reread(a, 2)
    cas(a, 0, 0, 1)
    out[0] = x + reread(a, 2)

def after_store(a, out):
    a[3] = 7
    out[0] = reread(a, 3)

def rem_lock(P, L):
    union_any(P, L, 1, 2, UNION_REM_LOCK, FIND_NAIVE, SPLIT_ONE)

def body(f, dt):
    ptx, _ = cuda.compile_ptx(f, types.void(types.Array(dt, 1, "C"), types.Array(dt, 1, "C")), cc=(9, 0))
    return [ln.strip() for ln in ptx[ptx.index("{"):].splitlines()]

for dt in (types.int8, types.int32, types.int64):
    lines = body(spin, dt)
    top = next(i for i, ln in enumerate(lines) if ln.startswith("$L__BB") and ln.endswith(":"))
    assert any(ln.startswith("ld.volatile.global") for ln in lines[top:]), lines
    for f in (twice, after_cas) if dt.bitwidth >= 32 else (twice,):
        lines = body(f, dt)
        assert sum(ln.startswith("ld.volatile.global") for ln in lines) == 2, (f.__name__, dt, lines)
    lines = body(after_store, dt)
    st = next(i for i, ln in enumerate(lines) if ln.startswith("st.global"))
    assert any(ln.startswith("ld.volatile.global") for ln in lines[st:]), lines

# UnionRemLock: a fence right after the lock's CAS, then both reads made anew
lines = body(rem_lock, types.int32)
fence = next(i for i, ln in enumerate(lines) if ln.startswith("membar.gl") or ln.startswith("fence.sc"))
cas_at = max(i for i, ln in enumerate(lines[:fence]) if ln.startswith("atom.global.cas"))
assert not any(ln.startswith(("ld.", "st.")) for ln in lines[cas_at:fence]), lines[cas_at:fence + 1]
ahead = lines[fence + 1:]
stop = next(i for i, ln in enumerate(ahead) if ln.startswith(("st.global", "membar", "fence")))
assert sum(ln.startswith("ld.volatile.global") for ln in ahead[:stop]) == 2, ahead[:stop + 1]
print("loads ok")
"""


def test_rereads_are_made_every_time():
    """The GPU's ``reread`` is a load on every call, in program order: a spin
    loop re-reads its flag, a re-read after a CAS and two reads of one
    address stay two loads, and a load after this thread's store to the
    same address is made after it (numba's ``cuda.ldcg``, asm without side
    effects, compiled to one load before a spin loop and to one load for two
    reads).  UnionRemLock takes its lock, fences, and re-reads both parents."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    r = subprocess.run([sys.executable, "-c", _LOADS], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600)
    assert r.returncode == 0 and "loads ok" in r.stdout, r.stdout[-3000:]


def test_gpu_backend_unavailable_is_clear():
    from gconn.backends import gpu
    ok, why = gpu.available()
    if ok:
        pytest.skip(f"a GPU backend is usable here ({why})")
    assert isinstance(why, str) and why
    with pytest.raises(gconn.GPUUnavailableError, match="backend='gpu' is not usable here"):
        gconn.connected_components(([0], [1]), backend="gpu")
    with pytest.raises(gconn.GPUUnavailableError):
        gconn.IncrementalConnectivity(backend="gpu")
    k, labels = gconn.connected_components(([0, 2], [1, 3]), backend="auto")
    assert k == 2 and isinstance(labels, np.ndarray)
