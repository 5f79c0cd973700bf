"""Reserve markers where choices are offered (OCS 5.4a, issue 34): how many a side has
left, whether an offered change into Reserve or a Reserve unit's move would take a new
one, and whether the `report` order would refuse the move for want of one.

A side's markers in use are its stacks in Reserve, every one counted as when its
movement ends (`vocabulary.reserve_stacks`); a move is judged as the `report` order
judges it, by the markers placed once the unit has moved (`change.too_many_markers`).
The side's stacks are counted once per position (`Markers.of`, memoized on the board),
so a whole side's options cost one pass over the units.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from typing_extensions import TypedDict

from service.rules.board import Board
from service.rules.modes import vocabulary as m
from service.rules.modes.change import too_many_markers
from service.rules.state import State

__all__ = ["Markers", "ReserveMarkers", "reserve_markers"]


class ReserveMarkers(TypedDict):
    """A side's Reserve markers (OCS 5.4a): the scenario's `limit`, those `in_use` (its
    stacks in Reserve) and those `left`."""

    limit: int
    in_use: int
    left: int


@dataclass(frozen=True, slots=True)
class Markers:
    """A side's Reserve units by hex: all of them (`units`), and those whose marker is
    placed (`placed`, `vocabulary.marker_placed`)."""

    side: str
    limit: int
    units: Counter[str]
    placed: Counter[str]

    @classmethod
    def count(cls, state: State, side: str) -> Markers:
        sc = state.setup.scenario
        units: Counter[str] = Counter()
        placed: Counter[str] = Counter()
        for u in state.units.values():
            if u.mode == m.RESERVE and sc.side_of_power(u.power) == side:
                units[u.at] += 1
                if m.marker_placed(u):
                    placed[u.at] += 1
        return cls(side, sc.side(side).reserve_markers, units, placed)

    @classmethod
    def of(cls, state: State, board: Board, side: str) -> Markers:
        return board.cached(("reserve_markers", side), lambda: cls.count(state, side))

    @property
    def shown(self) -> ReserveMarkers:
        in_use = len(self.units)
        return {"limit": self.limit, "in_use": in_use, "left": max(0, self.limit - in_use)}

    def change_needs_marker(self, state: State, uid: str) -> bool:
        """Whether `uid` in Reserve where it stands takes a new marker: no unit of its side
        is in Reserve there (a unit already in Reserve has its own)."""
        u = state.units[uid]
        return u.mode != m.RESERVE and u.at not in self.units

    def move(self, state: State, uid: str, to: str) -> tuple[bool, str | None]:
        """For Reserve unit `uid` moving to `to`: whether its side's markers in use grow
        (it leaves another Reserve unit behind and no Reserve stack is in `to`), and why
        the `report` order refuses the move for want of markers (None if it does not):
        the unit's marker is placed once it has moved (OCS 5.4a)."""
        u = state.units[uid]
        grows = self.units[u.at] > 1 and to not in self.units
        placed = {h for h, n in self.placed.items()
                  if n > (1 if h == u.at and m.marker_placed(u) else 0)}
        return grows, too_many_markers(self.side, placed | {to}, self.limit)


def reserve_markers(state: State, side: str) -> ReserveMarkers:
    """`side`'s Reserve markers: the limit, those in use and those left (OCS 5.4a)."""
    return Markers.count(state, side).shown
