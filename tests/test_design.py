"""The design-space module: names, validity, enumeration, auto choice."""
import pytest

import gconn
from gconn import design
from gconn.design import Variant


def uf(problem):
    return [v for v in design.iter_variants(problem) if v.finish in design.UNION_FINDS]


def test_union_find_counts():
    # 6 unions: Async/Hooks/Early x 4 finds, Rem-CAS/Rem-Lock x 3 finds x 3
    # splices, JTB x 2 finds = 32 combinations, times 5 samplers (the
    # paper's none, k-out, HB, BFS, and our stride sampling).
    assert len(uf("cc")) == 5 * 32
    # SpliceAtomic is not root-based: no spanning forest.
    assert len(uf("forest")) == 5 * (32 - 6)
    # No sampling for incremental batches.
    assert len(uf("incremental")) == 32


def test_names_round_trip():
    for problem in design.PROBLEMS:
        for name in gconn.variants(problem):
            assert Variant.parse(name, problem).name == name


@pytest.mark.parametrize("alias,canonical", [
    ("KOut+UnionAsync+FindHalve", "kout+union-async+find-halve"),
    ("union-async+find-split", "none+union-async+find-split"),
    ("hb+UnionRemCAS+FindNaive+SpliceAtomic", "hb+union-rem-cas+find-naive+splice"),
    ("kout+union-jtb", "kout+union-jtb+find-two-try-split"),
    ("union-rem-lock", "none+union-rem-lock+find-halve+split-one"),
])
def test_aliases(alias, canonical):
    assert Variant.parse(alias).name == canonical


@pytest.mark.parametrize("bad,needle", [
    ("kout+union-foo+find-halve", "valid finishes"),
    ("kout+union-rem-cas+find-compress+splice", "valid find options"),
    ("kout+union-async+find-halve+splice", "only Rem's algorithms"),
    ("kout+union-jtb+find-halve", "find-two-try-split"),
    ("", "empty"),
    ("kout", "names no finish"),
    ("kout+union-async+find-halve+split-one+extra", "unexpected"),
])
def test_invalid_names(bad, needle):
    with pytest.raises(ValueError, match=needle):
        Variant.parse(bad)


def test_problem_rules():
    with pytest.raises(ValueError, match="spanning forest"):
        Variant.parse("kout+union-rem-cas+find-halve+splice", "forest")
    with pytest.raises(ValueError, match="no sampling"):
        Variant.parse("kout+union-async+find-halve", "incremental")
    assert Variant.parse("none+union-rem-cas+find-halve+splice", "incremental").phase_separated
    with pytest.raises(ValueError, match="unknown problem"):
        gconn.variants("bogus")
    with pytest.raises(TypeError):
        Variant.parse(3)


def test_properties():
    v = Variant.parse("kout+union-jtb+find-naive")
    assert not v.min_rooted and v.root_based
    assert Variant.parse("union-async").min_rooted


def test_api_rejects_unknown_variant_and_option():
    with pytest.raises(ValueError, match="valid finishes"):
        gconn.connected_components(([0], [1]), algorithm="kout+nope", backend="cpu")
    with pytest.raises(TypeError, match="valid options"):
        gconn.connected_components(([0], [1]), backend="cpu", colour="blue")
    with pytest.raises(ValueError, match="unknown backend"):
        gconn.connected_components(([0], [1]), backend="tpu")


