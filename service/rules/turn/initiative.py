"""seed 002 Initiative Track: box bonuses, the ranking and its ties, and the
shift of the markers at the end of a turn."""

from __future__ import annotations

from service.rules import state as st
from service.rules.state import State


def bonus(box: int) -> int:
    return st.BOX_BONUS[box]


def rank(state: State, totals: dict[str, int]) -> tuple[str, ...]:
    """Sides from best to worst total; ties go to the side ranked lower last turn."""
    last = state.initiative.last_turn_rank
    return tuple(sorted(totals, key=lambda side: (-totals[side], -last.index(side))))


def shifted_boxes(state: State) -> dict[str, int]:
    """seed 002 Initiative Track: left one box for fewer impulses than another side,
    right one for more (a side with both moves not at all); clamped to the five boxes."""
    taken = state.turn.impulses_taken
    boxes = dict(state.initiative.boxes)
    for side, mine in taken.items():
        shift = 0
        if any(mine < other for s, other in taken.items() if s != side):
            shift -= 1
        if any(mine > other for s, other in taken.items() if s != side):
            shift += 1
        boxes[side] = max(0, min(4, boxes[side] + shift))
    return boxes
