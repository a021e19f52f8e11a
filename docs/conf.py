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
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "gconn_docs",
]
exclude_patterns = ["_build", "ARCHITECTURE.md", "examples"]
html_theme = "alabaster"
html_theme_options = {"description": "Graph connectivity on GPUs and CPUs", "fixed_sidebar": True}
html_static_path = []

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": False}
napoleon_numpy_docstring = True
napoleon_google_docstring = False

# No network in CI: intersphinx would warn (= fail) on every fetch.  The
# mapping stays empty; external names are written as plain literals.
intersphinx_mapping = {}

# The narrative pages' examples run in `sphinx-build -b doctest`: every
# `>>>` block and testcode block.  The API pages' docstring examples are the
# ones `pytest --doctest-modules` already runs, so they are not run twice.
doctest_test_doctest_blocks = ""
doctest_global_setup = "from gconn_docs import enter_workspace, gpu_usable, have; enter_workspace()"
