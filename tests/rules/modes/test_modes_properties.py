"""Properties of OCS modes (hypothesis), over random sequences of mode, release, report,
declare and done orders, refused ones included: a unit is always in exactly one mode
(OCS 5.2); an involuntary mode ends only in the phasing side's clean up or when DG replaces
it (OCS 5.4, 5.10); Reserve markers never exceed a side's limit once placed (OCS 5.4a);
replay equals state."""

from __future__ import annotations

from typing import Any

from engine import Table
from hypothesis import given
from hypothesis import strategies as st
from modes_kit import game

from service.rules import evolve, fold
from service.rules.codec import to_data
from service.rules.errors import RulesError
from service.rules.events import Event
from service.rules.modes import vocabulary as m
from service.rules.state import State

UNITS = ["ger-arm-1", "ger-inf-1", "ger-inf-2", "ger-art-1", "ger-hq-1", "ger-trk-1",
         "ger-tp-1", "ger-repl-1", "ger-inf-3", "cw-inf-1", "cw-arm-1", "cw-inf-2",
         "cw-hq-1", "sov-inf-1", "sov-inf-2"]


def exactly_one_mode(state: State) -> None:
    sc = state.setup.scenario
    for uid, unit in state.units.items():
        spec = sc.unit(uid)
        if spec.ocs is None or not m.uses_modes(spec):
            continue
        assert unit.mode in m.MODES and unit.orientation in m.ORIENTATIONS, uid
        if unit.mode in (m.COMBAT, m.MOVE):
            assert unit.orientation == unit.mode, uid
        if unit.mode == m.STRAT or spec.ocs.kind in m.MOVE_ONLY_KINDS:
            assert unit.orientation == m.MOVE, uid
        if spec.ocs.kind in m.TRANSPORT_KINDS:
            assert unit.mode not in (m.DG, m.STRAT), uid
        if spec.ocs.kind == "transport":
            assert unit.mode != m.RESERVE, uid


def markers_within_limits(state: State) -> None:
    """OCS 5.4a: in the movement (action) step the markers placed so far, once it is over
    every one (a marker is placed after the unit's 25% move)."""
    moving = state.step == "action"
    for side in state.setup.scenario.sides:
        placed = m.reserve_stacks(state, side.id, placed_only=moving)
        assert len(placed) <= side.reserve_markers, side.id


def involuntary_modes_end_properly(before: State, event: Event, after: State) -> None:
    for uid, unit in before.units.items():
        if unit.mode not in m.INVOLUNTARY:
            continue
        now = after.units.get(uid)
        if now is None:
            assert event.kind == "unit.eliminated", (uid, event.kind)
            continue
        if now.mode == unit.mode:
            continue
        if event.kind == "impulse.cleaned_up":
            side = before.setup.scenario.side_of_power(unit.power)
            assert side == before.turn.phasing_side, uid
        else:
            assert event.kind == "hex.disorganized" and now.mode == m.DG, (uid, event.kind)


def _own(t: Table, side: str) -> list[str]:
    sc = t.state.setup.scenario
    return sorted(u for u, x in t.state.units.items()
                  if sc.side_of_power(x.power) == side and u in UNITS)


def _order(data: st.DataObject, t: Table) -> tuple[str, dict[str, Any], str]:
    waiting = t.awaiting()
    side = waiting[0]["side"] if waiting else "axis"
    if t.state.step == "declare":
        actions = {p: data.draw(st.sampled_from(["land", "land", "pass"]))
                   for p in waiting[0]["powers"]}
        return "declare", {"actions": actions}, side
    sc = t.state.setup.scenario
    kind = data.draw(st.sampled_from(["mode", "mode", "report", "report", "report",
                                      "release", "done"]))
    own = _own(t, side) or UNITS
    unit = data.draw(st.sampled_from(own if data.draw(st.booleans()) else UNITS))
    if kind == "mode":
        change: dict[str, Any] = {"unit": unit, "mode": data.draw(st.sampled_from(m.MODES))}
        orientation = data.draw(st.sampled_from([None, "combat", "move"]))
        if orientation:
            change["orientation"] = orientation
        return "mode", {"changes": [change]}, side
    if kind == "release":
        reserves = [u for u in own if t.state.units[u].mode == m.RESERVE] or [unit]
        return "release", {"units": [data.draw(st.sampled_from(reserves))]}, side
    if kind == "done":
        return "done", {}, side
    at = t.state.units[unit].at if unit in t.state.units else "h00"
    near = list(sc.map.neighbours(at))
    if data.draw(st.booleans()):
        hex_id = data.draw(st.sampled_from(near))
        item = {"unit": unit, "to": hex_id, "mp": data.draw(st.sampled_from([0, 0.75, 1, 2, 4])),
                "transport": data.draw(st.sampled_from([None, None, None, "rail", "amphibious"]))}
        return "report", {"moves": [item]}, side
    enemy_hexes = {t.state.units[u].at for u in t.state.units
                   if u in UNITS and sc.side_of_power(t.state.units[u].power) != side}
    pairs = sorted((a, h) for a in own if a in t.state.units for h in enemy_hexes
                   if h in sc.map.neighbours(t.state.units[a].at))
    if pairs and data.draw(st.booleans()):
        unit, hex_id = data.draw(st.sampled_from(pairs))
    else:
        hex_id = data.draw(st.sampled_from(sorted(enemy_hexes) or near))
    defenders = sorted(u for u, x in t.state.units.items() if x.at == hex_id) or [unit]
    other = data.draw(st.sampled_from(defenders))
    first = data.draw(st.sampled_from(sc.map.neighbours(hex_id)))
    path = [first] + data.draw(st.lists(st.sampled_from(sc.map.neighbours(first)), max_size=1))
    result = data.draw(st.sampled_from([
        {"kind": "dg"},
        {"kind": "ignored"},
        {"kind": "loss", "unit": other},
        {"kind": "exploit", "units": [unit], "rating": 2},
        {"kind": "retreat", "units": [other], "path": path,
         "losses": data.draw(st.sampled_from([[], [other]]))},
        {"kind": "eliminated", "units": [other]},
    ]))
    combat = {"by": data.draw(st.sampled_from(["overrun", "combat", "barrage"])),
              "hex": hex_id, "attackers": [unit], "results": [result]}
    return "report", {"combats": [combat]}, side


@given(data=st.data())
def test_modes_stay_single_involuntary_modes_end_properly_and_markers_hold(
    data: st.DataObject,
) -> None:
    t = game()
    accepted = 0
    for _ in range(60):
        kind, body, side = _order(data, t)
        before = t.state
        try:
            events = t.act(kind, body, side=side)
        except RulesError:
            assert t.state is before
            continue
        accepted += 1
        state = before
        for event in events:
            after = evolve(state, event)
            involuntary_modes_end_properly(state, event, after)
            state = after
        exactly_one_mode(t.state)
        markers_within_limits(t.state)
    assert t.initial is not None
    assert to_data(fold(t.initial, t.events)) == to_data(t.state)
