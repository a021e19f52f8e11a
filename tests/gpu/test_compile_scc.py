"""The strong-components kernels (gconn.scc.gpu) compile to PTX for sm_90
without a GPU (runs in CI's default test run)."""
from __future__ import annotations

import os

import pytest

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")


@pytest.mark.skipif(SIM, reason="the simulator does not compile to PTX")
def test_scc_kernels_compile_to_ptx():
    from numba import int32, void

    from gconn.gpu._compat import cuda
    from gconn.scc import gpu
    for name, (fn, nargs) in gpu.KERNELS.items():
        ptx, _ = cuda.compile_ptx(fn, void(*[int32[::1]] * nargs), cc=(9, 0))
        assert ".entry" in ptx and "atom." in ptx, name
