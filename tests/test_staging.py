"""Host copies of the GPU route (gconn.backends.gpu.staging) on the CPU: NumPy's copies until a process
has loaded numba's CPU kernels, numba's parallel ones after, with the same results."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gconn.backends.gpu import staging


@pytest.mark.parametrize("cold", [True, False])
def test_copies_agree_cold_and_warm(monkeypatch, cold):
    """stage, copy_into and fill give the same copies and bounds on NumPy as on numba: casts, columns,
    bounds folded into those before."""
    monkeypatch.setattr(staging, "cold", lambda: cold)
    rng = np.random.default_rng(3)
    a = rng.integers(-5, 1 << 20, 3 * staging.BLOCK + 7).astype(np.int64)
    out = np.full(a.size + 3, -9, np.int32)
    assert staging.stage(out, a) == (int(a.min()), int(a.max()))
    assert np.array_equal(out[:a.size], a) and (out[a.size:] == -9).all()
    column = np.column_stack([a, a + 1])[:, 1]
    wide = np.zeros(a.size, np.int64)
    staging.copy_into(wide, column)
    assert np.array_equal(wide, a + 1)
    assert staging.fill(out, np.array([7, 3]), True, (4, 5)) == (3, 7) and out[:2].tolist() == [7, 3]
    assert staging.fill(out, np.array([1]), False, (4, 5)) == (4, 5) and out[0] == 1
    assert staging.stage(out, a[:0]) == (0, -1)


@pytest.mark.parametrize("m", [1, staging.PASS_SERIAL_BELOW - 1, staging.PASS_SERIAL_BELOW])
def test_short_copies_run_on_the_calling_thread(monkeypatch, m):
    """Below PASS_SERIAL_BELOW the copies are a serial twin's (no parallel loop to wake): the same
    copies, casts and bounds, the extremes in the last places."""
    monkeypatch.setattr(staging, "cold", lambda: False)
    a = np.full(m, 7, np.int64)
    a[-1] = -2 if m > 1 else 9
    out = np.full(m + 2, -9, np.int32)
    assert staging.stage(out, a) == (int(a.min()), int(a.max()))
    assert np.array_equal(out[:m], a) and (out[m:] == -9).all()
    wide = np.zeros(m + 1, np.int64)
    staging.copy_into(wide, np.column_stack([a, a + 1])[:, 1])
    assert np.array_equal(wide[:m], a + 1) and wide[m] == 0


def test_numpy_copies_count_towards_loading_numba(monkeypatch):
    """NumPy's copies add their seconds; past LOAD_SECONDS (or once numba's CPU kernels are loaded) the
    copies are numba's."""
    monkeypatch.setattr(staging, "_spent", [0.0])
    monkeypatch.delitem(sys.modules, "numba.np.arraymath", raising=False)
    assert staging.cold()
    staging.stage(np.empty(4, np.int32), np.arange(4))
    assert 0 < staging._spent[0] < staging.LOAD_SECONDS and staging.cold()
    staging._spent[0] = staging.LOAD_SECONDS
    assert not staging.cold()


def test_a_fresh_process_copies_on_numpy_until_numba_loads():
    """Importing gconn's GPU staging (numba imported, its CPU kernels not loaded) leaves a process cold;
    a first njit call, anywhere, warms it."""
    code = ("import numba, numpy as np\n"
            "from gconn.backends.gpu import staging\n"
            "out = np.empty(3, np.int32)\n"
            "print(staging.cold(), staging.stage(out, np.array([2, 9, 4])), staging.cold())\n"
            "numba.njit(lambda x: x + 1)(1)\n"
            "print(staging.cold())\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.split("\n")[:2] == ["True (2, 9) True", "False"]


def _cold_copy_in_child():
    staging.cold = lambda: True
    a = np.arange(4 * staging.PART, dtype=np.int64)
    out = np.empty(a.size, np.int64)
    assert staging.stage(out, a) == (0, a.size - 1) and np.array_equal(out, a)


def test_numpy_copies_run_in_a_forked_child(monkeypatch):
    """A child forked after the copies' threads started makes its own (the parent's are not in it)."""
    import multiprocessing
    monkeypatch.setattr(staging, "cold", lambda: True)
    a = np.arange(4 * staging.PART, dtype=np.int64)
    staging.stage(np.empty(a.size, np.int64), a)        # the pool's threads, in this process
    child = multiprocessing.get_context("fork").Process(target=_cold_copy_in_child)
    child.start()
    child.join(60)
    assert child.exitcode == 0
