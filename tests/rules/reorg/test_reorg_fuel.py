"""Fuel when reorganizing (11.18 fuel: the short form's "Fuel costs are separate but
necessary when reorganizing as well", and the Reorganize Units chit's "Fuel costs still
must be paid"; RULES-NOTES 30) as scenario data: each major power's stock and each unit
type's fuel cost to reorganize, spent by the paying power whatever the method, refused
naming the unit and the stock when short, shown in the views, added to by production as
the scenario says; a scenario without fuel plays as before."""

from __future__ import annotations

from typing import Any

import pytest
from engine import skip_initiative, table
from reorg_kit import act, at_step, doc, refuse, replayed

from service.rules.reorg import reorg_options
from service.rules.scenario import ScenarioInvalid, parse_scenario, scenario_to_json
from service.rules.view import Viewer, view

ROW = ". . . . . ."
PRIMARY = {"0101": ("primary", "cw")}
FUEL = {"reorganize": {"ARM": 2, "FTR": 1}, "powers": {"cw": {"stock": 3, "per_turn": 4}}}
GM = Viewer(role="gm")


def _map(fuel: dict[str, Any] | None = FUEL) -> dict[str, Any]:
    units = [("cw-arm", "cw", "ARMdiv", "0201", "combat"),
             ("cw-arm-2", "cw", "ARMdiv", "0201", "combat"),
             ("cw-inf", "cw", "INFdiv", "0201", "combat"),
             ("cw-sup", "cw", "SUPPLY", "0301", None)]
    data = doc(ROW, sources=PRIMARY, units=units, down=["cw-arm", "cw-arm-2", "cw-inf"])
    if fuel is not None:
        data["fuel"] = fuel
    return data


def _primary(unit: str) -> dict[str, Any]:
    return {"unit": unit, "method": "primary", "source": "0101"}


def test_reorganizing_a_fuel_dependent_type_spends_the_payers_fuel_11_18_fuel() -> None:
    t = at_step(_map())
    assert t.state.powers["cw"].fuel == 3
    events = act(t, [_primary("cw-arm"), _primary("cw-inf")])
    assert [(e.data["fuel"], e.data["fuel_left"]) for e in events] == [(2, 1), (0, 1)]
    assert "1 fuel left" in events[0].text
    assert t.state.powers["cw"].fuel == 1
    assert view(t.state, GM)["powers"]["cw"]["fuel"] == 1
    assert view(t.state, GM)["powers"]["germany"]["fuel"] == 0  # listed nowhere: none
    assert replayed(t)


def test_short_of_fuel_the_order_is_refused_naming_the_unit_and_the_stock_11_18_fuel() -> None:
    t = at_step(_map())
    error = refuse(t, [_primary("cw-arm"), _primary("cw-arm-2")])
    assert (error.code, error.rule) == ("reorg/not_enough_fuel", "11.18 fuel")
    assert error.errors == [("/body/items/1", "cw has 1 fuel left; cw-arm-2 (ARM) needs 2 "
                                              "to reorganize")]
    assert error.extra["unit"] == "cw-arm-2"
    assert t.state.powers["cw"].fuel == 3 and not t.state.units["cw-arm"].face_up


def test_free_reorganization_still_pays_its_fuel_11_18_fuel_short_form() -> None:
    """The short form's expended supply unit costs no RPs; fuel is separate (and the
    Reorganize Units chit: "Fuel costs still must be paid")."""
    t = at_step(_map())
    events = act(t, [{"unit": "cw-arm", "method": "supply_unit", "supply_unit": "cw-sup"}])
    assert (events[0].data["cost"], events[0].data["fuel"]) == (0, 2)
    assert t.state.powers["cw"].fuel == 1


def test_options_show_the_fuel_a_way_costs_and_whether_it_is_affordable_11_18_fuel() -> None:
    t = at_step(_map(), rps={"cw": 30})
    option = next(o for o in reorg_options(t.state, "cw-arm").options if o.method == "primary")
    assert (option.fuel, option.affordable) == (2, True)
    act(t, [_primary("cw-arm")])
    option = next(o for o in reorg_options(t.state, "cw-arm-2").options
                  if o.method == "primary")
    assert (option.fuel, option.affordable) == (2, False)
    assert option.as_data()["fuel"] == 2


