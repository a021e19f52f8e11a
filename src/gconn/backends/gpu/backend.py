"""The GPU backend's steps of the static pipeline (:mod:`gconn.pipeline`): run
state, L_max, gathering, the finish, finalization.  None waits for the host;
only Stats and BFS sampling read values back."""
from __future__ import annotations

import time
from functools import cache, partial

import numpy as np

from gconn.design import UNION_FIND, Plan, forest_by_position, forest_positions
from gconn.pipeline import sampling as pipeline_sampling
from gconn.backends.gpu import finishes, memory, ops, replay, sampling
from gconn.backends.gpu.graph import TRACK_IDS
from gconn.graph.ids import offset_dtype
from gconn.backends.gpu._compat import SIM, view, xp
from gconn.backends.gpu.launch import CHUNK, REGISTRY, SAMPLE, WARP, device, dtypes_key, dummy, get, launch
from gconn.backends.gpu.primitives import RECORD_POSITION, RECORD_ROOT
from gconn.backends.gpu.unionfind import OP_UNION, TRACK_FIT, compress as compress_all, flat_roots

#: active vertices up to this degree get a thread in the finish, others warp units
SMALL_MAX = 2 if SIM else 16


def graph_views(graph, form: str):
    """The arrays of ``form`` and their kernel views, made once per graph."""
    key = ("gpu_views", form)
    v = graph._cache.get(key)
    if v is None:
        arrays = graph.form(form)
        v = graph._cache[key] = (arrays, tuple(view(a) for a in arrays))
    return v


class State:
    """One run: the graph's form the plan needs, ``P``, ``H``, the forest slots and their kernel views."""

    def __init__(self, graph, plan: Plan, forest: bool):
        n, idt = graph.n, graph.id_dtype
        self.graph, self.plan = graph, plan
        self.n, self.id_dtype = n, idt
        self.src = self.dst = self.indptr = self.indices = None
        needs = plan.needs
        if needs == "adjacency":
            (self.indptr, self.indices), (self.ipv, self.ixv) = graph_views(graph, "adjacency")
            self.ptr_dtype = self.indptr.dtype
        else:
            self.ptr_dtype = np.dtype(offset_dtype(graph.m_input))
            self.ipv, self.ixv = dummy(self.ptr_dtype), dummy(idt)
        if needs == "edges" or graph.m_input == 0:
            # without edges the finish reads the (empty) edge list
            (self.src, self.dst), (self.srcv, self.dstv) = graph_views(graph, "edges")
        else:
            self.srcv = self.dstv = dummy(idt)
        p_dtype = np.dtype(np.int64) if plan.jtb else idt
        self.dtypes = dtypes_key(idt, self.ptr_dtype, p_dtype)
        self.P = xp.empty(n, dtype=p_dtype)
        self.Pv = view(self.P)
        if plan.sampling != "hb" or graph.m_input == 0:    # HB's first step initializes P
            launch(get("init_parents", (), self.dtypes), n, self.Pv, n, persistent=True)
        self.H = xp.full(n, -1 if plan.aux == "hooks" else 0, p_dtype) if plan.aux else None
        self.Hv = view(self.H) if plan.aux else dummy(p_dtype)
        if forest:
            # the roots' slots, then those a pass recording by position fills (RECORD_POSITION)
            self.by_position = forest_by_position(graph, plan)
            self.slots = _slots(n, forest_positions(graph, plan), idt)
            if self.by_position == "edges" and self.slots[0].size != n + self.src.size:
                raise RuntimeError("the forest's slots do not match the edge list")
            self.fa, self.fb = (a[:n] for a in self.slots)
            self.fav, self.fbv = (view(a) for a in self.slots)
        else:
            self.fa = self.fb = _no_slots(idt, device())
            self.slots, self.by_position = (self.fa, self.fb), None
            self.fav = self.fbv = dummy(idt)
        self.record = RECORD_ROOT if forest else 0
        # ids not checked before the run (graph.track_ids): only the union kernel may read them
        self.track = graph._cache.get(TRACK_IDS)
        if self.track is not None and (plan.family != UNION_FIND or plan.needs != "edges"):
            raise RuntimeError(f"{plan.name} reads ids before the union kernel checks them")

    def union_edges(self, step: int) -> int:
        """The COO union kernel over the edge list, its 32-edge chunks ``step``
        apart, checking the ids where they were not checked before; returns m."""
        p, m = self.plan, int(self.src.size)
        if self.track is None:
            kern, flags, row = self.kernel("coo_ops"), dummy(np.int64), -1
        else:
            kern, flags, row = get("coo_ops", (p.fin, p.fopt, p.sopt, TRACK_FIT), self.dtypes), view(self.track), 0
        record = RECORD_POSITION if step == WARP and self.by_position == "edges" else self.record
        launch(kern, m, self.Pv, self.Hv, self.srcv, self.dstv, dummy(np.int8), m, OP_UNION, record,
               self.fav, self.fbv, dummy(np.bool_), self.n, flags, row, step, persistent=True)
        return m

    def kernel(self, kind: str):
        keys = REGISTRY[kind].keys
        p = self.plan
        key = (p.fin, p.fopt, p.sopt) if keys == "union" else (p.jtb,) if keys == "jtb" else ()
        return get(kind, key, self.dtypes)


