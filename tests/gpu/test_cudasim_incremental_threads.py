"""The GPU backend's IncrementalConnectivity used by several threads at
once, in numba's CUDA simulator (see tests/incremental_threads.py for the
bounds each answer is checked against):

    NUMBA_ENABLE_CUDASIM=1 python -m pytest -m cudasim tests/gpu/test_cudasim_incremental_threads.py
"""
from __future__ import annotations

import os

import pytest

from incremental_threads import check, hammer

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0").strip() not in ("", "0")
pytestmark = [pytest.mark.cudasim,
              pytest.mark.skipif(not SIM, reason="needs NUMBA_ENABLE_CUDASIM=1 (see the module docstring)")]


@pytest.mark.parametrize("name", ["none+union-async+find-halve", "none+union-jtb+find-two-try-split"])
def test_threads_insert_query_and_label_while_ids_grow(name):
    import gconn
    ic = gconn.IncrementalConnectivity(algorithm=name, backend="gpu")
    # ids pass the first capacity (1024): a reallocation.  The interpreter's
    # switch interval stays as it is: numba's simulator creates a block's
    # shared arrays on first use without a lock (kernelapi.FakeCUDAShared.array),
    # and switching threads every few bytecodes gives two of a block's
    # threads two "shared" arrays; its kernels then read garbage, one
    # thread calling them or eight (seen in 1 of 4 runs of this test).
    log = hammer(ic, threads=8, rounds=3, span=1500, seed=3, batch=3, observe_every=3, switch=None)
    counts = check(log)
    assert counts == {"query": 8 * 3, "labels": 8, "count": 8}
