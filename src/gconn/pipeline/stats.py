"""Opt-in instrumentation returned with a result (``return_stats=True``): the
paper's analyses (edge inspections and time per phase, Cov, IC, rounds)."""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field


@dataclass
class Stats:
    """Per-run statistics.

    >>> s = Stats(variant="kout+union-async+find-halve", backend="cpu")
    >>> with s.phase("sample"):
    ...     pass
    >>> "sample" in s.phase_times
    True
    """

    variant: str = ""
    backend: str = ""
    n: int = 0
    #: edges of the graph's edge list (``Graph.m_input``): the input's as given
    #: (duplicates and self loops count), or the simple graph's once built
    m: int = 0
    #: seconds per phase, in execution order ("sample", "lmax", "finish", "finalize", ...)
    phase_times: dict = field(default_factory=dict)
    #: edges inspected per phase (an edge seen from both endpoints counts twice)
    edge_inspections: dict = field(default_factory=dict)
    #: fraction of vertices in the most frequent component after sampling (paper's Cov)
    coverage: float | None = None
    #: fraction of edges, among those left for the finish, that join different
    #: sampled components (paper's IC)
    inter_component: float | None = None
    #: label of the most frequent component after sampling
    lmax: int | None = None
    #: rounds of the iterative finishes (0 for union-find)
    rounds: int = 0
    #: the device-resident compute time in seconds where a backend measures it
    device_time: float | None = None
    #: the input ids were mapped to 0..n-1 (the graph's ``nodes`` holds them)
    relabelled: bool = False
    #: the chunked route: the edges came in ``chunks`` chunks of up to ``chunk_edges`` edges
    chunked: bool = False
    chunks: int = 0
    chunk_edges: int = 0
    #: several GPUs (``devices=``): per share, its ``device``, ``edges``, ``chunks`` and ``seconds``
    shares: list = field(default_factory=list)
    #: what the input was (``kind``; a file's ``format``, ``decided_by``, ``dialect``)
    #: and ``notes``: the guesses made reading it, each a sentence
    input: dict = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str, sync=None):
        """Time a phase; ``sync`` is called before reading the clock (GPU)."""
        if sync is not None:
            sync()
        t0 = time.perf_counter()
        try:
            yield
        finally:
            if sync is not None:
                sync()
            self.phase_times[name] = self.phase_times.get(name, 0.0) + time.perf_counter() - t0

    @property
    def total_time(self) -> float:
        return sum(self.phase_times.values())

    def as_dict(self) -> dict:
        return asdict(self)
