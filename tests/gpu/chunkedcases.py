"""Checks of the streamed union-find (gconn.chunked.gpu), shared by the
simulator tests and the real-GPU tests: the same cases at two sizes."""
from __future__ import annotations

import numpy as np
import pytest

import gconn
from gconn.graph import Graph
from oracles import check_forest, host, reference, same_partition


def components_graph(rng, n: int, m: int, parts: int = 4):
    """``parts`` random components over shuffled ids, edges shuffled so any
    chunking cuts through every component; a few duplicates and self loops."""
    label = rng.integers(0, parts, n)
    src, dst = [], []
    for c in range(parts):
        members = np.flatnonzero(label == c)
        if members.size < 2:
            continue
        chain = rng.permutation(members)
        src.append(chain[:-1])      # a path keeps the component connected
        dst.append(chain[1:])
        extra = m // parts
        src.append(rng.choice(members, extra))
        dst.append(rng.choice(members, extra))
    src, dst = np.concatenate(src), np.concatenate(dst)
    order = rng.permutation(src.size)
    src, dst = src[order], dst[order]
    src = np.r_[src, src[:3], 5]
    dst = np.r_[dst, dst[:3], 5]
    return src.astype(np.int32), dst.astype(np.int32), n


def check_labels(src, dst, n, roots):
    g = Graph.from_edges(src, dst, n)
    k0, l0 = reference(g)
    r = host(roots)
    assert r.size == n
    assert same_partition(r, l0)


def chunked(src, dst, sizes):
    """An iterator of (src, dst) chunks of the given sizes, cycled."""
    a = 0
    i = 0
    while a < src.size:
        b = a + sizes[i % len(sizes)]
        yield src[a:b], dst[a:b]
        a = b
        i += 1


