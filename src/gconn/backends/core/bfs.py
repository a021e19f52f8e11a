"""The direction-optimizing BFS (Beamer et al.): its switch and level loop,
shared by both backends; a backend supplies the steps of :class:`LevelSearch`.

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
    """Whether the next level runs bottom-up.  A frontier that would switch straight
    back never goes bottom-up (which scans all n vertices)."""
    if not bottom_up:
        return fe > unexplored / ALPHA and nf >= n / BETA
    return nf >= n / BETA


class LevelSearch:
    """Direction-optimizing BFS from one source or, for BFS-CC, from each
    unvisited vertex in turn; depths run on across searches.  A backend gives
    ``begin(source, depth)`` (the source's degree), ``top_down(depth, nf)``
    and ``bottom_up(depth)`` (the new frontier's size and edges, edges
    scanned) and ``queue(depth)`` (level ``depth`` as the frontier)."""

    def __init__(self, n: int, edges: int):
        self.n = n
        self.unexplored = edges
        self.depth = 0
        self.inspected = 0
        self.levels = 0

    def run(self, source: int, max_levels: int | None = None) -> None:
        """Visit the component of ``source``, for at most ``max_levels`` levels."""
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
