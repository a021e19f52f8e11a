"""Tests for gconn.graph.generators: determinism, sizes, structure, spec strings."""
import doctest

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components as scipy_cc

import gconn.graph.generators as gen
from gconn.graph import Graph


def components(g: Graph) -> tuple[int, np.ndarray]:
    return scipy_cc(g.to_scipy(), directed=False)


# (graph function, edges function, kwargs) for every seeded generator, small.
SEEDED = [
    (gen.rmat, gen.rmat_edges, dict(scale=10)),
    (gen.rmat, gen.rmat_edges, dict(scale=9, edge_factor=4, a=0.45, b=0.25, c=0.15, permute=False)),
    (gen.kronecker, gen.kronecker_edges, dict(scale=9)),
    (gen.barabasi_albert, gen.barabasi_albert_edges, dict(n=2000, m_per_vertex=3)),
    (gen.erdos_renyi, gen.erdos_renyi_edges, dict(n=2000, avg_degree=6)),
    (gen.grid_road, gen.grid_road_edges, dict(side=40, keep=0.6)),
    (gen.path, gen.path_edges, dict(n=500, permute=True)),
    (gen.small_components, gen.small_components_edges, dict(n_components=50, size=7, p=0.2)),
]
UNSEEDED = [
    (gen.triangle_mesh, gen.triangle_mesh_edges, dict(side=9)),
    (gen.star, gen.star_edges, dict(n=9)),
    (gen.complete, gen.complete_edges, dict(n=9)),
    (gen.cycle, gen.cycle_edges, dict(n=9)),
]


def _id(case):
    return f"{case[0].__name__}-{'-'.join(f'{k}={v}' for k, v in case[2].items())}"


@pytest.mark.parametrize("case", SEEDED, ids=_id)
def test_same_seed_same_graph_other_seed_other_graph(case):
    graph_fn, _, kw = case
    assert graph_fn(**kw, seed=7) == graph_fn(**kw, seed=7)
    assert graph_fn(**kw) == graph_fn(**kw, seed=0)
    assert graph_fn(**kw, seed=7) != graph_fn(**kw, seed=8)


@pytest.mark.parametrize("case", SEEDED + UNSEEDED, ids=_id)
def test_raw_edges_build_the_graph(case):
    graph_fn, edges_fn, kw = case
    src, dst, n = edges_fn(**kw)
    assert isinstance(n, int)
    assert src.ndim == dst.ndim == 1 and src.shape == dst.shape
    assert src.dtype == dst.dtype == np.int32
    if src.size:
        assert 0 <= min(src.min(), dst.min()) and max(src.max(), dst.max()) < n
    g = graph_fn(**kw)
    assert isinstance(g, Graph) and g.n == n
    assert g == Graph.from_edges(src, dst, n)


# -- R-MAT ---------------------------------------------------------------------

def test_rmat_sizes_and_skew():
    src, dst, n = gen.rmat_edges(12, edge_factor=8)
    assert n == 4096 and src.size == 8 * 4096
    g = gen.rmat(12, edge_factor=8)
    assert 0.8 * src.size < g.m < src.size  # repeats dropped, most samples distinct
    deg = g.degrees()
    assert deg.max() > 20 * deg.mean()
    assert (deg == 0).sum() > 0.1 * n  # R-MAT leaves many vertices isolated


def test_rmat_levels_follow_abcd():
    # Without permutation every bit level of (src, dst) picks quadrant a, b, c, d.
    a, b, c = 0.5, 0.2, 0.25
    src, dst, _ = gen.rmat_edges(13, edge_factor=32, a=a, b=b, c=c, permute=False, seed=3)
    for level in range(13):
        row, col = (src >> level) & 1, (dst >> level) & 1
        freq = [np.mean((row == r) & (col == k)) for r in (0, 1) for k in (0, 1)]
        np.testing.assert_allclose(freq, [a, b, c, 1 - a - b - c], atol=0.01,
                                   err_msg=f"level {level}")


def test_rmat_odd_and_tiny_scales():
    for scale in (0, 1, 3, 9, 11):
        src, dst, n = gen.rmat_edges(scale, edge_factor=4)
        assert n == 2**scale and src.size == 4 * n and max(src.max(), dst.max()) < n
    assert gen.rmat(0).m == 0


