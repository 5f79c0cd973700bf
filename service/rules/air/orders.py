"""The orders of an air reorganization mission (11.18.1; docs/api.md "ATR missions"):
`air.begin` (the reorganizing side flies air reorganization this step), `air.patrol`
(step 1), `air.fly` (step 2) and `air.intercept` (steps 3 and 4), each answering its
window; and what a window's sides may choose (`legal`), which the awaiting entries and
the options show and the orders check alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from service.rules import state as st
from service.rules.air.resolve import advance
from service.rules.air.windows import (
    CHOICE,
    COUNTER,
    FLIGHT,
    INTERCEPT,
    PATROL,
    RULES,
    hexes_of,
    mission,
    open_patrol,
)
from service.rules.airspace import (
    READING,
    atr_targets,
    atrs,
    flew_this_step,
    interception_on,
    potential_targets,
    reach,
)
from service.rules.awaiting import awaiting
from service.rules.command import Command
from service.rules.errors import Forbidden, Malformed, Refused, RulesError
from service.rules.flow import Flow
from service.rules.reorg import check_order
from service.rules.scenario import air_range
from service.rules.state import State

RULE: Final = "11.18.1"
# The windows each order kind answers.
ANSWERS: Final[Mapping[str, tuple[str, ...]]] = {
    "air.patrol": (PATROL,), "air.fly": (FLIGHT,), "air.intercept": (INTERCEPT, COUNTER),
    "air.choose": (CHOICE,),
}
MAX: Final = 50


def begin(f: Flow, c: Command) -> None:
    """`air.begin`: the side in its reorganization step flies air reorganization; the
    enemies' combat air patrol comes first (step 1)."""
    s = f.state
    side = c.actor.side
    if s.step not in (st.REORGANIZATION, st.FINAL_REORGANIZATION):
        raise Refused("order/wrong_step", f"air reorganization is flown in a reorganization "
                      f"step; this is the {s.step} step", rule=RULE,
                      extra={"awaiting": awaiting(s)})
    if side not in s.turn.step_sides or side in s.turn.sides_done:
        raise Refused("order/not_your_turn", f"{side} does not reorganize now", rule="11.18",
                      extra={"awaiting": awaiting(s)})
    if not interception_on(s):
        raise Refused("air/off", "ATR interception is off in this game (option "
                      "reorg.atr_interception): an ATR item of a reorg order arrives at once",
                      rule="RULES-NOTES 29")
    if flew_this_step(s, str(side)):
        raise Refused("air/flown", f"{side} already flew its air reorganization this step "
                      "(11.18.1: all its selected ATRs fly at once)", rule=RULE)
    targets = potential_targets(s, str(side))
    if not targets:
        raise Refused("air/no_mission", f"no face-up ATR of {side} has a face-down unit of "
                      "its side in range", rule=RULE)
    f.emit("air.mission_began", f"{side} flies air reorganization (11.18.1): potential "
           f"target hexes {', '.join(targets)}.", {"side": side, "targets": list(targets)},
           by=c.actor.id)
    open_patrol(f)


def window_of(f: Flow, c: Command) -> str:
    """The window `c` answers, refused if it is not open or not the actor's to answer."""
    m = f.state.air
    windows = ANSWERS[c.kind]
    if m is None or m.window not in windows:
        raise Refused("air/no_window", f"no {' or '.join(windows)} window is open now",
                      rule=RULE, extra={"awaiting": awaiting(f.state)})
    if c.actor.side not in m.sides or c.actor.side in m.answered:
        raise Refused("order/not_your_turn", f"the {m.window} window awaits "
                      f"{', '.join(x for x in m.sides if x not in m.answered)}",
                      rule=RULES[m.window], extra={"awaiting": awaiting(f.state)})
    return m.window


def legal(state: State, side: str, window: str) -> dict[str, list[str]]:
    """The fighters of `side` that may fly in `window` and the hexes each reaches (range
    from its base, face up, not in the air already)."""
    return reach(state, side, hexes_of(state, window))


