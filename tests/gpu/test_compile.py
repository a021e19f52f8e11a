"""GPU-backend checks that need no GPU (they run in CI).

* Every kernel the backend can ask for compiles to PTX for sm_90
  (``python -m gconn.gpu.compile_check``, in a subprocess: it substitutes
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
    r = subprocess.run([sys.executable, "-m", "gconn.gpu.compile_check"], env=env, stdout=subprocess.PIPE,
                       text=True, timeout=1200)
    assert r.returncode == 0, r.stdout
    assert "compiled" in r.stdout and " of " in r.stdout


def test_gpu_backend_unavailable_is_clear():
    from gconn import gpu
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
