"""The GConn design space: sampling x finish x find/compress x splice.

A *variant* is one point of it, named like ``kout+union-async+find-halve``
(the paper's names, ``PAPER_NAMES``, also parse); this module knows which
variants are valid for each problem, how a backend runs one (``Plan``)
and which one the automatic choice takes (``RULES``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable, Iterator, NamedTuple

# --- the axes -------------------------------------------------------------

SAMPLINGS = ("none", "kout", "hb", "bfs", "stride")
#: the samplings that walk adjacency lists (paper Alg. 1)
GATHERING = ("kout", "hb", "bfs")

#: Union-find finishes (paper Sec. 3.4, Alg. UnionAsync .. UnionRemCAS, JTB).
UNION_FINDS = (
    "union-async",     # UnionAsync: CAS on the parent array (Jayanti-Tarjan)
    "union-hooks",     # UnionHooks: CAS on an auxiliary hooks array
    "union-early",     # UnionEarly: walk both paths, hook as soon as a root
    "union-rem-cas",   # UnionRemCAS: lock-free Rem's algorithm
    "union-rem-lock",  # UnionRemLock: Rem's algorithm with per-vertex spin locks
    "union-jtb",       # UnionJTB: randomized linking by rank, 64-bit CAS
)

#: The finishes of two existing GPU systems, run as GConn finishes (Sec. 4.3).
EXISTING_FINISHES = (
    "ecl-cc",          # ECL-CC: hook roots by CAS, find with intermediate pointer jumping, then compress
    "afforest",        # Afforest: link (repeated CAS of the higher root to the lower), then compress
)

#: Shiloach-Vishkin: the paper's root-based adaptation and GPU-CC's classic alternating hooks (Soman et al.).
SV_FINISHES = ("sv", "sv-classic")

#: Liu-Tarjan's 16 variants (appendix): (connect, update, shortcut, alter).
#: Each name spells its rules: C/P/E connect, U/R (root-)update, S/F (full-)shortcut, A alter.
_LT_WORDS = {"c": "connect", "p": "parent-connect", "e": "extended-connect", "u": "update",
             "r": "root-update", "s": "shortcut", "f": "full-shortcut"}
LT_RULES = {"lt-" + x: (_LT_WORDS[x[0]], _LT_WORDS[x[1]], _LT_WORDS[x[2]], x[3:] == "a")
            for x in "cusa crsa pusa prsa pus prs eusa eus cufa crfa pufa prfa puf prf eufa euf".split()}
LT_FINISHES = tuple(LT_RULES)

#: Min-based finishes that iterate rounds over the edges until nothing changes.
ROUND_FINISHES = SV_FINISHES + LT_FINISHES + ("stergiou", "label-prop")

#: Every finish; kernels use the indices as codes, so only append.
FINISHES = UNION_FINDS + EXISTING_FINISHES + ROUND_FINISHES + ("bfs-cc",)

FINDS = ("find-naive", "find-split", "find-halve", "find-compress", "find-two-try-split")
SPLICES = ("split-one", "halve-one", "splice")

PROBLEMS = ("cc", "forest", "incremental")

PAPER_NAMES = {
    "union-async": "UnionAsync", "union-hooks": "UnionHooks", "union-early": "UnionEarly",
    "union-rem-cas": "UnionRemCAS", "union-rem-lock": "UnionRemLock", "union-jtb": "UnionJTB",
    "find-naive": "FindNaive", "find-split": "FindSplit", "find-halve": "FindHalve",
    "find-compress": "FindCompress", "find-two-try-split": "FindTwoTrySplit",
    "split-one": "SplitAtomicOne", "halve-one": "HalveAtomicOne", "splice": "SpliceAtomic",
    "none": "NoSampling", "kout": "KOutSampling", "hb": "HBSampling", "bfs": "BFSSampling",
    "stride": "StrideSampling",
    "ecl-cc": "ECL-CC", "afforest": "Afforest", "sv": "ShiloachVishkin",
    "sv-classic": "ShiloachVishkinClassic", "stergiou": "Stergiou", "label-prop": "LabelPropagation",
    "bfs-cc": "BFS-CC",
    **{f: "LiuTarjan" + f[3:].upper() for f in LT_FINISHES},
}

# Integer codes shared by every backend's kernels.
FINISH_CODE = {f: i for i, f in enumerate(FINISHES)}
FIND_CODE = {f: i for i, f in enumerate(FINDS)}
SPLICE_CODE = {s: i for i, s in enumerate(SPLICES)}

# The find options each union rule accepts (paper appendix); the other finishes' compression is fixed.
_VALID_FINDS = {**dict.fromkeys(("union-async", "union-hooks", "union-early"), FINDS[:4]),
                **dict.fromkeys(("union-rem-cas", "union-rem-lock"), FINDS[:3]),
                "union-jtb": ("find-naive", "find-two-try-split")}
_NEEDS_SPLICE = {"union-rem-cas", "union-rem-lock"}

# Root-based finishes only change a root's parent, so they give spanning forests and incremental
# batches (paper Sec. 3.3, 3.6); SpliceAtomic moves non-roots.  LT with RootUpdate: ConnectIt's 6
# root-based LT variants.  Not root-based: LT with Update, Stergiou, label propagation (move any
# vertex), sv-classic (plain-write hooks can overwrite a root's parent in a round), bfs-cc.
ROOT_BASED_LT = tuple(f for f, r in LT_RULES.items() if r[1] == "root-update")
_ROOT_BASED = set(UNION_FINDS) | {"ecl-cc", "afforest", "sv"} | set(ROOT_BASED_LT)
_ROOT_BASED_NAMES = f"root-based finishes: {', '.join(f for f in FINISHES if f in _ROOT_BASED)}"


#: parsed names (immutable)
_PARSED: dict = {}


@dataclass(frozen=True)
class Variant:
    """One point of the design space.

    >>> v = Variant.parse("kout+union-async+find-halve")
    >>> v.finish, v.find
    ('union-async', 'find-halve')
    """

    sampling: str
    finish: str
    find: str | None = None     # a union-find finish's find (compress) option
    splice: str | None = None
    params: tuple = field(default=(), compare=True)

    @property
    def name(self) -> str:
        return "+".join(p for p in (self.sampling, self.finish, self.find, self.splice) if p)

    def __str__(self) -> str:
        return self.name

    @property
    def root_based(self) -> bool:
        return self.finish in _ROOT_BASED and self.splice != "splice"

    @property
    def is_union_find(self) -> bool:
        return self.finish in UNION_FINDS

    @property
    def min_rooted(self) -> bool:
        """Whether every root is its tree's minimum id (UnionJTB links by rank, sv-classic hooks upwards)."""
        return self.finish not in ("union-jtb", "sv-classic")

    @property
    def phase_separated(self) -> bool:
        """Rem's algorithms with SpliceAtomic: unions and finds need a barrier between them (ConnectIt)."""
        return self.finish in _NEEDS_SPLICE and self.splice == "splice"

    def with_params(self, **params) -> "Variant":
        """The variant with ``params`` added (None leaves a parameter as it is); they are checked
        where it runs.

        >>> Variant.parse("kout+union-async").with_params(k=3).params
        (('k', 3),)
        """
        merged = dict(self.params)
        merged.update({k: v for k, v in params.items() if v is not None})
        return replace(self, params=tuple(sorted(merged.items())))

    @classmethod
    def parse(cls, name: "str | Variant", problem: str = "cc") -> "Variant":
        """Parse and validate a variant name (canonical or the paper's; no sampling part: none)."""
        if isinstance(name, Variant):
            check(name, problem)
            return name
        if not isinstance(name, str):
            raise TypeError(f"a variant name must be a string, not {type(name).__name__}")
        v = _PARSED.get((name, problem))
        if v is not None:       # parsing costs what a small graph's kernel does
            return v
        parts = [_canonical(p) for p in name.strip().split("+") if p.strip()]
        if not parts:
            raise ValueError(f"empty variant name; try one of e.g. {default_name(problem)!r}")
        sampling = parts.pop(0) if parts[0] in SAMPLINGS else "none"
        if not parts:
            raise ValueError(f"variant {name!r} names no finish method; finishes: {', '.join(FINISHES)}")
        finish = parts.pop(0)
        if finish not in FINISHES:
            raise ValueError(f"unknown finish method {finish!r} in {name!r}; "
                             f"valid finishes: {', '.join(FINISHES)}")
        if finish in _VALID_FINDS:
            find = parts.pop(0) if parts else _VALID_FINDS[finish][-1 if finish == "union-jtb" else 2]
        else:
            find = parts.pop(0) if parts and parts[0] in FINDS else None
        splice = parts.pop(0) if parts else "split-one" if finish in _NEEDS_SPLICE else None
        if parts:
            raise ValueError(f"variant {name!r} has unexpected trailing parts {parts}")
        v = cls(sampling, finish, find, splice)
        check(v, problem)
        if len(_PARSED) < 4096:
            _PARSED[(name, problem)] = v
        return v