def _known(state: State, uid: object, path: str) -> str:
    if not isinstance(uid, str):
        raise Malformed("order/invalid_body", "expected a unit id", errors=[(path, "a unit id")])
    try:
        state.setup.scenario.unit(uid)
    except KeyError:
        raise Malformed("order/unknown_unit", f"unknown unit {uid!r}",
                        errors=[(path, "unknown unit")]) from None
    return uid


def _hex(state: State, value: object, path: str) -> str:
    if not isinstance(value, str) or not state.setup.scenario.map.is_hex(value):
        raise Malformed("order/unknown_hex", f"unknown hex {value!r}",
                        errors=[(path, "unknown hex")])
    return value


def placements(state: State, side: str, window: str, value: object, path: str,
               taken: Sequence[str] = ()) -> list[tuple[str, str]]:
    """A list of {unit, hex}, each a fighter that may fly in `window` to a hex it
    reaches (409 naming the unit and why not)."""
    if not isinstance(value, list) or len(value) > MAX:
        raise Malformed("order/invalid_body", f"expected a list of at most {MAX} {{unit, hex}}",
                        errors=[(path, "expected [{unit, hex}]")])
    allowed = legal(state, side, window)
    hexes = hexes_of(state, window)
    out: list[tuple[str, str]] = []
    for i, item in enumerate(value):
        where = f"{path}/{i}"
        if not isinstance(item, Mapping) or set(item) != {"unit", "hex"}:
            raise Malformed("order/invalid_body", "each is {unit, hex}",
                            errors=[(where, "expected {unit, hex}")])
        uid = _known(state, item["unit"], f"{where}/unit")
        hex_id = _hex(state, item["hex"], f"{where}/hex")
        if uid in taken or any(u == uid for u, _ in out):
            raise Malformed("order/invalid_body", f"{uid} is named twice",
                            errors=[(f"{where}/unit", "named twice")])
        if uid not in allowed:
            raise Refused("air/not_a_choice", f"{uid} cannot fly in the {window} window: "
                          f"{_why_not(state, side, uid, hexes)}", rule=RULES[window],
                          errors=[(f"{where}/unit", "cannot fly now")], extra={"unit": uid},
                          units={f"{where}/unit": uid})
        if hex_id not in allowed[uid]:
            where_to = "a potential target hex" if window == PATROL else "a target hex"
            reason = (f"{hex_id} is not {where_to} ({', '.join(hexes) or 'none'})"
                      if hex_id not in hexes else f"{hex_id} is beyond {uid}'s range")
            raise Refused("air/not_a_choice", f"{uid} cannot fly to {hex_id}: {reason}",
                          rule=RULES[window], errors=[(f"{where}/hex", reason)],
                          extra={"unit": uid}, units={f"{where}/hex": uid})
        out.append((uid, hex_id))
    return out


def _why_not(state: State, side: str, uid: str, hexes: Sequence[str]) -> str:
    sc = state.setup.scenario
    unit = state.units.get(uid)
    spec = sc.unit(uid)
    if unit is None:
        return "it is no longer on the map"
    if sc.side_of_power(unit.power) != side:
        return f"it is not a unit of {side}"
    if spec.type != "FTR":
        return "only fighters patrol, escort and intercept"
    if air_range(spec) is None:
        return "the scenario gives it no range"
    if sc.combat.air is None:
        return "the scenario has no air-to-air table"
    if not unit.face_up:
        return "it is face down"
    m = state.air
    if m is not None and any(s.unit == uid for s in m.sorties):
        return "it is already in the air"
    if not sc.map.is_hex(unit.at):
        return "it is not based on a hex"
    return f"none of {', '.join(hexes) or 'the hexes'} is within its range"


def _answered(f: Flow, c: Command, window: str) -> None:
    m = mission(f.state)
    if set(m.sides) <= set(m.answered):
        advance(f, window, c.actor.id)


