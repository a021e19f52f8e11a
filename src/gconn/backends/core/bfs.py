"""The direction-optimizing BFS (Beamer, Asanovic, Patterson): its switch
and its level loop, shared by both backends' searches (BFS sampling and
BFS-CC); a backend supplies the three steps of :class:`LevelSearch`.

>>> next_direction(False, nf=1, fe=1000, unexplored=2000, n=10)
True
>>> next_direction(True, nf=1, fe=0, unexplored=0, n=100)
False
"""
from __future__ import annotations

#: bottom-up when the frontier's edges exceed the unexplored edges / ALPHA
ALPHA = 15
#: top-down again when the frontier shrinks below n / BETA
BETA = 18


def next_direction(bottom_up: bool, nf: int, fe: int, unexplored: int, n: int) -> bool:
    """Whether the next level runs bottom-up, given this one's direction,
    the frontier's size ``nf`` and edges ``fe`` and the edges not yet
    explored.  A frontier that would switch straight back never goes
    bottom-up: a bottom-up step scans all n vertices, which late, small
    components must not pay."""
    if not bottom_up:
        return fe > unexplored / ALPHA and nf >= n / BETA
    return nf >= n / BETA


class LevelSearch:
    """Direction-optimizing BFS over one graph of ``n`` vertices and
    ``edges`` directed edges, run from one source or, for BFS-CC, from each
    not-yet-visited vertex in turn.  Depths run on across the searches, so
    a level equal to ``depth`` always means the current search.
    ``inspected`` and ``levels`` add up over the searches.

    A backend implements ``begin(source, depth)`` (mark the source; return
    its degree), ``top_down(depth, nf)`` and ``bottom_up(depth)`` (one level;
    return the new frontier's size and edges and the edges scanned) and
    ``queue(depth)`` (the vertices on level ``depth`` as the frontier, to go
    top-down again)."""

    def __init__(self, n: int, edges: int):
        self.n = n
        self.unexplored = edges
        self.depth = 0
        self.inspected = 0
        self.levels = 0

    def run(self, source: int, max_levels: int | None = None) -> None:
        """Visit the component of the unvisited ``source``, for at most
        ``max_levels`` levels."""
        self.depth += 1
        fe = self.begin(source, self.depth)
        self.unexplored -= fe
        nf, bottom_up, done = 1, False, 0
        limit = self.n if max_levels is None else max_levels
        while nf > 0 and done < limit:
            self.depth += 1
            done += 1
            was_bottom_up = bottom_up
            bottom_up = next_direction(bottom_up, nf, fe, self.unexplored, self.n)
            if was_bottom_up and not bottom_up:
                self.queue(self.depth - 1)
            if bottom_up:
                nf, fe, scanned = self.bottom_up(self.depth)
            else:
                nf, fe, scanned = self.top_down(self.depth, nf)
            self.inspected += scanned
            self.unexplored -= fe
        self.levels += done