def _slots(n: int, extra: int, id_dtype):
    """The forest slots (fa, fb), each n roots' then ``extra`` positions': one allocation; the roots'
    set to -1 by memsets (bytes 0xFF are -1 in any signed dtype), the positions' left to the pass
    that writes each of them."""
    both = xp.empty(2 * (n + extra), id_dtype)
    fa, fb = both[:n + extra], both[n + extra:]
    if SIM:
        both.fill(-1)
    elif n:
        stream = xp.cuda.get_current_stream().ptr
        for part in ((both,) if extra == 0 else (fa[:n], fb[:n])):
            xp.cuda.runtime.memsetAsync(part.data.ptr, 0xFF, part.nbytes, stream)
    return fa, fb


@cache
def _no_slots(id_dtype, dev: int):
    """The forest slots of a run without a forest: one empty array (nothing can write to it)."""
    return xp.empty(0, id_dtype)


def sync() -> None:
    """Wait for the device (CuPy's call: cheaper than numba's)."""
    if not SIM:
        xp.cuda.runtime.deviceSynchronize()


class scope:
    """Check the device memory a run needs, name it in an out-of-memory error, time the device.
    A class, not a generator: a launched run on a small graph takes tens of microseconds."""

    __slots__ = ("graph", "plan", "stats", "t0", "events")

    def __init__(self, graph, plan: Plan, forest: bool, stats):
        self.graph, self.plan, self.stats = graph, plan, stats
        m = graph.m_input
        needed = plan.device_bytes(graph.n, m, graph.id_dtype.itemsize, np.dtype(offset_dtype(m)).itemsize, forest,
                                   1 / CHUNK + 1 / (SMALL_MAX + 1), forest_positions(graph, plan) if forest else 0)
        if not memory.small(needed) and needed > xp.get_default_memory_pool().free_bytes():
            memory.check(needed, self._what())      # asks the driver: only where CuPy's pool falls short

    def _what(self) -> str:
        return f"{self.plan.name} on a graph with n={self.graph.n} and {self.graph.m_input} input edges"

    def __enter__(self):
        if self.stats is not None:
            if SIM:
                self.t0 = time.perf_counter()    # the simulator's device time: the wall clock
            else:
                self.events = xp.cuda.Event(), xp.cuda.Event()
                self.events[0].record()
        return self

    def __exit__(self, kind, error, tb) -> bool:
        if kind is not None:
            if not SIM and issubclass(kind, xp.cuda.memory.OutOfMemoryError):
                raise memory.ran_out(self._what(), error) from None
            return False
        st = self.stats
        if st is not None and SIM:
            st.device_time = time.perf_counter() - self.t0
        elif st is not None:
            e0, e1 = self.events
            e1.record()
            e1.synchronize()
            st.device_time = xp.cuda.get_elapsed_time(e0, e1) / 1e3
        return False


# -- the pipeline's steps -----------------------------------------------------

init = State
#: sample(s, seed, count): the plan's sampling, by the pipeline's drivers over this backend's
sample = partial(pipeline_sampling.sample, sampling)