#: lower-case spelling -> canonical part name; the paper's names win over an alias of the same spelling
_CANONICAL = {"k-out": "kout", "kout-sampling": "kout", "hook-based": "hb", "async": "union-async",
              "rem-cas": "union-rem-cas", "rem-lock": "union-rem-lock", "jtb": "union-jtb",
              "hooks": "union-hooks", "early": "union-early", "naive": "find-naive",
              "split": "find-split", "halve": "find-halve", "compress": "find-compress",
              "two-try-split": "find-two-try-split", "stride-sampling": "stride", "spliceatomic": "splice",
              "splitatomicone": "split-one", "halveatomicone": "halve-one", "findsimple": "find-naive",
              "lp": "label-prop", "label-propagation": "label-prop", "shiloach-vishkin": "sv",
              "gpu-cc": "sv-classic", "soman": "sv-classic", "ecl": "ecl-cc", "bfscc": "bfs-cc",
              **{f[3:]: f for f in LT_FINISHES},
              **{paper.lower(): canon for canon, paper in PAPER_NAMES.items()}}


def _canonical(part: str) -> str:
    p = part.strip().lower()
    return _CANONICAL.get(p, p)


def check(v: Variant, problem: str = "cc") -> None:
    """Raise ValueError if ``v`` is not a valid variant for ``problem``."""
    if problem not in PROBLEMS:
        raise ValueError(f"unknown problem {problem!r}; one of {', '.join(PROBLEMS)}")
    if v.sampling not in SAMPLINGS:
        raise ValueError(f"unknown sampling {v.sampling!r}; valid: {', '.join(SAMPLINGS)}")
    if v.finish not in FINISHES:
        raise ValueError(f"unknown finish {v.finish!r}; valid: {', '.join(FINISHES)}")
    if v.finish in _VALID_FINDS:
        finds = _VALID_FINDS[v.finish]
        if v.find not in finds:
            raise ValueError(f"{v.finish} does not combine with {v.find!r}; "
                             f"valid find options: {', '.join(finds)}")
    elif v.find is not None:
        raise ValueError(f"{v.finish} takes no find option (its compression is part of the method); "
                         f"got {v.find!r}; write e.g. '{v.sampling}+{v.finish}'")
    if v.finish == "bfs-cc" and v.sampling != "none":
        raise ValueError(f"bfs-cc is a standalone baseline (a BFS per component) and takes no sampling; "
                         f"got {v.sampling!r}; use 'none+bfs-cc'")
    if v.sampling == "stride" and v.finish not in UNION_FINDS:
        raise ValueError(f"stride sampling is followed by a union-find pass over every edge; {v.finish} is not "
                         f"a union-find finish (use one of {', '.join(UNION_FINDS)}, or k-out, HB or BFS "
                         "sampling)")
    if v.finish in _NEEDS_SPLICE:
        if v.splice not in SPLICES:
            raise ValueError(f"{v.finish} needs a splice rule, one of {', '.join(SPLICES)}; got {v.splice!r}")
    elif v.splice is not None:
        raise ValueError(f"only Rem's algorithms take a splice rule; {v.finish} does not (got {v.splice!r})")
    if problem == "forest" and not v.root_based:
        if v.splice == "splice":
            raise ValueError(f"{v.name} cannot produce a spanning forest: it is not root-based "
                             "(SpliceAtomic moves non-roots between trees); use split-one or halve-one")
        raise ValueError(f"{v.name} cannot produce a spanning forest: {v.finish} is not root-based; "
                         + _ROOT_BASED_NAMES)
    if problem == "incremental":
        if v.sampling != "none":
            raise ValueError("incremental connectivity takes no sampling (batches arrive as COO); "
                             f"got {v.sampling!r}")
        if v.finish not in _ROOT_BASED:
            raise ValueError(f"{v.finish} is not root-based and cannot process incremental batches; "
                             + _ROOT_BASED_NAMES)


