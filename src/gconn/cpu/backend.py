"""The static pipeline on the CPU (paper Alg. 1 and the spanning-forest Alg. 2)."""
from __future__ import annotations

import numpy as np

from ..core.unionfind import FIND_HALVE, UNION_ASYNC, UNION_JTB
from ..design import FIND_CODE, FINISH_CODE, SPLICE_CODE, Variant, bfs_levels
from ..stats import Stats
from . import bfs as _bfs
from . import unionfind as K
from . import finishes as MB

#: Afforest / GConn estimate L_max from a sample of this many vertices.
LMAX_SAMPLE = 1024


class Codes:
    """The runtime codes of a variant, as the kernels take them.

    ``fin``/``fopt``/``sopt`` drive the union-find kernels.  A finish that is
    not a union-find keeps a plain parent array and samples with UnionAsync
    + FindHalve, so those are its union-find codes.
    """

    def __init__(self, v: Variant):
        self.uf = v.is_union_find
        self.fin = FINISH_CODE[v.finish] if self.uf else UNION_ASYNC
        self.fopt = FIND_CODE[v.find] if self.uf else FIND_HALVE
        self.sopt = SPLICE_CODE[v.splice] if v.splice else 0
        self.jtb = self.fin == UNION_JTB
        self.aux = v.finish in MB.AUX_FINISHES


def new_state(n: int, id_dtype, codes: Codes):
    """Parent array and the auxiliary array (hooks for UnionHooks, locks for
    UnionRemLock, the second label array of SV / LT / Stergiou; a dummy
    otherwise)."""
    P = np.empty(n, np.int64 if codes.jtb else id_dtype)
    K.init_parents(P)
    if codes.fin == FINISH_CODE["union-hooks"]:
        H = np.full(n, -1, P.dtype)
    elif codes.fin == FINISH_CODE["union-rem-lock"]:
        H = np.zeros(n, P.dtype)
    elif codes.aux:
        H = np.empty(n, P.dtype)
    else:
        H = np.zeros(1, P.dtype)
    return P, H


def labels_view(P: np.ndarray, codes: Codes, id_dtype) -> np.ndarray:
    """Each vertex's parent id (after compression: its root)."""
    if not codes.jtb:
        return P
    out = np.empty(P.size, id_dtype)
    K.roots_of(P, codes.fin, out)
    return out


def most_frequent(labels: np.ndarray, seed: int) -> int:
    n = labels.size
    if n <= 16 * LMAX_SAMPLE:
        return int(np.argmax(np.bincount(labels, minlength=1)))
    rng = np.random.default_rng(seed + 7)
    vals, counts = np.unique(labels[rng.integers(0, n, LMAX_SAMPLE)], return_counts=True)
    return int(vals[np.argmax(counts)])


def run(graph, variant: Variant, *, forest: bool = False, stats: Stats | None = None, seed: int = 0):
    """Run a static variant; returns (roots, forest_src, forest_dst).

    ``roots[v]`` is the root of v's tree (for min-based variants the smallest
    id of its component).  Forest arrays have one slot per vertex, -1 where
    no edge was recorded.
    """
    n = graph.n
    codes = Codes(variant)
    params = variant.param_dict
    P, H = new_state(n, graph.id_dtype, codes)
    if forest:
        fa = np.full(n, -1, graph.id_dtype)
        fb = np.full(n, -1, graph.id_dtype)
    else:
        fa = fb = np.empty(0, graph.id_dtype)
    st = stats if stats is not None else Stats()
    indptr, indices = graph.indptr, graph.indices
    fin = codes.fin

    if variant.sampling == "none" or n == 0:
        with st.phase("finish"):
            st.edge_inspections["finish"] = _finish(graph, variant, codes, P, H, fa, fb, st)
    else:
        with st.phase("sample"):
            st.edge_inspections["sample"] = _sample(graph, variant, P, H, codes, fa, fb, params, seed)
            K.compress_all(P, fin)
        with st.phase("lmax"):
            labels = labels_view(P, codes, graph.id_dtype)
            lmax = most_frequent(labels, seed)
            active = K.gather_active(labels, lmax)
        st.lmax = lmax
        if stats is not None:
            st.coverage = float(np.count_nonzero(labels == lmax)) / n
            left = int(K.degree_sum(indptr, active))
            crossing = int(K.inter_component_edges(labels, indptr, indices, active))
            st.inter_component = crossing / left if left else 0.0
        with st.phase("finish"):
            inspected = _finish(graph, variant, codes, P, H, fa, fb, st, active, lmax)
        if stats is not None:
            st.edge_inspections["finish"] = left if inspected is None else inspected
    with st.phase("finalize"):
        K.compress_all(P, fin)
        roots = labels_view(P, codes, graph.id_dtype)
    return roots, fa, fb


