"""SciPy's own tests of ``connected_components``, run against gconn.integrations.csgraph.

The test modules come from the installed SciPy
(``scipy/sparse/csgraph/tests/``): each is loaded as a fresh copy under
another name, its module-level name for the csgraph package is pointed at a
stand-in whose ``connected_components`` is ours (everything else stays
SciPy's), and its connected-components tests are lifted into this module,
where pytest collects and runs them.  SciPy itself is not patched.

* ``test_connected_components.py``: every test (all pass).
* ``test_pydata_sparse.py``: ``test_connected_components`` with its
  fixtures, on pydata/sparse COO and DOK.  SciPy marks the DOK case xfail
  (SciPy cannot read DOK); gconn converts DOK through COO, so that case
  passes (pytest reports XPASS).  Needs the ``sparse`` package (in the
  ``test`` extra).

No SciPy connected-components test is left out.
"""
from __future__ import annotations

import importlib.util
import types
from pathlib import Path

import scipy.sparse.csgraph as scipy_csgraph

import gconn.integrations.csgraph

SCIPY_TESTS = Path(scipy_csgraph.__file__).parent / "tests"


def _csgraph_with_ours() -> types.ModuleType:
    """A stand-in for scipy.sparse.csgraph: our connected_components, the
    rest SciPy's."""
    mod = types.ModuleType("scipy_csgraph_with_gconn")
    mod.__getattr__ = lambda name: getattr(scipy_csgraph, name)
    mod.connected_components = gconn.integrations.csgraph.connected_components
    return mod


def _load(file: str, csgraph_name: str) -> types.ModuleType:
    """A fresh copy of SciPy's test module ``file`` with its global
    ``csgraph_name`` (how it refers to scipy.sparse.csgraph) replaced."""
    spec = importlib.util.spec_from_file_location(f"scipy_suite_{Path(file).stem}", SCIPY_TESTS / file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert getattr(mod, csgraph_name) is scipy_csgraph, f"{file} no longer imports csgraph as {csgraph_name}"
    setattr(mod, csgraph_name, _csgraph_with_ours())
    return mod


_cc = _load("test_connected_components.py", "csgraph")
_CC_TESTS = {name: fn for name, fn in vars(_cc).items() if name.startswith("test_")}
assert len(_CC_TESTS) >= 8, f"only {len(_CC_TESTS)} tests found in SciPy's test_connected_components.py"
globals().update(_CC_TESTS)

_pydata = _load("test_pydata_sparse.py", "spgraph")
sparse_cls = _pydata.sparse_cls
graphs = _pydata.graphs
# SciPy's own skip mark: skipped only where pydata/sparse is not installed
test_pydata_connected_components = _pydata.pytestmark(_pydata.test_connected_components)


def test_the_suite_calls_gconn(monkeypatch):
    """The lifted tests reach gconn.integrations.csgraph, not SciPy."""
    calls = []
    ours = gconn.integrations.csgraph.connected_components
    monkeypatch.setattr(_cc.csgraph, "connected_components", lambda *a, **k: calls.append(1) or ours(*a, **k))
    _CC_TESTS["test_weak_connections"]()
    assert calls
