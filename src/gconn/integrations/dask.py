"""gconn on Dask: connected components, spanning forests and incremental
batches over edges that no single process holds (``pip install gconn[dask]``).

Each task computes the spanning forest of one partition (a dataframe
partition, an array block or a file); a tree reduction merges forests
``fan_in`` at a time; the root's forest gives the labels.  The functions run
on ``client=``, else the current ``distributed.Client``, else (or with
``client=False``) Dask's local scheduler.  Vertex ids are integers in
[0, 2^63); the vertex set must fit in one worker.  gconn's kernels use all
cores of a process: give each worker one thread (or one GPU).
"""
from __future__ import annotations

import glob
import os
import threading
from typing import NamedTuple

import numpy as np

import dask
import dask.array as da
import dask.dataframe as dd
import pandas as pd
from dask import delayed

from gconn import Graph
from gconn.graph import edge_shape_error
from gconn import connected_components as _gconn_cc
from gconn import spanning_forest as _gconn_forest
from gconn.io import identify, read_edges
from gconn.io._files import column_defaults

__all__ = ["connected_components", "spanning_forest", "IncrementalForest"]

OUTPUTS = ("auto", "array", "dataframe")
BACKENDS = ("auto", "cpu", "gpu")

# a task relabels its ids beyond this range per edge: gconn's graph costs O(largest id)
_DENSE_FACTOR = 8
_DENSE_SLACK = 1 << 16
# labels come as an array while the id range is below _SMALL_RANGE or _SPARSE_RATIO x the distinct count
_SPARSE_RATIO = 4
_SMALL_RANGE = 1 << 20
_INT64_MAX = np.iinfo(np.int64).max
_EMPTY = np.zeros(0, np.int64)

# numba's default threading layer aborts on concurrent parallel calls from
# two threads of one process; gconn uses every core anyway.
_GCONN_LOCK = threading.Lock()


class _Forest(NamedTuple):
    """A spanning forest in original ids, the vertices seen only in self loops, a bound on n."""
    src: np.ndarray
    dst: np.ndarray
    lone: np.ndarray
    n_lo: int


class _Labels(NamedTuple):
    """Root result: k, the vertex ids (None: all of 0..n-1) and their labels."""
    k: int
    vertices: np.ndarray | None
    labels: np.ndarray


def _check_ids(arr: np.ndarray, what: str) -> np.ndarray:
    """Signed integer ids (int32 stays int32) from any integer dtype, or a clear error."""
    _check_dtype(arr.dtype, what)
    if arr.size == 0:
        return _EMPTY
    if arr.dtype.kind == "u":
        if arr.dtype == np.uint64 and arr.max() > _INT64_MAX:
            i = int(np.argmax(arr > _INT64_MAX))
            raise ValueError(f"{what}: vertex id {int(arr[i])} (row {i}) is beyond 2^63 - 1")
        return arr.astype(np.int64)
    if arr.min() < 0:
        i = int(np.argmax(arr < 0))
        raise ValueError(f"{what}: negative vertex id {int(arr[i])} (row {i}); ids must be >= 0")
    return arr


def _pick_columns(columns, source, target, where: str) -> tuple:
    """The two id column names: given by name or position; by default a pair named as
    ``gconn.io._files.EDGE_NAMES`` (``src``/``dst``, ...), else the first two."""
    columns = list(columns)
    picked = []
    defaults = column_defaults(columns, source, target, where)[0] if len(columns) >= 2 else (0, 1)
    for arg, key, pos in (("source", source, defaults[0]), ("target", target, defaults[1])):
        if key is None:
            if len(columns) < 2:
                raise ValueError(f"{where} has {len(columns)} column(s) {columns}; edges need two id "
                                 "columns")
            picked.append(columns[pos])
        elif isinstance(key, (int, np.integer)) and not isinstance(key, bool) and key not in columns:
            if not 0 <= key < len(columns):
                raise ValueError(f"{arg}={key} is not a column position of {where} (columns {columns})")
            picked.append(columns[key])
        elif key in columns:
            picked.append(key)
        else:
            raise ValueError(f"{arg}={key!r} is not a column of {where}; columns: {columns}")
    if picked[0] == picked[1]:
        raise ValueError(f"source and target are the same column {picked[0]!r}")
    return tuple(picked)


def _check_dtype(dtype, what: str) -> None:
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_integer_dtype(dtype):
        kind = "float " if pd.api.types.is_float_dtype(dtype) else ""
        raise TypeError(f"{what} has {kind}dtype {dtype}; vertex ids must be integers")


