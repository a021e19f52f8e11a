"""The disk cache of compiled kernels on a real GPU: a second process loads
what the first compiled and gets SciPy's partition; a file that does not
load, or other settings, compile again.

    python -m pytest -m gpu tests/gpu/test_gpu_kernel_cache.py
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


from gpucases import ON_GPU

pytestmark = ON_GPU

# Several paths (host arrays streamed, a resident graph with k-out and with
# HB, a spanning forest), each checked against SciPy in the child.
SCRIPT = r"""
import json
import numpy as np, cupy as cp
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components as scipy_cc
import gconn
from gconn.graph import Graph
from gconn.backends.gpu import kernel_cache

rng = np.random.default_rng(5)
n, m = 4000, 6000
s = rng.integers(0, n, m).astype(np.int32)
d = rng.integers(0, n, m).astype(np.int32)
k0, lab0 = scipy_cc(coo_matrix((np.ones(m), (s, d)), shape=(n, n)), directed=False)
ok = []
k, lab = gconn.connected_components((s, d), backend="gpu")
ok.append(k == k0 and bool((lab == lab0).all()))
g = Graph.from_edges(cp.asarray(s), cp.asarray(d), n)
for alg in ("kout+union-async+find-halve", "hb+union-rem-cas+find-naive+splice"):
    k, lab = gconn.connected_components(g, backend="gpu", algorithm=alg)
    ok.append(k == k0 and bool((cp.asnumpy(lab) == lab0).all()))
fs, fd = gconn.spanning_forest((s, d), backend="gpu")
ok.append(len(fs) == n - k0)
print(json.dumps({"ok": ok, **kernel_cache.COUNTS}))
"""


def run(cache, **env):
    e = {**os.environ, "GCONN_KERNEL_CACHE": str(cache), **env}
    src = str(Path(__file__).resolve().parents[2] / "src")
    e["PYTHONPATH"] = src + os.pathsep + e.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert all(out["ok"]), out
    return out


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    first = run(tmp_path)
    assert first["compiled"] > 3 and first["loaded"] == 0 and first["saved"] == first["compiled"]
    assert len(list(tmp_path.glob("*.cubin"))) == first["compiled"]
    second = run(tmp_path)
    assert second["compiled"] == 0 and second["loaded"] == first["compiled"], (first, second)


def test_files_that_do_not_load_are_compiled_again(tmp_path):
    first = run(tmp_path)
    for p in tmp_path.glob("*.cubin"):
        data = p.read_bytes()
        head, _, _ = data.partition(b"\n")
        entry, _, _ = data[len(head) + 1:].partition(b"\n")
        p.write_bytes(head + b"\n" + entry + b"\n" + b"not a cubin" * 10)
    second = run(tmp_path)
    assert second["loaded"] == 0 and second["compiled"] == first["compiled"], (first, second)
    third = run(tmp_path)           # the second rewrote them
    assert third["compiled"] == 0


def test_other_settings_compile_their_own(tmp_path):
    first = run(tmp_path)
    other = run(tmp_path, NUMBA_OPT="2")
    assert other["loaded"] == 0 and other["compiled"] == first["compiled"]
    assert len(list(tmp_path.glob("*.cubin"))) == 2 * first["compiled"]


def test_off_writes_nothing(tmp_path):
    out = run("off")
    assert out["saved"] == 0 and out["loaded"] == 0 and out["compiled"] > 0


AFTER_WARMUP = r"""
import json
import numpy as np, cupy as cp, scipy.sparse as sp
import gconn
from gconn.graph import Graph
from gconn.backends.gpu import kernel_cache

rng = np.random.default_rng(9)
for n, m in ((3000, 2000), (3000, 30000)):        # sparse: no sampling; dense: HB or k-out
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    gconn.connected_components((s, d), backend="gpu")
    if m < n:       # a SciPy CSR of a sparse graph streams (its rows found on the device)
        gconn.connected_components(sp.csr_matrix((np.ones(m, np.int8), (s, d)), shape=(n, n)), backend="gpu")
    gconn.spanning_forest((s.astype(np.int32), d.astype(np.int32)), backend="gpu")
    g = Graph.from_edges(cp.asarray(s, np.int32), cp.asarray(d, np.int32), n)
    if m > n:
        g.adjacency()
    gconn.connected_components(g, backend="gpu")
    gconn.spanning_forest(g, backend="gpu")
ic = gconn.IncrementalConnectivity(100, backend="gpu")
ic.insert(np.arange(50), np.arange(1, 51))
ic.connected(np.arange(10), np.arange(10, 20))
print(json.dumps(kernel_cache.COUNTS))
"""


def test_warmup_compiles_what_common_calls_use(tmp_path):
    e = {**os.environ, "GCONN_KERNEL_CACHE": str(tmp_path)}
    e["PYTHONPATH"] = str(Path(__file__).resolve().parents[2] / "src") + os.pathsep + e.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-m", "gconn", "warmup", "-b", "gpu"], env=e, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0 and "compiled" in r.stdout and str(tmp_path) in r.stdout, r.stdout + r.stderr
    r = subprocess.run([sys.executable, "-c", AFTER_WARMUP], env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    counts = json.loads(r.stdout.strip().splitlines()[-1])
    assert counts["compiled"] == 0 and counts["loaded"] > 0, counts
