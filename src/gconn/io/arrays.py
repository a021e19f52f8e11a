"""NumPy files: ``.npy`` holds an (m, 2) edge array; ``.npz`` holds ``src``
and ``dst`` (or CSR ``indptr`` and ``indices``) and optionally ``n``.

A ``.npy`` cannot store n, so vertices after the largest id are lost unless
``n`` is passed to load; ``.npz`` keeps it.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from ..errors import VertexRangeError
from ..graph import Graph

#: The advice when a file's declared vertex count does not fit in memory.
RELABEL_HINT = "pass relabel=True (gconn cc --relabel) to count only the vertices that have edges"


def _load(path: Path):
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"{path.name}: not a readable {path.suffix} file ({e})") from None


def _build(path: Path, build, stored: int | None = None):
    # Graph's own checks (negative ids, ids >= n, dtypes) say what is wrong;
    # add which file it is.
    try:
        return build()
    except VertexRangeError as e:
        if e.vertex_id is None and stored is not None and e.n == stored:
            raise e.at(f"{path.name}: the n={stored} stored in the file", None, RELABEL_HINT) from None
        origin = e.origin
        if path.suffix.lower() == ".npy" and origin[:4] in ("src[", "dst["):
            origin = f"row {origin[4:-1]}, column {0 if origin[0] == 's' else 1}"
        raise e.at(f"{path.name}: {origin}", e.vertex_id, e.hint) from None
    except (ValueError, TypeError) as e:
        raise type(e)(f"{path.name}: {e}") from None


def _check_n(path: Path, stored: int | None, n: int | None) -> int | None:
    if n is not None and stored is not None and n < stored:
        raise ValueError(f"{path.name}: n={n} is smaller than the n={stored} stored in the file")
    return stored if n is None else n


def read_npy(path: Path, n: int | None, relabel=False) -> Graph:
    arr = _load(path)
    if not isinstance(arr, np.ndarray):
        raise ValueError(f"{path.name}: expected a .npy array, found an .npz archive")
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype.kind not in "iu":
        raise ValueError(f"{path.name}: expected an (m, 2) integer array of edges, "
                         f"got shape {arr.shape} of {arr.dtype}")
    return _build(path, lambda: Graph.from_edges(arr[:, 0], arr[:, 1], n, relabel=relabel))


def read_npz(path: Path, n: int | None, relabel=False) -> Graph:
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
        if {"src", "dst"} <= keys:
            src, dst = archive["src"], archive["dst"]
            if relabel is True:
                return _build(path, lambda: Graph.from_edges(src, dst, relabel=True))
            n = _check_n(path, stored, n)
            return _build(path, lambda: Graph.from_edges(src, dst, n, relabel=relabel if n is None else False),
                          stored)
        if {"indptr", "indices"} <= keys:
            indptr, indices = archive["indptr"], archive["indices"]
            if relabel is True:
                return _build(path, lambda: Graph.from_edges(
                    np.repeat(np.arange(indptr.size - 1), np.diff(indptr)), indices, relabel=True))
            n = _check_n(path, indptr.size - 1 if stored is None else stored, n)
            return _build(path, lambda: Graph.from_csr(indptr, indices, n), stored)
    raise ValueError(f"{path.name}: expected arrays 'src' and 'dst' or 'indptr' and 'indices' "
                     f"(and optionally 'n'); found {sorted(keys)}")


def write_npy(graph: Graph, f) -> None:
    np.save(f, np.column_stack([graph.src, graph.dst]))


def write_npz(graph: Graph, f) -> None:
    np.savez(f, src=graph.src, dst=graph.dst, n=np.int64(graph.n))
