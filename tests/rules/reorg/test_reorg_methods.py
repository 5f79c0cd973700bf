"""Every method of reorganization, 11.18.1-11.18.11 (long and short form), on small
hand-drawn maps (legend: map_art.py; positions: reorg_kit.py)."""

from __future__ import annotations

from reorg_kit import act, at_step, doc, reason, refuse, replayed

from service.rules.errors import Refused

ROW = ". . . . . . . ."  # 0101 .. 0801
PRIMARY = {"0101": ("primary", "cw")}


def _reorganized(events: list, unit: str) -> dict:
    found = [e for e in events if e.kind == "unit.reorganized" and e.data["unit"] == unit]
    assert found, [e.text for e in events]
    return dict(found[0].data)


# --------------------------------------------------------------------------- 11.18.1


def _atr_map(large: bool = False, rng: int = 4) -> dict:
    return doc(ROW, sources=PRIMARY,
               units=[("cw-atr", "cw", "ATR", "0101", None),
                      ("cw-a", "cw", "INF", "0501", "combat"),
                      ("cw-b", "cw", "INF", "0501", "combat"),
                      ("cw-c", "cw", "INF", "0401", "combat"),
                      ("cw-d", "cw", "INF", "0401", "combat"),
                      ("cw-far", "cw", "INF", "0601", "combat")],
               down=["cw-a", "cw-b", "cw-c", "cw-d", "cw-far"],
               atrs={"cw-atr": {"range": rng, "large": large, "base": "0101"}})


