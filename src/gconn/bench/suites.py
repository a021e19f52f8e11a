"""Predefined benchmarks (``gconn bench --suite NAME``)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def data_dir() -> Path:
    """The real-graph data folder: ``$GCONN_DATA``, else ``<repo>/../shared/data``.

    >>> data_dir().name
    'data'
    """
    env = os.environ.get("GCONN_DATA")
    if env:
        return Path(env)
    import gconn
    # <repo>/src/gconn/__init__.py
    return Path(gconn.__file__).resolve().parents[3] / "shared" / "data"


def real_graphs() -> list[str]:
    """The graph files under ``data_dir()/graphs``, sorted by name."""
    folder = data_dir() / "graphs"
    files = sorted(str(p) for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
    if not files:
        raise ValueError(f"no real graphs in {folder}; set GCONN_DATA to the folder that holds graphs/")
    return files


@dataclass(frozen=True)
class Suite:
    description: str
    backend: str
    graph_list: tuple = ()
    real: bool = False
    variants: str = "auto"
    repeat: int = 5
    warmup: int = 1

    def graphs(self) -> list[str]:
        return real_graphs() if self.real else list(self.graph_list)

    def settings(self) -> dict:
        return {"variants": self.variants, "backend": self.backend, "repeat": self.repeat,
                "warmup": self.warmup}


SUITES = {
    "cpu-target": Suite(
        description="the CPU target: R-MAT with 2^20 vertices and 16M edges, the CPU backend's "
                    "automatic choice vs scipy, median of 5",
        backend="cpu", graph_list=("rmat:scale=20,ef=16",)),
    "real": Suite(
        description="the real graphs in $GCONN_DATA/graphs (default ../shared/data/graphs), "
                    "the automatic choice vs scipy and NetworkX",
        backend="auto", real=True),
}
