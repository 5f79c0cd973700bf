"""The GM's state edits: units, hex control and port damage, BP and RP figures, fuel
stocks and, for a game without combat tables, its combat section, each logged with the
GM's reason (docs/game-master.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from service.rules.command import Command
from service.rules.errors import Malformed, Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.gm.common import RULE, is_int, reason_of, with_reason
from service.rules.modes import MODES, ORIENTATIONS
from service.rules.scenario import (
    HEXSIDE_FEATURES,
    MOST_FUEL,
    TERRAINS,
    combat_to_json,
    read_combat,
    uses_modes,
)
from service.rules.state import (
    Evolver,
    HexEdit,
    State,
    UnitState,
    with_map_edits,
)

_UNIT_FIELDS: Final = ("at", "face_up", "shattered", "mode", "orientation")
_POWER_FIELDS: Final = ("bp_spent_last_turn", "bp_on_rps", "rps", "chits")


def _edit_unit(state: State, uid: str, change: object, problems: list[tuple[str, str]]
               ) -> dict[str, Any]:
    sc = state.setup.scenario
    where = f"/units/{uid}"
    try:
        spec = sc.unit(uid)
    except KeyError:
        problems.append((where, f"unknown unit {uid!r}"))
        return {}
    if not isinstance(change, Mapping) or not change:
        problems.append((where, f"expected some of {', '.join(_UNIT_FIELDS)}"))
        return {}
    out: dict[str, Any] = {}
    for key, value in sorted(change.items()):
        at = f"{where}/{key}"
        if key == "at":
            if not isinstance(value, str) or not (sc.map.is_hex(value) or sc.map.is_sea(value)):
                problems.append((at, f"unknown hex or sea {value!r}"))
                continue
            if sc.map.is_sea(value) and spec.unit_class == "land":
                problems.append((at, "land units cannot be at sea"))
                continue
            if sc.map.is_hex(value) and spec.unit_class == "naval" and \
                    sc.map.hex(value).port is None:
                problems.append((at, f"naval units in a hex must be in a port; {value} has none"))
                continue
        elif key in ("face_up", "shattered"):
            if not isinstance(value, bool):
                problems.append((at, "expected true or false"))
                continue
        elif key in ("mode", "orientation"):
            allowed = MODES if key == "mode" else ORIENTATIONS
            if not uses_modes(spec):
                problems.append((at, f"{uid} uses no OCS modes (OCS 5.1)"))
                continue
            if value not in allowed:
                problems.append((at, f"expected one of {', '.join(allowed)}"))
                continue
        else:
            problems.append((at, f"unknown field {key!r}; editable: {', '.join(_UNIT_FIELDS)}"))
            continue
        out[key] = value
    if uid not in state.units and "at" not in out and not any(p[0].startswith(where)
                                                              for p in problems):
        problems.append((f"{where}/at", f"{uid} is not on the map: give `at` to place it"))
    return out


def _edit_hex(state: State, hid: str, change: object, problems: list[tuple[str, str]]
              ) -> dict[str, Any]:
    sc = state.setup.scenario
    where = f"/hexes/{hid}"
    if not sc.map.is_hex(hid):
        problems.append((where, f"unknown hex {hid!r}"))
        return {}
    if not isinstance(change, Mapping) or not change:
        problems.append((where, "expected controller and/or port_damaged"))
        return {}
    h = sc.map.hex(hid)
    edit = {"controller": h.controller, "port_damaged": h.port_damaged}
    for key, value in sorted(change.items()):
        at = f"{where}/{key}"
        if key == "controller":
            if value is not None and (not isinstance(value, str)
                                      or not (sc.is_power(value) or sc.is_minor(value))):
                problems.append((at, f"unknown power or minor {value!r}"))
                continue
        elif key == "port_damaged":
            if not isinstance(value, bool):
                problems.append((at, "expected true or false"))
                continue
            if h.port is None:
                problems.append((at, f"hex {hid} has no port"))
                continue
        else:
            problems.append((at, f"unknown field {key!r}; editable: controller, port_damaged"))
            continue
        edit[key] = value
    return edit


def _edit_power(state: State, pid: str, change: object, problems: list[tuple[str, str]]
                ) -> dict[str, Any]:
    where = f"/powers/{pid}"
    if pid not in state.powers:
        problems.append((where, f"unknown power {pid!r}"))
        return {}
    if not isinstance(change, Mapping) or not change:
        problems.append((where, f"expected some of {', '.join(_POWER_FIELDS)}"))
        return {}
    out: dict[str, Any] = {}
    for key, value in sorted(change.items()):
        if key == "fuel":
            if state.powers[pid].fuel is None:
                problems.append((f"{where}/fuel", "this scenario gives no fuel (RULES-NOTES "
                                                  "30): there is no stock to edit"))
            elif not is_int(value, MOST_FUEL):
                problems.append((f"{where}/fuel", f"expected an integer 0-{MOST_FUEL}"))
            else:
                out[key] = value
        elif key not in _POWER_FIELDS:
            problems.append((f"{where}/{key}", f"unknown field {key!r}; editable: "
                                               f"{', '.join(_POWER_FIELDS)}, fuel"))
        elif not is_int(value):
            problems.append((f"{where}/{key}", "expected an integer 0-10000"))
        else:
            out[key] = value
    return out


_LAND_KINDS: Final = ("overrun", "combat", "barrage")


def _edit_combat(state: State, value: object, problems: list[tuple[str, str]]
                 ) -> dict[str, Any]:
    """The combat section the GM sets for a game whose scenario has no combat tables (a
    game created under rules version 1, before combats were decided by tables: docs/
    game-master.md "Rules versions"), checked as the scenario format checks it. Tables,
    once set, decide every combat after and are not changed; nor is a section set while
    combats rolled wait for their reported results."""
    rules = state.setup.scenario.combat
    if any(rules.how(by) == "table" for by in _LAND_KINDS):
        raise Refused("edit/combat_tables_set", "this game's combat tables decide its "
                      "combats: they are not changed in play", rule=RULE,
                      errors=[("/combat", "the game has combat tables")])
    if state.modes.combats:
        hexes = ", ".join(sorted(state.modes.combats))
        raise Refused("edit/combat_open", f"combats rolled in {hexes} wait for their "
                      "reported results: set the combat section after",
                      rule=RULE, errors=[("/combat", "combats wait for their results")])
    found: list[tuple[str, str]] = []
    parsed = read_combat(value, "combat", TERRAINS, HEXSIDE_FEATURES, found)
    problems += [("/" + path.replace(".", "/"), message) for path, message in found]
    return combat_to_json(parsed)


def _combat_words(section: Mapping[str, Any]) -> str:
    tables = [name for name in ("land", "overrun", "barrage") if section.get(name)]
    if tables:
        return f"combat section set: {', '.join(tables)} decided by the tables"
    return "combat section set: results reported by players"


def _enemy_stacks(state: State, units: Mapping[str, Mapping[str, object]]) -> None:
    """The scenario format's rule: no hex holds units of powers at war."""
    sc = state.setup.scenario
    placed = {uid: u.at for uid, u in state.units.items()}
    placed.update({uid: str(ch["at"]) for uid, ch in units.items() if "at" in ch})
    for uid in units:
        at = placed.get(uid)
        if at is None or not sc.map.is_hex(at):
            continue
        power = state.units[uid].power if uid in state.units else sc.unit(uid).power
        for other, where in placed.items():
            if where != at or other == uid:
                continue
            other_power = state.units[other].power if other in state.units \
                else sc.unit(other).power
            if sc.at_war(power, other_power):
                raise Refused("edit/enemy_stack", f"{uid} would share hex {at} with enemy "
                              f"unit {other}", rule="docs/scenario.md",
                              errors=[(f"/units/{uid}/at", f"{other} (at war) is in {at}")])