def _series_ids(col: pd.Series, what: str) -> np.ndarray:
    _check_dtype(col.dtype, what)
    if col.isna().any():
        raise ValueError(f"{what} has missing values; every edge needs two vertex ids")
    return _check_ids(col.to_numpy(dtype=getattr(col.dtype, "numpy_dtype", col.dtype)), what)


def _int_at_least(x, lo: int) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= lo


def _check_options(fan_in=2, backend="auto", chunk_size=1, output="auto", n=None) -> int:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; one of {', '.join(BACKENDS)}")
    if not _int_at_least(chunk_size, 1):
        raise ValueError(f"chunk_size must be a positive integer; got {chunk_size!r}")
    if not _int_at_least(fan_in, 2):
        raise ValueError(f"fan_in must be an integer >= 2; got {fan_in!r}")
    if output not in OUTPUTS:
        raise ValueError(f"unknown output {output!r}; one of {', '.join(OUTPUTS)}")
    if n is not None and not _int_at_least(n, 0):
        raise ValueError(f"n must be a non-negative integer; got {n!r}")
    return int(fan_in)


def _unseen(lone: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The vertices of ``lone`` (sorted) that no forest edge touches."""
    if lone.size == 0 or src.size == 0:
        return lone
    keep = np.ones(lone.size, bool)
    for ids in (src, dst):
        pos = np.minimum(np.searchsorted(lone, ids), lone.size - 1)
        keep[pos[lone[pos] == ids]] = False
    return lone[keep]


def _forest(src: np.ndarray, dst: np.ndarray, lone: np.ndarray, n_lo: int, backend: str) -> _Forest:
    """Spanning forest of signed integer edges (ids >= 0), in the same ids."""
    loops = src == dst
    if loops.any():
        lone = np.union1d(lone, src[loops])
        src, dst = src[~loops], dst[~loops]
    if lone.size:
        n_lo = max(n_lo, int(lone[-1]) + 1)
    if src.size == 0:
        return _Forest(_EMPTY, _EMPTY, lone, n_lo)
    hi = int(max(src.max(), dst.max()))
    n_lo = max(n_lo, hi + 1)
    verts = None
    if hi >= _DENSE_FACTOR * src.size + _DENSE_SLACK:
        verts, local = np.unique(np.concatenate([src, dst]), return_inverse=True)
        src, dst = local[:src.size], local[src.size:]
    with _GCONN_LOCK:
        fs, fd = _gconn_forest((src, dst), backend=backend)
    if verts is not None:
        fs, fd = verts[fs], verts[fd]
    return _Forest(fs, fd, _unseen(lone, fs, fd), n_lo)


def _part_forest(part, columns, where: str, backend: str) -> _Forest:
    """The forest of a dataframe partition (``columns``: its two id columns) or an array block (None)."""
    if columns is None:
        block = np.asarray(part)
        src, dst = (_check_ids(block[:, i], f"{where}, column {i}") for i in (0, 1))
    else:
        src, dst = (_series_ids(part[c], f"{where}, column {c!r}") for c in columns)
    return _forest(src, dst, _EMPTY, 0, backend)


def _file_forest(path: str, source, target, backend: str) -> _Forest:
    """The forest of one file, read by gconn's reader of its format."""
    info = identify(path)
    if info.format in ("edgelist", "parquet", "feather") and (source is not None or target is not None):
        info = identify(path, source=source, target=target)
    fe = read_edges(info)
    if fe.names is not None:
        raise TypeError(f"{path}: the vertex ids are names; gconn.integrations.dask takes integer ids "
                        "(map the names to integers first)")
    src = _check_ids(np.asarray(fe.src), f"{path}, source ids")
    dst = _check_ids(np.asarray(fe.dst), f"{path}, target ids")
    return _forest(src, dst, _EMPTY, fe.n or 0, backend)


def _merge(backend: str, *children: _Forest) -> _Forest:
    src = np.concatenate([c.src for c in children])
    dst = np.concatenate([c.dst for c in children])
    lone = np.unique(np.concatenate([_EMPTY, *(c.lone for c in children)]))
    return _forest(src, dst, lone, max(c.n_lo for c in children), backend)


def _no_edges() -> ValueError:
    return ValueError("the edges are empty: every partition holds no edges; pass n= to label "
                      "n isolated vertices")


def _label(f: _Forest, n, output: str, backend: str) -> _Labels:
    if n is not None and f.n_lo > n:
        raise ValueError(f"vertex id {f.n_lo - 1} is out of range for n={n}")
    size = f.n_lo if n is None else n
    if size == 0:
        raise _no_edges()
    verts = None
    if output == "dataframe" or (n is None and size > _SMALL_RANGE):
        verts = np.unique(np.concatenate([f.src, f.dst, f.lone]))
        if output == "array" and size > _SPARSE_RATIO * verts.size:
            raise ValueError(
                f"vertex ids are sparse (largest {size - 1}, {verts.size} distinct): labels as an "
                f"array would need {size} entries; use output='dataframe' or pass n=")
        if output != "dataframe" and size <= _SPARSE_RATIO * verts.size:
            verts = None
    if verts is not None:
        f, size = f._replace(src=np.searchsorted(verts, f.src), dst=np.searchsorted(verts, f.dst)), verts.size
    with _GCONN_LOCK:
        k, labels = _gconn_cc(Graph.from_edges(f.src, f.dst, n=size), backend=backend)
    return _Labels(int(k), verts, labels)


def _summary(lab: _Labels) -> tuple:
    return lab.k, lab.labels.size, lab.vertices is not None, lab.labels.dtype


def _forest_size(f: _Forest) -> int:
    if f.n_lo == 0:
        raise _no_edges()
    return f.src.size


def _label_slice(lab: _Labels, a: int, b: int) -> np.ndarray:
    return lab.labels[a:b]


def _label_frame(lab: _Labels, a: int, b: int) -> pd.DataFrame:
    return pd.DataFrame({"vertex": lab.vertices[a:b], "label": lab.labels[a:b]})


def _forest_frame(f: _Forest, a: int, b: int) -> pd.DataFrame:
    return pd.DataFrame({"source": f.src[a:b].astype(np.int64), "target": f.dst[a:b].astype(np.int64)})


def _query(lab: _Labels, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    def find(x):
        if lab.vertices is None:
            seen = x < lab.labels.size
            pos = np.where(seen, x, 0)
        else:
            pos = np.minimum(np.searchsorted(lab.vertices, x), lab.vertices.size - 1)
            seen = lab.vertices[pos] == x
        return seen, lab.labels[pos]
    su, lu = find(u)
    sv, lv = find(v)
    return (u == v) | (su & sv & (lu == lv))


def _leaves(edges, source, target, backend: str) -> list:
    """One delayed forest per partition of ``edges``."""
    if isinstance(edges, dd.DataFrame):
        s, t = _pick_columns(edges.columns, source, target, "the dataframe")
        for name in (s, t):
            _check_dtype(edges.dtypes[name], f"column {name!r}")
        parts = edges[[s, t]].to_delayed()
        return [delayed(_part_forest, pure=False)(p, (s, t), f"partition {i}", backend)
                for i, p in enumerate(parts)]
    if isinstance(edges, da.Array):
        if source is not None or target is not None:
            raise TypeError("source= and target= name dataframe or file columns; an array's "
                            "columns are its first and second")
        if edges.ndim != 2 or edges.shape[1] != 2:
            raise edge_shape_error(edges.shape)
        _check_dtype(edges.dtype, "the edge array")
        if edges.numblocks[1] > 1:
            edges = edges.rechunk({1: 2})
        return [delayed(_part_forest, pure=False)(b, None, f"block {i}", backend)
                for i, b in enumerate(edges.to_delayed().ravel())]
    if isinstance(edges, (str, os.PathLike)):
        edges = [edges]
    if isinstance(edges, (list, tuple)) and all(isinstance(p, (str, os.PathLike)) for p in edges):
        paths = []
        for p in map(os.fspath, edges):
            found = sorted(glob.glob(p)) if glob.has_magic(p) else [p]
            if not found:
                raise FileNotFoundError(f"no file matches {p!r}")
            paths.extend(found)
        return [delayed(_file_forest, pure=False)(p, source, target, backend) for p in paths]
    raise TypeError(f"cannot read edges from {type(edges).__name__}; pass a dask.dataframe with two "
                    "id columns, a dask.array of shape (m, 2), or a list of edge files "
                    "(Parquet, CSV, .npy, or any format gconn.load reads)")


def _tree(leaves: list, fan_in: int, backend: str) -> list:
    """Every node of a fan-in reduction over delayed forests, the root last."""
    nodes, level = list(leaves), leaves
    while len(level) > 1:
        level = [delayed(_merge, pure=False)(backend, *level[i:i + fan_in])
                 for i in range(0, len(level), fan_in)]
        nodes.extend(level)
    return nodes


def _get_client(client):
    if client is not None:
        return None if client is False else client
    try:
        from distributed import default_client
        return default_client()
    except (ImportError, ValueError):
        return None


def _run(client, nodes: list):
    """The last of ``nodes`` computed (a Future with a client; the others held until it is
    done, so that a lost worker's results can be recomputed)."""
    if client is None:
        return dask.compute(nodes[-1])[0]
    futures = client.compute(nodes)
    out = futures[-1]
    from distributed import wait
    wait(out)
    if out.status == "error":
        out.result()
    return out


def _label_run(client, forest, n, output: str, backend: str):
    """The root's labels (a Future, or the value without a client)."""
    ref = delayed(forest) if client is not None else forest
    return _run(client, [delayed(_label, pure=False)(ref, n, output, backend)])


def _local(client, fn, *args):
    """fn(*args) evaluated where the data is, brought back (small results)."""
    if client is None:
        return fn(*args)
    return client.submit(fn, *args, pure=False).result()


def _pieces(ref, fn, size: int, chunk_size: int) -> list:
    """Delayed fn(ref, a, b) over [0, size) in chunks, ref a Future."""
    bounds = list(range(0, size, chunk_size)) + [size] if size else [0, 0]
    wrap = delayed(ref)
    return [(a, b, delayed(fn, pure=True)(wrap, a, b)) for a, b in zip(bounds[:-1], bounds[1:])]


def _labels_out(client, lab, output: str, chunk_size: int):
    k, size, sparse, dtype = _local(client, _summary, lab)
    if output == "array" or (output == "auto" and not sparse):
        if client is None:
            return k, da.from_array(lab.labels, chunks=chunk_size)
        parts = [da.from_delayed(p, shape=(b - a,), dtype=dtype)
                 for a, b, p in _pieces(lab, _label_slice, size, chunk_size)]
        return k, da.concatenate(parts) if len(parts) > 1 else parts[0]
    meta = pd.DataFrame({"vertex": _EMPTY, "label": np.zeros(0, dtype)})
    return k, _frames(client, lab, _label_frame, size, chunk_size, meta)


def _forest_out(client, forest, chunk_size: int):
    size = _local(client, _forest_size, forest)
    meta = pd.DataFrame({"source": _EMPTY, "target": _EMPTY})
    return _frames(client, forest, _forest_frame, size, chunk_size, meta)


def _frames(client, ref, fn, size: int, chunk_size: int, meta: pd.DataFrame):
    if client is None:
        return dd.from_pandas(fn(ref, 0, size), chunksize=chunk_size, sort=False)
    parts = [p for _, _, p in _pieces(ref, fn, size, chunk_size)]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def _partition_forest(edges, source, target, fan_in, backend, client, what="the edges are", forest=None):
    """The forest of ``edges`` (merged with ``forest``, a previous one), computed."""
    leaves = _leaves(edges, source, target, backend)
    if not leaves:
        raise ValueError(f"{what} empty: no partitions or files")
    if forest is not None:
        leaves.insert(0, delayed(forest) if client is not None else forest)
    return _run(client, _tree(leaves, fan_in, backend))


def connected_components(edges, *, source=None, target=None, n=None, output="auto", fan_in=4,
                         backend="auto", chunk_size=1 << 22, client=None):
    """Connected components of edges held by Dask; returns ``(k, labels)``.

    ``edges``: a dask.dataframe (``source=``/``target=`` name its id columns; by default a pair
    named ``src``/``dst``, ``source``/``target``, ... else the first two), a dask.array of shape
    (m, 2), or a list of files (or glob patterns) read one per task.  ``labels`` numbers components
    0..k-1 like scipy: ``output="array"``, a dask.array over 0..n-1 (``n`` defaults to the largest id + 1); ``"dataframe"``, ``vertex, label`` over the
    ids in the edges (a file's loop-only vertices are lost); ``"auto"``, the array unless the
    ids are sparse (beyond 2^20 and more than 4 times the distinct count).  ``fan_in`` forests
    merge per task; labels stay on the cluster in chunks of ``chunk_size``.

    >>> import dask.array as da, numpy as np
    >>> import gconn.integrations.dask
    >>> e = da.from_array(np.array([[0, 1], [5, 6], [2, 1]]), chunks=(2, 2))
    >>> k, labels = gconn.integrations.dask.connected_components(e, backend="cpu")
    >>> k, labels.compute().tolist()
    (4, [0, 0, 0, 1, 2, 3, 3])
    >>> k, df = gconn.integrations.dask.connected_components(e, output="dataframe", backend="cpu")
    >>> df.compute().values.tolist()
    [[0, 0], [1, 0], [2, 0], [5, 1], [6, 1]]
    """
    fan_in = _check_options(fan_in, backend, chunk_size, output, n)
    client = _get_client(client)
    forest = _partition_forest(edges, source, target, fan_in, backend, client)
    return _labels_out(client, _label_run(client, forest, n, output, backend), output, chunk_size)


def spanning_forest(edges, *, source=None, target=None, fan_in=4, backend="auto",
                    chunk_size=1 << 22, client=None):
    """A spanning forest of edges held by Dask: a dask.dataframe of ``source, target`` edges
    (n - k of the input's); ``edges`` and the options as in :func:`connected_components`.

    >>> import dask.dataframe as dd, pandas as pd
    >>> import gconn.integrations.dask
    >>> df = dd.from_pandas(pd.DataFrame({"a": [0, 1, 0], "b": [1, 2, 2]}), npartitions=2)
    >>> len(gconn.integrations.dask.spanning_forest(df, backend="cpu").compute())
    2
    """
    fan_in = _check_options(fan_in, backend, chunk_size)
    client = _get_client(client)
    forest = _partition_forest(edges, source, target, fan_in, backend, client)
    return _forest_out(client, forest, chunk_size)


class IncrementalForest:
    """Connectivity under batches of edges added on Dask: :meth:`add` merges a batch (any input
    of :func:`connected_components`) into the spanning forest; queries use labels computed once
    per batch.

    >>> import dask.array as da, numpy as np
    >>> import gconn.integrations.dask
    >>> inc = gconn.integrations.dask.IncrementalForest(backend="cpu")
    >>> inc.add(da.from_array(np.array([[0, 1], [2, 3]]), chunks=1))
    >>> inc.connected([0, 0], [1, 2]).tolist()
    [True, False]
    >>> inc.add(da.from_array(np.array([[1, 2]]), chunks=1))
    >>> inc.connected([0], [3]).tolist(), inc.n_components
    ([True], 1)
    """

    def __init__(self, *, fan_in=4, backend="auto", chunk_size=1 << 22, client=None):
        self._fan_in = _check_options(fan_in, backend, chunk_size)
        self._backend = backend
        self._chunk_size = chunk_size
        self._client = _get_client(client)
        self._forest = None
        self._labels = None

    def add(self, edges, *, source=None, target=None) -> None:
        """Merge a batch of edge partitions into the forest."""
        self._forest = _partition_forest(edges, source, target, self._fan_in, self._backend, self._client,
                                         "the batch is", self._forest)
        self._labels = None

    def _current_labels(self):
        if self._forest is None:
            raise _no_edges()
        if self._labels is None:
            self._labels = _label_run(self._client, self._forest, None, "auto", self._backend)
        return self._labels

    @property
    def n_components(self) -> int:
        """Components among the vertices seen so far (see :meth:`labels`)."""
        return _local(self._client, _summary, self._current_labels())[0]

    def labels(self, output="auto"):
        """``(k, labels)`` now, as :func:`connected_components` returns them."""
        _check_options(output=output)
        lab = self._current_labels()
        if output != "auto":
            lab = _label_run(self._client, self._forest, None, output, self._backend)
        return _labels_out(self._client, lab, output, self._chunk_size)

    def connected(self, u, v) -> np.ndarray:
        """Whether u[i] and v[i] are connected now (an unseen id only to itself): a NumPy bool array."""
        u = _check_ids(np.atleast_1d(np.asarray(u)), "u")
        v = _check_ids(np.atleast_1d(np.asarray(v)), "v")
        if u.shape != v.shape:
            raise ValueError(f"u and v have different lengths ({u.size} and {v.size})")
        return _local(self._client, _query, self._current_labels(), u, v)

    def spanning_forest(self):
        """The current forest as a dask.dataframe of ``source, target`` edges."""
        if self._forest is None:
            raise _no_edges()
        return _forest_out(self._client, self._forest, self._chunk_size)