# --- the plan: everything a backend needs to run one variant ---------------

#: Finish families (paper Sec. 3.4-3.5).
UNION_FIND = "union-find"          # one pass of concurrent unions over the edges
HOOK_COMPRESS = "hook-compress"    # ECL-CC, Afforest: one hooking pass, then compression
ROUNDS = "rounds"                  # SV, Liu-Tarjan, Stergiou, LP: rounds until nothing changes
TRAVERSAL = "traversal"            # BFS-CC: a BFS per component

#: Liu-Tarjan rule codes, as the kernels take them.
LT_CONNECT_CODE = {"connect": 0, "parent-connect": 1, "extended-connect": 2}
LT_UPDATE_CODE = {"update": 0, "root-update": 1}
LT_SHORTCUT_CODE = {"shortcut": 0, "full-shortcut": 1}

# BFS sampling pays a synchronization per level, so it stops after this many; the finish completes it.
BFS_LEVELS = 256

#: Stride sampling unions runs of this many consecutive edges (a warp's read)
STRIDE_RUN = 32
#: and by default about this many edges per vertex (797e30a:BENCHMARKS.md, stride sampling)
STRIDE_K = 1

#: Options a variant takes (``algorithm=..., k=3``): name -> (default, help).
PARAMS = {
    "k": (2, f"edges per vertex for k-out sampling; for stride sampling, sampled edges per vertex on average, "
             f"{STRIDE_K} unless given"),
    "kout": ("afforest", "'afforest' (the first k edges) or 'paper' (first edge + k-1 random)"),
    "hb_n": (4, "edges per remaining root in HB sampling's second step"),
    "bfs_sample": (1024, "vertices sampled to pick BFS sampling's source"),
    "bfs_levels": (BFS_LEVELS, "levels BFS sampling runs before the finish takes over"),
    "max_rounds": (None, "round cap of the iterative finishes (SV, LT, Stergiou, LP); "
                         "default: see gconn.design.default_max_rounds"),
}