def _finish(graph, variant, codes, P, H, fa, fb, st, active=None, lmax=-1):
    """The finish phase over all edges (COO, ``active`` None) or the active
    vertices' edges; returns the edges inspected, or None where counting
    them would cost a pass (the caller counts when stats are wanted)."""
    if not codes.uf:
        return MB.finish(graph, variant, P, H, fa, fb, st, active, lmax)
    if active is None:
        K.finish_coo(P, H, graph.src, graph.dst, codes.fin, codes.fopt, codes.sopt, fa, fb)
        return graph.m
    K.finish_csr(P, H, graph.indptr, graph.indices, active, codes.fin, codes.fopt, codes.sopt, fa, fb)
    return None


def _sample(graph, variant, P, H, codes, fa, fb, params, seed) -> int:
    """Run the sampling phase; returns the number of edges it inspected."""
    indptr, indices = graph.indptr, graph.indices
    fin, fopt, sopt = codes.fin, codes.fopt, codes.sopt
    deg = np.diff(indptr)
    if variant.sampling == "kout":
        k = int(params.get("k", 2))
        if k < 1:
            raise ValueError(f"k-out sampling needs k >= 1; got {k}")
        mode = K.KOUT_AFFOREST if params.get("kout", "afforest") == "afforest" else K.KOUT_PAPER
        K.kout_sample(P, H, indptr, indices, k, mode, seed, fin, fopt, sopt, fa, fb)
        return int(np.minimum(deg, k).sum())
    if variant.sampling == "hb":
        N = int(params.get("hb_n", 4))
        if N < 1:
            raise ValueError(f"HB sampling needs hb_n >= 1; got {N}")
        K.hb_hook_first(P, indptr, indices, fin, fa, fb)
        second = K.hb_union_roots(P, H, indptr, indices, N, fin, fopt, sopt, fa, fb)
        return int(np.count_nonzero(deg)) + int(second)
    if variant.sampling == "bfs":
        src = _bfs.pick_source(indptr, int(params.get("bfs_sample", 1024)), seed)
        level, parent, inspected = _bfs.bfs(indptr, indices, src, bfs_levels(params))
        visited = np.flatnonzero(level >= 0)
        mn = int(visited[0])
        _bfs.relabel_visited(P, level, mn)
        if fa.size:
            tree = visited[visited != src]
            fa[tree] = parent[tree]
            fb[tree] = tree
            if mn != src:
                # The root's slot must stay free for a later link of the
                # root; the source has no tree edge, so move mn's there.
                fa[src], fb[src] = fa[mn], fb[mn]
                fa[mn] = fb[mn] = -1
        return int(inspected)
    raise ValueError(f"unknown sampling {variant.sampling!r}")


def hb_coverage(graph, sample: int = 1024, seed: int = 0, max_steps: int = 4096) -> float:
    """A cheap lower bound on HB's coverage (the decision tree's HB Cov):
    follow smallest-neighbour pointers (HB's first step) from sampled
    vertices and count how many end at the most common end point."""
    n = graph.n
    if n == 0:
        return 0.0
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, n, size=min(sample, n))
    ends = K.follow_first(graph.indptr, graph.indices, starts, max_steps)
    ends = ends[ends >= 0]
    if ends.size == 0:
        return 0.0
    _, counts = np.unique(ends, return_counts=True)
    return float(counts.max()) / starts.size