def edit(f: Flow, c: Command) -> None:
    s = f.state
    if s.status == "finished":
        raise Refused("admin/finished", "the game is over", rule=RULE)
    refuse = [k for k in c.body if k not in ("units", "hexes", "powers", "combat", "reason")]
    problems: list[tuple[str, str]] = [(f"/{k}", "unknown key; edit units, hexes, powers, "
                                                 "combat") for k in refuse]
    combat = None if "combat" not in c.body else _edit_combat(s, c.body["combat"], problems)
    sections: dict[str, dict[str, Any]] = {}
    for key, check in (("units", _edit_unit), ("hexes", _edit_hex), ("powers", _edit_power)):
        given = c.body.get(key) or {}
        if not isinstance(given, Mapping):
            problems.append((f"/{key}", "expected an object keyed by id"))
            continue
        # Sorted: what an act causes never depends on the order of a JSON object's keys.
        sections[key] = {str(k): check(s, str(k), given[k], problems) for k in sorted(given)}
    if problems:
        raise Malformed("edit/invalid", f"{len(problems)} problem(s): {problems[0][0]}: "
                        f"{problems[0][1]}", rule="docs/scenario.md", errors=problems)
    if not any(sections.values()) and combat is None:
        raise Malformed("edit/empty", "nothing to edit: give units, hexes, powers or combat",
                        errors=[("/", "no change")])
    _enemy_stacks(s, sections["units"])
    said = [f"{uid} {', '.join(f'{k}={v}' for k, v in ch.items())}"
            for uid, ch in sections["units"].items()]
    said += [f"hex {h} controller={e['controller']}, port_damaged={e['port_damaged']}"
             for h, e in sections["hexes"].items()]
    said += [f"{p} {', '.join(f'{k}={v}' for k, v in ch.items())}"
             for p, ch in sections["powers"].items()]
    if combat is not None:
        said.append(_combat_words(combat))
    reason = reason_of(c)
    f.emit("state.edited", with_reason(f"The GM edits the state: {'; '.join(said)}.", reason),
           {**sections, **({} if combat is None else {"combat": combat}), "reason": reason},
           by="gm")