def compress(s: State) -> None:
    # full compression before L_max (paper Alg. 1): chains too long for its one block's finds
    compress_all(s.kernel("compress"), s.graph.n, s.Pv, dummy(s.graph.id_dtype), 0)


def _scratch(s: State):
    """The sampled pipeline's buffers (L_max first, then views), kept with the graph per stream."""
    graph = s.graph
    own = replay.capturing()
    key = ("gpu_scratch", SMALL_MAX, 0 if SIM else xp.cuda.get_current_stream().ptr)
    scratch = None if own else graph._cache.get(key)
    if scratch is None:
        n, slots = graph.n, int(s.indices.size)
        cap = slots // CHUNK + slots // (SMALL_MAX + 1) + 1
        lm = xp.zeros(2, np.int64)
        arrays = (lm, xp.zeros(2, np.int64), xp.empty(n, graph.id_dtype), xp.empty(cap, graph.id_dtype),
                  xp.empty(cap, s.ptr_dtype))
        scratch = (lm,) + tuple(view(a) for a in arrays)
        if not own:
            held = [k for k in graph._cache if isinstance(k, tuple) and k[0] == "gpu_scratch"]
            for k in held[:-3]:
                del graph._cache[k]
            graph._cache[key] = scratch
    return scratch


def lmax(s: State, seed: int):
    """L_max from one block's sample, on the device; returns the scratch buffers."""
    scratch = _scratch(s)
    _, lmv, countsv, _, _, _ = scratch
    launch(s.kernel("lmax"), SAMPLE, s.Pv, s.graph.n, seed, lmv, countsv, block=SAMPLE)
    return scratch


def gather(s: State, scratch):
    """The finish's work: the active vertices (union-find) or their edges."""
    g = s.graph
    lm, lmv, countsv, smallv, uvv, usv = scratch
    if s.plan.family == UNION_FIND:
        launch(s.kernel("gather"), g.n, s.Pv, s.ipv, g.n, lmv, SMALL_MAX, smallv, uvv, usv, countsv)
        return smallv, uvv, usv, countsv
    return finishes.gather_edges(s, int(lm[0]))


def sample_stats(s: State, scratch, work, st) -> None:
    """Cov, IC and the finish's edge count; ``scratch`` None after stride sampling."""
    g = s.graph
    labels = (s.P & 0xFFFFFFFF) if s.plan.jtb else s.P
    lmax_ = int(xp.argmax(xp.bincount(labels, minlength=1))) if scratch is None else int(scratch[0][0])
    st.lmax = lmax_
    st.coverage = float(xp.count_nonzero(labels == lmax_)) / g.n
    if scratch is None:
        left = int(s.src.size)
        st.inter_component = float(xp.count_nonzero(labels[s.src] != labels[s.dst])) / left if left else 0.0
        return
    acc = xp.zeros(2, np.int64)
    launch(s.kernel("active_stats"), g.n, s.Pv, s.ipv, s.ixv, g.n, scratch[1], view(acc))
    left, crossing = (int(x) for x in acc.tolist())
    st.inter_component = crossing / left if left else 0.0
    st.edge_inspections["finish"] = left


def finish(s: State, work):
    """The finish over all edges (``work`` None) or the gathered work: (inspected or None, rounds)."""
    g = s.graph
    if s.plan.family != UNION_FIND:
        return finishes.finish(s, work)
    if work is None:
        return s.union_edges(WARP), 0
    smallv, uvv, usv, countsv = work
    launch(s.kernel("finish_csr"), g.n, s.Pv, s.Hv, s.ipv, s.ixv, smallv, uvv, usv, countsv, s.record,
           s.fav, s.fbv, persistent=True)
    return None, 0


def finalize(s: State):
    return (flat_roots(s.kernel("compress"), s.graph.n, s.P, s.Pv, s.plan.jtb, s.graph.id_dtype), *s.slots)


def number(s: State):
    """(k, labels 0..k-1); min-rooted variants compress in the compaction."""
    if s.plan.variant.min_rooted and not s.plan.jtb:
        return ops.compact(s.P, min_rooted=True, flat=False, flags=s.track)
    return ops.compact(finalize(s)[0], min_rooted=s.plan.variant.min_rooted, flags=s.track)
