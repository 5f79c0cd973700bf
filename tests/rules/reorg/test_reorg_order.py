"""The `reorg` order (docs/api.md) and the reorganization step (11.18; RULES-NOTES 6-8,
21): all-or-nothing, paying, cooperation, once per impulse, shattered units, who may
order, malformed bodies, the view, replay."""

from __future__ import annotations

from dataclasses import replace

import pytest
from modes_kit import COAST_HEXES, COAST_SEAS, game, until
from reorg_kit import act, at_step, decide_as, doc, reason, refuse, replayed

from service.rules import state as st
from service.rules.codec import from_data, to_data
from service.rules.errors import Forbidden, Malformed
from service.rules.reorg import could_reorganize
from service.rules.state import State
from service.rules.view import Viewer, view

ROW = ". . . . . g"
PRIMARY = {"0101": ("primary", "cw"), "0401": ("primary", "cw")}


def _map(**kw: object) -> dict:
    units = [("cw-a", "cw", "INFdiv", "0201", "combat"),
             ("cw-b", "cw", "INFdiv", "0201", "combat"),
             ("cw-up", "cw", "INFdiv", "0201", "combat"),
             ("gr-a", "greece", "INFdiv", "0201", "combat"),
             ("usa-a", "usa", "INFdiv", "0201", "combat"),
             ("ger-a", "germany", "INF", "0601", "move")]
    down = kw.pop("down", ["cw-a", "cw-b", "gr-a", "usa-a", "ger-a"])
    return doc(ROW, sources={**PRIMARY, "0601": ("primary", "germany")}, units=units,
               down=down, **kw)  # type: ignore[arg-type]


def _item(unit: str, source: str = "0101") -> dict:
    return {"unit": unit, "method": "primary", "source": source}


def test_an_order_is_all_or_nothing_design_4_1() -> None:
    t = at_step(_map())
    error = refuse(t, [_item("cw-a"), _item("cw-up")])
    assert error.errors == [("/body/items/1/unit",
                             "cw-up is face up: there is nothing to reorganize")]
    assert error.message.startswith("item 1 (primary, 11.18): ")
    assert t.events == [] and not t.state.units["cw-a"].face_up


def test_a_power_never_spends_more_rps_than_it_has_11_18() -> None:
    t = at_step(_map(), rps={"cw": 5})
    error = refuse(t, [_item("cw-a"), _item("cw-b")])
    assert error.code == "reorg/not_enough_rps"
    assert error.errors == [("/body/items/1", "cw has 2 RPs left; cw-b costs 3")]
    act(t, [_item("cw-a")])
    assert t.state.powers["cw"].rps == 2


def test_unused_rps_lapse_when_the_impulse_ends_rn8() -> None:
    from service.rules.events import Event
    from service.rules.evolve import evolve

    t = at_step(_map())
    act(t, [_item("cw-a")])
    after = evolve(t.state, Event("impulse.ended", "", {"side": "allies",
                                                        "impulses_taken": 1}))
    assert after.powers["cw"].rps == 0


def test_cooperating_powers_pay_for_each_others_units_11_18() -> None:
    t = at_step(_map())
    act(t, [_item("cw-a")], power="france")
    assert t.state.powers["france"].rps == 5 and t.state.powers["cw"].rps == 30


def test_minor_units_use_their_controllers_rps_11_18() -> None:
    t = at_step(_map())
    act(t, [_item("gr-a")])
    assert t.state.powers["cw"].rps == 27
    error = refuse(t, [_item("cw-a")], power="greece", side="allies", kind=Malformed)
    assert error.errors == [("/body/power", "expected the major power that pays (a minor's "
                             "units use its controller's RPs)")]


def test_only_the_controlling_major_pays_for_a_minors_unit_11_18() -> None:
    """11.18: "Minor country units must use RPs available to their controlling major
    power": France cooperates with the CW but does not pay for Greece's units."""
    t = at_step(_map())
    error = refuse(t, [_item("gr-a")], power="france")
    assert error.rule == "11.18 Reorganization points" and error.code == "reorg/payer"
    assert error.errors[0][0] == "/body/power"
    assert reason(error) == ("france cannot pay for gr-a of greece: a minor country's units "
                             "use the RPs of its controlling major power, cw")
    act(t, [_item("gr-a")], power="cw")
    assert t.state.powers["cw"].rps == 27 and t.state.powers["france"].rps == 8


def test_a_neutral_power_pays_only_for_its_own_units_rn21() -> None:
    t = at_step(_map())
    error = refuse(t, [_item("cw-a")], power="usa")
    assert reason(error) == ("usa cannot pay for cw-a of cw: only cooperating major powers pay "
                             "for each other's units (a neutral power only for its own)")
    assert error.errors[0][0] == "/body/power"
    error = refuse(t, [_item("usa-a")])
    assert "cw cannot pay for usa-a of usa" in reason(error)


