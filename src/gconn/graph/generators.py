"""Seeded graph generators: ``name(...)`` returns a :class:`~gconn.graph.Graph`,
``name_edges(...)`` the raw ``(src, dst, n)``, self loops and duplicates kept.
The output depends on the seed only, not on the thread count.  :func:`from_spec`
reads a string such as ``rmat:scale=20,ef=16`` (see :data:`SPECS`).
"""
from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numba import njit, prange

from gconn.graph.build import prefetch
from gconn.graph import Graph, _id_dtype

__all__ = [
    "rmat", "rmat_edges", "kronecker", "kronecker_edges",
    "barabasi_albert", "barabasi_albert_edges", "erdos_renyi", "erdos_renyi_edges",
    "grid_road", "grid_road_edges", "triangle_mesh", "triangle_mesh_edges",
    "path", "path_edges", "small_components", "small_components_edges",
    "star", "star_edges", "complete", "complete_edges", "cycle", "cycle_edges",
    "GeneratorSpec", "SPECS", "spec_help", "parse_spec", "from_spec", "edges_from_spec",
]

_U = np.uint64
_GOLD = _U(0x9E3779B97F4A7C15)
_MIX1 = _U(0xBF58476D1CE4E5B9)
_MIX2 = _U(0x94D049BB133111EB)
_LOW16 = _U(0xFFFF)
_TWO_POW_MINUS_53 = 2.0 ** -53
Edges = tuple[np.ndarray, np.ndarray, int]
# far enough ahead to cover a DRAM miss, near enough that the line is still cached
_BA_PREFETCH_DISTANCE = 32


@njit(inline="always")
def _mix(z):
    # splitmix64: _mix(key + i * _GOLD) is draw i, computable without state
    z = (z ^ (z >> _U(30))) * _MIX1
    z = (z ^ (z >> _U(27))) * _MIX2
    return z ^ (z >> _U(31))


@njit(inline="always")
def _below(r, bound):
    # the float product can round up to bound itself when bound is large
    return min(np.int64(np.float64(r >> _U(11)) * _TWO_POW_MINUS_53 * bound), bound - 1)


def _key(rng: np.random.Generator) -> np.uint64:
    return rng.integers(0, 2**64, dtype=np.uint64)


def _int(name: str, value, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}; got {value}")
    return int(value)


