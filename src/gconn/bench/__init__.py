"""Benchmarks: ``gconn bench`` / ``python -m gconn.bench``.

>>> from gconn.bench import run, markdown_table
>>> rows = run(["path:50"], repeat=1, warmup=0, backend="cpu")
>>> "| path:50 |" in markdown_table(rows)
True
"""
from gconn.bench.harness import FASTEST, Row, expand_variants, markdown_table, run, write_csv, write_markdown
from gconn.bench.suites import SUITES, data_dir

__all__ = ["run", "Row", "expand_variants", "markdown_table", "write_csv", "write_markdown", "FASTEST", "SUITES",
           "data_dir"]