def test_atr_flies_to_a_hex_in_range_reorganizes_one_unit_and_turns_face_down_11_18_1() -> None:
    t = at_step(_atr_map())
    events = act(t, [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"}])
    data = _reorganized(events, "cw-a")
    assert data["cost"] == 3 and data["path"]["length"] == 4
    assert t.state.units["cw-a"].face_up is True
    assert t.state.units["cw-atr"].face_up is False  # RULES-NOTES 11
    assert t.state.powers["cw"].rps == 27
    error = refuse(t, [{"unit": "cw-b", "method": "atr", "atr": "cw-atr"}])
    assert reason(error) == ("ATR cw-atr already reorganized 1 unit this impulse (only a large "
                             "ATR within half its range reorganizes 2 (Option 36))")
    assert replayed(t)


def test_atr_beyond_its_range_is_refused_11_18_1() -> None:
    t = at_step(_atr_map())
    error = refuse(t, [{"unit": "cw-far", "method": "atr", "atr": "cw-atr"}])
    assert reason(error) == "hex 0601 is 5 hexes from ATR cw-atr's base City 0101; its range is 4"
    assert error.rule == "11.18.1" and error.errors[0][0] == "/body/items/0/atr"


def test_large_atr_within_half_range_reorganizes_two_units_in_one_hex_option_36_11_18_1() -> None:
    t = at_step(_atr_map(large=True, rng=6))
    act(t, [{"unit": "cw-c", "method": "atr", "atr": "cw-atr"},
            {"unit": "cw-d", "method": "atr", "atr": "cw-atr"}])
    assert t.state.units["cw-c"].face_up and t.state.units["cw-d"].face_up
    t2 = at_step(_atr_map(large=True, rng=6))
    error = refuse(t2, [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"},
                        {"unit": "cw-b", "method": "atr", "atr": "cw-atr"}])
    assert "only a large ATR within half its range reorganizes 2" in reason(error)
    t3 = at_step(_atr_map(large=True, rng=6))
    error = refuse(t3, [{"unit": "cw-c", "method": "atr", "atr": "cw-atr"},
                        {"unit": "cw-a", "method": "atr", "atr": "cw-atr"}])
    assert reason(error) == "ATR cw-atr already flew to hex 0401 this impulse"


def test_atr_mission_says_how_it_arrived_rn29_rn34() -> None:
    """With option reorg.atr_interception off, a mission simply arrives (RULES-NOTES 29);
    on, an ATR that nobody could meet arrives at once (RULES-NOTES 34; the missions
    themselves: tests/rules/air)."""
    off = at_step(_atr_map(), options={"reorg": {"atr_interception": False}})
    events = act(off, [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"}])
    assert "ATR interception is off in this game (option reorg.atr_interception, " \
           "RULES-NOTES 29): the mission arrives." in events[0].text
    on = at_step(_atr_map())
    events = act(on, [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"}])
    assert "the mission meets nobody (11.18.1 steps 1-6)" in events[0].text


def test_a_face_down_atr_flies_no_mission_11_18_1() -> None:
    data = _atr_map()
    data["units"][0]["face_up"] = False
    error = refuse(at_step(data), [{"unit": "cw-a", "method": "atr", "atr": "cw-atr"}])
    assert reason(error) == "ATR cw-atr is face down"


# --------------------------------------------------------------------------- 11.18.2


def _hq_map(value: int = 2) -> dict:
    return doc(ROW, sources=PRIMARY,
               units=[("cw-hq", "cw", "HQ", "0201", "combat"),
                      ("cw-a", "cw", "INF", "0301", "combat"),
                      ("cw-b", "cw", "INF", "0401", "combat"),
                      ("cw-c", "cw", "INF", "0501", "combat"),
                      ("cw-ftr", "cw", "FTR", "0401", None)],
               down=["cw-a", "cw-b", "cw-c", "cw-ftr"], hq_values={"cw-hq": value})


def test_hq_reorganizes_up_to_its_value_within_a_basic_path_then_flips_11_18_2() -> None:
    t = at_step(_hq_map())
    act(t, [{"unit": "cw-a", "method": "hq", "hq": "cw-hq"}])
    assert t.state.units["cw-hq"].face_up is False
    act(t, [{"unit": "cw-b", "method": "hq", "hq": "cw-hq"}])  # the flipped HQ goes on
    error = refuse(t, [{"unit": "cw-c", "method": "hq", "hq": "cw-hq"}])
    assert reason(error) == ("HQ cw-hq already reorganized 2 units this impulse; its "
                             "reorganization value is 2")
    assert t.state.powers["cw"].rps == 24


def test_a_face_down_hq_does_not_reorganize_11_18_2() -> None:
    data = _hq_map()
    data["units"][0]["face_up"] = False
    error = refuse(at_step(data), [{"unit": "cw-a", "method": "hq", "hq": "cw-hq"}])
    assert reason(error) == "HQ cw-hq is face down"


def test_an_hq_that_flipped_is_not_itself_reorganized_that_impulse_11_18_2() -> None:
    data = _hq_map()
    data["units"].append({**data["units"][1], "id": "cw-hq-2", "type": "HQ", "hq_reorg": 2,
                          "at": "0101"})
    t = at_step(data)
    act(t, [{"unit": "cw-a", "method": "hq", "hq": "cw-hq"}])
    error = refuse(t, [{"unit": "cw-hq", "method": "hq", "hq": "cw-hq-2"}])
    assert reason(error) == ("HQ cw-hq flipped to reorganize units this impulse and may not "
                             "itself be reorganized")


def _chain_map() -> dict:
    """cw-hq (face up) may reorganize cw-hq-2 (face down), which could then flip to
    reorganize cw-b: the chain 11.18.2 forbids."""
    data = _hq_map()
    data["units"].append({**data["units"][0], "id": "cw-hq-2", "at": "0301",
                          "face_up": False})
    return data


def test_an_hq_reorganized_this_impulse_may_not_flip_to_reorganize_units_11_18_2() -> None:
    """11.18.2: an HQ that flips to reorganize units may not itself be reorganized that
    impulse, so one reorganized may not flip: not in a later order of the step ..."""
    t = at_step(_chain_map())
    act(t, [{"unit": "cw-hq-2", "method": "hq", "hq": "cw-hq"}])
    assert t.state.units["cw-hq-2"].face_up
    error = refuse(t, [{"unit": "cw-b", "method": "hq", "hq": "cw-hq-2"}])
    assert (error.rule, error.code) == ("11.18.2", "reorg/provider_reorganized")
    assert reason(error) == ("HQ cw-hq-2 was reorganized this impulse and may not flip to "
                             "reorganize units")
    # ... nor later in the same order, checked against the state its earlier items produce
    t = at_step(_chain_map())
    error = refuse(t, [{"unit": "cw-hq-2", "method": "hq", "hq": "cw-hq"},
                       {"unit": "cw-b", "method": "hq", "hq": "cw-hq-2"}])
    assert (error.rule, error.errors[0][0]) == ("11.18.2", "/body/items/1/hq")
    assert reason(error) == ("HQ cw-hq-2 was reorganized this impulse and may not flip to "
                             "reorganize units")


def test_an_hq_that_flipped_earlier_in_the_order_is_not_reorganized_later_in_it_11_18_2(
) -> None:
    data = _hq_map()
    data["units"].append({**data["units"][0], "id": "cw-hq-2", "at": "0101"})
    t = at_step(data)
    error = refuse(t, [{"unit": "cw-a", "method": "hq", "hq": "cw-hq"},
                       {"unit": "cw-hq", "method": "hq", "hq": "cw-hq-2"}])
    assert (error.rule, error.errors[0][0]) == ("11.18.2", "/body/items/1/unit")
    assert reason(error) == ("HQ cw-hq flipped to reorganize units this impulse and may not "
                             "itself be reorganized")


def test_an_hq_reorganizes_units_not_in_its_zoc_but_not_itself() -> None:
    t = at_step(_hq_map())
    error = refuse(t, [{"unit": "cw-a", "method": "hq", "hq": "cw-a"}], kind=Refused)
    assert reason(error) == "cw-a is not an HQ"


# --------------------------------------------------------------------------- 11.18.3


def test_a_limited_source_reorganizes_one_unit_standing_on_it_11_18_3() -> None:
    data = doc(ROW, sources={**PRIMARY, "0301": ("limited", "cw")},
               units=[("cw-a", "cw", "INF", "0301", "combat"),
                      ("cw-b", "cw", "INF", "0301", "combat"),
                      ("cw-c", "cw", "INF", "0401", "combat")],
               down=["cw-a", "cw-b", "cw-c"])
    t = at_step(data)
    error = refuse(t, [{"unit": "cw-c", "method": "limited", "source": "0301"}])
    assert reason(error) == ("cw-c is not on City 0301: a limited source's basic path is 0 "
                             "hexes, so the unit must stand on it")
    act(t, [{"unit": "cw-a", "method": "limited", "source": "0301"}])
    error = refuse(t, [{"unit": "cw-b", "method": "limited", "source": "0301"}])
    assert reason(error) == "City 0301 already reorganized 1 unit this impulse"


def test_a_limited_source_in_a_damaged_port_gives_nothing_rn19() -> None:
    data = doc(ROW, sources={**PRIMARY, "0301": ("limited", "cw")}, ports={"0301": "minor"},
               damaged=["0301"], coasts={"0301": ["bay"]},
               units=[("cw-a", "cw", "INF", "0301", "combat")], down=["cw-a"])
    error = refuse(at_step(data), [{"unit": "cw-a", "method": "limited", "source": "0301"}])
    assert reason(error) == "City 0301 is not in supply: the port in hex 0301 is damaged"
    assert error.rule == "RULES-NOTES 19"


def test_a_limited_source_out_of_supply_gives_nothing_11_18_3() -> None:
    data = doc(". . . . . . .", sources={**PRIMARY, "0701": ("limited", "cw")},
               units=[("cw-a", "cw", "INF", "0701", "combat")], down=["cw-a"])
    error = refuse(at_step(data), [{"unit": "cw-a", "method": "limited", "source": "0701"}])
    assert reason(error).startswith("City 0701 is not in supply: no primary supply source")


# --------------------------------------------------------------------------- 11.18.4

#   north-sea -- atlantic -- channel; north-sea -- bay. England is 0101.
COASTS = {"0101": ["north-sea"], "0601": ["channel"], "0501": ["channel"],
          "0401": ["channel"], "0301": ["bay"]}
SEAS = {"north-sea": ["atlantic", "bay"], "atlantic": ["channel"]}
ISLANDS = ". # . . . ."


def _seaboard(units: list, down: list, **kw: object) -> dict:
    ports = kw.pop("ports", {"0101": "major", "0601": "minor", "0301": "minor"})
    return doc(ISLANDS, coasts=COASTS, seas=SEAS, ports=ports, sources=PRIMARY,
               units=units, down=down, **kw)  # type: ignore[arg-type]


def test_overseas_through_a_minor_port_two_units_per_impulse_11_18_4_rn1() -> None:
    units = [(f"cw-{k}", "cw", "INFdiv", "0601", "combat") for k in "abc"]
    t = at_step(_seaboard(units, ["cw-a", "cw-b", "cw-c"], names={"0601": "Rouen"}))
    items = [{"unit": f"cw-{k}", "method": "overseas", "source": "0101", "port": "0601"}
             for k in "ab"]
    events = act(t, items)
    assert events[0].data["path"] == {"kind": "overseas", "hexes": ["0101", "0601"],
                                      "seas": ["channel", "atlantic", "north-sea"],
                                      "length": 0}
    error = refuse(t, [{"unit": "cw-c", "method": "overseas", "source": "0101",
                        "port": "0601"}])
    assert reason(error) == ("Rouen already passed 2 units this impulse (a minor port passes "
                             "2 per impulse)")
    assert error.errors[0][0] == "/body/items/0/port" and error.rule == "11.18.4"


def test_overseas_through_a_major_port_is_unlimited_11_18_4() -> None:
    units = [(f"cw-{k}", "cw", "INFdiv", "0401", "combat") for k in "abcd"]
    ports = {"0101": "major", "0401": "major"}
    t = at_step(_seaboard(units, [f"cw-{k}" for k in "abcd"], ports=ports))
    act(t, [{"unit": f"cw-{k}", "method": "overseas", "source": "0101", "port": "0401"}
            for k in "abcd"])
    assert t.state.reorg.used["port:0401"] == 4


def test_inf_class_divisions_trace_from_a_coastal_hex_corps_need_a_port_rn2() -> None:
    units = [("cw-div", "cw", "INFdiv", "0501", "combat"),
             ("cw-corps", "cw", "INF", "0501", "combat"),
             ("cw-mar", "cw", "MAR", "0501", "combat")]
    t = at_step(_seaboard(units, ["cw-div", "cw-corps", "cw-mar"]))
    act(t, [{"unit": "cw-div", "method": "overseas", "source": "0101"},
            {"unit": "cw-mar", "method": "overseas", "source": "0101"}])
    assert "port:0501" not in t.state.reorg.used  # no port, no port limit
    error = refuse(t, [{"unit": "cw-corps", "method": "overseas", "source": "0101"}])
    assert reason(error) == ("cw-corps (INF corps) must trace via a port: only INF-class "
                             "divisions, MAR and flying boats trace from a coastal hex")


def test_a_coastal_hq_counts_as_a_minor_port_rn2() -> None:
    units = [("cw-hq", "cw", "HQ", "0401", "combat")] + [
        (f"cw-{k}", "cw", "INFdiv", "0401", "combat") for k in "abc"]
    t = at_step(_seaboard(units, ["cw-a", "cw-b", "cw-c"]))
    act(t, [{"unit": f"cw-{k}", "method": "overseas", "source": "0101", "port": "0401"}
            for k in "ab"])
    error = refuse(t, [{"unit": "cw-c", "method": "overseas", "source": "0101",
                        "port": "0401"}])
    assert reason(error).startswith("hex 0401 already passed 2 units this impulse")


def test_a_damaged_port_receives_rps_only_for_its_own_repair_11_18_4_rn23() -> None:
    units = [(f"cw-{k}", "cw", "INFdiv", "0601", "combat") for k in "abc"]
    t = at_step(_seaboard(units, ["cw-a", "cw-b", "cw-c"], damaged=["0601"]))
    error = refuse(t, [{"unit": "cw-a", "method": "overseas", "source": "0101",
                        "port": "0601"}])
    assert reason(error) == ("the port in hex 0601 is damaged: it receives RPs only for its "
                             "own repair (method port_repair)")
    events = act(t, [{"method": "port_repair", "port": "0601", "source": "0101"},
                     {"unit": "cw-a", "method": "overseas", "source": "0101", "port": "0601"}])
    assert [e.kind for e in events] == ["port.repaired", "unit.reorganized"]
    assert events[0].data["cost"] == 2
    assert t.state.reorg.repaired_ports == ("0601",)
    # the repair used the port's slot: one more unit this impulse, then none
    error = refuse(t, [{"unit": "cw-b", "method": "overseas", "source": "0101",
                        "port": "0601"}])
    assert "already passed 2 units" in reason(error)
    assert t.state.powers["cw"].rps == 30 - 2 - 3
    assert replayed(t)


def test_overseas_needs_a_primary_source_11_18_4() -> None:
    units = [("cw-a", "cw", "INFdiv", "0601", "combat")]
    data = _seaboard(units, ["cw-a"])
    data["map"]["hexes"][0]["supply"] = "secondary"
    error = refuse(at_step(data), [{"unit": "cw-a", "method": "overseas", "source": "0101",
                                    "port": "0601"}])
    assert reason(error) == ("City 0101 is not a primary supply source (overseas "
                             "reorganization traces from one)")


# --------------------------------------------------------------------------- 11.18.5


def _primary_map(**kw: object) -> dict:
    units = [("cw-lnd-1", "cw", "LND", "0201", None), ("cw-lnd-2", "cw", "LND", "0201", None),
             ("cw-lnd-3", "cw", "LND", "0201", None),
             ("cw-inf-1", "cw", "INF", "0301", "combat"),
             ("cw-inf-2", "cw", "INF", "0301", "combat"),
             ("cw-div-1", "cw", "INFdiv", "0301", "combat"),
             ("cw-div-2", "cw", "INFdiv", "0301", "combat"),
             ("cw-far", "cw", "INFdiv", "0701", "combat")]
    return doc(ROW, sources=PRIMARY, factories={"0101": 2}, units=units,
               down=[u[0] for u in units], oil=["cw-lnd-1", "cw-lnd-2", "cw-lnd-3"],
               names={"0101": "London"}, **kw)  # type: ignore[arg-type]


def test_primary_source_gives_fuel_dependent_units_up_to_its_factories_11_18_5() -> None:
    t = at_step(_primary_map())
    act(t, [{"unit": "cw-lnd-1", "method": "primary", "source": "0101"},
            {"unit": "cw-lnd-2", "method": "primary", "source": "0101"}])
    error = refuse(t, [{"unit": "cw-lnd-3", "method": "primary", "source": "0101"}])
    assert reason(error) == ("London already gave RPs to 2 fuel-dependent units this impulse "
                             "and has 2 operating factories")


def test_primary_source_gives_at_most_one_corps_11_18_5() -> None:
    t = at_step(_primary_map())
    act(t, [{"unit": "cw-inf-1", "method": "primary", "source": "0101"},
            {"unit": "cw-div-1", "method": "primary", "source": "0101"},
            {"unit": "cw-div-2", "method": "primary", "source": "0101"}])
    error = refuse(t, [{"unit": "cw-inf-2", "method": "primary", "source": "0101"}])
    assert reason(error) == ("London already gave RPs to 1 corps this impulse (at most 1 "
                             "corps per primary source)")


def test_out_of_supply_reorganization_costs_double_11_18_5() -> None:
    t = at_step(_primary_map())
    events = act(t, [{"unit": "cw-far", "method": "primary", "source": "0101"}])
    assert events[0].data["cost"] == 6 and events[0].data["full_cost"] == 3
    assert events[0].data["path"]["length"] == 6
    assert "cost doubles (11.18.5)" in events[0].text


def test_out_of_supply_needs_some_path_of_any_length_11_18_5() -> None:
    data = doc(". . s . .", sources=PRIMARY, units=[("cw-a", "cw", "INF", "0401", "combat")],
               down=["cw-a"])
    error = refuse(at_step(data), [{"unit": "cw-a", "method": "primary", "source": "0101"}])
    assert reason(error) == "hex 0301 is neutral territory"


def test_out_of_communication_source_dispenses_once_per_turn_11_18_5() -> None:
    from dataclasses import replace

    units = [("cw-a", "cw", "INFdiv", "0201", "combat"),
             ("cw-b", "cw", "INFdiv", "0201", "combat"),
             ("cw-c", "cw", "INFdiv", "0201", "combat")]
    t = at_step(doc(ROW, sources=PRIMARY, units=units, down=["cw-a", "cw-b", "cw-c"]))
    events = act(t, [{"unit": "cw-a", "method": "primary", "source": "0101"},
                     {"unit": "cw-b", "method": "primary", "source": "0101"}])
    assert "out of communication" in events[0].text
    t.state = replace(t.state, turn=replace(t.state.turn, impulse=3))
    error = refuse(t, [{"unit": "cw-c", "method": "primary", "source": "0101"}])
    assert reason(error) == ("City 0101 is out of communication and already dispensed RPs "
                             "this turn (step 1/1/reorganization): once per turn")
    t.state = replace(t.state, turn=replace(t.state.turn, number=2, impulse=1))
    act(t, [{"unit": "cw-c", "method": "primary", "source": "0101"}])


def test_a_source_in_communication_dispenses_every_impulse_11_18_5() -> None:
    from dataclasses import replace

    units = [("cw-a", "cw", "INFdiv", "0201", "combat"),
             ("cw-b", "cw", "INFdiv", "0201", "combat")]
    t = at_step(doc(ROW, sources={**PRIMARY, "0801": ("primary", "cw")}, units=units,
                    down=["cw-a", "cw-b"]))
    act(t, [{"unit": "cw-a", "method": "primary", "source": "0101"}])
    t.state = replace(t.state, turn=replace(t.state.turn, impulse=3))
    act(t, [{"unit": "cw-b", "method": "primary", "source": "0101"}])


# --------------------------------------------------------------------------- 11.18.6

RAILS = "= = = = = = = = = ="  # 0101 .. 1001


def _rail_map(**kw: object) -> dict:
    units = [("cw-a", "cw", "INF", "1001", "combat"), ("cw-b", "cw", "INF", "0901", "combat"),
             ("cw-c", "cw", "INFdiv", "0801", "combat")]
    return doc(RAILS, sources=PRIMARY, units=units, down=["cw-a", "cw-b", "cw-c"],
               **kw)  # type: ignore[arg-type]


def test_rail_reorganization_uses_a_rail_move_and_a_railway_path_11_18_6() -> None:
    t = at_step(_rail_map())
    events = act(t, [{"unit": "cw-a", "method": "rail", "source": "0101"}])
    assert events[0].data["cost"] == 3  # not out of supply: the railway carries the RPs
    assert events[0].data["path"]["hexes"][0] == "0101"
    assert events[0].data["path"]["hexes"][-1] == "1001"
    assert t.state.reorg.used["rail:cw"] == 1


def test_rail_reorganization_needs_an_unused_rail_move_11_18_6() -> None:
    t = at_step(_rail_map(), options={"reorg": {"rail_counts_against_source": False}})
    act(t, [{"unit": "cw-a", "method": "rail", "source": "0101"},
            {"unit": "cw-b", "method": "rail", "source": "0101"}])
    error = refuse(t, [{"unit": "cw-c", "method": "rail", "source": "0101"}])
    assert reason(error) == ("cw has no rail move left this impulse (2 of 2 used, by moves "
                             "and railway reorganization)")
    assert error.errors[0][0] == "/body/items/0"


def test_rail_reorganization_counts_against_the_source_11_18_6_rn4() -> None:
    t = at_step(_rail_map())
    act(t, [{"unit": "cw-a", "method": "rail", "source": "0101"}])
    error = refuse(t, [{"unit": "cw-b", "method": "rail", "source": "0101"}])
    assert "already gave RPs to 1 corps" in reason(error)


def test_a_broken_railway_carries_no_rps_11_18_6() -> None:
    t = at_step(doc("= = = . . . = = = =", sources=PRIMARY,
                    units=[("cw-a", "cw", "INF", "1001", "combat")], down=["cw-a"]))
    error = refuse(t, [{"unit": "cw-a", "method": "rail", "source": "0101"}])
    assert reason(error) == ("hex 1001 is not within a basic path of 4 hexes of the railway "
                             "from hex 0101")


def test_rail_with_overseas_counts_against_the_landing_port_11_18_6() -> None:
    """11.18.6 example: a railway path back to La Rochelle, then overseas."""
    coasts = {"0101": ["bay"], "0301": ["bay"]}
    units = [(f"cw-{k}", "cw", "INF", "0701", "combat") for k in "ab"] + [
        ("cw-c", "cw", "INFdiv", "0301", "combat")]
    data = doc(". # = = = = =", coasts=coasts, ports={"0101": "major", "0301": "minor"},
               sources=PRIMARY, units=units, down=["cw-a", "cw-b", "cw-c"],
               names={"0301": "La Rochelle"})
    t = at_step(data, rps={"cw": 30})
    events = act(t, [{"unit": "cw-a", "method": "rail", "source": "0101", "port": "0301"}])
    assert events[0].data["path"] == {"kind": "rail", "seas": ["bay"], "length": 0,
                                      "hexes": ["0101", "0301", "0401", "0501", "0601",
                                                "0701"]}
    act(t, [{"unit": "cw-c", "method": "overseas", "source": "0101", "port": "0301"}])
    assert t.state.reorg.used["port:0301"] == 2


# --------------------------------------------------------------------------- 11.18.7


def _secondary_map(**kw: object) -> dict:
    units = [("cw-a", "cw", "INFdiv", "0501", "combat"),
             ("cw-b", "cw", "INFdiv", "0501", "combat"),
             ("cw-hq", "cw", "HQ", "0401", "combat")]
    return doc(ROW, sources={**PRIMARY, "0301": ("secondary", "cw")}, units=units,
               down=["cw-a", "cw-b"], **kw)  # type: ignore[arg-type]


def test_a_secondary_source_in_supply_reorganizes_one_unit_per_impulse_11_18_7() -> None:
    t = at_step(_secondary_map())
    act(t, [{"unit": "cw-a", "method": "secondary", "source": "0301"}])
    error = refuse(t, [{"unit": "cw-b", "method": "secondary", "source": "0301"}])
    assert reason(error) == "City 0301 already reorganized 1 unit this impulse"


def test_an_hq_as_a_secondary_source_stays_face_up_11_18_7() -> None:
    t = at_step(_secondary_map())
    act(t, [{"unit": "cw-a", "method": "secondary", "source": "cw-hq"}])
    assert t.state.units["cw-hq"].face_up is True
    error = refuse(t, [{"unit": "cw-b", "method": "secondary", "source": "cw-hq"}])
    assert reason(error) == "cw-hq already reorganized 1 unit this impulse"


def test_an_hq_is_a_secondary_source_or_an_hq_reorganizer_per_impulse_rn9() -> None:
    t = at_step(_secondary_map())
    act(t, [{"unit": "cw-a", "method": "secondary", "source": "cw-hq"}])
    error = refuse(t, [{"unit": "cw-b", "method": "hq", "hq": "cw-hq"}])
    assert reason(error) == ("HQ cw-hq served as a secondary source this impulse: one or the "
                             "other per impulse")
    t = at_step(_secondary_map())
    act(t, [{"unit": "cw-a", "method": "hq", "hq": "cw-hq"}])
    error = refuse(t, [{"unit": "cw-b", "method": "secondary", "source": "cw-hq"}])
    assert reason(error) == ("HQ cw-hq flipped to reorganize units this impulse and cannot "
                             "also be a secondary source")


def test_a_strat_mode_hq_is_no_supply_source_for_supply_or_reorganization_ocs_5_8b_11_18_7(
) -> None:
    """OCS 5.8b "An HQ in Strat Mode cannot throw supplies" against 11.18.7 (HQs are
    secondary sources): one answer, the map engine's, for the supply view and for every
    way an HQ gives RPs. cw-far is 7 hexes from London and 3 from the HQ."""
    from service.rules.board import Board, state_supply

    def position(hq_mode: str) -> dict:
        units = [("cw-hq", "cw", "HQ", "0501", hq_mode), ("cw-sup", "cw", "SUPPLY", "0501", None),
                 ("cw-far", "cw", "INFdiv", "0801", "combat"),
                 ("cw-b", "cw", "INFdiv", "0801", "combat")]
        return doc(ROW, sources=PRIMARY, units=units, down=["cw-far", "cw-b"])

    moving = at_step(position("combat"))
    assert state_supply(moving.state)["cw-far"].source == "cw-hq"
    act(moving, [{"unit": "cw-far", "method": "secondary", "source": "cw-hq"}])

    t = at_step(position("strat"))
    assert not state_supply(t.state)["cw-far"].in_supply
    for item in ({"unit": "cw-far", "method": "secondary", "source": "cw-hq"},
                 {"unit": "cw-far", "method": "hq", "hq": "cw-hq"},
                 {"unit": "cw-far", "method": "primary", "source": "cw-hq"}):
        error = refuse(t, [item])
        assert error.rule == "OCS 5.8b", (item, error.message)
        assert reason(error).endswith("HQ cw-hq is in Strat Mode and throws no supply"), \
            reason(error)
    assert Board.from_state(t.state).hq_source_problem("cw-hq") is not None


def test_a_supply_unit_makes_its_city_a_secondary_source_11_18_7_rn5() -> None:
    units = [("cw-sup", "cw", "SUPPLY", "0401", None), ("cw-a", "cw", "INFdiv", "0501", "combat")]
    t = at_step(doc(ROW, sources=PRIMARY, cities=["0401"], units=units, down=["cw-a"]))
    events = act(t, [{"unit": "cw-a", "method": "secondary", "source": "0401"}])
    assert events[0].data["provider"] == "0401"


# --------------------------------------------------------------------------- 11.18.8


def _supply_map() -> dict:
    units = [("cw-sup", "cw", "SUPPLY", "0401", None)] + [
        (f"cw-{k}", "cw", "INF", "0501", "combat") for k in "abcd"]
    return doc(". . . . . . s s", units=units, down=[f"cw-{k}" for k in "abcd"])


def test_an_expended_supply_unit_reorganizes_three_units_free_short_form() -> None:
    t = at_step(_supply_map())
    events = act(t, [{"unit": "cw-a", "method": "supply_unit", "supply_unit": "cw-sup"},
                     {"unit": "cw-b", "method": "supply_unit", "supply_unit": "cw-sup"}])
    assert [e.data["cost"] for e in events] == [0, 0]
    assert "cw-sup" not in t.state.units  # expended: removed
    act(t, [{"unit": "cw-c", "method": "supply_unit", "supply_unit": "cw-sup"}])
    error = refuse(t, [{"unit": "cw-d", "method": "supply_unit", "supply_unit": "cw-sup"}])
    assert reason(error) == "supply unit cw-sup already reorganized 3 units"
    assert t.state.powers["cw"].rps == 30  # no source in supply needed, no RPs spent
    assert replayed(t)


def test_expending_a_supply_unit_is_refused_citing_the_short_form() -> None:
    """Expending supply units is a short-form-only method: its refusals cite "11.18 short
    form", not the long form's 11.18.8 (an HQ acting as a primary source)."""
    data = _supply_map()
    data["units"][0]["face_up"] = False
    t = at_step(data)
    error = refuse(t, [{"unit": "cw-a", "method": "supply_unit", "supply_unit": "cw-sup"}])
    assert reason(error) == "supply unit cw-sup is face down: only a face-up one is expended"
    assert error.rule == "11.18 short form"
    assert error.message.startswith("item 0 (supply_unit, 11.18 short form): ")


def test_an_hq_with_a_supply_unit_acts_as_a_primary_source_11_18_8() -> None:
    units = [("cw-sup", "cw", "SUPPLY", "0401", None), ("cw-hq", "cw", "HQ", "0401", "combat"),
             ("cw-lnd", "cw", "LND", "0501", None), ("cw-a", "cw", "INF", "0601", "combat"),
             ("cw-b", "cw", "INF", "0601", "combat")]
    t = at_step(doc(ROW, units=units, down=["cw-lnd", "cw-a", "cw-b"], oil=["cw-lnd"]))
    act(t, [{"unit": "cw-lnd", "method": "primary", "source": "cw-hq"},
            {"unit": "cw-a", "method": "primary", "source": "cw-hq"}])
    assert t.state.units["cw-hq"].face_up is True  # no need to flip
    error = refuse(t, [{"unit": "cw-b", "method": "primary", "source": "cw-hq"}])
    assert reason(error) == ("HQ cw-hq already reorganized 2 units as a primary source this "
                             "impulse; its reorganization value is 2")
    error = refuse(t, [{"unit": "cw-b", "method": "secondary", "source": "cw-hq"}])
    assert "acts as a primary source this impulse" in reason(error)


def test_an_hq_without_a_supply_unit_is_no_primary_source_11_18_8() -> None:
    t = at_step(_hq_map())
    error = refuse(t, [{"unit": "cw-a", "method": "primary", "source": "cw-hq"}])
    assert reason(error) == ("no supply unit is stacked with HQ cw-hq: an HQ acts as a primary "
                             "source only with one")


# --------------------------------------------------------------------------- 11.18.9


def _trs_map(trs_face_up: bool = True) -> dict:
    units = [("cw-trs", "cw", "TRS", "channel", None), ("cw-a", "cw", "INF", "0201", "combat"),
             ("cw-b", "cw", "INF", "0201", "combat"), ("cw-c", "cw", "INF", "0301", "combat")]
    data = doc(". . .", coasts={"0101": ["channel"], "0201": ["channel"], "0301": ["bay"]},
               units=units, down=["cw-a", "cw-b", "cw-c"])
    data["units"][0]["face_up"] = trs_face_up
    return data


def test_a_trs_at_sea_reorganizes_one_unit_on_its_coast_then_turns_face_down_11_18_9() -> None:
    t = at_step(_trs_map())
    error = refuse(t, [{"unit": "cw-c", "method": "trs", "trs": "cw-trs"}])
    assert reason(error) == "hex 0301 is not a coastal hex of sea area channel"
    act(t, [{"unit": "cw-a", "method": "trs", "trs": "cw-trs"}])
    assert t.state.units["cw-trs"].face_up is False
    error = refuse(t, [{"unit": "cw-b", "method": "trs", "trs": "cw-trs"}])
    assert reason(error) == "TRS cw-trs already reorganized 1 unit this impulse"


def test_a_face_down_trs_dispenses_nothing_11_18_9() -> None:
    error = refuse(at_step(_trs_map(False)), [{"unit": "cw-a", "method": "trs",
                                                "trs": "cw-trs"}])
    assert reason(error) == "TRS cw-trs is face down"


# --------------------------------------------------------------------------- 11.18.10


def _at_sea_map(port: str = "major") -> dict:
    units = [("cw-dd", "cw", "DD", "channel", None), ("cw-nav", "cw", "NAV", "channel", None),
             ("cw-inf", "cw", "INF", "0101", "combat")]
    return doc(". . .", coasts={"0101": ["channel"], "0301": ["channel"]},
               ports={"0301": port}, sources={"0101": ("primary", "cw")},
               controllers={"0301": "france"}, units=units, down=["cw-dd", "cw-nav"])


def test_naval_and_air_units_at_sea_paid_by_the_ports_controller_11_18_10() -> None:
    t = at_step(_at_sea_map())
    error = refuse(t, [{"unit": "cw-dd", "method": "at_sea", "port": "0301"}])
    assert reason(error) == ("hex 0301 is controlled by france, which pays for at-sea "
                             "reorganization: the order's power must be france")
    assert error.errors[0][0] == "/body/power"
    act(t, [{"unit": "cw-dd", "method": "at_sea", "port": "0301"},
            {"unit": "cw-nav", "method": "at_sea", "port": "0301"}], power="france")
    assert t.state.powers["france"].rps == 8 - 6 and t.state.powers["cw"].rps == 30


def test_at_sea_needs_a_major_port_11_18_10() -> None:
    error = refuse(at_step(_at_sea_map("minor")),
                   [{"unit": "cw-dd", "method": "at_sea", "port": "0301"}], power="france")
    assert reason(error) == "hex 0301 is not a major port"


def test_land_units_are_not_reorganized_at_sea_11_18_10() -> None:
    data = _at_sea_map()
    data["units"][2]["face_up"] = False
    error = refuse(at_step(data), [{"unit": "cw-inf", "method": "at_sea", "port": "0301"}],
                   power="france")
    assert reason(error) == "cw-inf is a land unit: only naval and air units reorganize at sea"


# --------------------------------------------------------------------------- 11.18.11


def _chit_map() -> dict:
    units = [("cw-hq", "cw", "HQ", "0201", "combat"), ("cw-hq-2", "cw", "HQ", "0101", "combat")]
    units += [(f"cw-inf-{k}", "cw", "INF", "0301", "combat") for k in range(5)]
    units += [(f"cw-ftr-{k}", "cw", "FTR", "0301", None) for k in range(2)]
    units += [("cw-dd", "cw", "DD", "bay", None)]
    down = [u[0] for u in units if u[0] not in ("cw-hq", "cw-hq-2")]
    return doc(". . . .", sources=PRIMARY, coasts={"0101": ["bay"]}, units=units, down=down)


def test_land_chit_hq_reorganizes_land_units_at_half_cost_counting_half_11_18_11() -> None:
    t = at_step(_chit_map(), chits={"cw": {"kind": "land", "hq": "cw-hq"}})
    events = act(t, [{"unit": f"cw-inf-{k}", "method": "hq", "hq": "cw-hq"} for k in range(4)])
    assert [e.data["cost"] for e in events] == [2, 2, 2, 2]  # 3 halved, rounded up
    error = refuse(t, [{"unit": "cw-inf-4", "method": "hq", "hq": "cw-hq"}])
    assert reason(error) == ("HQ cw-hq already reorganized 2 units this impulse; its "
                             "reorganization value is 2")
    events = act(t, [{"unit": "cw-ftr-0", "method": "hq", "hq": "cw-hq-2"}])
    assert events[0].data["cost"] == 3  # another HQ, another kind: no benefit


def test_air_chit_benefits_air_units_only_11_18_11() -> None:
    t = at_step(_chit_map(), chits={"cw": {"kind": "air", "hq": "cw-hq"}})
    events = act(t, [{"unit": "cw-ftr-0", "method": "hq", "hq": "cw-hq"},
                     {"unit": "cw-inf-0", "method": "hq", "hq": "cw-hq"}])
    assert [e.data["cost"] for e in events] == [2, 3]
    assert t.state.reorg.used["hq:cw-hq"] == 3  # half a unit and one unit


def test_combined_chit_any_hq_of_the_power_at_half_cost_counting_full_11_18_11() -> None:
    t = at_step(_chit_map(), chits={"cw": {"kind": "combined", "hq": "cw-hq"}})
    events = act(t, [{"unit": "cw-inf-0", "method": "hq", "hq": "cw-hq-2"},
                     {"unit": "cw-ftr-0", "method": "hq", "hq": "cw-hq-2"}])
    assert [e.data["cost"] for e in events] == [2, 2]
    assert t.state.reorg.used["hq:cw-hq-2"] == 4


def test_combined_chit_any_hq_doing_hq_reorganization_pays_half_11_18_11_rn10() -> None:
    """11.18.11 Combined action: "Any HQ which uses HQ reorganization may reorganize any
    units at half the usual RP cost that impulse": a cooperating French HQ too, under
    the CW's combined chit."""
    data = _chit_map()
    data["units"] += [{**data["units"][0], "id": "fr-hq", "power": "france", "at": "0201"},
                      {**data["units"][2], "id": "fr-inf", "power": "france",
                       "face_up": False}]
    t = at_step(data, chits={"cw": {"kind": "combined", "hq": "cw-hq"}})
    events = act(t, [{"unit": "fr-inf", "method": "hq", "hq": "fr-hq"},
                     {"unit": "cw-inf-0", "method": "hq", "hq": "fr-hq"}], power="france")
    assert [e.data["cost"] for e in events] == [2, 2]
    assert "combined chit" in events[0].text
    assert t.state.powers["france"].rps == 8 - 4


def test_naval_chit_reorganizes_naval_units_freely_11_18_11_rn10() -> None:
    t = at_step(_chit_map(), chits={"cw": {"kind": "naval", "hq": "cw-hq"}})
    events = act(t, [{"unit": "cw-dd", "method": "chit"}])
    assert events[0].data["cost"] == 0 and t.state.units["cw-dd"].face_up
    error = refuse(t, [{"unit": "cw-inf-0", "method": "chit"}])
    assert reason(error).startswith("cw played a naval chit this impulse")


def test_reorganize_hqs_chit_flips_hqs_up_free_short_form() -> None:
    data = _chit_map()
    data["units"][1]["face_up"] = False
    t = at_step(data, chits={"cw": {"kind": "reorganize_hqs", "hq": "cw-hq"}})
    events = act(t, [{"unit": "cw-hq-2", "method": "chit"}])
    assert events[0].data["cost"] == 0 and t.state.units["cw-hq-2"].face_up


def test_no_chit_no_free_reorganization_11_18_11() -> None:
    error = refuse(at_step(_chit_map()), [{"unit": "cw-dd", "method": "chit"}])
    assert reason(error).startswith("cw played no chit this impulse")


def test_chits_do_not_count_in_the_final_reorganization_11_18_11() -> None:
    t = at_step(_chit_map(), step="final_reorganization",
                chits={"cw": {"kind": "naval", "hq": "cw-hq"}})
    error = refuse(t, [{"unit": "cw-dd", "method": "chit"}])
    assert reason(error) == ("offensive chits count only in the reorganization step of the "
                             "impulse they were played in")


def test_reorganize_units_chit_flips_units_in_supply_when_the_option_is_on_rn10() -> None:
    units = [("cw-a", "cw", "INF", "0201", "combat"), ("cw-b", "cw", "INF", "0801", "combat")]
    data = doc(ROW, sources=PRIMARY, units=units, down=["cw-a", "cw-b"])
    chit = {"cw": {"kind": "reorganize_units", "hq": "cw-a"}}
    error = refuse(at_step(data, chits=chit), [{"unit": "cw-a", "method": "chit"}])
    assert reason(error).startswith("cw played a reorganize_units chit")  # option off
    t = at_step(data, chits=chit, options={"reorg": {"reorganize_units_chit": True}})
    events = act(t, [{"unit": "cw-a", "method": "chit"}])
    assert events[0].data["cost"] == 0
    error = refuse(t, [{"unit": "cw-b", "method": "chit"}])
    assert reason(error).startswith("cw-b is not in supply: no supply source traces")


def _rail_and_primary() -> dict:
    """London (0101), a primary source on a railway: two units within its basic path
    (primary) and two beyond it on the railway (rail)."""
    units = [("cw-near-1", "cw", "INF", "0201", "combat"),
             ("cw-near-2", "cw", "INF", "0301", "combat"),
             ("cw-far-1", "cw", "INF", "0901", "combat"),
             ("cw-far-2", "cw", "INF", "1001", "combat")]
    return doc(RAILS, sources=PRIMARY, names={"0101": "London"}, units=units,
               down=[u[0] for u in units])


RAIL_ITEMS = [{"unit": f"cw-far-{k}", "method": "rail", "source": "0101"} for k in "12"]
PRIMARY_ITEMS = [{"unit": f"cw-near-{k}", "method": "primary", "source": "0101"}
                 for k in "12"]


def test_rail_reorganization_does_not_use_the_sources_capacity_in_any_order_short_form_11_18_6(
) -> None:
    """Short form 11.18.6: a rail move lets a unit receive RPs from a source "but this does
    not reduce the source's ability to reorganize units" (option
    `reorg.rail_counts_against_source` false): London's 2 units (option
    `reorg.primary_limit` two_units) are its own whether the rail items come before or
    after them."""
    options = {"reorg": {"rail_counts_against_source": False, "primary_limit": "two_units"}}
    for items in (RAIL_ITEMS + PRIMARY_ITEMS, PRIMARY_ITEMS + RAIL_ITEMS):
        t = at_step(_rail_and_primary(), options=options)
        events = act(t, items)
        assert [e.data["unit"] for e in events] == [i["unit"] for i in items]
        assert t.state.reorg.used["primary:0101"] == 2
        assert t.state.reorg.used["rail:cw"] == 2


def test_rail_reorganization_does_not_use_the_corps_limit_in_any_order_11_18_6_11_18_5() -> None:
    """The long form's 1 corps per primary source (11.18.5) with rail reorganization not
    counting against the source: one corps by primary and two by rail, in either order."""
    options = {"reorg": {"rail_counts_against_source": False}}
    for items in (RAIL_ITEMS + PRIMARY_ITEMS[:1], PRIMARY_ITEMS[:1] + RAIL_ITEMS):
        t = at_step(_rail_and_primary(), options=options)
        act(t, items)
        assert t.state.reorg.used["corps:0101"] == 1


def test_a_port_repaired_in_an_order_works_for_its_items_listed_before_the_repair_11_18_4(
) -> None:
    """11.18.4: "once repaired, the port can coordinate the distribution of RPs normally
    immediately": an order's port repairs come first, wherever they are listed."""
    units = [(f"cw-{k}", "cw", "INFdiv", "0601", "combat") for k in "ab"]
    t = at_step(_seaboard(units, ["cw-a", "cw-b"], damaged=["0601"]))
    events = act(t, [{"unit": "cw-a", "method": "overseas", "source": "0101", "port": "0601"},
                     {"method": "port_repair", "port": "0601", "source": "0101"}])
    assert [e.kind for e in events] == ["port.repaired", "unit.reorganized"]
    assert [e.data["item"].get("unit") for e in events] == [None, "cw-a"]
    assert t.state.units["cw-a"].face_up
    assert replayed(t)


def test_an_atr_reorganized_this_impulse_flies_no_reorganization_in_it_rn11() -> None:
    """RULES-NOTES 11 read both ways, as 11.18.2 is for HQs: an ATR that flew is not
    reorganized that impulse, and one reorganized does not fly, in either order."""
    data = _atr_map()
    data["units"][0]["face_up"] = False
    data["units"][0]["at"] = "0201"
    reorganize_atr = {"unit": "cw-atr", "method": "primary", "source": "0101"}
    fly = {"unit": "cw-a", "method": "atr", "atr": "cw-atr"}
    error = refuse(at_step(data), [reorganize_atr, fly])
    assert (error.rule, error.code) == ("RULES-NOTES 11", "reorg/provider_reorganized")
    assert error.errors[0][0] == "/body/items/1/atr"
    assert reason(error) == "cw-atr was reorganized this impulse and dispenses no RPs in it"
    error = refuse(at_step(data), [fly, reorganize_atr])
    assert reason(error) == "ATR cw-atr is face down"


def test_a_supply_unit_keeping_its_city_a_source_is_not_expended_the_same_impulse_rn5(
) -> None:
    """RULES-NOTES 5 (11.18.7 and the short form's expended supply unit): the city's only
    supply unit is expended, or makes the city a secondary source, in an impulse, not
    both, in either order; with a second supply unit there, both go ahead."""
    units = [("cw-sup", "cw", "SUPPLY", "0401", None), ("cw-a", "cw", "INFdiv", "0501", "combat"),
             ("cw-b", "cw", "INFdiv", "0501", "combat")]
    city = {"unit": "cw-a", "method": "secondary", "source": "0401"}
    expend = {"unit": "cw-b", "method": "supply_unit", "supply_unit": "cw-sup"}
    data = doc(ROW, sources=PRIMARY, cities=["0401"], units=units, down=["cw-a", "cw-b"])
    for items in ([city, expend], [expend, city]):
        error = refuse(at_step(data), items)
        assert error.code in ("reorg/provider_used", "reorg/not_a_source"), error.message
    error = refuse(at_step(data), [city, expend])
    assert (error.rule, error.code) == ("RULES-NOTES 5", "reorg/provider_used")
    assert reason(error) == ("supply unit cw-sup is the last one keeping City 0401 a supply "
                             "source that dispensed RPs this impulse: it is not expended in "
                             "the same impulse")
    data = doc(ROW, sources=PRIMARY, cities=["0401"], down=["cw-a", "cw-b"],
               units=[*units, ("cw-sup-2", "cw", "SUPPLY", "0401", None)])
    for items in ([city, expend], [expend, city]):
        t = at_step(data)
        act(t, items)
        assert "cw-sup" not in t.state.units and t.state.units["cw-a"].face_up


def test_an_hq_is_in_supply_only_from_the_primary_network_in_every_check_rn33() -> None:
    """RULES-NOTES 33, one meaning of "in supply" for an HQ: a basic path from the
    network of primary sources, as for every secondary source (11.18.7); a path to an
    in-supply secondary source does not count. The HQ in 0801 is 7 hexes from London
    and 3 from the secondary source in 0501: it is no secondary source (11.18.7), does
    not reorganize others (11.18.2, RULES-NOTES 25), and the supply view says it is out
    of supply; the infantry beside it is in supply through 0501."""
    from service.rules.board import state_supply

    units = [("cw-hq", "cw", "HQ", "0801", "combat"), ("cw-a", "cw", "INFdiv", "0901", "combat"),
             ("cw-b", "cw", "INFdiv", "0801", "combat")]
    t = at_step(doc(". . . . . . . . . .", sources={**PRIMARY, "0501": ("secondary", "cw")},
                    units=units, down=["cw-a"]))
    supply = state_supply(t.state)
    assert supply["cw-b"].in_supply and supply["cw-b"].method == "secondary"
    assert not supply["cw-hq"].in_supply
    assert supply["cw-hq"].rule == "RULES-NOTES 33"
    error = refuse(t, [{"unit": "cw-a", "method": "hq", "hq": "cw-hq"}])
    assert (error.rule, error.code) == ("RULES-NOTES 25", "reorg/provider_out_of_supply")
    assert reason(error) == ("HQ cw-hq is out of supply: no primary supply source traces a "
                             "supply path of at most 4 hexes to hex 0801, and an HQ is in "
                             "supply from the primary network only (RULES-NOTES 33)")
    error = refuse(t, [{"unit": "cw-a", "method": "secondary", "source": "cw-hq"}])
    assert (error.rule, error.code) == ("11.18.7", "reorg/source_out_of_supply")
    assert reason(error) == ("cw-hq is not in supply: no primary supply source traces a "
                             "supply path of at most 4 hexes to hex 0801")