def test_auto_choice_follows_the_decision_tree():
    path = gconn.Graph.from_edges(range(999), range(1, 1000))
    v = design.choose(path, hb_coverage=lambda g: 1.0)
    assert v.sampling == "none"  # low average degree: sampling does not pay
    import numpy as np
    rng = np.random.default_rng(0)
    dense = gconn.Graph.from_edges(rng.integers(0, 500, 10000), rng.integers(0, 500, 10000))
    # edges as given: building the adjacency costs more than sampling saves
    assert design.choose(dense, hb_coverage=lambda g: 0.99).sampling == "none"
    dense.adjacency()
    assert design.choose(dense, hb_coverage=lambda g: 0.99).sampling == "hb"
    assert design.choose(dense, hb_coverage=lambda g: 0.2).sampling == "kout"
    # On the GPU, a graph with its adjacency gets HB below 2^20 edges and
    # k-out, linking without FindHalve's compression, from there, whatever the
    # coverage estimate, unless HB's hooks leave almost no roots (hubs numbered
    # first): then HB; the choice must also be valid for a spanning forest.
    from types import SimpleNamespace
    big = SimpleNamespace(n=1 << 22, m_input=1 << 26, has_form=lambda f: True, hb_roots=lambda: 0.2)
    at = SimpleNamespace(n=1 << 17, m_input=design.AUTO_GPU_KOUT_EDGES, has_form=lambda f: True,
                         hb_roots=lambda: 0.2)
    hubs = SimpleNamespace(n=1 << 22, m_input=1 << 26, has_form=lambda f: True, hb_roots=lambda: 0.0)
    for graph, cc, forest in ((dense, "hb+union-rem-cas+find-halve+splice", "hb+union-rem-cas+find-split+split-one"),
                              (big, "kout+union-rem-cas+find-naive+splice", "kout+union-rem-cas+find-naive+split-one"),
                              (at, "kout+union-rem-cas+find-naive+splice", "kout+union-rem-cas+find-naive+split-one"),
                              (hubs, "hb+union-rem-cas+find-halve+splice",
                               "hb+union-rem-cas+find-split+split-one")):
        for cov in (0.99, 0.1):
            assert design.choose(graph, backend="gpu", hb_coverage=lambda g: cov).name == cc
            v = design.choose(graph, "forest", backend="gpu", hb_coverage=lambda g: cov)
            assert v.name == forest
            design.check(v, "forest")
    # low degree on the GPU: UnionAsync only from AUTO_GPU_ASYNC_EDGES edges
    # (a small path in id order makes it link one long chain at once)
    assert path.m_input < design.AUTO_GPU_ASYNC_EDGES
    assert design.choose(path, backend="gpu").name == "none+union-rem-cas+find-split+split-one"
    assert design.choose(path, backend="cpu").name == "none+union-async+find-halve"
    road = SimpleNamespace(n=1 << 24, m_input=design.AUTO_GPU_ASYNC_EDGES + 5, has_form=lambda f: True,
                           hb_roots=lambda: 0.2, ids_local=lambda: True)
    assert design.choose(road, backend="gpu").name == "none+union-async+find-halve"
    assert design.choose(road, "forest", backend="gpu").name == "none+union-async+find-halve"
    # a large graph of average degree 6 whose HB hooks leave many roots skips sampling on the GPU
    mesh = SimpleNamespace(n=1 << 24, m_input=3 << 24, has_form=lambda f: True, ids_local=lambda: True,
                           hb_roots=lambda: 0.2)
    assert design.choose(mesh, backend="gpu").name == "none+union-rem-cas+find-split+split-one"
    assert design.choose(mesh, backend="cpu", hb_coverage=lambda g: 0.1).sampling == "kout"
    # ... a mesh whose HB hooks leave almost no roots (numbered along it) takes HB; a path numbered
    # along it, no sampling and UnionRemCAS without FindHalve's compression
    mesh.hb_roots = lambda: 0.0
    assert design.choose(mesh, backend="gpu").name == "hb+union-rem-cas+find-halve+splice"
    assert design.choose(mesh, "forest", backend="gpu").name == "hb+union-rem-cas+find-split+split-one"
    ordered = gconn.Graph.from_edges(range(999), range(1, 1000))
    ordered.adjacency()
    assert ordered.hb_roots() < 0.01
    assert design.choose(ordered, backend="gpu").name == "none+union-rem-cas+find-naive+splice"
    assert design.choose(ordered, "forest", backend="gpu").name == "none+union-rem-cas+find-naive+split-one"
    mesh.hb_roots = lambda: 0.2
    # ... unless its ids are scattered: then k-out
    mesh.ids_local = lambda: False
    assert design.choose(mesh, backend="gpu").name == "kout+union-rem-cas+find-naive+splice"
    assert design.choose(mesh, "forest", backend="gpu").name == "kout+union-rem-cas+find-naive+split-one"
    # without an adjacency yet, building one costs more than sampling saves
    raw = SimpleNamespace(n=1 << 22, m_input=1 << 26, has_form=lambda f: False)
    assert design.choose(raw, backend="gpu", hb_coverage=lambda g: 0.99).name == "none+union-rem-cas+find-split+split-one"
    # on the GPU, stride sampling (which reads only the edge list) where
    # the parent array is small and the degree high
    mid = SimpleNamespace(n=design.AUTO_GPU_STRIDE_MAX_N, m_input=1 << 21, has_form=lambda f: False)
    assert design.choose(mid, backend="gpu").name == "stride+union-rem-cas+find-naive+splice"
    assert design.choose(mid, "forest", backend="gpu").name == "stride+union-rem-cas+find-naive+split-one"
    assert design.choose(mid, backend="cpu").name == "none+union-async+find-halve"
    # host edges that stream in chunks are not sampled
    assert design.choose(mid, backend="gpu", chunked=True).name == "none+union-rem-cas+find-split+split-one"
    for other in (SimpleNamespace(n=1 << 14, m_input=design.AUTO_GPU_STRIDE_EDGES - 1, has_form=lambda f: False),
                  SimpleNamespace(n=design.AUTO_GPU_STRIDE_MAX_N + 1, m_input=1 << 21, has_form=lambda f: False),
                  SimpleNamespace(n=1 << 18, m_input=(1 << 20) - 1, has_form=lambda f: False)):   # degree < 8
        assert design.choose(other, backend="gpu").name == "none+union-rem-cas+find-split+split-one"
    assert design.choose(raw, backend="cpu", hb_coverage=lambda g: 0.99).name == "none+union-async+find-halve"


