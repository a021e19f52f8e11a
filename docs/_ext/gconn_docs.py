"""What gconn's documentation needs beyond Sphinx itself.

* ``.. gconn-command::`` runs the ``gconn`` commands written in it (one per
  line, starting with ``gconn``; ``cat FILE`` shows a file one wrote) while
  the page is read, and shows each with its real output.  A command that
  exits with a non-zero status (or, with ``:fails:``, one that succeeds) is
  a build warning, so under ``-W`` a broken example fails the build.
* ``.. gconn-help:: cc`` shows the ``--help`` of a command (the CLI
  reference, generated from the parser the command uses).
* Examples run in a workspace folder holding the bundled real graphs
  (``tests/data/graphs``) and the small files of ``docs/examples``;
  ``enter_workspace()`` (the doctest builder's global setup) and the
  command directive both run there.
* A ``>>>`` block outside a ``.. doctest::`` directive on a narrative page
  is a warning: the doctest builder would not run it (``conf.py`` leaves
  the docstrings' examples to pytest).
"""
from __future__ import annotations

import contextlib
import io
import os
import shlex
import shutil
import tempfile
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

DOCS = Path(__file__).resolve().parent.parent
REPO = DOCS.parent
logger = logging.getLogger(__name__)
_workspace: Path | None = None


def workspace() -> Path:
    """The folder the examples run in, made once per process."""
    global _workspace
    if _workspace is None:
        folder = Path(tempfile.mkdtemp(prefix="gconn-docs-"))
        for source in [*sorted((REPO / "tests" / "data" / "graphs").glob("*.gz")),
                       *sorted((DOCS / "examples").iterdir())]:
            shutil.copy(source, folder / source.name)
        _workspace = folder
    return _workspace


def enter_workspace() -> None:
    os.chdir(workspace())


def gpu_usable() -> bool:
    """Whether ``backend="gpu"`` runs here (a GPU, or numba's simulator)."""
    from gconn.backends import gpu
    return gpu.available(simulator_ok=True)[0]


def have(module: str) -> bool:
    """Whether ``module`` imports here (a doctest's ``:skipif:``)."""
    import importlib.util
    return importlib.util.find_spec(module) is not None


def _run(argv: list[str]) -> tuple[int, str, str]:
    from gconn import cli
    out, err = io.StringIO(), io.StringIO()
    here, columns = os.getcwd(), os.environ.get("COLUMNS")
    os.chdir(workspace())
    os.environ["COLUMNS"] = "100"  # argparse wraps --help to the terminal's width
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
    finally:
        os.chdir(here)
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return code, out.getvalue(), err.getvalue()


class CommandDirective(SphinxDirective):
    """Run ``gconn ...`` lines and show them with their output."""

    has_content = True
    option_spec = {"fails": directives.flag}

    def run(self):
        shown = []
        for line in self.content:
            if not line.strip():
                continue
            words = shlex.split(line)
            if words[0] == "cat" and len(words) == 2:
                # What a command wrote, as the reader would look at it.
                shown.append(f"$ {line}\n{(workspace() / words[1]).read_text()}".rstrip())
                continue
            if words[0] != "gconn":
                raise self.error(f"gconn-command runs gconn commands (and 'cat FILE') only, not {line!r}")
            code, out, err = _run(words[1:])
            expect_failure = "fails" in self.options
            if (code != 0) != expect_failure:
                logger.warning(f"{line!r} exited with status {code}"
                               f"{' (expected a failure)' if expect_failure else ''}: {err.strip()}",
                               location=(self.env.docname, self.lineno))
            # Errors go to stderr: show them where a terminal would.
            shown.append(f"$ {line}\n{out}{err if code else ''}".rstrip())
        text = "\n\n".join(shown)
        block = nodes.literal_block(text, text, language="console")
        self.set_source_info(block)
        return [block]


class HelpDirective(SphinxDirective):
    """``gconn [COMMAND] --help``, as the command prints it."""

    required_arguments = 0
    optional_arguments = 1

    def run(self):
        argv = [*self.arguments, "--help"]
        code, out, err = _run(argv)
        if code != 0:
            logger.warning(f"gconn {' '.join(argv)} exited with {code}: {err.strip()}",
                           location=(self.env.docname, self.lineno))
        text = f"$ gconn {' '.join(argv)}\n{out}".rstrip()
        block = nodes.literal_block(text, text, language="text")
        self.set_source_info(block)
        return [block]


def _check_doctest_blocks(app, doctree) -> None:
    if app.env.docname.startswith("api"):
        return
    for block in doctree.findall(nodes.doctest_block):
        logger.warning("a '>>>' block outside '.. doctest::' is not run by the doctest builder; "
                       "put it in a doctest directive", location=block)


def setup(app):
    app.add_directive("gconn-command", CommandDirective)
    app.add_directive("gconn-help", HelpDirective)
    app.connect("doctree-read", _check_doctest_blocks)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
