"""Air missions and naval moves in a `report` order: what air and naval units did at
the table, so that they turn face down by the rules (`face_down`; 11.18, 11.18.10).

A mission: ``{"unit": "ger-ftr-1", "to": "h31", "mission": "ground support",
"base": "h41", "result": null}``: the air unit flies to `to` (a hex or a sea area) and
returns to `base` (default: where it is; a friendly hex, or a sea area where its side
has a naval unit), where it turns face down at once (11.18.1 step 8: "return all
remaining aircraft to base and turn them face down"). `result`: null, "shattered" (the
air-to-air or AA result shattered it: it needs two reorganizations, 11.18) or
"eliminated". Interception and air combat are played at the table (RULES-NOTES 29).

A naval move is an item of `moves` naming a naval unit: `to` is a sea area or a
friendly port; no `transport`, `path` or `carrier` (the sea areas crossed are the table's;
`mp`, optional, is logged as given). Naval
moves belong to the movement (action) step (RULES-NOTES 31). A naval unit that moved,
or is at sea, turns face down at clean up (`face_down`). Naval combat is a `combats`
item with `by` "naval" (`service.rules.modes.results`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from service.rules import state as st
from service.rules.board import FRIENDLY, Board
from service.rules.command import Command
from service.rules.flow import Flow
from service.rules.modes.effective import power_passed
from service.rules.modes.items import held_unit, malformed, number, refuse_unit, unknown_keys
from service.rules.modes.results import CONSISTENCY
from service.rules.scenario import UnitSpec
from service.rules.state import State, UnitState

__all__ = ["RESULTS", "naval_move", "report_mission"]
RESULTS: Final = ("shattered", "eliminated")
_RETURN: Final = "11.18.1"  # step 8: return to base and turn face down


def _may_act(state: State, uid: str, unit: UnitState, what: str, path: str) -> None:
    """Face-up units of a power that did not pass (RULES-NOTES 27, docs/api.md)."""
    if not unit.face_up:
        raise refuse_unit("report/face_down", uid, f"is face down: it {what}",
                          rule="RULES-NOTES 27", path=path)
    if state.step in (st.ACTION, st.COMBAT) and power_passed(state, unit.power):
        raise refuse_unit("report/power_passed", uid, f"belongs to {unit.power}, which "
                          "passed this impulse", rule="seed 002 Effects of Passing", path=path)


def _friendly_hex(board: Board, hex_id: str, power: str) -> bool:
    """A hex a friend controls, free of enemy land units."""
    stance = board.stance(power)
    return stance.territory[board.at(hex_id)] == FRIENDLY and \
        not board.enemy_occupied(hex_id, power)


def report_mission(f: Flow, c: Command, item: object, path: str) -> None:
    """One air mission: out to `to`, back to `base`, face down (and shattered or
    eliminated by its `result`)."""
    if not isinstance(item, Mapping):
        raise malformed("expected {unit, to, mission, base, result}", path=path)
    unknown_keys(item, ("unit", "to", "mission", "base", "result"), path)
    spec, unit = held_unit(f.state, c, item.get("unit"), f"{path}/unit")
    uid = spec.id
    m = f.state.setup.scenario.map
    if spec.unit_class != "air":
        raise malformed(f"{uid} is not an air unit: only air units fly missions",
                        path=f"{path}/unit", unit=uid)
    to = item.get("to")
    if not isinstance(to, str) or not (m.is_hex(to) or m.is_sea(to)):
        raise malformed(f"unknown hex or sea area {to!r}", path=f"{path}/to",
                        code="order/unknown_hex")
    base = item.get("base", unit.at)
    if not isinstance(base, str) or not (m.is_hex(base) or m.is_sea(base)):
        raise malformed(f"unknown hex or sea area {base!r}", path=f"{path}/base",
                        code="order/unknown_hex")
    mission = item.get("mission", "a mission")
    if not isinstance(mission, str) or not 0 < len(mission) <= 60:
        raise malformed("mission is a label of 1-60 characters", path=f"{path}/mission")
    result = item.get("result")
    if result is not None and result not in RESULTS:
        raise malformed(f"result is null, {' or '.join(RESULTS)}", path=f"{path}/result")
    _may_act(f.state, uid, unit, "flies no mission", path)
    _check_base(f.state, spec, unit, base, f"{path}/base")
    what = {None: "", "shattered": ", shattered", "eliminated": ", and is eliminated"}[result]
    f.emit("unit.flew_mission", f"{uid} flies {mission} to {to} and returns to {base}: face "
           f"down ({_RETURN} step 8){what}.",
           {"unit": uid, "to": to, "base": base, "mission": mission, "result": result,
            "step": f.state.step}, by=c.actor.id)
    if result == "eliminated":
        f.emit("unit.eliminated", f"{uid} is eliminated in {base} (mission result).",
               {"unit": uid, "hex": base, "cause": "mission result", "rule": "RULES-NOTES 31"},
               by=c.actor.id)


def _check_base(state: State, spec: UnitSpec, unit: UnitState, base: str, path: str) -> None:
    """An air unit lands in a friendly hex, or at sea with a naval unit of its side."""
    sc = state.setup.scenario
    if sc.map.is_hex(base):
        if not _friendly_hex(Board.from_state(state), base, unit.power):
            raise refuse_unit("report/base", spec.id, f"cannot land in {base}: it is not a "
                              "friendly hex free of enemy units", rule=CONSISTENCY, path=path)
        return
    side = sc.side_of_power(unit.power)
    if not any(u.at == base and sc.unit(uid).unit_class == "naval"
               and sc.side_of_power(u.power) == side for uid, u in state.units.items()):
        raise refuse_unit("report/base", spec.id, f"cannot land in sea area {base}: no naval "
                          f"unit of {side} is there", rule=CONSISTENCY, path=path)


def naval_move(f: Flow, c: Command, spec: UnitSpec, unit: UnitState,
               item: Mapping[str, object], path: str) -> None:
    """A naval unit moves to a sea area or a friendly port, in the movement step."""
    uid = spec.id
    sc = f.state.setup.scenario
    to = item.get("to")
    if not isinstance(to, str) or not (sc.map.is_sea(to) or sc.map.is_hex(to)):
        raise malformed(f"unknown sea area or hex {to!r}", path=f"{path}/to",
                        code="order/unknown_hex")
    if to == unit.at:
        raise malformed(f"{uid} is already in {to}", path=f"{path}/to", unit=uid)
    mp = 0.0 if item.get("mp") is None else number(item.get("mp"), f"{path}/mp")
    for key in ("transport", "path", "carrier"):
        if item.get(key) is not None:
            raise malformed(f"a naval move names its destination only: no {key}",
                            path=f"{path}/{key}", unit=uid)
    if f.state.step != st.ACTION:
        raise refuse_unit("report/naval_step", uid, f"cannot move in the {f.state.step} "
                          "step: naval moves belong to the movement step",
                          rule="RULES-NOTES 31", path=path)
    _may_act(f.state, uid, unit, "cannot move", path)
    if sc.map.is_hex(to):
        if sc.map.hex(to).port is None:
            raise refuse_unit("report/no_port", uid, f"cannot enter {to}: naval units enter "
                              "ports, and it has none", rule=CONSISTENCY, path=f"{path}/to")
        if not _friendly_hex(Board.from_state(f.state), to, unit.power):
            raise refuse_unit("report/enemy_port", uid, f"cannot enter the port in {to}: it is "
                              "not a friendly one free of enemy units", rule=CONSISTENCY,
                              path=f"{path}/to")
    f.emit("unit.moved", f"{uid} moves {unit.at} -> {to} by sea ({mp:g} MP).",
           {"unit": uid, "from": unit.at, "to": to, "mp": int(mp) if mp.is_integer() else mp,
            "transport": None,
            "path": [to], "step": f.state.step}, by=c.actor.id)