def test_gpu_auto_variants_are_what_choose_names():
    """design.AUTO_GPU_VARIANTS (what gconn warmup compiles) is exactly the
    set of GPU choices over graphs on both sides of every threshold."""
    from itertools import product
    from types import SimpleNamespace
    sizes = (0, 1000, design.AUTO_GPU_KOUT_EDGES, design.AUTO_GPU_SCATTERED_EDGES, design.AUTO_GPU_ASYNC_EDGES,
             design.AUTO_GPU_STRIDE_EDGES - 1, design.AUTO_GPU_STRIDE_EDGES, 1 << 26)
    degrees = (1.0, design.AUTO_GPU_SCATTERED_DEGREE, 3.0, design.AUTO_MIN_DEGREE, 6.0,
               design.AUTO_GPU_MIN_DEGREE, 16.0)
    for problem in ("cc", "forest"):
        named = set()
        for m, deg, adjacency, local, roots in product(sizes, degrees, (False, True), (False, True),
                                                       (design.AUTO_GPU_HB_ROOTS, 0.2)):
            n = max(int(2 * m / deg), 1)
            g = SimpleNamespace(n=n, m_input=m, has_form=lambda f, a=adjacency: a, ids_local=lambda x=local: x,
                                hb_roots=lambda r=roots: r)
            named.add(design.choose(g, problem, backend="gpu").name)
        assert named == set(design.AUTO_GPU_VARIANTS[problem])


