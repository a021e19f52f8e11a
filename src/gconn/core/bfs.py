"""The direction-optimizing BFS's switch (Beamer, Asanovic, Patterson),
shared by both backends' searches (BFS sampling and BFS-CC).

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
