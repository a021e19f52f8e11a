"""The bookkeeping of gconn.backends.gpu.replay (which call runs, captures or
replays; what is kept and dropped; threads), on the CPU: capturing and
launching are replaced by fakes.  Real captures are tested on the GPU
(tests/gpu/test_gpu_replay.py)."""
from __future__ import annotations

import sys
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from gconn.backends.gpu import replay


class FakeCaptured(replay.Captured):
    __slots__ = ()

    def launch(self):
        pass                        # nothing to replay: the outputs hold what the capture made

    def wait(self):
        pass


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(replay, "SIM", False)
    monkeypatch.setattr(replay._launch, "DIRECT", True)
    monkeypatch.setattr(replay, "_BY_EDGES", replay.OrderedDict())
    made = []

    def capture(fn):
        out = replay._call(fn)
        # the "pinned copy" of a 0-d output: a view of what the capture made
        scalars = tuple(a.reshape(1) if isinstance(a, np.ndarray) and a.ndim == 0 else None for a in out)
        c = FakeCaptured(None, None, out, [], scalars)
        made.append(c)
        return c

    monkeypatch.setattr(replay, "capture", capture)
    return made


def _graph(ptr=1000):
    edges = SimpleNamespace(data=SimpleNamespace(ptr=ptr), size=10, dtype=np.dtype(np.int32))
    return SimpleNamespace(_cache={}, n=5, form=lambda name: (edges, edges), has_form=lambda name: True)


def _run(calls):
    def fn():
        calls.append(1)
        return np.array(3), np.arange(5)
    return fn


@pytest.mark.parametrize("edges_only", [False, True])
def test_run_capture_replay(fake, edges_only):
    g, calls = _graph(), []
    outs = [replay.replayed(g, ("cc", "v"), _run(calls), edges_only=edges_only) for _ in range(5)]
    assert len(calls) == 2                      # the first call ran, the second was captured
    assert len(fake) == 1
    for k, labels in outs:
        assert k == 3 and isinstance(k, int) and labels.tolist() == [0, 1, 2, 3, 4]
    assert outs[3][1] is not outs[4][1] and outs[4][1] is not fake[0].outputs[1]
    assert list(replay.captured(g).values()) == ["captured"]
    assert replay.replayed(g, None, _run(calls)) and len(calls) == 3     # no key: runs


def test_deferred_outputs_are_made_after_every_call(fake):
    """A run's Deferred output is made by every call -- the first, the
    capture's replays, the runs that do not replay -- from the arrays the
    run returned it with, and is never one of the capture's arrays."""
    g, made = _graph(), []

    def make(parents):
        made.append(1)
        return parents * 10

    def fn():
        parents = np.arange(5)
        assert replay.deferring()
        return np.array(2), replay.Deferred(make, parents)

    outs = [replay.replayed(g, ("cc", "d"), fn) for _ in range(4)]
    assert len(made) == 4 and len(fake) == 1
    assert all(k == 2 and labels.tolist() == [0, 10, 20, 30, 40] for k, labels in outs)
    assert outs[2][1] is not outs[3][1]
    assert not replay.deferring()
    assert replay.replayed(g, None, fn)[1].tolist() == [0, 10, 20, 30, 40] and len(made) == 5


def test_failed_capture_runs_every_call(fake, monkeypatch):
    def refuse(fn):
        raise RuntimeError("cuStreamBeginCapture failed")

    monkeypatch.setattr(replay, "capture", refuse)
    g, calls = _graph(), []
    for _ in range(4):
        assert replay.replayed(g, ("cc", "bfs"), _run(calls))[0] == 3
    assert len(calls) == 4
    assert list(replay.captured(g).values()) == ["not capturable"]


def test_kept_captures_are_bounded(fake):
    g = _graph()
    for i in range(replay.KEEP + 3):
        for _ in range(3):
            replay.replayed(g, ("cc", i), _run([]))
    states = replay.captured(g)
    assert list(states.values()) == ["captured"] * replay.KEEP
    assert sorted(k[1] for k in states) == list(range(3, replay.KEEP + 3))


def test_threads_evicting_each_other(fake):
    """Threads calling with more keys than are kept: no call fails, every
    answer is right."""
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        g = _graph(ptr=int(rng.integers(0, 3)))
        try:
            for _ in range(300):
                k, labels = replay.replayed(g, ("cc", int(rng.integers(0, 9))), _run([]), edges_only=True)
                if k != 3 or labels.tolist() != [0, 1, 2, 3, 4]:
                    errors.append("wrong")
        except Exception as e:      # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)     # switch threads often, inside the bookkeeping too
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert sum(isinstance(v, replay.Captured) for v in replay._BY_EDGES.values()) <= replay.KEEP
