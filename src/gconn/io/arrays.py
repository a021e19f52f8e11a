"""NumPy files: ``.npy`` holds an (m, 2) edge array; ``.npz`` holds ``src``
and ``dst`` (or CSR ``indptr`` and ``indices``), optionally ``n`` and
``nodes`` (each vertex's input id or name)."""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from gconn.graph import Graph
from gconn.io._files import FileEdges


def _load(path: Path, mmap_mode=None):
    try:
        return np.load(path, mmap_mode, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"{path.name}: not a readable {path.suffix} file ({e})") from None


def edge_array(path: Path, mmap_mode=None) -> np.ndarray:
    """The (m, 2) integer edge array of an .npy file, checked."""
    arr = _load(path, mmap_mode)
    if not isinstance(arr, np.ndarray):
        raise ValueError(f"{path.name}: expected a .npy array, found an .npz archive")
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype.kind not in "iu":
        raise ValueError(f"{path.name}: expected an (m, 2) integer array of edges, "
                         f"got shape {arr.shape} of {arr.dtype}")
    return arr


def read_npy(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of an (m, 2) edge array."""
    arr = edge_array(info.path)
    return FileEdges(arr[:, 0], arr[:, 1])


def read_npz(info, n: int | None, relabelled: bool):
    """The :class:`~gconn.io.FileEdges` of an ``.npz`` archive."""
    path = info.path
    archive = _load(path)
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{path.name}: expected an .npz archive, found a single .npy array")
    with archive:
        keys = set(archive.files)
        stored = None
        if "n" in keys:
            raw = archive["n"]
            if raw.ndim != 0 or raw.dtype.kind not in "iu":
                raise ValueError(f"{path.name}: 'n' must be an integer scalar, got shape "
                                 f"{raw.shape} of {raw.dtype}")
            stored = int(raw)
        nodes = archive["nodes"] if "nodes" in keys else None
        if {"src", "dst"} <= keys:
            src, dst = archive["src"], archive["dst"]
        elif {"indptr", "indices"} <= keys:
            indptr, indices = archive["indptr"], archive["indices"]
            if indptr.ndim != 1 or indptr.size == 0 or indptr.dtype.kind not in "iu":
                raise ValueError(f"{path.name}: 'indptr' must be a non-empty 1-D integer array")
            src = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
            dst = indices
            if stored is None:
                stored = indptr.size - 1
        else:
            raise ValueError(f"{path.name}: expected arrays 'src' and 'dst' or 'indptr' and 'indices' "
                             f"(and optionally 'n' and 'nodes'); found {sorted(keys)}")
    if nodes is not None:
        if nodes.ndim != 1 or (stored is not None and stored != nodes.size):
            raise ValueError(f"{path.name}: 'nodes' must list one id or name per vertex "
                             f"({stored} vertices), got shape {nodes.shape}")
        return FileEdges(src, dst, nodes.size, nodes)
    return FileEdges(src, dst, stored)


def write_npy(graph: Graph, f) -> None:
    np.save(f, np.column_stack([graph.src, graph.dst]))


def write_npz(graph: Graph, f) -> None:
    if graph.nodes is not None:
        nodes = np.asarray(graph.nodes)
        if nodes.dtype.kind == "O":
            # names as a fixed-width string array: .npz loads no Python objects (allow_pickle=False)
            nodes = nodes.astype(bytes if nodes.size and isinstance(nodes[0], bytes) else str)
        np.savez(f, src=graph.src, dst=graph.dst, n=np.int64(graph.n), nodes=nodes)
    else:
        np.savez(f, src=graph.src, dst=graph.dst, n=np.int64(graph.n))
