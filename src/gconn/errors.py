"""Errors gconn raises beyond ValueError/TypeError (imports nothing of gconn)."""
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


class VertexRangeError(ValueError):
    """A vertex id (or ``n``) asks for more memory than the machine has,
    raised before anything is allocated; ``vertex_id``, ``n``, ``needed``
    and ``available`` (bytes) hold the numbers.

    >>> import gconn
    >>> try:
    ...     gconn.Graph.from_edges([0], [2**50])
    ... except gconn.VertexRangeError as e:
    ...     print(e.vertex_id, e.n == 2**50 + 1)
    1125899906842624 True
    """

    def __init__(self, origin: str, *, vertex_id: int | None, n: int, needed: int, available: int,
                 hint: str | None = None):
        self.origin = origin
        self.hint = hint
        self.vertex_id = vertex_id
        self.n = n
        self.needed = needed
        self.available = available
        if vertex_id is None:
            what = f"{origin} needs {n:,} vertices"
            default = "pass a smaller n"
        else:
            what = f"{origin}: vertex id {vertex_id} needs {n:,} vertices (ids 0..{n - 1})"
            default = ("if most ids below it are unused, pass relabel=True (gconn cc --relabel) to number "
                       "only the ids that occur")
        super().__init__(f"{what}, about {human_bytes(needed)} of memory, but {human_bytes(available)} "
                         f"is available; {hint or default}")

    def at(self, origin: str, vertex_id: int | None = None, hint: str | None = None) -> "VertexRangeError":
        """The same error from another place (a file and line for an index)."""
        return VertexRangeError(origin, vertex_id=vertex_id, n=self.n, needed=self.needed,
                                available=self.available, hint=hint)


class InputNote(UserWarning):
    """A guess gconn made reading an input (its format, a header, the edge
    columns, ...): the sentence ``Stats.input["notes"]`` holds and the command
    line prints.  Silence them with ``warnings.simplefilter("ignore", gconn.InputNote)``.

    >>> import gconn, warnings, pandas as pd
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     k = gconn.connected_components(pd.DataFrame({"a": [0], "b": [1], "c": [5]}), backend="cpu")[0]
    >>> [str(w.message) for w in seen if w.category is gconn.InputNote]
    ["the table: the edges are columns 'a' and 'b', the first two of 3 (source= and target= pick others)"]
    """


def note(notes, stacklevel: int = 3) -> None:
    """Warn each of ``notes`` as an :class:`InputNote`."""
    import warnings
    for text in notes:
        warnings.warn(text, InputNote, stacklevel=stacklevel)


class GPUUnavailableError(RuntimeError):
    """backend='gpu' was asked for but no usable CUDA GPU was found."""


def not_converged(name: str, max_rounds: int) -> ConvergenceError:
    """The error of a finish that hit its round cap."""
    return ConvergenceError(f"{name} did not converge within max_rounds={max_rounds} rounds; "
                            "pass a larger max_rounds")


def human_bytes(nbytes: float) -> str:
    """'1.5 GB' style, decimal units."""
    size = float(nbytes)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} TB"