def test_rmat_permute_relabels_the_same_samples():
    plain = gen.rmat_edges(11, permute=False, seed=5)
    mixed = gen.rmat_edges(11, permute=True, seed=5)
    n = plain[2]
    deg_plain = np.bincount(np.r_[plain[0], plain[1]], minlength=n)
    deg_mixed = np.bincount(np.r_[mixed[0], mixed[1]], minlength=n)
    np.testing.assert_array_equal(np.sort(deg_plain), np.sort(deg_mixed))
    # Unpermuted, vertex 0 (all-'a' path) is the hub; permuted, it goes anywhere.
    assert deg_plain.argmax() == 0
    assert not np.array_equal(deg_plain, deg_mixed)


def test_kronecker_is_graph500_rmat():
    assert gen.kronecker(10, edge_factor=8, seed=2) == gen.rmat(10, 8, 0.57, 0.19, 0.19, seed=2)


@pytest.mark.parametrize("kw, exc", [
    (dict(scale=-1), ValueError), (dict(scale=63), ValueError), (dict(scale=2.0), TypeError),
    (dict(scale=4, edge_factor=-1), ValueError), (dict(scale=4, a=0.6, b=0.3, c=0.2), ValueError),
    (dict(scale=4, a=-0.1), ValueError), (dict(scale=4, b=float("nan")), ValueError),
])
def test_rmat_rejects_bad_parameters(kw, exc):
    with pytest.raises(exc):
        gen.rmat_edges(**kw)


# -- Barabasi-Albert ----------------------------------------------------------

@pytest.mark.parametrize("n, m", [(3000, 1), (3000, 4), (500, 12), (13, 12)])
def test_barabasi_albert_structure(n, m):
    src, dst, nn = gen.barabasi_albert_edges(n, m, seed=1)
    assert nn == n
    assert src.size == m * (m + 1) // 2 + (n - m - 1) * m
    assert (src > dst).all()  # every edge joins a newer vertex to an older one
    g = gen.barabasi_albert(n, m, seed=1)
    assert g.m == src.size  # distinct targets: nothing dropped
    assert g.degrees().min() >= m
    assert components(g)[0] == 1
    # Each vertex after the seed clique brings exactly m edges to older vertices.
    np.testing.assert_array_equal(np.bincount(src, minlength=n)[m + 1:], m)


def test_barabasi_albert_degrees_are_heavy_tailed():
    deg = gen.barabasi_albert(20000, 3).degrees()
    assert deg.max() > 15 * deg.mean()
    assert deg[:10].mean() > 10 * deg[-10000:].mean()  # old vertices get rich


@pytest.mark.parametrize("n, m", [(10, 0), (10, 10), (3, 5)])
def test_barabasi_albert_rejects_bad_parameters(n, m):
    with pytest.raises(ValueError):
        gen.barabasi_albert_edges(n, m)


# -- Erdos-Renyi --------------------------------------------------------------

def test_erdos_renyi_sizes():
    src, dst, n = gen.erdos_renyi_edges(10000, 7)
    assert n == 10000 and src.size == 35000
    g = gen.erdos_renyi(10000, 7)
    assert 0.99 * 35000 < g.m <= 35000
    assert abs(g.degrees().mean() - 7) < 0.1
    assert g.degrees().max() < 30  # Poisson(7) tail, no hubs
    assert gen.erdos_renyi_edges(0, 5)[0].size == 0
    assert gen.erdos_renyi_edges(1001, 3)[0].size == 1502  # round(n * d / 2)


def test_erdos_renyi_is_connected_above_threshold():
    assert components(gen.erdos_renyi(5000, 20))[0] == 1


def test_erdos_renyi_rejects_negative_degree():
    with pytest.raises(ValueError):
        gen.erdos_renyi_edges(10, -1)


# -- lattices -----------------------------------------------------------------