def patrol(f: Flow, c: Command) -> None:
    """`air.patrol` (step 1)."""
    window = window_of(f, c)
    side = str(c.actor.side)
    placed = placements(f.state, side, window, c.body.get("patrols"), "/body/patrols")
    give_patrol(f, side, placed, "chosen", c.actor.id)
    _answered(f, c, window)


def give_patrol(f: Flow, side: str, placed: Sequence[tuple[str, str]], how: str, by: str
                ) -> None:
    shown = ", ".join(f"{u} over {h}" for u, h in placed) or "no patrol"
    f.emit("air.patrolled", f"{side}'s combat air patrol ({how}): {shown} ({RULES[PATROL]}).",
           {"side": side, "window": PATROL, "patrols": [{"unit": u, "hex": h} for u, h in placed],
            "how": how}, by=by)


def intercept(f: Flow, c: Command) -> None:
    """`air.intercept` (step 3 for the enemies, step 4 for the flying side)."""
    window = window_of(f, c)
    side = str(c.actor.side)
    placed = placements(f.state, side, window, c.body.get("interceptors"),
                        "/body/interceptors")
    give_interception(f, side, window, placed, "chosen", c.actor.id)
    _answered(f, c, window)


def give_interception(f: Flow, side: str, window: str, placed: Sequence[tuple[str, str]],
                      how: str, by: str) -> None:
    shown = ", ".join(f"{u} to {h}" for u, h in placed) or "no interception"
    f.emit("air.intercepted", f"{side} intercepts ({how}): {shown} ({RULES[window]}).",
           {"side": side, "window": window,
            "interceptors": [{"unit": u, "hex": h} for u, h in placed], "how": how}, by=by)


def _flights(f: Flow, c: Command, side: str) -> tuple[str, list[tuple[str, str, list[str]]]]:
    s = f.state
    power = c.body.get("power")
    if not isinstance(power, str) or not s.setup.scenario.is_power(power):
        raise Malformed("order/invalid_body", "power is the major power that pays",
                        errors=[("/body/power", "expected a major power")])
    if power not in c.actor.powers:
        raise Forbidden("order/power_not_held", f"{c.actor.id} does not hold {power}",
                        errors=[("/body/power", "power not held")])
    value = c.body.get("flights")
    if not isinstance(value, list) or len(value) > 20:
        raise Malformed("order/invalid_body", "flights is a list of at most 20 {atr, hex, "
                        "units}", errors=[("/body/flights", "expected [{atr, hex, units}]")])
    free = atrs(s, side)
    out: list[tuple[str, str, list[str]]] = []
    for i, item in enumerate(value):
        where = f"/body/flights/{i}"
        if not isinstance(item, Mapping) or set(item) != {"atr", "hex", "units"}:
            raise Malformed("order/invalid_body", "a flight is {atr, hex, units}",
                            errors=[(where, "expected {atr, hex, units}")])
        aid = _known(s, item["atr"], f"{where}/atr")
        hex_id = _hex(s, item["hex"], f"{where}/hex")
        units = item["units"]
        if not isinstance(units, list) or not 1 <= len(units) <= 2:
            raise Malformed("order/invalid_body", "units: the 1 or 2 units it reorganizes",
                            errors=[(f"{where}/units", "1 or 2 unit ids")])
        named = [_known(s, u, f"{where}/units/{k}") for k, u in enumerate(units)]
        if any(a == aid for a, _, _ in out):
            raise Malformed("order/invalid_body", f"{aid} flies once",
                            errors=[(f"{where}/atr", "named twice")])
        if aid not in free:
            raise Refused("air/not_a_choice", f"{aid} is not a face-up ATR of {side} on the "
                          "ground", rule=RULE, errors=[(f"{where}/atr", "cannot fly")],
                          extra={"unit": aid}, units={f"{where}/atr": aid})
        there = atr_targets(s, aid)
        for k, uid in enumerate(named):
            if uid not in there.get(hex_id, []):
                raise Refused("air/not_a_choice", f"{uid} is not a face-down unit of {side} "
                              f"in {hex_id} within {aid}'s range", rule=RULE,
                              errors=[(f"{where}/units/{k}", "not a target there")],
                              extra={"unit": uid}, units={f"{where}/units/{k}": uid})
        out.append((aid, hex_id, named))
    return power, out


