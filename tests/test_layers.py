"""Imports run one way: a layer of gconn imports only the layers below it
(in functions too)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "gconn"
#: bottom to top; errors and design share the bottom
LAYERS = ["errors", "design", "pipeline", "graph", "io", "backends", "inputs", "chunked", "api",
          "integrations", "bench", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)} | {"design": 0}


def imports(path: Path):
    """(line, module) of each absolute import of a gconn module in ``path``."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
            if node.module == "gconn":
                yield from ((node.lineno, f"gconn.{a.name}") for a in node.names)


def layer(module: str):
    parts = module.split(".")
    return parts[1] if parts[0] == "gconn" and len(parts) > 1 and parts[1] in RANK else None


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_layer_imports_one_above_it(path):
    mine = layer("gconn." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts))
    if mine is None:
        return      # gconn/__init__ and __main__ sit above every layer
    up = [f"line {line}: {module}" for line, module in imports(path)
          if layer(module) is not None and RANK[layer(module)] > RANK[mine]]
    assert not up, f"{path.relative_to(PACKAGE)} ({mine}) imports layers above it: {up}"


def test_the_check_sees_an_upward_import(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    from gconn.backends.gpu import graph\n")
    assert [layer(m) for _, m in imports(bad)] == ["backends"]
    assert RANK["backends"] > RANK["graph"]


def test_at_most_14_entries_at_the_top():
    """Each entry of src/gconn a concept: the layers, and the package's own two files."""
    entries = sorted(p.stem for p in PACKAGE.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 14, entries
    assert set(entries) <= set(LAYERS) | {"__init__", "__main__"}, entries
