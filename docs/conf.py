"""Sphinx configuration of gconn's documentation (build: see docs/index.rst)."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The docs document the checkout they sit in, installed or not.
sys.path[:0] = [str(HERE.parent / "src"), str(HERE / "_ext")]

import gconn  # noqa: E402

project = "gconn"
author = "gconn developers"
copyright = "gconn developers, MIT license"
release = version = gconn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "gconn_docs",
]
exclude_patterns = ["_build", "ARCHITECTURE.md", "examples"]
html_theme = "alabaster"
html_theme_options = {"description": "Graph connectivity on GPUs and CPUs", "fixed_sidebar": True}
html_static_path = []

# gconn's docstrings are reST prose, not NumPy/Google sections: no napoleon
# (it would read a "#: text: more" attribute comment as a type).
autodoc_member_order = "bysource"
autodoc_typehints = "signature"

# Every cross-reference must resolve (with -W a broken one fails the
# build).  CI has no network for intersphinx, so the few names of other
# projects that signatures and pages mention are listed here instead.
nitpicky = True
nitpick_ignore = [
    ("py:class", "numpy.ndarray"),
    ("py:class", "np.ndarray"),
    ("py:class", "inspect.Parameter"),
    ("py:class", "pathlib.Path"),
    ("py:func", "scipy.sparse.csgraph.connected_components"),
]

# The narrative pages' examples run in `sphinx-build -b doctest`: they sit
# in `.. doctest::` directives (gconn_docs warns about a bare `>>>` block
# there).  The API pages' docstring examples are the ones `pytest
# --doctest-modules` already runs, in their modules' namespaces, so the
# builder leaves them alone.
doctest_test_doctest_blocks = ""
# the pages show the notes where they are the point (Stats.input, identify's notes), not as warnings
doctest_global_setup = ("from gconn_docs import enter_workspace, gpu_usable, have; enter_workspace()\n"
                        "import warnings, gconn; warnings.simplefilter('ignore', gconn.InputNote)")