def _real(name: str, value, low: float, high: float = np.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if not low <= value <= high:  # also rejects NaN
        raise ValueError(f"{name} must lie in [{low}, {high}]; got {value}")
    return float(value)


_BOOLS = {"true": True, "1": True, "yes": True, "on": True,
          "false": False, "0": False, "no": False, "off": False}


@dataclass(frozen=True)
class GeneratorSpec:
    """A generator as specs name it: ``edges``'s parameters, ``short`` their abbreviations."""

    name: str
    graph: Callable[..., Graph]
    edges: Callable[..., tuple]
    description: str
    aliases: tuple[str, ...] = ()
    short: dict[str, str] = field(default_factory=dict)

    def parameters(self) -> list[inspect.Parameter]:
        return list(inspect.signature(self.edges, eval_str=True).parameters.values())

    def usage(self) -> str:
        """The parameters as a spec shows them, e.g. ``mesh:side``.

        >>> SPECS["grid"].usage()
        'grid:side[,keep=0.7,seed=0,permute=false]'
        """
        long_to_short = {v: k for k, v in self.short.items()}
        required, optional = [], []
        for prm in self.parameters():
            name = long_to_short.get(prm.name, prm.name)
            if prm.default is inspect.Parameter.empty:
                required.append(name)
            else:
                default = str(prm.default).lower() if isinstance(prm.default, bool) else prm.default
                optional.append(f"{name}={default}")
        text = f"{self.name}:{','.join(required)}"
        return text + (f"[,{','.join(optional)}]" if optional else "")


#: Each generator by its spec name.
SPECS: dict[str, GeneratorSpec] = {}


def _generator(edges: Callable, name: str, description: str, *, doc: str, aliases: tuple = (),
               short: dict | None = None) -> Callable[..., Graph]:
    """The :class:`~gconn.graph.Graph` form ``name(...)`` of ``name_edges(...)``, entered in :data:`SPECS`."""
    def graph(*args, **kwargs) -> Graph:
        return Graph.from_edges(*edges(*args, **kwargs))

    graph.__name__ = graph.__qualname__ = edges.__name__.removesuffix("_edges")
    graph.__signature__ = inspect.signature(edges).replace(return_annotation=Graph)
    graph.__doc__ = doc
    SPECS[name] = GeneratorSpec(name, graph, edges, description, aliases, short or {})
    return graph


def _rmat_table(a: float, b: float, c: float) -> np.ndarray:
    """Two R-MAT levels per 16 random bits: (row1 row2 col1 col2) bits by 16-bit draw."""
    p = np.array([a, b, c, max(0.0, 1.0 - a - b - c)])
    joint = np.outer(p, p).ravel()
    bounds = np.round(np.cumsum(joint) * 65536).astype(np.int64)
    bounds[-1] = 65536
    counts = np.diff(bounds, prepend=0)
    q1, q2 = np.divmod(np.arange(16), 4)
    codes = ((q1 >> 1) << 3) | ((q2 >> 1) << 2) | ((q1 & 1) << 1) | (q2 & 1)
    return np.repeat(codes.astype(np.uint8), counts)


@njit(inline="always")
def _two_levels(u, v, t):
    return (u << _U(2)) | (t >> _U(2)), (v << _U(2)) | (t & _U(3))


@njit(inline="always")
def _scramble(x, mask, shift, k):
    # a seeded bijection of the ids: a permutation without a table (as Graph500's)
    for i in range(3):
        x = (x * k[2 * i] + k[2 * i + 1]) & mask
        x ^= x >> shift
    return x


@njit(parallel=True, cache=True)
def _rmat_kernel(scale, table, key, permute, keys, src, dst):
    pairs = scale // 2
    full = pairs // 4  # 64-bit words that feed 4 two-level lookups
    tail = pairs - 4 * full
    odd = scale & 1
    words = full + (1 if tail or odd else 0)
    mask = _U((1 << scale) - 1)
    shift = _U(max(1, (scale + 1) // 2))
    for e in prange(src.size):
        u = _U(0)
        v = _U(0)
        stream = e * words
        for w in range(full):
            r = _mix(key + _U(stream + w) * _GOLD)
            u, v = _two_levels(u, v, _U(table[r & _LOW16]))
            u, v = _two_levels(u, v, _U(table[(r >> _U(16)) & _LOW16]))
            u, v = _two_levels(u, v, _U(table[(r >> _U(32)) & _LOW16]))
            u, v = _two_levels(u, v, _U(table[r >> _U(48)]))
        if words > full:
            r = _mix(key + _U(stream + full) * _GOLD)
            for _ in range(tail):
                u, v = _two_levels(u, v, _U(table[r & _LOW16]))
                r >>= _U(16)
            if odd:
                # a two-level entry's first level has the one-level law
                t = _U(table[r & _LOW16])
                u = (u << _U(1)) | (t >> _U(3))
                v = (v << _U(1)) | ((t >> _U(1)) & _U(1))
        if permute:
            u = _scramble(u, mask, shift, keys)
            v = _scramble(v, mask, shift, keys)
        src[e] = u
        dst[e] = v


def rmat_edges(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19,
               c: float = 0.19, seed: int = 0, permute: bool = True) -> Edges:
    """Raw edge samples of :func:`rmat`: ``edge_factor * 2**scale`` of them.

    >>> src, dst, n = rmat_edges(10, edge_factor=8)
    >>> n, src.size, src.dtype.name
    (1024, 8192, 'int32')
    """
    scale = _int("scale", scale)
    if scale > 62:
        raise ValueError(f"scale must be <= 62; got {scale}")
    edge_factor = _int("edge_factor", edge_factor)
    a, b, c = (_real(name, x, 0.0, 1.0) for name, x in (("a", a), ("b", b), ("c", c)))
    if a + b + c > 1.0 + 1e-9:
        raise ValueError(f"a + b + c must be <= 1 (d = 1 - a - b - c); got {a + b + c:g}")
    n = 1 << scale
    dt = _id_dtype(n)
    rng = np.random.default_rng(seed)
    key = _key(rng)
    # drawn even without permute so that both labellings share samples
    keys = rng.integers(0, 2**64, size=6, dtype=np.uint64)
    keys[0::2] |= _U(1)
    src = np.empty(edge_factor * n, dt)
    dst = np.empty(edge_factor * n, dt)
    _rmat_kernel(scale, _rmat_table(a, b, c), key, bool(permute), keys, src, dst)
    return src, dst, n


rmat = _generator(
    rmat_edges, "rmat", "R-MAT: 2^scale vertices, ef*2^scale edge samples, skewed degrees",
    short={"ef": "edge_factor"}, doc="""R-MAT graph: ``2**scale`` vertices, ``edge_factor * 2**scale``
    edge samples.  Each sample picks quadrant a, b, c or d = 1 - a - b - c at each of ``scale``
    levels; ``permute`` relabels the ids pseudo-randomly.

    >>> g = rmat(10, seed=1)
    >>> g.n, g.m < 16 * 1024
    (1024, True)
    """)


def kronecker_edges(scale: int, edge_factor: int = 16, seed: int = 0) -> Edges:
    """Raw edge samples of :func:`kronecker`.

    >>> kronecker_edges(8)[2]
    256
    """
    return rmat_edges(scale, edge_factor, 0.57, 0.19, 0.19, seed, True)


kronecker = _generator(
    kronecker_edges, "kron", "Graph500 Kronecker: R-MAT with a=0.57, b=c=0.19, permuted ids",
    aliases=("kronecker",), short={"ef": "edge_factor"}, doc="""Graph500 Kronecker graph: :func:`rmat` with
    a=0.57, b=c=0.19, permuted ids.

    >>> kronecker(8, seed=3) == rmat(8, seed=3)
    True
    """)


@njit(inline="always")
def _ba_position(key, i, ends):
    return _below(_mix(key + _U(i) * _GOLD), ends)


@njit(cache=True)
def _ba_kernel(n, m, key, retry_key, src, dst):
    # position 2i is src[i], 2i+1 dst[i]: a uniform position is degree-proportional
    m0 = m + 1
    e = 0
    for i in range(1, m0):  # a clique on m + 1 vertices
        for j in range(i):
            src[e] = i
            dst[e] = j
            e += 1
    seed_edges = e
    retries = 0
    for v in range(m0, n):
        first = e
        ends = 2 * first
        for _ in range(m):
            # positions do not depend on earlier targets: prefetch a later edge's read
            ahead = e + _BA_PREFETCH_DISTANCE
            if ahead < src.size:
                ahead_first = seed_edges + (ahead - seed_edges) // m * m
                p = _ba_position(key, ahead, 2 * ahead_first)
                if p & 1:
                    prefetch(dst, p >> 1)
            p = _ba_position(key, e, ends)
            while True:
                h = p >> 1
                if p & 1:
                    w = dst[h]
                elif h < seed_edges:
                    w = src[h]
                else:
                    w = m0 + (h - seed_edges) // m
                repeated = False
                for t in range(first, e):
                    if dst[t] == w:
                        repeated = True
                        break
                if not repeated:
                    break
                # own stream: first draws stay a function of the index (prefetch)
                retries += 1
                p = _ba_position(retry_key, retries, ends)
            src[e] = v
            dst[e] = w
            e += 1


def barabasi_albert_edges(n: int, m_per_vertex: int, seed: int = 0) -> Edges:
    """Raw edges of :func:`barabasi_albert`, each once as (newer, older) vertex.

    >>> src, dst, n = barabasi_albert_edges(100, 3)
    >>> src.size == 3 * 4 // 2 + (100 - 4) * 3, bool((src > dst).all())
    (True, True)
    """
    n = _int("n", n)
    m = _int("m_per_vertex", m_per_vertex, 1)
    if m >= n:
        raise ValueError(f"m_per_vertex must be < n; got m_per_vertex={m}, n={n}")
    dt = _id_dtype(n)
    rng = np.random.default_rng(seed)
    key, retry_key = _key(rng), _key(rng)
    total = m * (m + 1) // 2 + (n - m - 1) * m
    src = np.empty(total, dt)
    dst = np.empty(total, dt)
    _ba_kernel(n, m, key, retry_key, src, dst)
    return src, dst, n


barabasi_albert = _generator(
    barabasi_albert_edges, "ba", "Barabasi-Albert preferential attachment, m edges per new vertex",
    aliases=("barabasi_albert",), short={"m": "m_per_vertex"}, doc="""Barabasi-Albert graph: a clique on
    ``m_per_vertex + 1`` vertices, then each vertex links to ``m_per_vertex`` earlier ones by degree.

    >>> g = barabasi_albert(1000, 4, seed=2)
    >>> g.m, int(g.degrees().min())
    (3990, 4)
    """)


def erdos_renyi_edges(n: int, avg_degree: float, seed: int = 0) -> Edges:
    """Raw edges of :func:`erdos_renyi`: ``round(n * avg_degree / 2)`` uniform pairs.

    >>> src, dst, n = erdos_renyi_edges(1000, 8)
    >>> src.size
    4000
    """
    n = _int("n", n)
    avg_degree = _real("avg_degree", avg_degree, 0.0)
    m = int(round(n * avg_degree / 2))
    dt = _id_dtype(n)
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, size=m, dtype=dt)
    dst = rng.integers(0, n, size=m, dtype=dt)
    return src, dst, n


erdos_renyi = _generator(
    erdos_renyi_edges, "er", "Erdos-Renyi G(n, m): n*d/2 uniform random pairs",
    aliases=("erdos_renyi",), short={"d": "avg_degree"}, doc="""Erdos-Renyi G(n, m) graph:
    m = n * avg_degree / 2 uniform random pairs drawn with replacement (self loops and repeats dropped).

    >>> g = erdos_renyi(10000, 10, seed=1)
    >>> 49000 < g.m <= 50000
    True
    """)


def _lattice_edges(side: int, diagonals: bool) -> Edges:
    n = side * side
    ids = np.arange(n, dtype=_id_dtype(n)).reshape(side, side)
    parts = [(ids[:, :-1].ravel(), 1), (ids[:-1, :].ravel(), side)]  # (source, step to its neighbour)
    if diagonals:
        parts.append((ids[:-1, :-1].ravel(), side + 1))
    return np.concatenate([a for a, _ in parts]), np.concatenate([a + step for a, step in parts]), n


def grid_road_edges(side: int, keep: float = 0.7, seed: int = 0, permute: bool = False) -> Edges:
    """Raw edges of :func:`grid_road`; vertex (row, col) has id row * side + col, or with ``permute``
    a shuffled id (scattered ids, as bench.gpu's road_4k_shuf).

    >>> src, dst, n = grid_road_edges(3, keep=1.0)
    >>> n, src.size
    (9, 12)
    """
    side = _int("side", side)
    keep = _real("keep", keep, 0.0, 1.0)
    src, dst, n = _lattice_edges(side, diagonals=False)
    if keep < 1.0:
        kept = np.random.default_rng(seed).random(src.size, dtype=np.float32) < keep
        src, dst = src[kept], dst[kept]
    if permute:
        perm = np.random.default_rng(seed + 1).permutation(n).astype(src.dtype)
        src, dst = perm[src], perm[dst]
    return src, dst, n


grid_road = _generator(
    grid_road_edges, "grid", "road-like side x side grid, each edge kept with probability keep",
    aliases=("grid_road", "road"), doc="""A road-like graph: a side x side 4-neighbour grid keeping each edge
    with probability ``keep``; ids row by row (``permute``: shuffled), diameter about 2 * side.

    >>> grid_road(64, keep=1.0).m == 2 * 64 * 63
    True
    """)


def triangle_mesh_edges(side: int) -> Edges:
    """Raw edges of :func:`triangle_mesh` (no duplicates).

    >>> triangle_mesh_edges(3)[0].size
    16
    """
    return _lattice_edges(_int("side", side), diagonals=True)


triangle_mesh = _generator(
    triangle_mesh_edges, "mesh", "side x side triangulated grid mesh (one diagonal per cell)",
    aliases=("triangle_mesh",), doc="""A side x side grid with the down-right diagonal of every cell: a
    triangulated mesh with 3 * side**2 - 4 * side + 1 edges (side >= 1).

    >>> g = triangle_mesh(4)
    >>> g.n, g.m
    (16, 33)
    """)


def path_edges(n: int, permute: bool = False, seed: int = 0) -> Edges:
    """Raw edges of :func:`path`.

    >>> src, dst, n = path_edges(4)
    >>> src.tolist(), dst.tolist()
    ([0, 1, 2], [1, 2, 3])
    """
    n = _int("n", n)
    dt = _id_dtype(n)
    order = np.random.default_rng(seed).permutation(n).astype(dt) if permute else np.arange(n, dtype=dt)
    return order[:-1].copy(), order[1:].copy(), n


path = _generator(
    path_edges, "path", "path on n vertices (diameter n-1), ids optionally permuted",
    doc="""The path 0-1-...-(n-1) (diameter n - 1); ``permute`` shuffles the ids.

    >>> g = path(5, permute=True, seed=4)
    >>> g.m, sorted(g.degrees().tolist())
    (4, [1, 1, 2, 2, 2])
    """)


def small_components_edges(n_components: int, size: int, seed: int = 0, p: float = 0.0) -> Edges:
    """Raw edges of :func:`small_components`.

    >>> src, dst, n = small_components_edges(5, 4)
    >>> n, src.size
    (20, 15)
    """
    n_components = _int("n_components", n_components)
    size = _int("size", size, 1)
    p = _real("p", p, 0.0, 1.0)
    n = n_components * size
    dt = _id_dtype(n)
    rng = np.random.default_rng(seed)
    child = np.tile(np.arange(1, size, dtype=dt), n_components)
    parent = rng.integers(0, child, dtype=dt)
    base = np.repeat(np.arange(n_components, dtype=dt) * dt(size), size - 1)
    src = base + child
    dst = base + parent
    if p > 0 and size > 1:
        extra = np.flatnonzero(rng.random(n) < p).astype(dt)
        local = extra % dt(size)
        # a uniform other vertex: draw among size - 1 and skip over itself
        other = rng.integers(0, size - 1, size=extra.size, dtype=dt)
        other += other >= local
        src = np.concatenate([src, extra])
        dst = np.concatenate([dst, extra - local + other])
    ids = rng.permutation(n).astype(dt)
    return ids[src], ids[dst], n


small_components = _generator(
    small_components_edges, "components",
    "n_components random trees of size vertices (p adds cycles), ids shuffled", aliases=("small_components",),
    doc="""``n_components`` random trees of ``size`` vertices,
    ids shuffled; with probability ``p`` each vertex also links to another of its component.

    >>> g = small_components(100, 10, seed=5)
    >>> g.n, g.m
    (1000, 900)
    """)


def star_edges(n: int) -> Edges:
    """Raw edges of :func:`star`.

    >>> star_edges(4)[1].tolist()
    [1, 2, 3]
    """
    n = _int("n", n)
    dt = _id_dtype(n)
    return np.zeros(max(n - 1, 0), dt), np.arange(1, n, dtype=dt), n


star = _generator(
    star_edges, "star", "vertex 0 joined to all others", doc="""Vertex 0 joined to each of 1..n-1.

    >>> star(5).degrees().tolist()
    [4, 1, 1, 1, 1]
    """)


def complete_edges(n: int) -> Edges:
    """Raw edges of :func:`complete`, each pair once.

    >>> complete_edges(4)[0].size
    6
    """
    n = _int("n", n)
    dt = _id_dtype(n)
    src, dst = np.triu_indices(n, 1)
    return src.astype(dt), dst.astype(dt), n


complete = _generator(
    complete_edges, "complete", "complete graph on n vertices", doc="""The complete graph on n vertices.

    >>> complete(5).m
    10
    """)


def cycle_edges(n: int) -> Edges:
    """Raw edges of :func:`cycle`.

    >>> cycle_edges(3)[1].tolist()
    [1, 2, 0]
    """
    n = _int("n", n)
    src = np.arange(n, dtype=_id_dtype(n))
    return src, np.roll(src, -1), n


cycle = _generator(
    cycle_edges, "cycle", "cycle on n vertices",
    doc="""The cycle 0-1-...-(n-1)-0 (for n < 3 the loop and repeat are dropped).

    >>> cycle(6).m
    6
    """)


_BY_NAME = {alias: s for s in SPECS.values() for alias in (s.name, *s.aliases)}


def spec_help() -> str:
    """The valid generator specs (``gconn generate --help``).

    >>> print(spec_help().splitlines()[0])
      rmat:scale[,ef=16,a=0.57,b=0.19,c=0.19,seed=0,permute=true]
    """
    lines = []
    for s in SPECS.values():
        also = f" (also: {', '.join(s.aliases)})" if s.aliases else ""
        lines.append(f"  {s.usage()}")
        lines.append(f"      {s.description}{also}")
    lines.append("  Parameters go positionally first, then as name=value; "
                 "full parameter names work too.")
    return "\n".join(lines)


def _spec_error(spec: str, problem: str) -> ValueError:
    return ValueError(f"bad graph spec {spec!r}: {problem}\nvalid generators:\n{spec_help()}")


def _convert(text: str, kind, spec: str, name: str):
    try:
        value = _BOOLS.get(text.lower()) if kind is bool else kind(text)
    except ValueError:
        try:
            value = float(text) if kind is int else None  # int: also 1e6 and the like
        except ValueError:
            value = None
        value = int(value) if value is not None and value.is_integer() else None
    if value is None:
        kind_name = "true/false" if kind is bool else kind.__name__
        raise _spec_error(spec, f"{name}={text!r} is not {kind_name}")
    return value


def parse_spec(spec: str) -> tuple[str, dict]:
    """A spec string's generator function name and keyword arguments.

    >>> parse_spec("ba:n=4194304,m=16")
    ('barabasi_albert', {'n': 4194304, 'm_per_vertex': 16})
    >>> parse_spec("grid:4096,keep=0.7")
    ('grid_road', {'side': 4096, 'keep': 0.7})
    """
    gen, kwargs = _parse(spec)
    return gen.graph.__name__, kwargs


def _parse(spec: str) -> tuple[GeneratorSpec, dict]:
    if not isinstance(spec, str):
        raise TypeError(f"a graph spec must be a string, not {type(spec).__name__}")
    name, _, rest = spec.strip().partition(":")
    gen = _BY_NAME.get(name.strip().lower())
    if gen is None:
        raise _spec_error(spec, f"unknown generator {name.strip()!r}")
    params = gen.parameters()
    by_name = {prm.name: prm for prm in params}
    kwargs: dict = {}
    positional = 0
    for item in (rest.split(",") if rest.strip() else []):
        key, eq, text = (s.strip() for s in item.partition("="))
        if not eq:
            key, text = None, key
        if not text:
            raise _spec_error(spec, f"empty parameter {item.strip()!r}")
        if key is None:
            if len(kwargs) > positional:
                raise _spec_error(spec, f"positional {text!r} after a name=value parameter")
            if positional >= len(params):
                raise _spec_error(spec, f"too many positional parameters for {gen.name} ({gen.usage()})")
            key = params[positional].name
            positional += 1
        key = gen.short.get(key, key)
        if key not in by_name:
            raise _spec_error(spec, f"{gen.name} has no parameter {key!r} ({gen.usage()})")
        if key in kwargs:
            raise _spec_error(spec, f"parameter {key!r} given twice")
        kwargs[key] = _convert(text, by_name[key].annotation, spec, key)
    missing = [prm.name for prm in params
               if prm.default is inspect.Parameter.empty and prm.name not in kwargs]
    if missing:
        raise _spec_error(spec, f"missing {', '.join(missing)} ({gen.usage()})")
    return gen, kwargs


def edges_from_spec(spec: str) -> Edges:
    """Raw ``(src, dst, n)`` edges for a spec string.

    >>> src, dst, n = edges_from_spec("path:5")
    >>> n, src.size
    (5, 4)
    """
    gen, kwargs = _parse(spec)
    try:
        return gen.edges(**kwargs)
    except ValueError as e:         # a parameter out of its range: named with the spec it came from
        if type(e) is not ValueError:
            raise
        raise ValueError(f"bad graph spec {spec!r}: {e}") from None


def from_spec(spec: str) -> Graph:
    """Build a graph from a spec string such as ``rmat:scale=20,ef=16``.

    >>> from_spec("mesh:4")
    Graph(n=16, m=33)
    >>> from_spec("kron:8") == kronecker(8)
    True
    """
    return Graph.from_edges(*edges_from_spec(spec))