def test_a_neutral_powers_units_use_only_its_own_sources_rn21() -> None:
    t = at_step(_map())
    error = refuse(t, [_item("usa-a")], power="usa")
    assert reason(error) == ("City 0101 is not in supply: hex 0101 is not controlled by a "
                             "friendly power")


def test_a_unit_is_reorganized_once_per_impulse_11_18() -> None:
    t = at_step(_map(shattered=["cw-a"]))
    error = refuse(t, [_item("cw-a"), _item("cw-a")])
    assert reason(error) == ("cw-a was already reorganized this impulse (once per impulse; a "
                             "shattered unit needs two impulses)")


def test_a_shattered_unit_needs_two_reorganizations_in_two_impulses_11_18() -> None:
    t = at_step(_map(shattered=["cw-a"]))
    events = act(t, [_item("cw-a")])
    assert "face down, no longer shattered" in events[0].text
    unit = t.state.units["cw-a"]
    assert (unit.face_up, unit.shattered) == (False, False)
    refuse(t, [_item("cw-a")])
    t.state = replace(t.state, turn=replace(t.state.turn, impulse=2))
    act(t, [_item("cw-a")])
    assert t.state.units["cw-a"].face_up is True


def test_an_enemy_unit_is_not_ours_to_reorganize() -> None:
    error = refuse(at_step(_map()), [_item("ger-a", "0601")])
    assert reason(error).startswith("cw cannot pay for ger-a of germany")


def test_malformed_orders_list_every_bad_field_design_4_1() -> None:
    t = at_step(_map())
    body = {"power": "cw", "items": [
        {"unit": "cw-a", "method": "teleport"},
        {"unit": "nobody", "method": "primary", "source": "9999"},
        {"unit": "cw-a", "method": "primary"},
        {"unit": "cw-a", "method": "atr", "atr": "cw-b", "source": "0101"},
        "cw-a",
        {"method": "port_repair", "port": "0101", "source": "0101", "unit": "cw-a"},
    ]}
    with pytest.raises(Malformed) as bad:
        t.act("reorg", body, side="allies")
    assert bad.value.errors == [
        ("/body/items/0/method", "expected one of atr, hq, limited, overseas, primary, rail, "
                                 "secondary, supply_unit, trs, at_sea, chit, port_repair"),
        ("/body/items/1/source", "unknown hex or unit '9999'"),
        ("/body/items/1/unit", "unknown unit 'nobody'"),
        ("/body/items/2/source", "primary needs source"),
        ("/body/items/3/source", "atr takes no field 'source'"),
        ("/body/items/4", "expected {unit, method, ...fields}"),
        ("/body/items/5/unit", "port_repair takes no field 'unit'"),
    ]
    with pytest.raises(Malformed):
        t.act("reorg", {"power": "cw", "items": []}, side="allies")
    # A key no reorg body has is refused before anything else is read (docs/api.md).
    with pytest.raises(Malformed) as unknown:
        t.act("reorg", {**body, "extra": 1}, side="allies")
    assert unknown.value.code == "order/unknown_key"
    assert unknown.value.errors == [
        ("/body/extra", "unknown key 'extra' (the keys are: items, power)")]


def test_a_player_pays_only_with_a_power_it_holds() -> None:
    t = at_step(_map())
    with pytest.raises(Forbidden) as forbidden:
        decide_as(t, "allies", ("usa",), {"power": "cw", "items": [_item("cw-a")]})
    assert forbidden.value.errors == [("/body/power", "power not held")]


def test_reorg_outside_a_reorganization_step_is_refused_design_4_3() -> None:
    t = at_step(_map(), step=st.ACTION)
    error = refuse(t, [_item("cw-a")])
    assert error.code == "order/wrong_step"


def test_only_the_sides_in_the_step_reorganize_rn6() -> None:
    t = at_step(_map())
    error = refuse(t, [_item("ger-a", "0601")], power="germany")
    assert error.code == "order/not_your_turn" and error.rule == "RULES-NOTES 6"
    t = at_step(_map(), sides=("axis", "allies"), rps={"germany": 20})
    act(t, [_item("ger-a", "0601")], power="germany")
    assert t.state.units["ger-a"].face_up


def test_a_side_done_with_the_step_orders_no_more() -> None:
    t = at_step(_map(), sides=("axis", "allies"))
    t.act("done", side="allies")
    error = refuse(t, [_item("cw-a")])
    assert error.code == "order/already_done"