def run_chunk_sizes(chunked_gpu, src, dst, n, sizes, variant="none+union-async+find-halve"):
    for c in sizes:
        st = chunked_gpu.chunked_union((src, dst), variant, chunk_edges=c)
        roots, _, _, n_out = st.result()
        assert n_out == int(max(src.max(), dst.max())) + 1
        check_labels(src, dst, n_out, roots)
        assert st.chunks == -(-src.size // c)


def run_unknown_n(chunked_gpu, src, dst, n, cuts):
    """Chunks in random order, then by growing largest id (the parent
    array grows again and again, chunks in flight are unioned again)."""
    by_id = np.argsort(np.maximum(src, dst), kind="stable")
    for s, d in ((src, dst), (src[by_id], dst[by_id])):
        st = chunked_gpu.chunked_union(chunked(s, d, cuts), chunk_edges=max(cuts))
        roots, _, _, n_out = st.result()
        assert n_out == int(max(src.max(), dst.max())) + 1
        check_labels(src, dst, n_out, roots)
        assert st.cap >= n_out


def run_arrays_growing(chunked_gpu, src, dst, chunk):
    """Arrays (ids checked by the device) with no n, in order of growing
    largest id: chunks meet a parent array too small for them, are unioned
    again once it has grown, and the partition is SciPy's."""
    by_id = np.argsort(np.maximum(src, dst), kind="stable")
    s, d = src[by_id], dst[by_id]
    st = chunked_gpu.chunked_union((s, d), chunk_edges=chunk)
    roots, _, _, n_out = st.result()
    assert n_out == int(max(src.max(), dst.max())) + 1 and st.cap >= n_out
    check_labels(src, dst, n_out, roots)
    assert st.again > 0 and st.edges == src.size
    return st


def run_budget_resizes(chunked_gpu, src, dst, monkeypatch):
    """Arrays with no n under a budget that holds the parent array only
    with small edge buffers: after the first chunk the buffers widen to
    all that the budget leaves beside the parent array; in order of growing id
    the parent array then outgrows that, the buffers shrink back between
    chunks (the chunks that met the small array are unioned again), and
    widen again.  In random order, one widening.  SciPy's partition each
    time."""
    src, dst = src.astype(np.int64), dst.astype(np.int64)
    n = int(max(src.max(), dst.max())) + 1
    limit = 4 * n * 8                        # int64 parents: a quarter of the budget
    floor = limit // 4 // (2 * 8 * chunked_gpu.BUFFERS)
    made_room = []
    real = chunked_gpu.ChunkedUnion._make_room
    monkeypatch.setattr(chunked_gpu.ChunkedUnion, "_make_room", lambda self, need: (made_room.append(need), real(self, need)))
    by_id = np.argsort(np.maximum(src, dst), kind="stable")
    for s, d, shrinks in ((src[by_id], dst[by_id], True), (src, dst, False)):
        made_room.clear()
        st = chunked_gpu.chunked_union((s, d), device_memory=limit)
        roots, _, _, n_out = st.result()
        assert n_out == n and st.cap >= n
        check_labels(src, dst, n, roots)
        assert st.edges == src.size
        assert st.chunks < -(-src.size // floor), "the buffers never widened"
        assert bool(made_room) == shrinks, made_room
        if shrinks:
            assert st.again > 0
        else:
            # all that the parent array leaves, no room kept for it to double
            beside = (limit - st.cap * st._vertex_bytes(st.idt)) // st._edge_bytes()
            assert st.chunk_edges == min(st.want_chunk, beside), (st.chunk_edges, beside)


def csr_of(src, dst, n):
    """A CSR with every edge (u, v) as an entry of row u (duplicates kept,
    empty rows included)."""
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst[order].copy()


def rows_per_chunk_budget(chunked_gpu, indptr, indices, chunk: int) -> int:
    """A device budget for a streamed CSR with room for the parent array,
    the offsets, the chunk buffers and half of its entries' rows: each
    chunk then finds its own rows."""
    isz = np.dtype(chunked_gpu._id_dtype(indices, "indices")).itemsize
    n = indptr.size - 1
    return n * isz + indptr.nbytes + 2 * isz * chunked_gpu.BUFFERS * chunk + indices.size * isz // 2


def run_csr(chunked_gpu, src, dst, n, sizes):
    """A CSR streamed in chunks that cut through rows (only its column
    ids cross; each entry's row is found on the device): every entry's
    row in one pass where the budget holds them, else each chunk's (a
    budget with room for half of them)."""
    indptr, indices = csr_of(src, dst, n + 2)
    for c in sizes:
        for budget, rows in ((None, "whole"), (rows_per_chunk_budget(chunked_gpu, indptr, indices, c), "chunks")):
            st = chunked_gpu.chunked_union(chunked_gpu.HostEdges.of_csr(indptr, indices, n + 2), chunk_edges=c,
                                     device_memory=budget)
            roots, _, _, n_out = st.result()
            assert n_out == n + 2 and st.chunks == -(-src.size // c) and st.csr_rows == rows
            check_labels(src, dst, n + 2, roots)


def run_csr_errors(chunked_gpu, src, dst, n, chunk):
    """Column ids out of range and offsets that decrease: errors that say
    which entry or row, found by the device."""
    indptr, indices = csr_of(src, dst, n)
    bad = indices.copy()
    bad[-3] = -1
    with pytest.raises(ValueError, match=rf"negative vertex id -1 \(indices\[{bad.size - 3}\]\)"):
        chunked_gpu.chunked_union(chunked_gpu.HostEdges.of_csr(indptr, bad, n), chunk_edges=chunk)
    bad[-3] = n
    with pytest.raises(ValueError, match=rf"vertex id {n} \(indices\[{bad.size - 3}\]\) is out of range"):
        chunked_gpu.chunked_union(chunked_gpu.HostEdges.of_csr(indptr, bad, n), chunk_edges=chunk)
    ptr = indptr.copy()
    ptr[n // 2] = ptr[n // 2 + 1] + 1
    # every entry's row in one pass, and each chunk's
    tight = rows_per_chunk_budget(chunked_gpu, ptr, indices, chunk)
    assert chunked_gpu.chunked_union(chunked_gpu.HostEdges.of_csr(indptr, indices, n), chunk_edges=chunk,
                               device_memory=tight).csr_rows == "chunks"
    for budget in (None, tight):
        with pytest.raises(ValueError, match=r"indptr decreases .* at row"):
            chunked_gpu.chunked_union(chunked_gpu.HostEdges.of_csr(ptr, indices, n), chunk_edges=chunk, device_memory=budget)
    with pytest.raises(ValueError, match=r"indptr runs from 0 to"):
        chunked_gpu.HostEdges.of_csr(indptr, indices[:-1], n)


def run_unsettled_errors(chunked_gpu, src, dst, n, monkeypatch):
    """A call whose n is known (a SciPy matrix, a host Graph) queues its
    labels before its feed has settled, then raises the input's errors
    (found by the device) once they are back: bad column ids and
    decreasing offsets, for labels and for a spanning forest."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc
    states = []
    real = chunked_gpu.ChunkedUnion.result
    monkeypatch.setattr(chunked_gpu.ChunkedUnion, "result", lambda st: states.append(st._pending is not None) or real(st))
    A = sp.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(n, n))
    k0, want = scipy_cc(A, directed=False)
    k, labels = gconn.connected_components(A, backend="gpu")
    assert k == k0 and np.array_equal(labels, want)
    g = Graph.from_edges(src, dst, n)
    check_labels(src, dst, n, gconn.connected_components(g, backend="gpu")[1])
    assert states == [True, True]
    for bad, why in ((-1, r"negative vertex id -1 \(indices\[{i}\]\)"),
                     (n, r"vertex id {n} \(indices\[{i}\]\) is out of range for n={n}")):
        B = A.copy()
        B.indices[-3] = bad
        for run in (gconn.connected_components, gconn.spanning_forest):
            with pytest.raises(ValueError, match=why.format(i=B.nnz - 3, n=n)):
                run(B, backend="gpu")
    B = A.copy()
    B.indptr[n // 2] = B.indptr[n // 2 + 1] + 1
    with pytest.raises(ValueError, match=r"indptr decreases .* at row"):
        gconn.connected_components(B, backend="gpu")
    assert states == [True] * 7
    # an unknown n settles in the feed: a chunk may need the parents grown (a budget: more than one chunk's
    # worth of edges may come, so not the one-chunk path)
    gconn.connected_components((src, dst), backend="gpu", device_memory="1 GB")
    assert states[-1] is False


def spy_landings(chunked_gpu, monkeypatch, chunk_edges: int) -> list:
    """The landings (``gconn.backends.gpu.staging.Landing``) streamed calls make for
    their labels (see ``ChunkedUnion._land``), appended to the returned list as they are made,
    for labels of any size, with chunks of ``chunk_edges``."""
    made = []
    real = chunked_gpu.landing
    monkeypatch.setattr(chunked_gpu, "landing", lambda size, dtype: made.append(real(size, dtype)) or made[-1])
    monkeypatch.setattr(chunked_gpu, "LAND_BYTES", 1)
    monkeypatch.setattr(chunked_gpu, "CHUNK_EDGES", chunk_edges)
    return made


def quarter_of_graph(src, dst, n) -> int:
    """A device budget 4x smaller than the graph's arrays."""
    g = Graph.from_edges(src, dst, n)
    return sum(a.nbytes for a in (g.indptr, g.indices, g.src, g.dst)) // 4


def run_budget(src, dst, n, limit, variant):
    """The arrays do not fit ``limit``: the run streams, with SciPy's partition."""
    g = Graph.from_edges(src, dst, n)
    k0, l0 = reference(g)
    k, labels, stats = gconn.connected_components((src, dst), backend="gpu", algorithm=variant,
                                                  device_memory=limit, return_stats=True)
    assert stats.chunked and stats.chunks > 1 and stats.chunk_edges < src.size
    assert k == k0 and np.array_equal(host(labels), l0)
    return stats


def run_forest(src, dst, n, **kw):
    g = Graph.from_edges(src, dst, n)
    k0, _ = reference(g)
    fs, fd, stats = gconn.spanning_forest((src, dst), backend="gpu", return_stats=True, **kw)
    assert stats.chunked
    check_forest(g, fs, fd, k0)


def run_one_chunk(chunked_gpu, src, dst, monkeypatch):
    """Host arrays that fit one chunk take the one-stream path (no ChunkedUnion): labels, int64 ids, a
    spanning forest and stats as the feed gives them; a negative id, sparse ids under relabel="auto",
    a budget and a second chunk take the feed, which names the id."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc
    fed, one = [], []
    real_init, real_one = chunked_gpu.ChunkedUnion.__init__, chunked_gpu._one_chunk
    monkeypatch.setattr(chunked_gpu.ChunkedUnion, "__init__", lambda st, *a, **kw: fed.append(1) or real_init(st, *a, **kw))

    def spy(*a, **kw):
        out = real_one(*a, **kw)
        one.append(out is not None)
        return out
    monkeypatch.setattr(chunked_gpu, "_one_chunk", spy)
    n = int(max(src.max(), dst.max())) + 1
    k0, want = scipy_cc(sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)
    for s, d in ((src, dst), (src.astype(np.int64), dst.astype(np.int64))):
        k, labels, stats = gconn.connected_components((s, d), backend="gpu", return_stats=True)
        assert k == k0 and np.array_equal(host(labels), want) and host(labels).dtype == np.int32
        assert stats.chunked and stats.chunks == 1 and stats.chunk_edges == src.size
    g = Graph.from_edges(src, dst, n)
    check_forest(g, *gconn.spanning_forest((src, dst), backend="gpu"), k0)
    assert one == [True] * 3 and fed == []
    bad = src.copy()
    bad[-2] = -3
    with pytest.raises(ValueError, match=rf"chunk 0 .*negative vertex id -3 \(src\[{src.size - 2}\]\)"):
        gconn.connected_components((bad, dst), backend="gpu")
    assert one[-1] is False and fed == [1]
    k, labels = gconn.connected_components((src, dst), backend="gpu", device_memory="1 GB")
    assert k == k0 and fed == [1, 1] and len(one) == 4
    monkeypatch.setattr(chunked_gpu, "CHUNK_EDGES", src.size - 1)
    k, labels = gconn.connected_components((src, dst), backend="gpu")
    assert k == k0 and np.array_equal(host(labels), want) and one[-1] is False and fed == [1, 1, 1]


def run_bad_ids(chunked_gpu, src, dst, chunk):
    bad = src.copy()
    at = src.size - 2
    bad[at] = -7
    with pytest.raises(ValueError, match=rf"chunk {at // chunk} .*negative vertex id -7 \(src\[{at}\]\)"):
        chunked_gpu.chunked_union((bad, dst), chunk_edges=chunk)
    with pytest.raises(ValueError, match=r"out of range for n=3"):
        chunked_gpu.chunked_union((src, dst), n=3, chunk_edges=chunk)


# -- text edge lists, parsed in chunks and streamed (gconn.chunked.gpu) --------

def write_edge_list(path, src, dst, *, sep=" ", head=None):
    """``src``/``dst`` as a text edge list, gzipped for a ``.gz`` path;
    ``head`` a first line (gconn's ``n=`` header, or column names)."""
    np.savetxt(path, np.stack([src, dst], axis=1), fmt="%d", delimiter=sep,
               header=head or "", comments="")


def run_text_chunks(src, dst, n, folder, monkeypatch, sizes):
    """An edge list declaring 3 more vertices than occur, parsed in chunks
    of each size (chunks cut through the components): streamed, the
    declared n honoured, SciPy's components."""
    from gconn.io import chunks
    path = folder / "g.el"
    n_file = n + 3
    write_edge_list(path, src, dst, head=f"# gconn edge list: n={n_file} m={src.size}")
    g = Graph.from_edges(src, dst, n_file)
    k0, l0 = reference(g)
    for c in sizes:
        monkeypatch.setattr(chunks, "DEFAULT_CHUNK_EDGES", c)
        k, labels, stats = gconn.connected_components(str(path), backend="gpu", return_stats=True)
        assert isinstance(labels, np.ndarray)
        assert stats.chunked and stats.n == n_file and stats.m == src.size
        assert stats.chunks == -(-src.size // c)
        assert k == k0 and np.array_equal(labels, l0)


def run_snap_header(src, dst, n, folder):
    """A SNAP header's node count on the GPU: equal to the ids' range, the file streams in chunks;
    more (nodes without edges), the resident route reads it whole with those nodes; fewer (ids that
    name nodes), an error, or the ids that occur with relabel="auto" (io.edgelist.snap_count)."""
    import warnings
    path = folder / "snap.txt"
    top = int(max(src.max(), dst.max()))
    for nodes, chunked in ((top + 1, True), (top + 4, False)):
        write_edge_list(path, src, dst, head=f"# Undirected graph\n# Nodes: {nodes} Edges: {src.size}")
        k0, l0 = reference(Graph.from_edges(src, dst, nodes))
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            k, labels, stats = gconn.connected_components(str(path), backend="gpu", return_stats=True)
        assert stats.chunked == chunked and stats.n == nodes
        assert k == k0 and np.array_equal(labels, l0)
    write_edge_list(path, src, dst, head=f"# Nodes: {top} Edges: {src.size}")
    with pytest.raises(ValueError, match=rf"snap\.txt, line 1: its header counts {top:,} nodes, but its ids run"):
        gconn.connected_components(str(path), backend="gpu")


def run_text_formats(src, dst, n, folder):
    """A gzipped edge list (n from the largest id) and a CSV with a header
    and source=/target=, for components and a spanning forest."""
    gz = folder / "g.el.gz"
    write_edge_list(gz, src, dst)
    csv = folder / "g.csv"
    write_edge_list(csv, src, dst, sep=",", head="from,to")
    n_seen = int(max(src.max(), dst.max())) + 1
    g = Graph.from_edges(src, dst, n_seen)
    k0, l0 = reference(g)
    for path, kw in ((gz, {}), (csv, {"source": "from", "target": "to"})):
        k, labels, stats = gconn.connected_components(str(path), backend="gpu", return_stats=True, **kw)
        assert stats.chunked and stats.n == n_seen
        assert k == k0 and np.array_equal(labels, l0)
        fs, fd, stats = gconn.spanning_forest(str(path), backend="gpu", return_stats=True, **kw)
        assert stats.chunked and isinstance(fs, np.ndarray)
        check_forest(g, fs, fd, k0)


def run_text_errors_and_fallbacks(folder):
    """Bad tokens name file, line and column; names as ids, and a variant
    that needs the graph, are loaded whole and still right."""
    bad = folder / "bad.el"
    bad.write_text("0 1\n1 2\n2 x3\n")
    with pytest.raises(ValueError, match=r"bad\.el, line 3, column 3"):
        gconn.connected_components(str(bad), backend="gpu")
    beyond = folder / "beyond.el"
    beyond.write_text("# gconn edge list: n=4 m=2\n0 1\n2 4\n")
    with pytest.raises(ValueError, match=r"beyond\.el, line 3, column 3: vertex id 4 is out of range for n=4"):
        gconn.spanning_forest(str(beyond), backend="gpu")
    names = folder / "names.el"
    names.write_text("from to\na b\nc d\nb e\n")
    k, labels, ids, stats = gconn.connected_components(str(names), backend="gpu", relabel=True,
                                                       return_stats=True)
    assert not stats.chunked
    assert k == 2 and list(ids) == list("abcde") and same_partition(host(labels), [0, 0, 1, 1, 0])
    ints = folder / "ints.el"
    ints.write_text("0 1\n3 2\n1 4\n")
    k, labels, stats = gconn.connected_components(str(ints), backend="gpu", algorithm="kout+union-async+find-halve",
                                                  return_stats=True)
    assert not stats.chunked
    assert k == 2 and same_partition(host(labels), [0, 0, 1, 1, 0])


def run_text_cli(src, dst, n, folder, capsys):
    """``gconn cc|forest --backend gpu FILE``: streamed, SciPy's components,
    a spanning forest written; a variant with sampling loads the file."""
    import json
    from gconn import cli
    path = folder / "g.el"
    write_edge_list(path, src, dst)
    g = Graph.from_edges(src, dst, int(max(src.max(), dst.max())) + 1)
    k0, l0 = reference(g)

    def summary(*argv):
        assert cli.main([*map(str, argv), "--quiet", "--json", "-b", "gpu"]) == 0
        return json.loads(capsys.readouterr().out)

    out = summary("cc", path, "-o", folder / "labels.txt", "--labels-format", "plain")
    assert out["chunked"] and out["components"] == k0 and out["n"] == g.n and out["m"] == src.size
    assert np.array_equal(np.loadtxt(folder / "labels.txt", dtype=np.int64), l0)
    out = summary("forest", path, "-o", folder / "forest.el")
    assert out["chunked"] and out["components"] == k0
    f = gconn.load(str(folder / "forest.el"))
    check_forest(g, f.src, f.dst, k0)
    out = summary("cc", path, "--algorithm", "kout+union-async+find-halve")
    assert "chunked" not in out and out["components"] == k0


def run_sparse_ids_before_the_range(folder, monkeypatch):
    """relabel="auto" on the GPU: sparse ids stop the stream before it sizes
    the parent array by their range (the streamer raises SparseIds, the
    resident route relabels), from a file and from host arrays alike; dense
    ids stream as they are."""
    import gconn
    from gconn.chunked import gpu as chunked_gpu
    sized = []      # the sizes the parent array was grown to
    grow = chunked_gpu.ChunkedUnion._grow
    monkeypatch.setattr(chunked_gpu.ChunkedUnion, "_grow", lambda self, need: (grow(self, need), sized.append(need)))
    path = folder / "sparse.el"
    path.write_text("0 200000000\n5 200000000\n")
    for graph in (str(path), (np.array([0, 5]), np.array([200000000, 200000000]))):
        sized.clear()
        k, labels, ids = gconn.connected_components(graph, backend="gpu", relabel="auto")
        assert k == 1 and ids.tolist() == [0, 5, 200000000] and host(labels).tolist() == [0, 0, 0]
        assert max(sized, default=0) < 200000000        # refused before allocating
    dense = folder / "dense.el"
    dense.write_text("0 1\n2 3\n")
    k, labels, ids, stats = gconn.connected_components(str(dense), backend="gpu", relabel="auto", return_stats=True)
    assert k == 2 and ids.tolist() == [0, 1, 2, 3] and stats.chunked
