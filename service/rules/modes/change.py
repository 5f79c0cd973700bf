"""The `mode` order: voluntary mode changes in the phasing side's action step, the
OCS Movement Phase (seed 004, OCS 5.4-5.8; RULES-NOTES 27, 31).

Body: ``{"changes": [{"unit": "ger-inf-2", "mode": "reserve", "orientation": "combat"}]}``,
all or nothing. `orientation` may be left out: Combat and Move Mode show their own
side, Strat the Move side (OCS 5.8), Reserve keeps the side showing (OCS 5.7a). A DG unit may
only flip its orientation (``"mode": "dg"``, OCS 5.4).

Each unit changes once, as it begins to move (so before it has moved this impulse),
at no MP cost (OCS 5.4). Reserve markers are not counted here: a marker is placed
after the unit's 25% move (OCS 5.4a), so they are counted after the moves of a report
and when the movement step ends; until it has moved, a unit that entered Reserve may
leave it again (no marker was placed for it), so a side short of markers is never
stuck. Readings: a unit already in Reserve may stay in Reserve with the other side up
in its own movement step even in an enemy ZOC (it does not switch into Reserve, OCS
5.7c; OCS 5.7a frees the orientation in that step); a unit cannot enter Reserve
in a hedgehog's hex, because the change is made as it begins to move and the marker
would sit with the hedgehog at the end of the segment unless it left, which the
server cannot know in advance (OCS 5.7g; a Reserve unit's move cannot end there either).
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import replace

from service.rules import state as st
from service.rules.board import Board
from service.rules.command import Command
from service.rules.errors import Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.modes import vocabulary as m
from service.rules.modes.effective import power_passed
from service.rules.modes.items import (
    acting_side,
    held_unit,
    malformed,
    refuse,
    refuse_unit,
    unknown_keys,
)
from service.rules.scenario import HEDGEHOG, UnitSpec
from service.rules.state import Evolver, State, UnitState

__all__ = ["change_modes", "check_change", "hedgehogs", "movement_end_refusal",
           "reserve_limit_problem", "too_many_markers"]
_NAMES = {m.COMBAT: "Combat", m.MOVE: "Move", m.RESERVE: "Reserve", m.STRAT: "Strat",
          m.EXPLOIT: "Exploit", m.DG: "DG"}


def hedgehogs(board: Board, side: str) -> dict[str, str]:
    """The hexes holding a hedgehog of `side`, with one of them (OCS 5.7g), memoized on
    the board."""

    def make() -> dict[str, str]:
        sc = board.scenario
        out: dict[str, str] = {}
        for place, ids in board.units_at.items():
            for uid in sorted(ids):
                spec = sc.unit(uid)
                if spec.type == HEDGEHOG and sc.side_of_power(spec.power) == side:
                    out.setdefault(place, uid)
        return out

    return board.cached(("hedgehogs", side), make)


def too_many_markers(side: str, stacks: Set[str], limit: int) -> str | None:
    """Why `side`'s Reserve `stacks` (one marker each) are more than its `limit` of
    markers (OCS 5.4a), or None."""
    if len(stacks) <= limit:
        return None
    return (f"{side} would need {len(stacks)} Reserve markers (stacks in Reserve: "
            f"{', '.join(sorted(stacks))}) but has {limit}")


def reserve_limit_problem(state: State, side: str, *, placed_only: bool = False) -> str | None:
    """Why `side` has too many Reserve markers out (OCS 5.4a), or None; with
    `placed_only`, counting only the markers placed (`vocabulary.marker_placed`)."""
    return too_many_markers(side, m.reserve_stacks(state, side, placed_only=placed_only),
                            state.setup.scenario.side(side).reserve_markers)


def _orientation(spec: UnitSpec, unit: UnitState, mode: str, given: object,
                 path: str, uid: str) -> str:
    if given is not None and given not in m.ORIENTATIONS:
        raise malformed("orientation must be combat or move", path=f"{path}/orientation",
                        unit=uid)
    assert spec.ocs is not None
    move_only = spec.ocs.kind in m.MOVE_ONLY_KINDS
    if move_only and given == m.COMBAT:
        raise malformed(f"{uid} has no Combat side: Repl units and Transport Points are "
                        "always oriented toward Move Mode", path=f"{path}/orientation",
                        rule="OCS 5.6b", unit=uid)
    if mode in (m.COMBAT, m.MOVE):
        if given not in (None, mode):
            raise malformed(f"a unit in {_NAMES[mode]} Mode shows its {mode} side",
                            path=f"{path}/orientation", rule="OCS 5.2", unit=uid)
        return mode
    if mode == m.STRAT:
        if given not in (None, m.MOVE):
            raise malformed("Strat Mode units are oriented to their Move Mode side",
                            path=f"{path}/orientation", rule="OCS 5.8", unit=uid)
        return m.MOVE
    chosen = given if isinstance(given, str) else unit.orientation
    assert chosen is not None
    return chosen


def _check_change(state: State, board: Board, uid: str, spec: UnitSpec, unit: UnitState,
                  mode: str, orientation: str, path: str) -> None:
    """Every restriction of OCS 5.4-5.8 on one change (shape already checked)."""
    assert spec.ocs is not None
    kind = spec.ocs.kind
    if not unit.face_up:
        raise refuse_unit("mode/face_down", uid, "is face down and cannot move, so it "
                          "cannot change mode", rule="RULES-NOTES 27", path=path)
    if power_passed(state, unit.power):
        raise refuse_unit("mode/power_passed", uid, f"belongs to {unit.power}, which passed "
                          "this impulse", rule="seed 002 Effects of Passing", path=path)
    unplaced = unit.mode == m.RESERVE and mode != m.RESERVE and not m.marker_placed(unit)
    if unit.mode_changed and not unplaced:
        raise refuse_unit("mode/already_changed", uid, "already changed mode this movement "
                          "step: once per unit, as it begins to move", rule="OCS 5.4", path=path)
    if unit.moved or unit.attacked:
        did = "moved" if unit.moved else "overrun"
        raise refuse_unit("mode/already_moved", uid, f"has already {did}: a mode change is "
                          "made as the unit begins to move", rule="OCS 5.4", path=path)
    if unit.mode == m.EXPLOIT:
        raise refuse_unit("mode/involuntary", uid, "is in Exploit Mode, an involuntary mode "
                          "removed only in Clean Up", rule="OCS 5.4", path=path)
    if unit.mode == m.DG and mode != m.DG:
        raise refuse_unit("mode/involuntary", uid, "is in DG Mode, an involuntary mode "
                          "removed only in Clean Up; it may only flip its orientation",
                          rule="OCS 5.4", path=f"{path}/mode")
    if mode in m.INVOLUNTARY and unit.mode != mode:
        raise refuse_unit("mode/involuntary", uid, f"cannot choose {_NAMES[mode]} Mode: "
                          "involuntary modes are not chosen, they happen", rule="OCS 5.3",
                          path=f"{path}/mode")
    if (mode, orientation) == (unit.mode, unit.orientation):
        raise refuse_unit("mode/no_change", uid, f"is already in {_NAMES[mode]} Mode "
                          f"oriented to {orientation}", rule="OCS 5.4", path=f"{path}/mode")
    if mode == m.COMBAT and kind in m.MOVE_ONLY_KINDS:
        raise malformed(f"{uid} cannot enter Combat Mode: Repl units and Transport Points "
                        "have no Combat side", path=f"{path}/mode", rule="OCS 5.5c", unit=uid)
    side = state.setup.scenario.side_of_power(unit.power)
    if mode == m.RESERVE:
        if kind == "transport":
            raise malformed(f"{uid} is Transport Points, which cannot enter Reserve Mode "
                            "(only Organic Trucks can)", path=f"{path}/mode", rule="OCS 5.7f",
                            unit=uid)
        if unit.mode != m.RESERVE and board.enemy_zoc(unit.at, unit.power):
            raise refuse_unit("mode/enemy_zoc", uid, f"is in an enemy ZOC in {unit.at}: no "
                              "Reserve", rule="OCS 5.7c", path=f"{path}/mode")
        hedgehog = hedgehogs(board, side).get(unit.at)
        if hedgehog is not None:
            raise refuse_unit("mode/hedgehog", uid, f"is stacked with hedgehog {hedgehog} in "
                              f"{unit.at}: no Reserve unit may be", rule="OCS 5.7g",
                              path=f"{path}/mode")
    if mode == m.STRAT:
        if kind in m.TRANSPORT_KINDS:
            raise malformed(f"{uid} is Transport Points, which cannot enter Strat Mode",
                            path=f"{path}/mode", rule="OCS 5.8c", unit=uid)
        if board.enemy_zoc(unit.at, unit.power):
            raise refuse_unit("mode/enemy_zoc", uid, f"is in an enemy ZOC in {unit.at}: no "
                              "Strat", rule="OCS 5.8a", path=f"{path}/mode")


def check_change(state: State, board: Board, uid: str, mode: str, orientation: object,
                 path: str = "/body/changes/0") -> str:
    """The orientation a change of `uid` to `mode` gives it, or the RulesError of
    OCS 5.1-5.8 it meets (the step and the side aside): the `mode` order and the
    options ask it alike."""
    unit = state.units[uid]
    spec = state.setup.scenario.unit(uid)
    if spec.ocs is None or not m.uses_modes(spec):
        raise malformed(f"{uid} uses no modes: SP, ports, air bases, air units and "
                        "hedgehogs do not", path=f"{path}/unit", rule="OCS 5.1", unit=uid)
    chosen = _orientation(spec, unit, mode, orientation, path, uid)
    _check_change(state, board, uid, spec, unit, mode, chosen, path)
    return chosen


def change_modes(f: Flow, c: Command) -> None:
    """The `mode` order (OCS 5.4): validate every change, then log each."""
    s = f.state
    side = acting_side(f, c, (st.ACTION,), "OCS 5.4")
    changes = c.body.get("changes")
    unknown_keys(c.body, ("changes",), "/body")
    if not isinstance(changes, list) or not changes:
        raise malformed("expected a non-empty list of {unit, mode, orientation}",
                        path="/body/changes")
    board = Board.from_state(s)
    seen: set[str] = set()
    for i, item in enumerate(changes):
        path = f"/body/changes/{i}"
        if not isinstance(item, Mapping):
            raise malformed("expected {unit, mode, orientation}", path=path)
        unknown_keys(item, ("unit", "mode", "orientation"), path)
        spec, unit = held_unit(f.state, c, item.get("unit"), f"{path}/unit")
        uid = spec.id
        if uid in seen:
            raise malformed(f"{uid} is named twice", path=f"{path}/unit", unit=uid)
        seen.add(uid)
        given = item.get("mode")
        if spec.ocs is not None and m.uses_modes(spec) and given not in m.MODES:
            raise malformed(f"mode must be one of {', '.join(m.MODES)}", path=f"{path}/mode",
                            unit=uid)
        mode = str(given)
        orientation = check_change(f.state, board, uid, mode, item.get("orientation"), path)
        before = f"{_NAMES[unit.mode or m.COMBAT]}/{unit.orientation}"
        f.emit("unit.mode_changed",
               f"{uid} in {unit.at}: {before} -> {_NAMES[mode]}/{orientation}.",
               {"unit": uid, "side": side, "hex": unit.at,
                "from": {"mode": unit.mode, "orientation": unit.orientation},
                "mode": mode, "orientation": orientation}, by=c.actor.id)


def movement_end_refusal(state: State, side: str) -> Refused | None:
    """OCS 5.4a when `side`'s movement step ends: every unit has finished its 25% move, so
    every Reserve stack needs its marker; the refusal of `done` if the side is short."""
    problem = reserve_limit_problem(state, side)
    if problem is None:
        return None
    return refuse("mode/reserve_markers", f"{problem} as its movement ends: move Reserve "
                  "units together (a stack's Reserve units share one marker), or take units "
                  "that entered Reserve this step and have not moved out of Reserve",
                  rule="OCS 5.4a", path="/body")


def _mode_changed(state: State, e: Event) -> State:
    uid = e.data["unit"]
    unit = replace(state.units[uid], mode=e.data["mode"], orientation=e.data["orientation"],
                   mode_changed=True)
    return replace(state, units={**state.units, uid: unit})


EVOLVE: dict[EventKind, Evolver] = {
    "unit.mode_changed": _mode_changed,
}
