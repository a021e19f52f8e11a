"""Graph forms on the GPU (see :mod:`gconn.graph`), each copied or built when
a run first asks for it: ``"edges"`` (CuPy arrays as given, or the host's
copied), ``"adjacency"`` (a counting sort by source on the device, or the
host's copied), ``"canonical"`` (CuPy's sort and unique, or the host's CSR
copied with its COO derived on the device).  Also the checks of CuPy ids."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from gconn.errors import GPUUnavailableError
from gconn.graph import Graph, relabel as R
from gconn.graph.build import min_first_row
from gconn.graph.ids import check_n, check_pair, id_dtype, id_range, offset_dtype
from gconn.backends.gpu import available, memory, replay
from gconn.backends.gpu._compat import SIM, cuda, view, xp
from gconn.backends.gpu.launch import dtypes_key, get, kernel, launch
from gconn.backends.gpu.staging import put
from gconn.backends.gpu.primitives import GPU


def require_device(what: str):
    if SIM or xp is None:
        raise GPUUnavailableError(f"{what} needs a CUDA GPU with CuPy: {available()[1]}")


def _what(graph) -> str:
    return f"a graph with n={graph.n} and {graph.m_input} input edges"


# -- edges ---------------------------------------------------------------------

def device_graph(src, dst, n=None, relabel=False) -> Graph:
    """The Graph of CuPy id arrays (:meth:`gconn.Graph.from_edges` for device input)."""
    require_device("building a graph from CuPy arrays")
    if relabel is not False:
        return _relabelled(src, dst, relabel)
    src = xp.asarray(src)
    dst = xp.asarray(dst)
    check_pair(src, dst)
    check_n(n)
    if src.size:
        hi = device_id_range(src, dst)
        if n is None:
            n = hi + 1
            _remember(src, dst, n)
        elif hi >= n:
            raise ValueError(f"vertex id {hi} is out of range for n={n}")
    n = int(n or 0)
    dt = id_dtype(n)
    return Graph._of(n, "gpu", edges=(xp.ascontiguousarray(src, dtype=dt), xp.ascontiguousarray(dst, dtype=dt)))


def _relabelled(src, dst, relabel) -> Graph:
    src, dst = xp.asarray(src), xp.asarray(dst)
    check_pair(src, dst)
    if src.size == 0:
        g = device_graph(src, dst)
        if relabel is True:
            g.nodes = src.astype("int64")
        return g
    span = max(int(src.max()), int(dst.max())) + 1
    if relabel == "auto" and span < R.AUTO_MIN_RANGE:
        return device_graph(src, dst)
    s, d, ids = R.dense_ids(src, dst)
    if relabel == "auto" and span <= R.AUTO_RATIO * ids.size:
        return device_graph(src, dst)
    if int(ids[0]) < 0:
        raise ValueError(f"negative vertex id {int(ids[0])}; ids must be >= 0")
    g = device_graph(s, d, int(ids.size))
    g.nodes = ids
    return g


def device_sparse_graph(A) -> Graph:
    """The Graph of a cupyx.scipy.sparse matrix (stored entries are edges)."""
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"the adjacency matrix must be square; got shape {A.shape}")
    coo = A.tocoo()
    return device_graph(coo.row, coo.col, int(A.shape[0]))


def device_edges(graph):
    """The edge list of a device graph: its host graph's, copied to the GPU."""
    host = graph._origin
    f = host._forms
    if "input-csr" in f and not ("edges" in f or "canonical" in f):
        return device_edges_of_csr(*f["input-csr"], graph.n)
    return _copied(_what(host), *host.edges())


def _copied(what: str, *arrays):
    memory.check(sum(a.nbytes for a in arrays), what)
    with memory.guard(f"copying {what} to the GPU"):
        return tuple(put(a) for a in arrays)


def device_edges_of_csr(indptr, indices, n: int):
    """The edge list of a host matrix's CSR, each entry's row found on the device."""
    m = int(indices.size)
    memory.check(indptr.nbytes + 2 * indices.nbytes + 8 * min(COO_CHUNK, m),
                 f"a graph with n={n} and {m} input edges")
    with memory.guard(f"copying a graph with n={n} and {m} input edges to the GPU"):
        dptr, dst = put(indptr), put(indices)
        src = xp.empty(m, dst.dtype)
        for lo, hi, rows in _rows(dptr, m):
            src[lo:hi] = rows
        return src, dst


def _rows(indptr, m: int):
    """``(lo, hi, the rows of slots lo..hi-1)`` of a CSR's ``m`` slots, ``COO_CHUNK`` at a time."""
    for lo in range(0, m, COO_CHUNK):
        hi = min(lo + COO_CHUNK, m)
        yield lo, hi, xp.searchsorted(indptr, xp.arange(lo, hi, dtype=indptr.dtype), side="right") - 1