@pytest.mark.parametrize("side", [1, 2, 5, 33])
def test_full_grid(side):
    g = gen.grid_road(side, keep=1.0)
    assert g.n == side * side and g.m == 2 * side * (side - 1)
    assert components(g)[0] == 1
    deg = g.degrees().reshape(side, side)
    if side >= 3:
        assert deg[0, 0] == 2 and deg[0, 1] == 3 and deg[1, 1] == 4
    # Ids run row by row: (r, c) - (r, c + 1) and (r, c) - (r + 1, c).
    if side >= 2:
        assert g.indices[g.indptr[0]:g.indptr[1]].tolist() == [1, side]


def test_grid_road_keeps_a_fraction_and_fragments():
    side = 100
    full = 2 * side * (side - 1)
    g = gen.grid_road(side, keep=0.5)
    assert abs(g.m - full / 2) < 4 * np.sqrt(full / 4)
    n_comp, _ = components(g)
    assert n_comp > 100
    sparse = gen.grid_road(side, keep=0.0)
    assert sparse.m == 0 and components(sparse)[0] == side * side


@pytest.mark.parametrize("side", [1, 2, 3, 10, 64])
def test_triangle_mesh(side):
    g = gen.triangle_mesh(side)
    assert g.n == side * side
    assert g.m == 3 * side**2 - 4 * side + 1
    assert components(g)[0] == 1
    if side >= 3:
        assert g.degrees().reshape(side, side)[1, 1] == 6


# -- paths, components, helpers ---------------------------------------------------

@pytest.mark.parametrize("permute", [False, True])
def test_path(permute):
    n = 1000
    g = gen.path(n, permute=permute, seed=3)
    assert g.n == n and g.m == n - 1
    assert components(g)[0] == 1
    deg = g.degrees()
    assert deg.max() == 2 and (deg == 1).sum() == 2
    ends = set(np.flatnonzero(deg == 1).tolist())
    assert (ends == {0, n - 1}) != permute


def test_path_degenerate_sizes():
    assert gen.path(1).m == 0 and gen.path(1).n == 1
    assert gen.path(0).n == 0


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("n_components, size", [(200, 10), (37, 1), (5, 64)])
def test_small_components(n_components, size, p):
    g = gen.small_components(n_components, size, seed=2, p=p)
    assert g.n == n_components * size
    count, labels = components(g)
    assert count == n_components
    np.testing.assert_array_equal(np.bincount(labels), size)
    if p == 0.0:
        assert g.m == n_components * (size - 1)  # forests
    elif size > 2:
        assert g.m > n_components * (size - 1)


def test_small_components_ids_are_shuffled():
    _, labels = components(gen.small_components(100, 10))
    assert not np.array_equal(labels, np.repeat(np.arange(100), 10))


def test_small_helpers():
    assert gen.star(6).degrees().tolist() == [5, 1, 1, 1, 1, 1]
    assert gen.complete(7).m == 21 and gen.complete(7).degrees().min() == 6
    c = gen.cycle(8)
    assert c.m == 8 and set(c.degrees().tolist()) == {2}
    assert components(c)[0] == 1
    assert gen.star(1).m == gen.complete(1).m == gen.cycle(1).m == 0
    assert gen.cycle(2).m == 1


@pytest.mark.parametrize("call", [
    lambda: gen.grid_road(10, keep=1.5), lambda: gen.grid_road(-1),
    lambda: gen.triangle_mesh(-2), lambda: gen.path(-1),
    lambda: gen.small_components(10, 0), lambda: gen.small_components(10, 3, p=2.0),
])
def test_lattice_and_component_validation(call):
    with pytest.raises(ValueError):
        call()


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError):
        gen.path(3.5)
    with pytest.raises(TypeError):
        gen.grid_road(10, keep="0.5")


# -- spec strings -----------------------------------------------------------------