def _edited(state: State, e: Event) -> State:
    sc = state.setup.scenario
    units = dict(state.units)
    eliminated = dict(state.modes.eliminated)
    for uid, change in e.data.get("units", {}).items():
        unit = units.get(uid)
        if unit is None:
            spec = sc.unit(uid)
            unit = UnitState(power=spec.power, at=spec.at, face_up=spec.face_up,
                             shattered=spec.shattered,
                             mode=spec.ocs.mode if spec.ocs else None,
                             orientation=spec.ocs.orientation if spec.ocs else None)
            eliminated.pop(uid, None)
        units[uid] = replace(unit, **{k: change[k] for k in _UNIT_FIELDS if k in change})
    powers = dict(state.powers)
    for pid, change in e.data.get("powers", {}).items():
        figures: dict[str, Any] = {k: int(v) for k, v in change.items()}
        powers[pid] = replace(powers[pid], **figures)
    state = replace(state, units=units, powers=powers,
                    modes=replace(state.modes, eliminated=eliminated))
    hexes = e.data.get("hexes", {})
    if hexes or "combat" in e.data:
        edits = {**state.map_edits, **{h: HexEdit(controller=v["controller"],
                                                   port_damaged=bool(v["port_damaged"]))
                                       for h, v in hexes.items()}}
        combat = e.data.get("combat", state.combat_section)
        state = replace(state, map_edits=edits, combat_section=combat,
                        setup=with_map_edits(state.setup, edits, combat))
    return state


EVOLVE: dict[EventKind, Evolver] = {
    "state.edited": _edited,
}