def test_a_side_takes_part_only_with_something_it_could_reorganize_design_4_3() -> None:
    t = at_step(_map())
    assert could_reorganize(t.state, "allies")
    assert not could_reorganize(t.state, "communists")  # no unit at all
    data = _map()
    for p in data["powers"]:
        p["bp_spent_last_turn"] = 0
    broke = at_step(data)
    assert not could_reorganize(broke.state, "allies")  # face-down units, no RPs coming
    data["units"].append({"id": "cw-sup", "power": "cw", "class": "land", "type": "SUPPLY",
                          "size": "division", "cost": 2, "at": "0101"})
    assert could_reorganize(at_step(data).state, "allies")  # a supply unit to expend
    assert not could_reorganize(at_step(data, options={
        "reorg": {"supply_unit_expend": False}}).state, "allies")


def test_the_view_shows_remaining_capacity_and_rps_design_4_3() -> None:
    t = at_step(_map(), rps={"cw": 30})
    act(t, [_item("cw-a")])
    mine = view(t.state, Viewer(role="player", player_id="p-allies", side="allies",
                                powers=("cw", "usa", "france")))
    assert mine["powers"]["cw"]["rps"] == 27
    reorg = mine["reorg"]
    assert reorg["in_step"] and reorg["period"] == "1/1/reorganization"
    assert reorg["reorganized"] == ["cw-a"]
    source = next(s for s in reorg["sources"] if s["hex"] == "0101")
    assert source["used"] == {"units": 1, "corps": 0, "fuel_dependent": 0}
    assert source["left"] == {"units": None, "corps": 1, "fuel_dependent": 0}
    assert [s["hex"] for s in reorg["sources"]] == ["0101", "0401"]  # not Germany's
    assert reorg["rail_moves"]["cw"]["left"] == {"moves": 2}
    gm = view(t.state, Viewer(role="gm"))["reorg"]
    assert {s["hex"] for s in gm["sources"]} == {"0101", "0401", "0601"}


def test_replay_equals_the_state_and_the_snapshot_round_trips() -> None:
    t = at_step(_map())
    act(t, [_item("cw-a")])
    act(t, [_item("cw-b")], power="france")
    act(t, [_item("gr-a")])
    assert replayed(t)
    data = to_data(t.state)
    assert from_data(State, data, setup=t.state.setup) == t.state


def test_rail_moves_left_in_the_step_11_18_6() -> None:
    from service.rules.reorg import rail_moves_left

    t = at_step(doc("= = = = = =", sources=PRIMARY,
                    units=[("cw-a", "cw", "INFdiv", "0601", "combat")], down=["cw-a"]))
    assert rail_moves_left(t.state, "cw") == 2
    act(t, [{"unit": "cw-a", "method": "rail", "source": "0101"}])
    assert rail_moves_left(t.state, "cw") == 1


def test_a_power_with_nothing_face_down_reorganizes_to_repair_a_damaged_port_11_18_4() -> None:
    """11.18.4: "Damaged ports can receive RPs in order to repair the port only": a side
    with RPs and a damaged port of its own takes part in the reorganization step with no
    face-down unit, and the repair is accepted; without RPs, or with the port repaired or
    held by the enemy, it takes no part."""
    damaged = {"h43": {**COAST_HEXES["h43"], "port_damaged": True}}
    t = game(hexes=damaged, seas=COAST_SEAS)
    assert not any(not u.face_up for u in t.state.units.values())
    until(t, "reorganization")
    assert t.state.turn.step_sides == ("axis",)
    events = t.act("reorg", {"power": "germany", "items": [
        {"method": "port_repair", "port": "h43", "source": "h41"}]}, side="axis")
    assert [e.kind for e in events] == ["port.repaired"]
    assert not could_reorganize(t.state, "axis")  # repaired: nothing left to do
    broke = game(hexes=damaged, seas=COAST_SEAS, powers={"germany": {
        "bp_spent_last_turn": 1, "bp_on_rps": 0, "rp_gearing_cap": 1}})
    assert not could_reorganize(broke.state, "axis")  # 1 RP: the repair costs 2
    held = game(hexes=damaged, seas=COAST_SEAS, units={"cw-inf-1": {"at": "h43"}})
    assert not could_reorganize(held.state, "axis")  # held by the enemy


def test_the_final_reorganization_step_repairs_a_damaged_port_too_11_18_4_rn7() -> None:
    t = game(hexes={"h43": {**COAST_HEXES["h43"], "port_damaged": True}}, seas=COAST_SEAS)
    for _ in range(60):
        if t.state.step in ("final_reorganization", "production"):
            break
        waiting = t.awaiting()
        if waiting[0]["step"] == "declare":
            t.act("declare", {"actions": {"germany": "pass"} if waiting[0]["side"] == "axis"
                              else {p: "pass" for p in t.state.side_powers(waiting[0]["side"])}},
                  side=waiting[0]["side"])
        else:
            t.act("done", side=waiting[0]["side"])
    assert t.state.step == "final_reorganization"
    assert "axis" in t.state.turn.step_sides