#: The options that take a name; the others take an integer.
PARAM_CHOICES = {"kout": ("afforest", "paper")}

#: Finishes that keep a second n-array beside the parents.
_LABEL_AUX = frozenset(("sv", "stergiou") + LT_FINISHES)


def default_max_rounds(finish: str, n: int) -> int:
    """The default round cap of an iterative finish on n vertices: n + 2 (LP settles within
    diameter + 1 rounds, SV hooks a root every round); Liu-Tarjan: (n + 2) * (log2 n + 4), generous.

    >>> default_max_rounds("label-prop", 2000)
    2002
    """
    n = max(int(n), 1)
    if finish in LT_RULES:
        return (n + 2) * (n.bit_length() + 4)
    return n + 2


def check_param_names(params: dict) -> None:
    """Raise TypeError naming any option a variant does not take."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        if "n" in unknown:
            raise TypeError("n is not an option of a run: the vertex count comes with the graph; build it "
                            "with n vertices first, e.g. gconn.Graph.from_edges(src, dst, n=...) or "
                            "gconn.load(path, n=...)")
        valid = "; ".join(f"{k} ({d}; default {dv!r})" for k, (dv, d) in PARAMS.items())
        raise TypeError(f"unknown option(s) {', '.join(unknown)}; valid options: {valid}")


#: Which variants each option applies to, how to say so, and a variant that has it.
_BFS = (lambda v: v.sampling == "bfs", "BFS sampling", "bfs+union-async+find-halve")
_KOUT = "kout+union-async+find-halve"
_PARAM_USE = {
    "k": (lambda v: v.sampling in ("kout", "stride"), "k-out or stride sampling", _KOUT),
    "kout": (lambda v: v.sampling == "kout", "k-out sampling", _KOUT),
    "hb_n": (lambda v: v.sampling == "hb", "HB sampling", "hb+union-async+find-halve"),
    "bfs_sample": _BFS,
    "bfs_levels": _BFS,
    "max_rounds": (lambda v: v.finish in ROUND_FINISHES, "the iterative finishes (SV, Liu-Tarjan, Stergiou, "
                   "label propagation)", "none+sv"),
}


def check_params_apply(v: "Variant", params: dict, chosen: bool) -> None:
    """Raise ValueError for an option ``v`` would ignore (``chosen``: ``v`` is the automatic choice).

    >>> check_params_apply(Variant.parse("kout+union-async"), {"k": 3}, False)
    >>> check_params_apply(Variant.parse("none+union-async"), {"k": 3}, True)
    Traceback (most recent call last):
    ...
    ValueError: k=3 applies to k-out or stride sampling, but the automatic choice here is none+union-async+find-halve, which has none; name a variant that has it (algorithm=, gconn -a), e.g. kout+union-async+find-halve
    """
    for key, value in params.items():
        if value is None or key not in _PARAM_USE:
            continue
        applies, what, example = _PARAM_USE[key]
        if not applies(v):
            who = "the automatic choice here is" if chosen else "the variant"
            raise ValueError(f"{key}={value} applies to {what}, but {who} {v.name}, which has none; name a "
                             f"variant that has it (algorithm=, gconn -a), e.g. {example}")


def lt_codes(finish: str) -> tuple:
    """A Liu-Tarjan finish's (connect, update, shortcut, alter) rule codes.

    >>> lt_codes("lt-prf")
    (1, 1, 1, False)
    """
    c, u, s, a = LT_RULES[finish]
    return LT_CONNECT_CODE[c], LT_UPDATE_CODE[u], LT_SHORTCUT_CODE[s], a


def _int_param(params: dict, name: str, low: int, what: str) -> int:
    value = params.get(name, PARAMS[name][0])
    try:
        ok = not isinstance(value, bool) and int(value) == value
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise TypeError(f"{name} must be an integer; got {value!r}")
    if int(value) < low:
        raise ValueError(f"{what} needs {name} >= {low}; got {value}")
    return int(value)


@dataclass(frozen=True)
class Plan:
    """Everything a backend needs to run one variant, derived once from it.
    A finish that is not a union-find samples with UnionAsync + FindHalve.

    >>> p = Plan.of(Variant.parse("kout+union-rem-lock+find-split"))
    >>> p.family, p.aux, p.k
    ('union-find', 'locks', 2)
    >>> Plan.of(Variant.parse("none+lt-prf")).lt
    (1, 1, 1, False)
    """

    variant: Variant
    family: str
    fin: int            # union, find and splice codes of the union-find kernels
    fopt: int
    sopt: int
    jtb: bool           # UnionJTB packs (rank, parent) into int64 records
    aux: str | None     # beside the parents: "hooks" (-1 = none), "locks" (0 = free), "labels" or None
    link: int           # ECL-CC's or Afforest's hook code (HOOK_COMPRESS only)
    lt: tuple | None    # Liu-Tarjan's (connect, update, shortcut, alter) codes
    k: int
    kout_paper: bool
    hb_n: int
    bfs_sample: int
    bfs_levels: int
    round_cap: int | None

    @classmethod
    @lru_cache(maxsize=4096)
    def of(cls, v: Variant) -> "Plan":
        params = dict(v.params)
        check_param_names(params)
        uf = v.is_union_find
        family = (UNION_FIND if uf else HOOK_COMPRESS if v.finish in EXISTING_FINISHES
                  else TRAVERSAL if v.finish == "bfs-cc" else ROUNDS)
        fin = FINISH_CODE[v.finish] if uf else FINISH_CODE["union-async"]
        aux = {"union-hooks": "hooks", "union-rem-lock": "locks"}.get(
            v.finish, "labels" if v.finish in _LABEL_AUX else None)
        kout = params.get("kout", PARAMS["kout"][0])
        if kout not in PARAM_CHOICES["kout"]:
            raise ValueError(f"kout must be 'afforest' or 'paper'; got {kout!r}")
        cap = params.get("max_rounds")
        cap = None if cap is None else _int_param(params, "max_rounds", 1, "an iterative finish")
        lt = lt_codes(v.finish) if v.finish in LT_RULES else None
        return cls(
            variant=v, family=family, fin=fin,
            fopt=FIND_CODE[v.find] if uf else FIND_CODE["find-halve"],
            sopt=SPLICE_CODE[v.splice] if v.splice else 0,
            jtb=v.finish == "union-jtb", aux=aux,
            link=FINISH_CODE[v.finish] if family == HOOK_COMPRESS else -1, lt=lt,
            k=_int_param(params, "k", 1, "k-out and stride sampling") if "k" in params or v.sampling != "stride"
            else STRIDE_K, kout_paper=kout == "paper",
            hb_n=_int_param(params, "hb_n", 1, "HB sampling"),
            bfs_sample=_int_param(params, "bfs_sample", 1, "BFS sampling"),
            bfs_levels=_int_param(params, "bfs_levels", 1, "BFS sampling"),
            round_cap=cap)

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def sampling(self) -> str:
        return self.variant.sampling

    @property
    def finish(self) -> str:
        return self.variant.finish

    @property
    def needs(self) -> str:
        """The form of the graph it reads (:data:`gconn.graph.FORMS`): ``"adjacency"`` or ``"edges"``.

        >>> Plan.of(Variant.parse("none+lt-prf")).needs, Plan.of(Variant.parse("hb+union-async")).needs
        ('edges', 'adjacency')
        """
        return "adjacency" if self.gathers or self.family == TRAVERSAL else "edges"

    @property
    def gathers(self) -> bool:
        """Whether the finish runs over the vertices outside L_max, not every edge."""
        return self.sampling in GATHERING

    def stride_step(self, m: int, n: int) -> int:
        """Stride sampling's step: the first ``STRIDE_RUN`` edges of every ``step``, about k n in all.

        >>> Plan.of(Variant.parse("stride+union-async")).stride_step(m=64 * 10**6, n=4 * 10**6)
        512
        """
        return STRIDE_RUN * max(1, m // max(1, self.k * n))

    @property
    def contract(self) -> bool:
        """Whether the gathered edges contract L_max to its root: a finish that is not root-based
        could move a vertex out of L_max."""
        return not self.variant.root_based

    def max_rounds(self, n: int) -> int:
        """The round cap on n vertices: ``max_rounds`` or the default."""
        return self.round_cap if self.round_cap is not None else default_max_rounds(self.finish, n)

    def device_bytes(self, n: int, m: int, id_bytes: int, ptr_bytes: int, forest: bool,
                     units_per_edge: float, positions: int = 0) -> int:
        """Memory a static run allocates beyond the graph's arrays (``units_per_edge``: gather work-list
        slots per directed edge; ``positions``: a forest's slots past the roots', ``forest_positions``)."""
        pb = 8 if self.jtb else id_bytes
        total = n * pb * (2 if self.aux else 1)
        if self.family != UNION_FIND:
            # the finish's edge lists and BFS-CC's levels and queues
            total += 6 * m * id_bytes + (n * (4 + 2 * id_bytes) if self.family == TRAVERSAL else 0)
        if forest:
            total += 2 * (n + positions) * id_bytes
        if self.gathers:
            total += n * id_bytes + int(2 * m * units_per_edge + 1) * (id_bytes + ptr_bytes)
        if self.sampling == "bfs":
            total += n * (4 + 3 * id_bytes)
        if self.jtb:
            total += n * id_bytes
        return total


def variants(problem: str = "cc") -> list[str]:
    """All valid variant names for ``problem`` ('cc', 'forest' or 'incremental').

    >>> "kout+union-async+find-halve" in variants()
    True
    """
    return [v.name for v in iter_variants(problem)]


def iter_variants(problem: str = "cc") -> Iterator[Variant]:
    if problem not in PROBLEMS:
        raise ValueError(f"unknown problem {problem!r}; one of {', '.join(PROBLEMS)}")
    samplings = ("none",) if problem == "incremental" else SAMPLINGS
    for v in (Variant(s, f, fd, sp) for s in samplings for f in FINISHES
              for fd in _VALID_FINDS.get(f, (None,)) for sp in (SPLICES if f in _NEEDS_SPLICE else (None,))):
        try:
            check(v, problem)
        except ValueError:
            continue
        yield v


def count_variants() -> dict:
    """Number of valid variants per problem, and their ``"total"``.

    >>> counts = count_variants()
    >>> counts["total"] == counts["cc"] + counts["forest"] + counts["incremental"]
    True
    """
    counts = {p: sum(1 for _ in iter_variants(p)) for p in PROBLEMS}
    counts["total"] = sum(counts.values())
    return counts


def is_auto(algorithm) -> bool:
    """Whether ``algorithm=`` asks for the automatic choice (None or ``"auto"``)."""
    return algorithm is None or (isinstance(algorithm, str) and algorithm == "auto")


def default_name(problem: str = "cc") -> str:
    return "none+union-async+find-halve" if problem == "incremental" else "kout+union-async+find-halve"


# --- the automatic choice: a table of rules --------------------------------
# Tests monkeypatch the thresholds, which the conditions read at call time; "B:" is a section of the
# measurement journal (`git show 797e30a:BENCHMARKS.md`).

#: average degree below which sampling inspects most edges anyway
AUTO_MIN_DEGREE = 5.0
#: HB's estimated coverage above which the CPU samples with HB, not k-out
AUTO_HB_COVERAGE = 0.9
#: below this average degree the GPU does not sample (but see the chains)
AUTO_GPU_MIN_DEGREE = 8.0
#: k-out from this many input edges on the GPU, HB below
AUTO_GPU_KOUT_EDGES = 1 << 20
#: UnionAsync at low degree on the GPU from this many input edges
AUTO_GPU_ASYNC_EDGES = 1 << 23
#: scattered ids take k-out from this many input edges and this average degree
AUTO_GPU_SCATTERED_EDGES = 1 << 22
AUTO_GPU_SCATTERED_DEGREE = 2.5
#: at most this share of HB roots (Graph.hb_roots) makes a graph "chains"
AUTO_GPU_HB_ROOTS = 0.01
#: ... as do scattered ids below AUTO_GPU_SCATTERED_DEGREE from this many input edges (a path in random order)
AUTO_GPU_PATH_EDGES = 1 << 21
#: stride sampling from this many edges, on at most this many vertices
AUTO_GPU_STRIDE_EDGES = 1 << 18
AUTO_GPU_STRIDE_MAX_N = 1 << 18


class Rule(NamedTuple):
    """One rule of :func:`choose`: where ``when(features)`` holds, ``variant`` (``{link}`` filled from
    :class:`_Features`)."""

    backend: str
    name: str
    when: Callable
    variant: str
    why: str


RULES = (
    Rule("any", "incremental", lambda f: f.problem == "incremental", "none+union-async+find-halve",
         "batches arrive as COO, so no sampling; the paper's default finish"),
    Rule("any", "empty", lambda f: f.n == 0 or f.m == 0, "none+union-async+find-halve", "nothing to link"),
    # --- GPU
    Rule("gpu", "a path",
         lambda f: f.chains and f.degree < AUTO_GPU_SCATTERED_DEGREE, "none+union-rem-cas+find-naive+{link}",
         "a path takes no sampling, and FindHalve does not pay (B: Fourteenth session); in random order too: "
         "path_s22 0.344 ms replayed, 0.379 launched, against FindSplit's 0.434 and 0.497 (BENCHMARKS.md, GPU)"),
    Rule("gpu", "large and road-like",
         lambda f: f.degree < AUTO_MIN_DEGREE and f.m >= AUTO_GPU_ASYNC_EDGES and not (f.scattered or f.chains),
         "none+union-async+find-halve",
         "UnionAsync wins on large road-like graphs only (B: The automatic choice at low average degree (GPU))"),
    Rule("gpu", "an edge list on few vertices",
         lambda f: not (f.adjacency or f.low or f.chunked) and f.m >= AUTO_GPU_STRIDE_EDGES
         and f.n <= AUTO_GPU_STRIDE_MAX_N, "stride+union-rem-cas+find-naive+{link}",
         "flat trees shorten finds where parents fit the caches (B: Thirty-fourth session: stride sampling)"),
    Rule("gpu", "low degree, or no adjacency",
         lambda f: (f.low or not f.adjacency) and not (f.scattered or f.chains),
         "none+union-rem-cas+find-split+split-one",
         "the adjacency costs more than sampling saves "
         "(B: The automatic choice; The automatic choice at low average degree (GPU))"),
    Rule("gpu", "a small graph, launched",
         lambda f: f.launched and f.m < AUTO_GPU_KOUT_EDGES,
         "none+union-rem-cas+find-naive+{link}",
         "a call launched from the host, not replayed, pays each kernel's launch; below 2^20 edges sampling's "
         "launches cost more than it saves: soc-Slashdot0902 0.110 ms against HB's 0.174 (BENCHMARKS.md, GPU); "
         "a spanning forest too: 0.107 ms against HB's 0.283 (2026-11-29)"),
    Rule("gpu", "k-out where HB leaves many roots",
         lambda f: f.kout and f.graph.hb_roots() > AUTO_GPU_HB_ROOTS, "kout+union-rem-cas+find-naive+{link}",
         "after k-out the few unions left do not repay FindHalve's compression (B: Fourteenth session)"),
    Rule("gpu", "HB, a spanning forest", lambda f: f.problem == "forest",
         "hb+union-rem-cas+find-split+split-one",
         "SpliceAtomic moves non-roots; FindSplit where FindHalve would be chosen (B: Fourteenth session)"),
    Rule("gpu", "HB", lambda f: True, "hb+union-rem-cas+find-halve+splice",
         "with an adjacency, sampling wins at every size; below 2^20 edges, on chains, and where HB's hooks "
         "leave few roots (the paper's Sec. 4.6: HB where it covers the graph), HB: on ba_s22_k16 its repeated "
         "call takes 0.80x k-out's (BENCHMARKS.md, GPU)"),
    # --- CPU
    Rule("cpu", "low degree, or no adjacency",
         lambda f: f.degree < AUTO_MIN_DEGREE or not f.adjacency, "none+union-async+find-halve",
         "road-like graphs lose with sampling (paper Sec. 4.6), and building the adjacency costs more than "
         "it saves (B: The automatic choice counts construction (CPU, one thread, CPU time))"),
    Rule("cpu", "HB covers the graph", lambda f: f.coverage() >= AUTO_HB_COVERAGE, "hb+union-async+find-halve",
         "the paper's decision tree (Sec. 4.6): HB where its first step covers most vertices"),
    Rule("cpu", "otherwise", lambda f: True, "kout+union-async+find-halve", "the paper's decision tree (Sec. 4.6)"),
)


class _Features:
    """What the rules read of a graph: cheap features as attributes, probes of the adjacency as methods."""

    __slots__ = ("adjacency", "chains", "degree", "graph", "hb_coverage", "kout", "launched", "link", "low", "m", "n",
                 "problem", "scattered", "chunked")

    def __init__(self, graph, problem, backend, chunked, hb_coverage, launched=False):
        self.graph, self.problem, self.chunked, self.hb_coverage = graph, problem, chunked, hb_coverage
        self.launched = launched
        self.link = "split-one" if problem == "forest" else "splice"
        self.n, self.m = n, m = graph.n, graph.m_input
        if problem == "incremental" or not (n and m):
            return                      # the first two rules decide
        self.degree = degree = 2.0 * m / n
        self.adjacency = adjacency = graph.has_form("adjacency")
        self.low = low = degree < AUTO_GPU_MIN_DEGREE
        if backend != "gpu":
            return
        # low degree with scattered ids: unsampled finishes miss the caches
        self.scattered = (adjacency and m >= AUTO_GPU_SCATTERED_EDGES and AUTO_GPU_SCATTERED_DEGREE <= degree
                          and low and not graph.ids_local())
        self.chains = adjacency and low and not self.scattered and (
            graph.hb_roots() <= AUTO_GPU_HB_ROOTS
            or (degree < AUTO_GPU_SCATTERED_DEGREE and m >= AUTO_GPU_PATH_EDGES and not graph.ids_local()))
        self.kout = (m >= AUTO_GPU_KOUT_EDGES and not self.chains) or self.scattered

    def coverage(self) -> float:
        return self.hb_coverage(self.graph) if self.hb_coverage is not None else 0.0

    def __getitem__(self, key):         # for str.format_map
        return getattr(self, key)


#: the rules of each backend, and the variants they named
_RULES_OF = {side: tuple(r for r in RULES if r.backend in ("any", side)) for side in ("cpu", "gpu")}
_NAMED: dict = {}


def choose(graph, problem: str = "cc", backend: str = "cpu", hb_coverage=None, chunked: bool = False,
           launched: bool = False) -> Variant:
    """The automatic choice: the variant of the first rule of ``RULES``
    for ``backend`` that holds (``hb_coverage(graph)``: a lower bound on HB's
    coverage; ``chunked``: the edges would come in chunks, the chunked route;
    ``launched``: a GPU run launched from the host, not replayed from its capture).

    >>> import gconn
    >>> choose(gconn.Graph.from_edges([0, 1], [1, 2])).name
    'none+union-async+find-halve'
    """
    f = _Features(graph, problem, backend, chunked, hb_coverage, launched)
    for rule in _RULES_OF["gpu" if backend == "gpu" else "cpu"]:
        if rule.when(f):
            key = (rule.variant, f.link)
            v = _NAMED.get(key)
            if v is None:
                v = _NAMED[key] = Variant(*rule.variant.format_map(f).split("+"))
            return v


#: Every variant :func:`choose` can name on the GPU, by problem (``gconn warmup`` compiles them).
def forest_by_position(graph, plan: Plan) -> str | None:
    """Where a GPU spanning forest records each hook in the slot of the edge its pass reads
    (``"kout"``: k-out's n k threads; ``"edges"``: the union-find pass over every edge), past the
    roots' slots, instead of in the slot of the root it hooks; None: the roots' slots only.

    By position where the graph has low degree and scattered ids: there the roots' slots are
    scattered stores that evict the parents from L2 (road_4k_shuf's k-out forest 3.2 -> 1.8 ms
    against 1.5 for its components; path_s22 0.56 -> 0.37 against 0.35; BENCHMARKS.md, "Spanning
    forest"). Elsewhere the roots' slots are near their own vertices (ids in order), or the hooks
    are few beside the positions the API's collection then reads (high degree).

    >>> import gconn
    >>> from gconn.graph import generators as gen
    >>> plan = Plan.of(Variant.parse("none+union-async"))
    >>> for permute in (False, True):
    ...     g = gconn.Graph.from_edges(*gen.path_edges((1 << 21) + 1, permute=permute))
    ...     _ = g.adjacency()
    ...     print(forest_by_position(g, plan))
    None
    edges
    """
    mode = "kout" if plan.sampling == "kout" else \
        "edges" if plan.sampling == "none" and plan.family == UNION_FIND else None
    n, m = graph.n, graph.m_input
    if mode is None or m < AUTO_GPU_PATH_EDGES or 2.0 * m / n >= AUTO_GPU_MIN_DEGREE \
            or not graph.has_form("adjacency") or graph.ids_local():
        return None
    return mode


def forest_positions(graph, plan: Plan) -> int:
    """The forest slots past the n roots' that :func:`forest_by_position` fills."""
    mode = forest_by_position(graph, plan)
    return graph.n * plan.k if mode == "kout" else graph.m_input if mode == "edges" else 0


AUTO_GPU_VARIANTS = {
    "cc": ("none+union-async+find-halve", "none+union-rem-cas+find-split+split-one",
           "none+union-rem-cas+find-naive+splice", "kout+union-rem-cas+find-naive+splice",
           "hb+union-rem-cas+find-halve+splice",
           "stride+union-rem-cas+find-naive+splice"),
    "forest": ("none+union-async+find-halve", "none+union-rem-cas+find-split+split-one",
               "none+union-rem-cas+find-naive+split-one", "kout+union-rem-cas+find-naive+split-one",
               "hb+union-rem-cas+find-split+split-one",
               "stride+union-rem-cas+find-naive+split-one"),
}