def test_a_scenario_without_fuel_plays_as_before_rn30() -> None:
    t = at_step(_map(fuel=None))
    assert t.state.powers["cw"].fuel is None
    events = act(t, [_primary("cw-arm"), _primary("cw-arm-2")])
    assert all("fuel" not in e.data for e in events)
    seen = view(t.state, GM)
    assert seen["powers"]["cw"]["fuel"] is None
    assert any("RULES-NOTES 30" in x for x in seen["game"]["not_modeled"])
    assert not any("RULES-NOTES 30" in x for x in view(at_step(_map()).state,
                                                       GM)["game"]["not_modeled"])


def test_production_adds_the_scenarios_fuel_per_turn_rn30() -> None:
    t = table({"initiative": [9, 5, 1], "weather": [7], "turn_end": [10, 10]},
              options={"turn_end": {"threshold": 10}},
              changes={"fuel": {"reorganize": {"ARM": 1},
                                "powers": {"germany": {"stock": 5, "per_turn": 3}}}})
    skip_initiative(t)
    t.act("declare", {"actions": {"germany": "land", "italy": "land"}}, side="axis")
    t.done_steps()
    assert t.state.step == "production"
    for side in ("axis", "allies", "communists"):
        t.act("production", {"powers": {p: {"bp_spent": 5, "bp_on_rps": 0}
                                        for p in t.state.side_powers(side)}}, side=side)
    applied = next(e for e in t.events if e.kind == "production.applied")
    assert applied.data["fuel"] == {"germany": 3, "italy": 0, "cw": 0, "usa": 0, "france": 0,
                                    "ussr": 0, "china": 0}
    assert "germany +3 fuel (8)" in applied.text
    assert t.state.powers["germany"].fuel == 8


def test_the_scenarios_fuel_is_read_checked_and_written_back_rn30() -> None:
    data = _map()
    sc = parse_scenario(data)
    assert sc.fuel is not None and sc.fuel.cost("ARM") == 2 and sc.fuel.cost("INF") == 0
    written = scenario_to_json(sc)
    assert written["fuel"]["powers"]["cw"] == {"stock": 3, "per_turn": 4}
    assert written["fuel"]["powers"]["germany"] == {"stock": 0, "per_turn": 0}
    assert parse_scenario(written) == sc
    assert "fuel" not in scenario_to_json(parse_scenario(_map(fuel=None)))
    bad = _map(fuel={"reorganize": {"TANK": 1, "ARM": -1},
                     "powers": {"greece": {"stock": 1}, "cw": {"oil": 2}}, "price": 1})
    with pytest.raises(ScenarioInvalid) as caught:
        parse_scenario(bad)
    assert {(p.path, p.message) for p in caught.value.problems} == {
        ("fuel.price", "unknown field"),
        ("fuel.reorganize.TANK", "unknown unit type 'TANK'"),
        ("fuel.reorganize.ARM", "must be between 0 and 100000, got -1"),
        ("fuel.powers.greece", "not a major power: a minor's units use its controller's fuel"),
        ("fuel.powers.cw.oil", "unknown field"),
    }


def test_a_standing_orders_cheapest_spending_keeps_within_the_fuel_11_18_fuel() -> None:
    """The final reorganization's "cheapest way for every unit" (issue 30) spends no more
    fuel than the power has: 3 fuel reorganize one armoured division (2) and the
    infantry (0), not both divisions."""
    from service.rules.standing.spend import cheapest_items

    t = at_step(_map(), rps={"cw": 30})
    items = cheapest_items(t.state, "cw")
    assert sorted(i["unit"] for i in items) == ["cw-arm", "cw-inf"]
    act(t, items)
    assert t.state.powers["cw"].fuel == 1