@pytest.mark.parametrize("spec, expected", [
    ("rmat:scale=20,ef=16", ("rmat", {"scale": 20, "edge_factor": 16})),
    ("kron:22", ("kronecker", {"scale": 22})),
    ("ba:n=4194304,m=16", ("barabasi_albert", {"n": 4194304, "m_per_vertex": 16})),
    ("er:n=8388608,d=16", ("erdos_renyi", {"n": 8388608, "avg_degree": 16.0})),
    ("grid:4096,keep=0.7", ("grid_road", {"side": 4096, "keep": 0.7})),
    ("mesh:4096", ("triangle_mesh", {"side": 4096})),
    ("path:4194304", ("path", {"n": 4194304})),
    ("components:1000,size=10", ("small_components", {"n_components": 1000, "size": 10})),
    ("rmat:18,8,seed=3,permute=false", ("rmat", {"scale": 18, "edge_factor": 8, "seed": 3,
                                                 "permute": False})),
    (" ER : 100 , avg_degree = 2.5 ", ("erdos_renyi", {"n": 100, "avg_degree": 2.5})),
    ("barabasi_albert:1e6,m_per_vertex=2", ("barabasi_albert", {"n": 1000000, "m_per_vertex": 2})),
    ("path:10,permute=yes", ("path", {"n": 10, "permute": True})),
    ("star:5", ("star", {"n": 5})),
])
def test_parse_spec(spec, expected):
    assert gen.parse_spec(spec) == expected


@pytest.mark.parametrize("spec", [
    "rmat:scale=9,ef=4", "kron:9", "ba:n=300,m=3", "er:n=300,d=4", "grid:20,keep=0.5,seed=2",
    "mesh:12", "path:50,permute=true,seed=1", "components:20,size=5,p=0.5", "star:8",
    "complete:6", "cycle:7",
])
def test_from_spec_matches_direct_calls(spec):
    name, kwargs = gen.parse_spec(spec)
    direct_graph = getattr(gen, name)(**kwargs)
    direct_edges = getattr(gen, f"{name}_edges")(**kwargs)
    assert gen.from_spec(spec) == direct_graph
    src, dst, n = gen.edges_from_spec(spec)
    assert n == direct_edges[2]
    np.testing.assert_array_equal(src, direct_edges[0])
    np.testing.assert_array_equal(dst, direct_edges[1])


@pytest.mark.parametrize("spec, problem", [
    ("nope:3", "unknown generator 'nope'"),
    ("", "unknown generator ''"),
    ("rmat", "missing scale"),
    ("rmat:", "missing scale"),
    ("rmat:scale=x", "scale='x' is not int"),
    ("rmat:10,bogus=1", "no parameter 'bogus'"),
    ("rmat:10,scale=11", "given twice"),
    ("rmat:scale=10,16", "positional '16' after"),
    ("mesh:4,5", "too many positional"),
    ("grid:10,,keep=0.5", "empty parameter"),
    ("grid:10,keep=", "empty parameter"),
    ("path:5,permute=maybe", "is not true/false"),
    ("er:n=10,d=1.5.2", "avg_degree='1.5.2' is not float"),
    ("ba:n=2.5,m=1", "n='2.5' is not int"),
])
def test_bad_specs_list_the_generators(spec, problem):
    with pytest.raises(ValueError) as info:
        gen.parse_spec(spec)
    message = str(info.value)
    assert problem in message
    for name in gen.SPECS:
        assert f"{name}:" in message


def test_spec_values_are_validated_by_the_generator():
    with pytest.raises(ValueError, match="keep"):
        gen.from_spec("grid:10,keep=2")
    # named with the spec they came from
    with pytest.raises(ValueError, match=r"^bad graph spec 'grid:-5': side must be >= 0; got -5$"):
        gen.from_spec("grid:-5")


def test_spec_must_be_a_string():
    with pytest.raises(TypeError):
        gen.parse_spec(42)


def test_specs_table_and_help():
    text = gen.spec_help()
    for name, spec in gen.SPECS.items():
        assert spec.name == name and spec.description and "\n" not in spec.description
        assert spec.usage() in text
        assert callable(spec.graph) and callable(spec.edges)
    rmat_usage = "rmat:scale[,ef=16,a=0.57,b=0.19,c=0.19,seed=0,permute=true]"
    assert gen.SPECS["rmat"].usage() == rmat_usage
    assert gen.SPECS["ba"].usage() == "ba:n,m[,seed=0]"


def test_docstring_examples():
    result = doctest.testmod(gen, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20 and result.failed == 0
