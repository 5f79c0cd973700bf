"""Each `reorg.*` option of RULES-NOTES (rows 1-7, 23, 25): the default reading and the
other one, on hand-drawn maps and through the turn."""

from __future__ import annotations

from engine import skip_initiative, table
from reorg_kit import act, at_step, doc, reason, refuse

from service.rules import state as st

ROW = ". . . . . . . ."
PRIMARY = {"0101": ("primary", "cw"), "0801": ("primary", "cw")}
COASTS = {"0101": ["north-sea"], "0601": ["channel"], "0501": ["channel"]}
SEAS = {"north-sea": ["channel"]}


def _seaboard(units: list, **kw: object) -> dict:
    return doc(". # . . . .", coasts=COASTS, seas=SEAS, ports={"0101": "major", "0601": "minor"},
               sources={"0101": ("primary", "cw")}, units=units,
               down=[u[0] for u in units], **kw)  # type: ignore[arg-type]


def _overseas(unit: str, port: str | None = "0601") -> dict:
    item = {"unit": unit, "method": "overseas", "source": "0101"}
    return item if port is None else {**item, "port": port}


def test_minor_port_limit_option_short_form_one_unit_rn1() -> None:
    units = [(f"cw-{k}", "cw", "INFdiv", "0601", "combat") for k in "ab"]
    t = at_step(_seaboard(units), options={"reorg": {"minor_port_limit": 1}})
    act(t, [_overseas("cw-a")])
    error = refuse(t, [_overseas("cw-b")])
    assert reason(error) == ("hex 0601 already passed 1 unit this impulse (a minor port passes "
                             "1 per impulse)")


def test_coastal_types_option_rn2() -> None:
    units = [("cw-div", "cw", "INFdiv", "0501", "combat"), ("cw-mar", "cw", "MAR", "0501",
                                                             "combat")]
    t = at_step(_seaboard(units), options={"reorg": {"coastal_types": ["MAR"]}})
    act(t, [_overseas("cw-mar", None)])
    error = refuse(t, [_overseas("cw-div", None)])
    assert "must trace via a port" in reason(error) and error.rule == "RULES-NOTES 2"


def _primary_map() -> dict:
    units = [("cw-inf", "cw", "INF", "0201", "combat"), ("cw-lnd", "cw", "LND", "0201", None),
             ("cw-div-1", "cw", "INFdiv", "0201", "combat"),
             ("cw-div-2", "cw", "INFdiv", "0201", "combat")]
    return doc(ROW, sources=PRIMARY, units=units, down=[u[0] for u in units], oil=["cw-lnd"])


def test_primary_limit_two_units_short_form_rn3() -> None:
    t = at_step(_primary_map(), options={"reorg": {"primary_limit": "two_units"}})
    act(t, [{"unit": "cw-lnd", "method": "primary", "source": "0101"},
            {"unit": "cw-div-1", "method": "primary", "source": "0101"}])
    error = refuse(t, [{"unit": "cw-div-2", "method": "primary", "source": "0101"}])
    assert reason(error) == ("City 0101 already reorganized 2 units this impulse (option "
                             "reorg.primary_limit two_units)")


def test_primary_limit_factories_long_form_default_rn3() -> None:
    t = at_step(_primary_map())  # factories 0: no fuel-dependent unit
    error = refuse(t, [{"unit": "cw-lnd", "method": "primary", "source": "0101"}])
    assert "has 0 operating factories" in reason(error)
    act(t, [{"unit": "cw-inf", "method": "primary", "source": "0101"},
            {"unit": "cw-div-1", "method": "primary", "source": "0101"},
            {"unit": "cw-div-2", "method": "primary", "source": "0101"}])


def _rail_map() -> dict:
    units = [("cw-a", "cw", "INF", "0801", "combat"), ("cw-b", "cw", "INF", "0701", "combat")]
    return doc("= = = = = = = =", sources={"0101": ("primary", "cw")}, units=units,
               down=["cw-a", "cw-b"])


def test_rail_does_not_count_against_the_source_short_form_rn4() -> None:
    t = at_step(_rail_map(), options={"reorg": {"rail_counts_against_source": False}})
    act(t, [{"unit": "cw-a", "method": "rail", "source": "0101"},
            {"unit": "cw-b", "method": "rail", "source": "0101"}])
    assert "corps:0101" not in t.state.reorg.used


def test_rail_counts_against_the_source_long_form_default_rn4() -> None:
    t = at_step(_rail_map())
    act(t, [{"unit": "cw-a", "method": "rail", "source": "0101"}])
    assert t.state.reorg.used["corps:0101"] == 1


def _supply_map() -> dict:
    units = [("cw-sup", "cw", "SUPPLY", "0401", None), ("cw-hq", "cw", "HQ", "0401", "combat"),
             ("cw-a", "cw", "INF", "0501", "combat")]
    return doc(ROW, cities=["0401"], units=units, down=["cw-a"],
               sources={"0101": ("primary", "cw")})


