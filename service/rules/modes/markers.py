"""Reserve markers where choices are offered (OCS 5.4a, issue 34): how many a side has
left, whether an offered change into Reserve or a Reserve unit's move would take a new
one, and whether the `report` order would refuse the move for want of one.

A side's markers in use are its stacks in Reserve, every one counted as when its
movement ends (`vocabulary.reserve_stacks`); a move is judged as the `report` order
judges it, by the markers placed once the unit has moved (`change.reserve_limit_problem`).
"""

from __future__ import annotations

from dataclasses import replace

from typing_extensions import TypedDict

from service.rules.modes import vocabulary as m
from service.rules.modes.change import reserve_limit_problem
from service.rules.state import State

__all__ = ["ReserveMarkers", "change_needs_marker", "move_marker", "reserve_markers"]


class ReserveMarkers(TypedDict):
    """A side's Reserve markers (OCS 5.4a): the scenario's `limit`, those `in_use` (its
    stacks in Reserve) and those `left`."""

    limit: int
    in_use: int
    left: int


def reserve_markers(state: State, side: str) -> ReserveMarkers:
    limit = state.setup.scenario.side(side).reserve_markers
    in_use = len(m.reserve_stacks(state, side))
    return {"limit": limit, "in_use": in_use, "left": max(0, limit - in_use)}


def _grows(state: State, uid: str, at: str) -> bool:
    """Whether the side's stacks in Reserve grow with `uid` in Reserve in `at`."""
    side = m.side_of_unit(state, uid)
    before = m.reserve_stacks(state, side)
    sc = state.setup.scenario
    others = {u.at for other, u in state.units.items()
              if other != uid and u.mode == m.RESERVE and sc.side_of_power(u.power) == side}
    return len(others | {at}) > len(before)


def change_needs_marker(state: State, uid: str) -> bool:
    """Whether `uid` in Reserve where it stands takes a new marker (no stack of its side
    is in Reserve there, and it is not in Reserve already)."""
    return _grows(state, uid, state.units[uid].at)


def move_marker(state: State, uid: str, to: str) -> tuple[bool, str | None]:
    """For Reserve unit `uid` moving to `to`: whether its side's markers in use grow, and
    why the `report` order refuses the move for want of markers (None if it does not):
    the unit's marker is placed once it has moved (OCS 5.4a)."""
    moved = replace(state.units[uid], at=to, moved=True)
    after = replace(state, units={**state.units, uid: moved})
    problem = reserve_limit_problem(after, m.side_of_unit(state, uid), placed_only=True)
    return _grows(state, uid, to), problem