def fly(f: Flow, c: Command) -> None:
    """`air.fly` (step 2): every ATR with its target and units, and the escorts; the items
    are checked now as a `reorg` order's would be (range, Option 36, RPs)."""
    window = window_of(f, c)
    side = str(c.actor.side)
    power, flights = _flights(f, c, side)
    items = [{"unit": u, "method": "atr", "atr": a} for a, _, units in flights for u in units]
    index = [(i, k) for i, (_, _, units) in enumerate(flights) for k in range(len(units))]
    if items:
        try:
            check_order(f.state, power, items, flying=True)
        except RulesError as refusal:
            raise _in_flight(refusal, index) from None
    escorts = c.body.get("escorts", [])
    hexes = sorted({h for _, h, _ in flights})
    allowed = reach(f.state, side, hexes)
    placed = placements(f.state, side, FLIGHT, escorts, "/body/escorts")
    for i, (uid, hex_id) in enumerate(placed):
        if hex_id not in allowed.get(uid, []):
            raise Refused("air/not_a_choice", f"{uid} escorts to a target hex of the flight "
                          f"({', '.join(hexes) or 'none'}) within its range, not {hex_id}",
                          rule=RULES[FLIGHT], errors=[(f"/body/escorts/{i}/hex", "not a "
                                                       "target hex in range")],
                          extra={"unit": uid}, units={f"/body/escorts/{i}/hex": uid})
    give_flight(f, side, power, flights, placed, "chosen", c.actor.id)
    _answered(f, c, window)


def _in_flight(refusal: RulesError, index: Sequence[tuple[int, int]]) -> RulesError:
    """A `reorg` item's refusal as the flight's: its paths point to the flight's unit."""
    def moved(path: str) -> str:
        for i, (fi, k) in enumerate(index):
            prefix = f"/body/items/{i}"
            if path == prefix or path.startswith(prefix + "/"):
                return f"/body/flights/{fi}/units/{k}"
        return path

    refusal.errors = [(moved(p), m) for p, m in refusal.errors]
    refusal.units = {moved(p): u for p, u in refusal.units.items()}
    return refusal


def give_flight(f: Flow, side: str, power: str | None,
                flights: Sequence[tuple[str, str, Sequence[str]]],
                escorts: Sequence[tuple[str, str]], how: str, by: str) -> None:
    shown = "; ".join(f"{a} to {h} for {', '.join(u)}" for a, h, u in flights) or "no ATR"
    with_ = f", escorted by {', '.join(f'{u} to {h}' for u, h in escorts)}" if escorts else ""
    f.emit("air.flown", f"{side} flies ({how}): {shown}{with_} ({RULES[FLIGHT]}).",
           {"side": side, "window": FLIGHT, "power": power,
            "flights": [{"atr": a, "hex": h, "units": list(u)} for a, h, u in flights],
            "escorts": [{"unit": u, "hex": h} for u, h in escorts], "how": how}, by=by)


def refuse_while_flying(state: State, command: Command) -> None:
    """While a window of an air reorganization mission is open, the game waits for it:
    only its answers (and standing orders) may come (RULES-NOTES 34)."""
    m = state.air
    if m is None or m.window == "" or command.kind in ANSWERS or command.kind == "standing":
        return
    waiting = ", ".join(x for x in m.sides if x not in m.answered)
    raise Refused("air/window_open", f"{m.side}'s air reorganization waits for {waiting} "
                  f"({m.window}, {RULES[m.window]})", rule=READING,
                  extra={"awaiting": awaiting(state)})