def test_supply_unit_hq_primary_option_rn5() -> None:
    item = {"unit": "cw-a", "method": "primary", "source": "cw-hq"}
    act(at_step(_supply_map()), [item])
    error = refuse(at_step(_supply_map(), options={"reorg": {"supply_unit_hq_primary": False}}),
                   [item])
    assert reason(error) == ("an HQ acts as a primary source only with option "
                             "reorg.supply_unit_hq_primary")


def test_supply_unit_expend_option_rn5() -> None:
    item = {"unit": "cw-a", "method": "supply_unit", "supply_unit": "cw-sup"}
    act(at_step(_supply_map()), [item])
    error = refuse(at_step(_supply_map(), options={"reorg": {"supply_unit_expend": False}}),
                   [item])
    assert reason(error) == ("expending supply units is off in this game (option "
                             "reorg.supply_unit_expend)")
    assert error.errors[0][0] == "/body/items/0/method"


def test_supply_unit_city_source_option_rn5() -> None:
    item = {"unit": "cw-a", "method": "secondary", "source": "0401"}
    act(at_step(_supply_map()), [item])
    error = refuse(at_step(_supply_map(), options={"reorg": {"supply_unit_city_source": False}}),
                   [item])
    assert reason(error) == ("City 0401 is not a secondary supply source (nor a city with a "
                             "supply unit)")


def test_port_repair_cost_option_rn23() -> None:
    data = _seaboard([], damaged=["0601"])
    t = at_step(data, options={"reorg": {"port_repair_cost": {"minor": 3, "major": 5}}})
    events = act(t, [{"method": "port_repair", "port": "0601", "source": "0101"}])
    assert events[0].data["cost"] == 3 and t.state.powers["cw"].rps == 27
    error = refuse(t, [{"method": "port_repair", "port": "0601", "source": "0101"}])
    assert reason(error) == "the port in hex 0601 is not damaged"


def test_hq_needs_supply_option_rn25() -> None:
    units = [("cw-hq", "cw", "HQ", "0601", "combat"), ("cw-a", "cw", "INF", "0701", "combat")]
    data = doc(ROW, sources={"0101": ("primary", "cw")}, units=units, down=["cw-a"])
    item = {"unit": "cw-a", "method": "hq", "hq": "cw-hq"}
    error = refuse(at_step(data), [item])
    assert reason(error).startswith("HQ cw-hq is out of supply: no primary supply source "
                                    "traces")
    assert error.rule == "RULES-NOTES 25"
    act(at_step(data, options={"reorg": {"hq_needs_supply": False}}), [item])


def _to_reorganization(options: dict | None = None) -> object:
    t = table({"initiative": [5, 5, 5], "weather": [7]}, name="reorg-1944", options=options)
    skip_initiative(t, ("allies", "axis", "communists"))
    t.act("declare", {"actions": {"cw": "pass", "usa": "pass"}}, side="allies")
    return t


def test_impulse_step_phasing_only_the_side_that_moved_reorganizes_rn6() -> None:
    t = _to_reorganization()
    assert t.state.step == st.REORGANIZATION  # type: ignore[attr-defined]
    assert t.state.turn.step_sides == ("allies",)  # type: ignore[attr-defined]
    assert t.state.powers["germany"].rps == 0  # type: ignore[attr-defined]


def test_impulse_step_all_every_side_with_something_to_do_reorganizes_rn6() -> None:
    t = _to_reorganization({"reorg": {"impulse_step": "all"}})
    assert t.state.turn.step_sides == ("allies", "axis")  # type: ignore[attr-defined]
    assert t.state.powers["germany"].rps == 20  # type: ignore[attr-defined]


def _to_turn_end(options: dict) -> object:
    t = table({"initiative": [5, 5, 5], "weather": [7], "turn_end": [9, 9]},
              name="reorg-1944", options={"turn_end": {"threshold": 2}, **options})
    skip_initiative(t, ("allies", "axis", "communists"))
    t.act("declare", {"actions": {"cw": "pass", "usa": "pass"}}, side="allies")
    t.act("done", side="allies")
    return t


def test_final_step_every_power_reorganizes_at_turn_end_rn7() -> None:
    t = _to_turn_end({})
    assert t.state.step == st.FINAL_REORGANIZATION  # type: ignore[attr-defined]
    assert set(t.state.turn.step_sides) == {"allies", "axis"}  # type: ignore[attr-defined]
    assert t.state.powers["cw"].rps == 36  # type: ignore[attr-defined]
    act(t, [{"unit": "cw-lnd-1", "method": "primary", "source": "1231"}])  # type: ignore[arg-type]


def test_final_step_off_skips_the_final_reorganization_rn7() -> None:
    t = _to_turn_end({"reorg": {"final_step": False}})
    assert t.state.step == st.PRODUCTION  # type: ignore[attr-defined]