@kernel("csr_rows", lambda t: (t.ptr, t.I64, t.I64, t.I64, t.I64, t.id))
def make_csr_rows():
    """``out[i]`` = the row (in ``r0..r1``) of CSR slot ``e0 + i``, each thread searching on from its last."""

    def csr_rows(indptr, e0, k, r0, r1, out):
        tid = cuda.grid(1)
        nwarps = cuda.gridsize(1) // 32
        chunks = (k + 31) // 32
        per = (chunks + nwarps - 1) // nwarps
        first = (tid // 32) * per
        r = r0
        for c in range(first, min(first + per, chunks)):
            i = c * 32 + tid % 32
            if i >= k:
                break
            e = e0 + i
            step = 1
            while r + step <= r1 and indptr[r + step] <= e:
                r += step
                step *= 2
            while step > 1:
                step //= 2
                if r + step <= r1 and indptr[r + step] <= e:
                    r += step
            out[i] = r

    return csr_rows


@kernel("csr_order", lambda t: (t.ptr, t.I64, t.i64, t.I64))
def make_csr_order():
    """``flags[at] = 1`` where the ``rows + 1`` offsets ever decrease."""

    def csr_order(indptr, rows, flags, at):
        for i in range(cuda.grid(1), rows, cuda.gridsize(1)):
            if indptr[i + 1] < indptr[i]:
                flags[at] = 1

    return csr_order


@kernel("id_bounds", lambda t: (t.id, t.id, t.I64, t.i64), offsets=False)
def make_id_bounds():
    """Fold the largest id of ``src`` and ``dst`` into ``bound[0]`` (zero before), a negative id
    counting as 2^63 - 1: one cell whose zeroing is a memset, not a launch."""
    top = np.int64(np.iinfo(np.int64).max)

    def id_bounds(src, dst, m, bound):
        acc = cuda.shared.array(1, np.int64)
        if cuda.threadIdx.x == 0:
            acc[0] = 0
        cuda.syncthreads()
        hi = np.int64(0)
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            u = np.int64(src[i])
            v = np.int64(dst[i])
            hi = max(hi, max(u if u >= 0 else top, v if v >= 0 else top))
        cuda.atomic.max(acc, 0, hi)
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            cuda.atomic.max(bound, 0, acc[0])

    return id_bounds


@kernel("ids_local", lambda t: (t.ptr, t.id, t.I64, t.I64, t.i64))
def make_ids_local():
    """Over rows i * step: counts += (has a neighbour, first one near, first one larger)."""

    def ids_local(indptr, indices, n, step, counts):
        r = np.int64(cuda.grid(1)) * step
        if r >= n:
            return
        a = np.int64(indptr[r])
        if np.int64(indptr[r + 1]) > a:
            cuda.atomic.add(counts, 0, 1)
            first = np.int64(indices[a])
            if abs(first - r) <= n // 64:
                cuda.atomic.add(counts, 1, 1)
            if first > r:
                cuda.atomic.add(counts, 2, 1)

    return ids_local


def ids_local_counts(indptr, indices, n: int, sample: int) -> tuple[int, int, int]:
    """(rows with a neighbour, with a near first one, with a larger first one) of a sample."""
    counts = xp.zeros(3, np.int64)
    step = max(n // sample, 1)
    rows = -(-n // step)
    launch(get("ids_local", (), dtypes_key(indices.dtype, indptr.dtype, indices.dtype)), rows, view(indptr),
           view(indices), n, step, view(counts))
    return tuple(int(x) for x in (counts if SIM else counts.get()))


# -- ids checked by the run itself ----------------------------------------------
# A CuPy pair passed again starts from the n its last check found, its ids
# unchecked: its union kernels skip ids outside 0..n-1 and flag them, and flag
# the id n-1 (coo_ops with ``TRACK_FIT``); the result stands only if the flags
# show ids in 0..n-1 with n-1 among them (:func:`gconn.backends.gpu.ops.compact`,
# :func:`if_ids_fit`).

#: (pointers, size, dtype) of checked CuPy id arrays -> the n found
_SEEN_N: OrderedDict = OrderedDict()
_SEEN_MAX = 64
#: (a pair's key, call options) -> (the n its run was captured with, the
#: capture's replay handle): a pair passed again goes straight to its replay
_RUNS: OrderedDict = OrderedDict()
#: the graph's cache key of the flags a run with unchecked ids sets
TRACK_IDS = "gpu_track_ids"


def pair_key(src, dst) -> tuple:
    return (src.data.ptr, dst.data.ptr, src.size, src.dtype)


def _keep(store: OrderedDict, key, value) -> None:
    store.pop(key, None)
    store[key] = value
    while len(store) > _SEEN_MAX:
        try:
            store.popitem(last=False)
        except KeyError:        # emptied by another thread meanwhile
            break


def _plain(src, dst) -> bool:
    """Whether ``src`` and ``dst`` are 1-D, contiguous and of one size."""
    return src.ndim == 1 and dst.ndim == 1 and src.size == dst.size and src.flags.c_contiguous \
        and dst.flags.c_contiguous


def _remember(src, dst, n: int) -> None:
    if src.dtype == dst.dtype == id_dtype(n) and _plain(src, dst):
        _keep(_SEEN_N, pair_key(src, dst), n)


def seen_n(src, dst, key=None):
    """The n that the last check of these CuPy arrays found, or None."""
    if SIM or src.size == 0 or not _plain(src, dst):
        return None
    n = _SEEN_N.get(pair_key(src, dst) if key is None else key)
    if n is None or not (src.dtype == dst.dtype == id_dtype(n)):
        return None
    return n


def pair_again(src, dst, numbered: bool, seed):
    """Another replay of the run kept for this CuPy pair and options, or None."""
    if dst.dtype != src.dtype or not _plain(src, dst):
        return None
    pair = pair_key(src, dst)
    hit = _RUNS.get((pair, numbered, seed))
    if hit is None or _SEEN_N.get(pair) != hit[0]:
        return None
    return replay.again(hit[1])


def forget(src, dst) -> None:
    pair = pair_key(src, dst)
    _SEEN_N.pop(pair, None)
    for key in [k for k in _RUNS if k[0] == pair]:
        _RUNS.pop(key, None)


def keep_run(key, n: int, handle: list) -> None:
    _keep(_RUNS, key, (n, handle))


@cuda.jit(device=True)
def fitted(k, flags):
    """k where a run's ``flags`` show ids in 0..n-1, n-1 among them, else -1; the flags cleared."""
    fit = flags[0] == 0 and flags[1] == 1
    flags[0] = 0
    flags[1] = 0
    return k if fit else -1


@kernel("ids_fit", lambda t: (t.id, t.i64, t.i64), offsets=False)
def make_ids_fit():
    def ids_fit(k, flags, out):
        if cuda.grid(1) == 0:
            out[0] = fitted(k[0], flags)

    return ids_fit


def track_ids(graph):
    """Make the next run on ``graph`` check its ids; returns the (zeroed) flags its kernels set."""
    flags = graph._cache[TRACK_IDS] = replay.zeroed(2, np.int64)
    return flags


def if_ids_fit(k, flags):
    """:func:`fitted` on the device (0-d int64)."""
    out = xp.empty(1, np.int64)
    k = xp.asarray(k).reshape(1)
    launch(get("ids_fit", (), dtypes_key(k.dtype, k.dtype, k.dtype)), 1, view(k), view(flags), view(out))
    return out.reshape(())


def device_id_range(src, dst) -> int:
    """:func:`gconn.graph.ids.id_range` of device id arrays, by one kernel where it can."""
    if src.dtype != dst.dtype or src.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        return id_range(src, dst)
    src, dst = xp.ascontiguousarray(src), xp.ascontiguousarray(dst)
    bound = xp.zeros(1, np.int64)
    m = int(src.size)
    launch(get("id_bounds", (), dtypes_key(src.dtype, src.dtype, src.dtype)), m, view(src), view(dst), m,
           view(bound), persistent=True)
    hi = int(bound[0] if SIM else bound.get()[0])
    if hi == np.iinfo(np.int64).max:
        return id_range(src, dst)       # raises, naming the first negative id and where
    return hi


# -- adjacency: a counting sort by source ---------------------------------------

@kernel("adj_count", lambda t: (t.id, t.id, t.I64, t.ptr))
def make_adj_count():
    def adj_count(src, dst, m, deg):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            u = src[i]
            v = dst[i]
            if u != v:
                cuda.atomic.add(deg, u, 1)
                cuda.atomic.add(deg, v, 1)

    return adj_count


@kernel("adj_scatter", lambda t: (t.id, t.id, t.I64, t.ptr, t.id))
def make_adj_scatter():
    def adj_scatter(src, dst, m, cursor, indices):
        for i in range(cuda.grid(1), m, cuda.gridsize(1)):
            u = src[i]
            v = dst[i]
            if u != v:
                indices[cuda.atomic.add(cursor, u, 1)] = v
                indices[cuda.atomic.add(cursor, v, 1)] = u

    return adj_scatter


_min_first_row = GPU.jit(min_first_row)


@kernel("adj_min_first", lambda t: (t.ptr, t.id, t.I64))
def make_adj_min_first():
    """Each row's smallest neighbour to its front (HB reads it there)."""

    def adj_min_first(indptr, indices, n):
        for v in range(cuda.grid(1), n, cuda.gridsize(1)):
            _min_first_row(indptr, indices, v)

    return adj_min_first


def counting_adjacency(src, dst, n: int):
    """The adjacency form of an ``xp`` edge list by a counting sort by source."""
    m = int(src.size)
    ptr_dt = np.dtype(offset_dtype(m))
    dts = dtypes_key(src.dtype, ptr_dt, src.dtype)
    deg = xp.zeros(n, ptr_dt)
    launch(get("adj_count", (), dts), m, view(src), view(dst), m, view(deg), persistent=True)
    indptr = xp.zeros(n + 1, ptr_dt)
    if n:
        indptr[1:] = xp.cumsum(deg, dtype=ptr_dt)
    cursor = indptr[:-1].copy()
    indices = xp.empty(int(indptr[-1]), src.dtype)
    if indices.size:
        launch(get("adj_scatter", (), dts), m, view(src), view(dst), m, view(cursor), view(indices),
               persistent=True)
        launch(get("adj_min_first", (), dts), n, view(indptr), view(indices), n, persistent=True)
    return indptr, indices


def device_adjacency(graph):
    """The adjacency form of a device graph: the host's copied, else built."""
    host = graph._origin
    if host is not None and host.has_form("adjacency"):
        return _copied(_what(graph), *host.adjacency())
    src, dst = graph.edges()
    m = int(src.size)
    memory.check(3 * (graph.n + 1) * 8 + 2 * m * src.dtype.itemsize, _what(graph))
    with memory.guard(f"building the adjacency of {_what(graph)}"):
        return counting_adjacency(src, dst, graph.n)


# -- canonical: sorted, deduplicated -------------------------------------------

def device_canonical(graph):
    """The canonical form of a device graph: the host's copied, else built."""
    host = graph._origin
    if host is not None and host.has_form("canonical"):
        return device_csr_coo(host)
    src, dst = graph.edges()
    return canonical_from_edges(src, dst, graph.n)


def device_csr_coo(graph):
    """A host graph's canonical form on the GPU, its COO derived there."""
    require_device("moving a graph to the GPU")
    host_ptr, host_idx = graph.indptr, graph.indices
    nbytes = host_ptr.nbytes + 2 * host_idx.nbytes + 9 * min(COO_CHUNK, host_idx.size)
    memory.check(nbytes, f"a graph with n={graph.n}, m={graph.m}")
    with memory.guard(f"copying a graph with n={graph.n}, m={graph.m} to the GPU"):
        indptr, indices = put(host_ptr), put(host_idx)
        src, dst = coo_from_csr(indptr, indices)
    return indptr, indices, src, dst


#: CSR slots per step of :func:`coo_from_csr` (bounds its scratch memory)
COO_CHUNK = 1 << 24


def coo_from_csr(indptr, indices):
    """The canonical COO (src < dst, CSR order) of a symmetric CSR with sorted rows."""
    srcs, dsts = [], []
    for lo, hi, rows in _rows(indptr, int(indices.size)):
        rows, cols = rows.astype(indices.dtype), indices[lo:hi]
        upper = cols > rows
        srcs.append(rows[upper])
        dsts.append(cols[upper])
    if not srcs:
        return xp.empty(0, indices.dtype), xp.empty(0, indices.dtype)
    if len(srcs) == 1:
        return srcs[0], dsts[0]
    return xp.concatenate(srcs), xp.concatenate(dsts)


def canonical_from_edges(src, dst, n: int):
    """(indptr, indices, src, dst) of the simple graph of a device edge list."""
    memory.check(40 * int(src.size) + 8 * n, f"building a graph with n={n} from {src.size} edges")
    dt = id_dtype(n)
    with memory.guard(f"building a graph with n={n} from {src.size} edges"):
        u = xp.minimum(src, dst).astype(np.int64)
        v = xp.maximum(src, dst).astype(np.int64)
        keep = u != v
        u, v = _sorted(u[keep], v[keep], n, unique=True)
        ptr_dt = offset_dtype(int(u.size))
        rows, cols = _sorted(xp.concatenate([u, v]), xp.concatenate([v, u]), n, unique=False)
        indptr = xp.searchsorted(rows, xp.arange(n + 1, dtype=np.int64)).astype(ptr_dt)
        return indptr, cols.astype(dt), u.astype(dt), v.astype(dt)


def _sorted(u, v, n: int, unique: bool):
    """int64 pairs sorted by u, then v; duplicates dropped where ``unique``."""
    if n <= 3037000499:
        key = xp.unique(u * n + v) if unique else xp.sort(u * n + v)
        return key // n, key % n
    order = xp.lexsort(xp.stack([v, u]))
    u, v = u[order], v[order]
    if unique:
        new = xp.ones(u.size, bool)
        new[1:] = (u[1:] != u[:-1]) | (v[1:] != v[:-1])
        u, v = u[new], v[new]
    return u, v
