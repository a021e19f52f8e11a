"""DynamicConnectivity's cases, run on each backend (tests/test_dynamic.py on the CPU,
tests/gpu/test_cudasim_dynamic.py in the simulator, tests/gpu/test_gpu_dynamic.py on a GPU): batches of
inserts, deletes and queries against SciPy's components of the edges present, recomputed after every batch."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn


def scipy_labels(pairs: Counter, n: int):
    live = [p for p, c in pairs.items() if c > 0]
    src = np.array([p[0] for p in live], np.int64)
    dst = np.array([p[1] for p in live], np.int64)
    return scipy_cc(coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)


def check(dc, pairs: Counter):
    k0, l0 = scipy_labels(pairs, dc.n)
    k, labels = dc.components()
    assert k == k0 == dc.n_components
    assert np.array_equal(labels, l0)
    src, dst = dc.edges()
    assert Counter(zip(src.tolist(), dst.tolist())) == +Counter({p: c for p, c in pairs.items() if c > 0})


def key(u, v):
    return (min(u, v), max(u, v))


def on_device(run, *args, **kw):
    """``run`` in the simulator with its NumPy batches taken as device arrays (the simulator's
    device arrays are NumPy arrays): the route of CuPy batches on a GPU."""
    from unittest import mock
    from gconn.api import dynamic
    with mock.patch.object(dynamic, "_is_cupy", lambda x: isinstance(x, np.ndarray)):
        return run(*args, **kw)


def run_random_batches(backend, n, batches, put=np.asarray):
    """Random batches; deletions only of edges present at that point (else the batch is refused
    whole); ``put`` places the batch's arrays (CuPy's asarray: batches on the device)."""
    dc = gconn.DynamicConnectivity(backend=backend)
    assert dc.backend == ("cpu" if backend == "auto" else backend)
    pairs: Counter = Counter()
    for batch in batches:
        ops = [(k, u % n, v % n) for k, u, v in batch]
        have = Counter(pairs)
        valid = True
        for k, u, v in ops:
            if k == 0:
                have[key(u, v)] += 1
            elif k == 2:
                if have[key(u, v)] <= 0:
                    valid = False
                    break
                have[key(u, v)] -= 1
        kinds = put(np.array([o[0] for o in ops], np.int8))
        src = put(np.array([o[1] for o in ops], np.int64))
        dst = put(np.array([o[2] for o in ops], np.int64))
        if not valid:
            before = dc.components(), dc.edges()
            with pytest.raises(ValueError, match="is not present at that point; nothing of the batch was applied"):
                dc.process(kinds, src, dst)
            after = dc.components(), dc.edges()
            assert before[0][0] == after[0][0] and np.array_equal(before[0][1], after[0][1])
            assert Counter(zip(*(a.tolist() for a in before[1]))) == Counter(zip(*(a.tolist() for a in after[1])))
            continue
        # the queries' answers as each sees the operations before it
        expect, live = [], Counter(pairs)
        n_now = dc.n
        for k, u, v in ops:
            n_now = max(n_now, u + 1, v + 1)
            if k == 0:
                live[key(u, v)] += 1
            elif k == 2:
                live[key(u, v)] -= 1
            else:
                _, lab = scipy_labels(live, n_now)
                expect.append(lab[u] == lab[v])
        got = dc.process(kinds, src, dst)
        assert got.tolist() == expect
        pairs = live
        check(dc, pairs)
        if dc.backend == "gpu":
            check_gpu_forest(dc)


def run_bridges_and_whole_components(backend):
    dc = gconn.DynamicConnectivity(backend=backend)
    # two triangles joined by a bridge (2, 3), and a path 6-7-8
    src, dst = [0, 1, 2, 3, 4, 5, 2, 6, 7], [1, 2, 0, 4, 5, 3, 3, 7, 8]
    dc.insert(src, dst)
    pairs = Counter(key(u, v) for u, v in zip(src, dst))
    check(dc, pairs)
    dc.delete([2], [3])                         # the bridge: two components
    pairs[(2, 3)] -= 1
    check(dc, pairs)
    assert dc.n_components == 3
    for u, v in ((0, 1), (1, 2), (2, 0)):       # every edge of a component, one at a time
        dc.delete([u], [v])
        pairs[key(u, v)] -= 1
        check(dc, pairs)
    assert dc.n_components == 5
    dc.delete([7], [6])                         # either orientation names the pair
    pairs[(6, 7)] -= 1
    check(dc, pairs)


def run_multi_edges_and_the_same_pair(backend):
    dc = gconn.DynamicConnectivity(backend=backend)
    dc.insert([0, 1, 0], [1, 0, 2])             # (0, 1) twice
    dc.delete([0], [1])
    assert dc.connected([0], [1]).tolist() == [True]
    dc.delete([1], [0])
    assert dc.connected([0], [1]).tolist() == [False]
    # insert and delete the same pair in one batch, queries between
    got = dc.process([0, 1, 2, 1, 0, 1], [0, 0, 0, 0, 1, 0], [1, 1, 1, 1, 0, 1])
    assert got.tolist() == [True, False, True]
    with pytest.raises(ValueError, match=r"delete \(5, 6\) \(operation 1 of the batch\)"):
        dc.process(["insert", "delete"], [3, 5], [4, 6])
    assert dc.n == 3        # nothing applied: the insert's id 4 did not grow the vertex set
    # (0, 1) once: deleted twice in one batch, the second deletion finds nothing
    with pytest.raises(ValueError, match=r"delete \(1, 0\) \(operation 1 of the batch\)"):
        dc.process([2, 2], [0, 1], [1, 0])
    assert dc.connected([0], [1]).tolist() == [True]
    # the copy inserted between two deletions is the second's (on the CPU, inserts of a quarter
    # of the vertices: the deletions must not run before them)
    dc.process([0, 2, 2, 0], [0, 0, 1, 1], [1, 1, 0, 2])
    src, dst = dc.edges()
    assert sorted(zip(src.tolist(), dst.tolist())) == [(0, 2), (1, 2)] and dc.n_components == 1


def run_cycle(backend, n=1000):
    """A long cycle: the first deletion (a tree edge, whichever) finds the non-tree edge that closes
    the cycle; the second splits it in two."""
    dc = gconn.DynamicConnectivity(backend=backend)
    dc.insert(np.arange(n), (np.arange(n) + 1) % n)
    pairs = Counter(key(u, (u + 1) % n) for u in range(n))
    for u in (0, n // 2):
        dc.delete([u], [(u + 1) % n])
        pairs[key(u, (u + 1) % n)] -= 1
        check(dc, pairs)
    assert dc.n_components == 2


def run_revived_edge_replaces(backend):
    """A pair deleted, then inserted again after other changes, is a replacement edge later: the
    GPU's adjacency (rebuilt between) must still hold it."""
    dc = gconn.DynamicConnectivity(backend=backend)
    pairs: Counter = Counter()

    def do(kind, src, dst):
        dc.process([kind] * len(src), src, dst)
        for u, v in zip(src, dst):
            pairs[key(u, v)] += 1 if kind == 0 else -1
        check(dc, pairs)
    do(0, [0, 1] + list(range(10, 20)), [1, 2] + list(range(11, 21)))     # forest edges only
    do(0, [0], [2])         # a non-tree edge
    do(2, [0], [2])
    do(2, [19], [20])       # a forest edge: the GPU rebuilds its adjacency here
    do(0, [2], [0])         # back, under its old id
    do(2, [0], [1])         # (0, 2) is the replacement
    assert dc.connected([0], [1]).tolist() == [True]


