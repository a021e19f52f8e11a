"""Errors gconn raises beyond ValueError/TypeError.

Every module may import this one; it imports nothing of gconn.
"""
from __future__ import annotations


class ConvergenceError(RuntimeError):
    """An iterative finish (SV, Liu-Tarjan, Stergiou, label propagation) did
    not converge within ``max_rounds`` rounds.

    >>> import gconn
    >>> path = gconn.Graph.from_edges(range(99, 0, -1), range(98, -1, -1))
    >>> try:
    ...     gconn.connected_components(path, algorithm="none+label-prop", backend="cpu", max_rounds=1)
    ... except gconn.ConvergenceError as e:
    ...     print("raised")
    raised
    """


class GPUUnavailableError(RuntimeError):
    """backend='gpu' was asked for but no usable CUDA GPU was found."""


def not_converged(name: str, max_rounds: int) -> ConvergenceError:
    """The error of a finish that hit its round cap."""
    return ConvergenceError(f"{name} did not converge within max_rounds={max_rounds} rounds; "
                            "pass a larger max_rounds")
