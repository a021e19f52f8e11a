"""Algorithm bodies written once, compiled for each backend by its primitives
(:mod:`gconn.backends.core.primitives`): the union-find family and the min-based
finishes."""