def run_hubs(backend, leaves=100, rounds=6, seed=5):
    """Two hubs joined through many leaves, edges deleted and put back in random batches: a piece
    holding a hub reads its long row (on the GPU, until the piece is joined)."""
    rng = np.random.default_rng(seed)
    hub2 = leaves + 1
    edges = [(0, i) for i in range(1, leaves + 1)] + [(i, hub2) for i in range(1, leaves + 1)]
    dc = gconn.DynamicConnectivity(backend=backend)
    dc.insert([u for u, _ in edges], [v for _, v in edges])
    pairs = Counter(edges)
    check(dc, pairs)
    for _ in range(rounds):
        present = [p for p, c in pairs.items() if c > 0]
        gone = [present[i] for i in rng.choice(len(present), len(present) // 3, replace=False)]
        absent = [p for p, c in pairs.items() if c == 0 and p not in gone]
        back = [absent[i] for i in rng.choice(len(absent), len(absent) // 2, replace=False)] if absent else []
        ops = [(2, u, v) for u, v in gone] + [(0, u, v) for u, v in back]
        dc.process([o[0] for o in ops], [o[1] for o in ops], [o[2] for o in ops])
        for k, u, v in ops:
            pairs[(u, v)] += 1 if k == 0 else -1
        check(dc, pairs)


def run_graph_and_ids(backend):
    g = gconn.Graph.from_edges([0, 1], [1, 2], n=5)
    dc = gconn.DynamicConnectivity(graph=g, backend=backend)
    assert dc.n == 5 and dc.n_components == 3
    assert dc.component_of([0, 2, 4]).tolist() == [0, 0, 2]
    dc.connected([9], [0])                      # a query's unseen id grows the vertex set
    assert dc.n == 10
    with pytest.raises(ValueError, match="not among the 10 vertices"):
        dc.component_of([10])
    with pytest.raises(ValueError, match="negative vertex id -1"):
        dc.insert([-1], [0])
    with pytest.raises(ValueError, match="beyond DynamicConnectivity's ids"):
        dc.insert([0], [2**31])
    with pytest.raises(ValueError, match="unknown operation kind 'remove'"):
        dc.process(["remove"], [0], [1])
    with pytest.raises(ValueError, match="0 \\(insert\\), 1 \\(query\\) or 2 \\(delete\\)"):
        dc.process([3], [0], [1])
    assert dc.process(np.array([[0, 5, 6], [1, 5, 6]])).tolist() == [True]


def run_wide_ids(backend):
    """Ids of every integer type: unsigned ones past 2^63 are refused, not wrapped around; so are
    kinds past 2^32."""
    dc = gconn.DynamicConnectivity(backend=backend)
    for dt in (np.uint8, np.int16, np.uint32, np.int64, np.uint64):
        dc.insert(np.array([0, 1], dt), np.array([1, 2], dt))
    for dt in (np.uint32, np.int64, np.uint64):
        big = np.array([0, 2**31 if dt != np.uint64 else 2**63 + 5], dt)
        with pytest.raises(ValueError, match=f"vertex id {int(big[1])} \\(dst\\[1\\]\\) is beyond|dst has ids beyond"):
            dc.insert(np.array([0, 1], dt), big)
    for kind, dt in ((2**32, np.int64), (2**32, np.uint64), (2**31, np.uint32)):    # 0 or 2^31 in int32
        with pytest.raises(ValueError, match="operation kinds must be 0"):
            dc.process(np.array([kind, 0], dt), np.array([0, 1]), np.array([1, 2]))
    assert dc.components()[0] == 1 and int(dc.edges()[0].size) == 10


def run_one_batch_then_deletions(backend, n=2000, m=5000, seed=11):
    """A multigraph inserted in one batch (on the CPU the components merge by a union-find then),
    then its edges deleted a quarter at a time, each time against SciPy: the forest and the
    non-tree edges the batch left must serve the deletions' walks."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    src[:50], dst[:50] = src[50:100], dst[50:100]       # copies of pairs
    dc = gconn.DynamicConnectivity(n, backend=backend)
    dc.insert(src, dst)
    pairs = Counter(key(int(u), int(v)) for u, v in zip(src, dst))
    check(dc, pairs)
    order = rng.permutation(m)
    for part in np.array_split(order, 4):
        dc.delete(src[part], dst[part])
        for i in part:
            pairs[key(int(src[i]), int(dst[i]))] -= 1
        check(dc, pairs)


def run_random_stream(backend, n=3000, batches=10, size=10_000, deletes=0.3, seed=7):
    """``batches`` batches of ``size`` operations, a share ``deletes`` of them deletions of present edges."""
    rng = np.random.default_rng(seed)
    dc = gconn.DynamicConnectivity(n, backend=backend)
    present: list = []
    pairs: Counter = Counter()
    for _ in range(batches):
        kinds, src, dst = [], [], []
        for _ in range(size):
            if present and rng.random() < deletes:
                i = int(rng.integers(len(present)))
                present[i], present[-1] = present[-1], present[i]
                u, v = present.pop()
                kinds.append(2)
                pairs[key(u, v)] -= 1
            else:
                u, v = (int(x) for x in rng.integers(0, n, 2))
                present.append((u, v))
                kinds.append(0)
                pairs[key(u, v)] += 1
            src.append(u)
            dst.append(v)
        dc.process(kinds, src, dst)
        check(dc, pairs)


def run_rebuild_then_walks(backend, n=2000, m=5000, seed=5):
    """A random graph with multi-edges and self loops; one batch of deletions (tree edges, bridges,
    one copy of a doubled pair) with inserts among them, many enough that the CPU builds the
    forest again; then small mixed batches whose deletions walk the rebuilt forest and lists.
    Every batch against SciPy."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m).tolist() + [3, 3, 7]
    dst = rng.integers(0, n, m).tolist() + [3, 9, 9]
    dc = gconn.DynamicConnectivity(n, backend=backend)
    dc.insert(src, dst)
    dc.insert([3], [9])             # a pair twice: one deletion leaves it present
    pairs = Counter(key(u, v) for u, v in zip(src + [3], dst + [9]))
    present = [p for p, c in pairs.items() for _ in range(c)]
    order = rng.permutation(len(present))
    gone = [present[i] for i in order[: len(present) // 2]]
    new = [tuple(int(x) for x in rng.integers(0, n, 2)) for _ in range(300)]
    ops = [(2, u, v) for u, v in gone] + [(0, u, v) for u, v in new]
    ops = [ops[i] for i in rng.permutation(len(ops))]
    dc.process([o[0] for o in ops], [o[1] for o in ops], [o[2] for o in ops])
    for u, v in gone:
        pairs[key(u, v)] -= 1
    for u, v in new:
        pairs[key(u, v)] += 1
    check(dc, pairs)
    if backend == "cpu":
        # the rebuild's mark: every component labelled by its least vertex
        labels = dc._state.label[: n]
        least = np.full(n, n)
        np.minimum.at(least, labels, np.arange(n))
        assert np.array_equal(labels, least[labels])
        # the lists wait for the first batch that walks or links: the next one
        from gconn.backends.cpu import dynamic
        assert dc._state.meta[dynamic._STALE] == 1
        check_cpu_forest(dc)
    for _ in range(20):
        present = [p for p, c in pairs.items() if c > 0]
        gone = [present[i] for i in rng.choice(len(present), 20, replace=False)]
        new = [tuple(int(x) for x in rng.integers(0, n, 2)) for _ in range(15)]
        q = [tuple(int(x) for x in rng.integers(0, n, 2)) for _ in range(5)]
        ops = [(2, u, v) for u, v in gone] + [(0, u, v) for u, v in new] + [(1, u, v) for u, v in q]
        dc.process([o[0] for o in ops], [o[1] for o in ops], [o[2] for o in ops])
        for u, v in gone:
            pairs[key(u, v)] -= 1
        for u, v in new:
            pairs[key(u, v)] += 1
        check(dc, pairs)
        if backend == "cpu":
            assert dc._state.meta[dynamic._STALE] == 0
            check_cpu_forest(dc)
    # queries, half the edges deleted, queries, inserts, queries: each run on its own
    present = [p for p, c in pairs.items() for _ in range(c)]
    runs = [[(1, *(int(x) for x in rng.integers(0, n, 2))) for _ in range(30)],
            [(2, *present[i]) for i in rng.permutation(len(present))[: len(present) // 2]],
            [(1, *(int(x) for x in rng.integers(0, n, 2))) for _ in range(30)],
            [(0, *(int(x) for x in rng.integers(0, n, 2))) for _ in range(40)],
            [(1, *(int(x) for x in rng.integers(0, n, 2))) for _ in range(30)]]
    want = []
    for run in runs:
        if run[0][0] == 1:
            labels = scipy_labels(pairs, n)[1]
            want += [bool(labels[u] == labels[v]) for _, u, v in run]
        for kind, u, v in run:
            pairs[key(u, v)] += {0: 1, 2: -1}.get(kind, 0)
    ops = [o for run in runs for o in run]
    if backend == "cpu":
        from unittest import mock
        from gconn.backends.cpu import dynamic
        with mock.patch.object(dynamic, "rebuild", wraps=dynamic.rebuild) as rebuilt:
            got = dc.process([o[0] for o in ops], [o[1] for o in ops], [o[2] for o in ops])
        assert rebuilt.call_count == 1        # the run of deletions, between queries
    else:
        got = dc.process([o[0] for o in ops], [o[1] for o in ops], [o[2] for o in ops])
    assert got.tolist() == want
    check(dc, pairs)
    if backend == "cpu":
        check_cpu_forest(dc)


def _gpu_path_after(n: int, deletions):
    """An n-vertex path on the GPU, then one batch deleting ``deletions``: (labels, whether the pass
    over the forest decided the pieces rather than the local search)."""
    from gconn.backends.gpu import dynamic
    dc = gconn.DynamicConnectivity(backend="gpu")
    dc.insert(np.arange(n - 1), np.arange(1, n))
    u, v = zip(*deletions)
    dc.delete(list(u), list(v))
    return dc.components()[1].tolist(), bool(int(dc._state.meta[dynamic.FAIL]))


def run_gpu_local_search():
    """The GPU's local search finds a short side (the other when the short one holds its
    component's representative, or, for a cut that found the piece another cut found, the shorter
    of the two cuts' far sides); sides longer than it allows take the pass over the forest; the
    labels are right either way."""
    from gconn.backends.gpu.dynamic import SIDE_CAP
    n = 2 * SIDE_CAP + 20
    assert _gpu_path_after(n, [(n - 2, n - 1)]) == ([0] * (n - 1) + [1], False)
    half = n // 2        # both halves outgrow the search
    assert _gpu_path_after(n, [(half - 1, half)]) == ([0] * half + [1] * (n - half), True)
    # {0, 1} runs out first but holds the representative (0): the other side is walked whole instead
    assert _gpu_path_after(7, [(1, 2)]) == ([0, 0, 1, 1, 1, 1, 1], False)
    # both cuts exhaust {n - 5} first, and the pieces on either side would both go unsearched: the
    # cut that lost it is searched again from n - 6 and n - 4, and finds n - 4..n - 1
    assert _gpu_path_after(n, [(n - 6, n - 5), (n - 5, n - 4)]) == ([0] * (n - 5) + [1] + [2] * 4, False)
    # again, but the far sides outgrow the search
    assert _gpu_path_after(n, [(half - 1, half), (half, half + 1)]) == ([0] * half + [1] + [2] * (n - half - 1), True)


def check_gpu_forest(dc):
    """The GPU structure's forest edges (TREE 1) are present and span its components: as many as
    the vertices less the components, and their own components those of the graph."""
    st = dc._state
    host = (lambda a: a) if isinstance(st.TREE, np.ndarray) else (lambda a: a.get())
    tree = np.flatnonzero(host(st.TREE[: st.ne]) == 1)
    assert (host(st.CNT[: st.ne])[tree] > 0).all()
    n, (k, labels) = dc.n, dc.components()
    assert tree.size == n - k
    eu, ev = host(st.EU[: st.ne])[tree], host(st.EV[: st.ne])[tree]
    kf, lf = scipy_cc(coo_matrix((np.ones(tree.size), (eu, ev)), shape=(n, n)), directed=False)
    assert kf == k and np.array_equal(lf, labels)


def check_cpu_forest(dc):
    """The CPU structure's forest edges are present and span its components, and, unless they wait
    for the next batch's relist (after a rebuild), each vertex's lists hold exactly its half-edges
    of the forest (thead) and of the other edges (nhead)."""
    from gconn.backends.cpu import dynamic
    st = dc._state
    live = np.flatnonzero(st.cnt > 0)
    live = live[st.eu[live] != st.ev[live]]
    tree = live[st.tree[live] == 1]
    n, (k, labels) = dc.n, dc.components()
    assert tree.size == n - k
    kf, lf = scipy_cc(coo_matrix((np.ones(tree.size), (st.eu[tree], st.ev[tree])), shape=(n, n)), directed=False)
    assert kf == k and np.array_equal(lf, labels)
    if st.meta[dynamic._STALE]:
        return
    for head, flag in ((st.thead, 1), (st.nhead, 0)):
        want = {int(h) for e in live[st.tree[live] == flag] for h in (2 * e, 2 * e + 1)}
        got = set()
        for v in range(n):
            h = int(head[v])
            while h != -1:
                end = st.eu[h >> 1] if h % 2 == 0 else st.ev[h >> 1]
                assert end == v and h not in got, f"vertex {v}'s list: half-edge {h}"
                got.add(h)
                h = int(st.nxt[h])
        assert got == want


def run_gpu_heal(side=12, rounds=8, seed=4):
    """A grid: most cuts of its forest heal, a walk from one end meeting a non-tree edge to the
    other's walk, and the component keeps its label; batches of random deletions and inserts
    against SciPy, the forest checked to span the components after each."""
    from gconn.backends.gpu import dynamic
    rng = np.random.default_rng(seed)
    idx = np.arange(side * side).reshape(side, side)
    src = np.r_[idx[:, :-1].ravel(), idx[:-1, :].ravel()]
    dst = np.r_[idx[:, 1:].ravel(), idx[1:, :].ravel()]
    dc = gconn.DynamicConnectivity(backend="gpu")
    dc.insert(src, dst)
    pairs = Counter(key(int(u), int(v)) for u, v in zip(src, dst))
    healed = 0
    for _ in range(rounds):
        present = [p for p, c in pairs.items() if c > 0]
        gone = [present[i] for i in rng.choice(len(present), 6, replace=False)]
        new = [tuple(int(x) for x in rng.integers(0, side * side, 2)) for _ in range(2)]
        dc.process([2] * 6 + [0] * 2, [p[0] for p in gone + new], [p[1] for p in gone + new])
        for p in gone:
            pairs[p] -= 1
        for u, v in new:
            pairs[key(u, v)] += 1
        healed += int(dc._state.meta[dynamic.HEALS])
        check(dc, pairs)
        check_gpu_forest(dc)
    assert healed > 0


def run_gpu_heal_meets_a_piece():
    """Two cuts at vertex 5 of a path 0..9, 11, 12 with a leaf 10 at 5 and a chord (5, 7): the cut
    (4, 5) finds the piece {5, 10}, the cut (5, 6) heals by the chord into it, so {5, 10} would be
    no piece of the new forest: the heal stays out, and the cut (5, 6) is searched again from the
    far ends of the two cuts, 4 and 6, finding {6, .., 12}; 0..4 is a component of its own
    (keeping {5, 10} as a piece leaves 0..4 in the component: the test fails without the check)."""
    from gconn.backends.gpu import dynamic
    dc = gconn.DynamicConnectivity(backend="gpu")
    tree = [(i, i + 1) for i in range(9)] + [(9, 11), (11, 12), (5, 10)]
    dc.insert([p[0] for p in tree], [p[1] for p in tree])
    dc.insert([5], [7])
    assert bool(dc._state.label[0] == 0)
    dc.delete([4, 5], [5, 6])
    meta = dc._state.meta
    # the chord heals unless the cut (4, 5) stamps 5 after (5, 6) does (in the simulator it heals);
    # if not, both cuts find {5, 10}: either way the cut (5, 6) is searched again
    assert int(meta[dynamic.RETRY]) == 1 and not bool(int(meta[dynamic.FAIL]))
    assert dc.components()[1].tolist() == [0] * 5 + [1] * 8
    check_gpu_forest(dc)


def run_gpu_small_trees(seeds=(3, 4), trees=3, size=9, rounds=10):
    """Random trees of ``size`` vertices, three tree or non-tree edges deleted and two random edges
    inserted a batch: cuts often find the same vertex or heal into a piece another cut found, and
    are searched again; every batch against SciPy, the forest checked."""
    from gconn.backends.gpu import dynamic
    again = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        src = [t * size + int(rng.integers(0, i)) for t in range(trees) for i in range(1, size)]
        dst = [t * size + i for t in range(trees) for i in range(1, size)]
        dc = gconn.DynamicConnectivity(backend="gpu")
        dc.insert(src, dst)
        pairs = Counter(key(u, v) for u, v in zip(src, dst))
        for _ in range(rounds):
            present = [p for p, c in pairs.items() if c > 0]
            gone = [present[i] for i in rng.choice(len(present), min(len(present), 3), replace=False)]
            new = [(t + int(rng.integers(0, size)), t + int(rng.integers(0, size)))
                   for t in (int(rng.integers(0, trees)) * size for _ in range(2))]
            dc.process([2] * len(gone) + [0] * len(new), [p[0] for p in gone + new], [p[1] for p in gone + new])
            for p in gone:
                pairs[p] -= 1
            for u, v in new:
                pairs[key(u, v)] += 1
            again += int(dc._state.meta[dynamic.RETRY])
            check(dc, pairs)
            check_gpu_forest(dc)
    assert again > 0


def run_gpu_largest_piece():
    """A cut that leaves the representative in a short piece, the other side longer than the local
    search allows (it gives up).  Beyond the cut a clique: the pass over the forest keeps the
    component's largest piece unsearched, and only the short piece's vertices are small, their
    rows read.  Beyond it a path (a sparse graph): one pass over every edge builds the forest
    again."""
    from gconn.backends.gpu import dynamic
    # the short piece 0..k; past the search's SIDE_CAP beyond it
    n, k = (40, 2) if dynamic.SIDE_CAP < 32 else (dynamic.SIDE_CAP + 30, 9)
    for clique in (True, False):
        dc = gconn.DynamicConnectivity(backend="gpu")
        dc.insert(np.arange(n - 1), np.arange(1, n))
        if clique:
            u, v = np.triu_indices(n - k - 1, 2)
            dc.insert(u + k + 1, v + k + 1)
        assert int(np.flatnonzero(dc.components()[1] == 0)[0]) == 0 and bool(dc._state.label[0] == 0)
        dc.delete([k], [k + 1])
        meta = dc._state.meta
        assert bool(int(meta[dynamic.FAIL])) and int(meta[dynamic.SMALL]) == (k + 1 if clique else 0)
        assert dc.components()[1].tolist() == [0] * (k + 1) + [1] * (n - k - 1)
        check_gpu_forest(dc)
        dc.insert([0], [n - 1])
        dc.delete([20], [21])       # 21..n-1 stay with 0 through the new edge
        assert dc.components()[1].tolist() == ([0] * (k + 1) + [1] * (20 - k) + [0] * (n - 21) if not clique
                                               else [0] * n)
        check_gpu_forest(dc)


def run_gpu_many_small():
    """A path 0..a-1 (the representative's, the largest piece) cut from c vertices joined in a
    band (i, j with 2 <= j - i <= w) longer than the search allows: their vertices are small and
    hold most edges, so the forest is built again by one pass over every edge rather than by
    reading their rows."""
    from gconn.backends.gpu import dynamic
    a, c, w = (40, 27, 26) if dynamic.SIDE_CAP < 32 else (700, 600, 51)
    n = a + c
    dc = gconn.DynamicConnectivity(backend="gpu")
    dc.insert(np.arange(n - 1), np.arange(1, n))
    u, v = np.triu_indices(c, 2)
    band = v - u <= w
    dc.insert(u[band] + a, v[band] + a)
    st = dc._state
    assert st.ne > dynamic.REBUILD_DENSITY * n and c * dynamic.FLAT_SHARE >= st.ne
    dc.delete([a - 1], [a])
    # the pass over the forest found c small vertices; the rebuild emptied the list
    assert bool(int(st.meta[dynamic.FAIL])) and int(st.meta[dynamic.SMALL]) == 0
    assert dc.components()[1].tolist() == [0] * a + [1] * c
    check_gpu_forest(dc)
    dc.process([0, 2], [0, a + 5], [n - 1, a + 6])
    assert dc.components()[1].tolist() == [0] * n
    check_gpu_forest(dc)


def run_gpu_queries_reserve_nothing(put=np.asarray):
    """A batch of queries leaves the edge arrays and the hash table as they were (on the device
    route the batch's counts come from the device)."""
    dc = gconn.DynamicConnectivity(backend="gpu")
    dc.insert(put(np.arange(20)), put(np.arange(1, 21)))
    st = dc._state
    before = st.ecap, int(st.HK.size)
    got = dc.connected(put(np.zeros(500, np.int64)), put(np.arange(500) % 21))
    assert bool(got.all()) and (st.ecap, int(st.HK.size)) == before


def run_gpu_wide_tally():
    """The batch check's tally does not wrap: 2,048 inserts of a present pair (2^20 apiece in 32
    bits would) do not hide a deletion of it at a point where it is absent."""
    dc = gconn.DynamicConnectivity(backend="gpu")
    dc.insert([0, 2], [1, 3])
    m = 2048
    kinds = np.r_[2, 2, np.zeros(m, np.int8)]
    with pytest.raises(ValueError, match=r"delete \(0, 1\) \(operation 1 of"):
        dc.process(kinds, np.zeros(m + 2, np.int32), np.ones(m + 2, np.int32))
    assert sorted(dc.edges()[0].tolist()) == [0, 2]