def test_gpu_auto_choice_samples_large_graphs_with_scattered_ids(monkeypatch):
    """Low-degree graphs with an adjacency: k-out on the GPU when their ids
    are scattered (from AUTO_GPU_SCATTERED_EDGES edges, lowered here), no
    sampling when neighbours have nearby ids, and never on a path."""
    import numpy as np
    from gconn.graph import generators as gen
    monkeypatch.setattr(design, "AUTO_GPU_SCATTERED_EDGES", 1000)
    s, d, n = gen.grid_road_edges(128, keep=0.9, seed=1)
    p = np.random.default_rng(2).permutation(n)
    ordered, shuffled = gconn.Graph.from_edges(s, d, n), gconn.Graph.from_edges(p[s], p[d], n)
    for g in (ordered, shuffled):
        assert design.choose(g, backend="gpu").sampling == "none"      # no adjacency yet
        g.adjacency()
    assert design.choose(ordered, backend="gpu").name == "none+union-rem-cas+find-split+split-one"
    assert design.choose(shuffled, backend="gpu").name == "kout+union-rem-cas+find-naive+splice"
    assert design.choose(shuffled, backend="cpu").sampling == "none"
    path = gconn.Graph.from_edges(p[:-1], p[1:], n)
    path.adjacency()
    assert not path.ids_local() and design.choose(path, backend="gpu").sampling == "none"
    # a path in random order from AUTO_GPU_PATH_EDGES edges (lowered here): UnionRemCAS with naive finds,
    # as on a path in id order; below it (or with nearby ids, as on a road) FindSplit
    assert design.choose(path, backend="gpu").name == "none+union-rem-cas+find-split+split-one"
    monkeypatch.setattr(design, "AUTO_GPU_PATH_EDGES", 1000)
    assert design.choose(path, backend="gpu").name == "none+union-rem-cas+find-naive+splice"
    assert design.choose(path, "forest", backend="gpu").name == "none+union-rem-cas+find-naive+split-one"
    ordered.adjacency()
    assert design.choose(ordered, backend="gpu").name == "none+union-rem-cas+find-split+split-one"


def test_gpu_auto_choice_launched():
    """A GPU run launched from the host (the first call on a resident graph, before its capture) takes no
    sampling below AUTO_GPU_KOUT_EDGES edges, where the replayed choice is HB; the others keep theirs."""
    from types import SimpleNamespace
    small = SimpleNamespace(n=1 << 16, m_input=design.AUTO_GPU_KOUT_EDGES - 1, has_form=lambda f: True,
                            hb_roots=lambda: 0.2)
    assert design.choose(small, backend="gpu").name == "hb+union-rem-cas+find-halve+splice"
    assert design.choose(small, backend="gpu", launched=True).name == "none+union-rem-cas+find-naive+splice"
    assert design.choose(small, "forest", backend="gpu").name == "hb+union-rem-cas+find-split+split-one"
    assert design.choose(small, "forest", backend="gpu", launched=True).name == \
        "none+union-rem-cas+find-naive+split-one"
    big = SimpleNamespace(n=1 << 16, m_input=design.AUTO_GPU_KOUT_EDGES, has_form=lambda f: True,
                          hb_roots=lambda: 0.2)
    assert design.choose(big, backend="gpu", launched=True).name == \
        design.choose(big, backend="gpu").name == "kout+union-rem-cas+find-naive+splice"


def test_every_rule_decides_some_graph():
    """No rule of design.RULES is shadowed by those above it: on graphs on
    both sides of every threshold, each one is the first that holds for some."""
    from itertools import product
    from types import SimpleNamespace
    d = design
    used = set()
    for m, deg, adjacency, local, roots, cov, problem, backend, streamed, launched in product(
            (0, 1000, d.AUTO_GPU_STRIDE_EDGES, d.AUTO_GPU_KOUT_EDGES, d.AUTO_GPU_ASYNC_EDGES),
            (1.0, 3.0, 6.0, 16.0), (False, True), (False, True), (0.0, 0.2), (0.1, 0.95),
            ("cc", "forest", "incremental"), ("cpu", "gpu"), (False, True), (False, True)):
        n = max(int(2 * m / deg), 1)
        g = SimpleNamespace(n=n, m_input=m, has_form=lambda f, a=adjacency: a, ids_local=lambda x=local: x,
                            hb_roots=lambda r=roots: r)
        features = d._Features(g, problem, backend, streamed, lambda _, c=cov: c, launched)
        rule = next(r for r in d.RULES if r.backend in ("any", backend) and r.when(features))
        assert d.choose(g, problem, backend, hb_coverage=lambda _, c=cov: c, chunked=streamed,
                        launched=launched).name == rule.variant.format_map(features)
        used.add(rule.name + rule.backend)
    assert used == {r.name + r.backend for r in d.RULES}
