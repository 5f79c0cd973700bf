"""The scenario format (docs/api.md): the built-in demo, validation, round trip,
and the synthetic generator."""

from __future__ import annotations

import copy
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.rules.scenario import (
    AIR_TYPES,
    LAND_TYPES,
    MODES,
    NAVAL_TYPES,
    OCS_KINDS,
    ROUGH_TERRAINS,
    TERRAINS,
    OcsValues,
    Problem,
    Scenario,
    ScenarioInvalid,
    builtin_scenario_ids,
    generate_scenario,
    is_flying_boat,
    is_hq,
    is_inf_class,
    is_supply_unit,
    load_builtin_scenario,
    parse_scenario,
    scenario_to_json,
    uses_modes,
)

Doc = dict[str, Any]


@pytest.fixture(scope="module")
def demo() -> Scenario:
    return load_builtin_scenario("dno-demo")


def _ocs(**extra: Any) -> dict[str, Any]:
    return {"combat": {"strength": 4, "ma": 3}, "move": {"strength": 2, "ma": 6}, **extra}


def minimal() -> Doc:
    """A small valid scenario that each validation test breaks in one place."""
    return {
        "id": "mini",
        "sides": [{"id": "axis"}, {"id": "allies"}],
        "powers": [
            {"id": "germany", "side": "axis", "at_war_with": ["cw"]},
            {"id": "italy", "side": "axis"},
            {"id": "cw", "side": "allies", "at_war_with": ["germany"]},
        ],
        "minors": [{"id": "hungary", "controller": "germany"}],
        "map": {
            "hexes": [
                {"id": "0101", "q": 1, "r": 0, "city": "Rouen", "port": "minor",
                 "seas": ["channel"], "controller": "cw", "supply": "primary",
                 "supply_power": "cw", "factories": 1},
                {"id": "0201", "q": 2, "r": 0, "terrain": "forest", "rail": True},
                {"id": "0301", "q": 3, "r": 0, "controller": "hungary"},
            ],
            "seas": [
                {"id": "channel", "adjacent": ["north-sea"]},
                {"id": "north-sea", "adjacent": ["channel"]},
            ],
        },
        "units": [
            {"id": "cw-inf-1", "power": "cw", "class": "land", "type": "INF", "size": "corps",
             "cost": 3, "at": "0101", "face_up": False, "ocs": _ocs()},
            {"id": "ger-hq-1", "power": "germany", "class": "land", "type": "HQ",
             "size": "corps", "cost": 5, "at": "0301", "hq_reorg": 2, "ocs": _ocs()},
            {"id": "ger-atr-1", "power": "germany", "class": "air", "type": "ATR", "cost": 2,
             "at": "0301", "atr": {"range": 4, "base": "0301"}},
            {"id": "ger-sup-1", "power": "germany", "class": "land", "type": "SUPPLY",
             "size": "division", "cost": 2, "at": "0301"},
            {"id": "hun-inf-1", "power": "hungary", "class": "land", "type": "INF",
             "size": "division", "cost": 1, "at": "0201", "ocs": _ocs()},
            {"id": "cw-trs-1", "power": "cw", "class": "naval", "type": "TRS", "cost": 2,
             "at": "channel"},
            {"id": "cw-ca-1", "power": "cw", "class": "naval", "type": "CA", "cost": 2,
             "at": "0101"},
        ],
    }


def problems_of(doc: Any) -> list[Problem]:
    with pytest.raises(ScenarioInvalid) as info:
        parse_scenario(doc)
    assert info.value.problems, "ScenarioInvalid must list its problems"
    return info.value.problems


def paths_of(doc: Any) -> set[str]:
    return {p.path for p in problems_of(doc)}


# --------------------------------------------------------------------------- the demo


def test_dno_demo_is_a_builtin_scenario() -> None:
    assert "dno-demo" in builtin_scenario_ids()
    assert load_builtin_scenario("dno-demo") is load_builtin_scenario("dno-demo")


def test_unknown_builtin_scenario_raises_key_error() -> None:
    with pytest.raises(KeyError):
        load_builtin_scenario("no-such-scenario")
    with pytest.raises(KeyError):
        load_builtin_scenario("../scenario")


def test_dno_demo_sides_and_powers_follow_rules_notes(demo: Scenario) -> None:
    """RULES-NOTES "Sides and powers": nine powers with their pass bonuses."""
    assert demo.side_ids == ("axis", "allies", "communists")
    assert demo.initiative_last_turn == ("axis", "allies", "communists")
    assert all(0 <= s.initiative_box <= 4 and s.reserve_markers == 6 for s in demo.sides)
    expected = {
        "germany": ("axis", 2), "italy": ("axis", 1), "japan": ("axis", 2),
        "cw": ("allies", 2), "usa": ("allies", 2), "france": ("allies", 1),
        "nationalist_china": ("allies", 1), "ussr": ("communists", 2),
        "communist_china": ("communists", 1),
    }
    assert {p.id: (p.side, p.pass_bonus) for p in demo.powers} == expected
    assert demo.powers_of_side("communists") == ("ussr", "communist_china")
    for p in demo.powers:
        assert 1 <= p.chits <= 3 and 2 <= p.rail_moves <= 6
        assert 10 <= p.bp_spent_last_turn <= 40 and p.bp_on_rps <= p.bp_spent_last_turn
        assert p.rp_gearing_cap > 0
        for enemy in p.at_war_with:
            assert p.id in demo.power(enemy).at_war_with
            assert demo.power(enemy).side != p.side
    assert demo.power("usa").neutral and demo.power("usa").at_war_with == ()
    assert demo.power("france").conquered
    assert {m.id: m.controller for m in demo.minors} == {
        "hungary": "germany", "romania": "germany", "finland": "germany", "mongolia": "ussr",
    }
    assert {u.power for u in demo.units} >= {m.id for m in demo.minors}


def test_dno_demo_map_has_every_feature_the_rules_use(demo: Scenario) -> None:
    hexes = demo.map.hexes
    assert len(hexes) >= 150
    assert len(demo.map.seas) >= 4
    assert {h.terrain for h in hexes} == set(TERRAINS)
    assert any(h.port == "minor" for h in hexes) and any(h.port == "major" for h in hexes)
    assert any(h.port == "minor" and h.port_damaged for h in hexes)
    assert any(h.port == "major" and h.port_damaged for h in hexes)
    assert any(h.controller is None for h in hexes)
    kinds: dict[str, set[str]] = {}
    for h in hexes:
        if h.supply is not None:
            assert h.supply_power is not None
            kinds.setdefault(h.supply, set()).add(demo.controller_of(h.supply_power))
            if h.supply == "primary":
                assert h.factories > 0 and h.city
    assert set(kinds) == {"primary", "secondary", "limited"}
    assert all(len(powers) >= 3 for powers in kinds.values())
    assert {"germany", "cw", "ussr", "japan"} <= kinds["primary"]
    rail = [h for h in hexes if h.rail]
    assert len(rail) >= 40
    for h in rail:  # rail lines run through connected hexes
        assert any(demo.map.hex(n).rail for n in demo.map.neighbours(h.id))
    for sea in demo.map.seas:
        assert sea.adjacent and demo.map.coast_of(sea.id)


def test_dno_demo_has_every_kind_of_unit(demo: Scenario) -> None:
    units = demo.units
    assert len(units) >= 80
    types = {u.type for u in units}
    assert types >= {
        "INF", "MTN", "MAR", "PARA", "GAR", "MOT", "MECH", "ARM", "HQ", "SUPPLY", "TRANSPORT",
        "REPL", "HEDGEHOG", "FTR", "LND", "NAV", "ATR", "FB", "BB", "CV", "CA", "SUB", "TRS",
    }
    assert {u.ocs.kind for u in units if u.ocs} == set(OCS_KINDS)
    assert {u.ocs.mode for u in units if u.ocs} == set(MODES)
    assert {u.size for u in units if u.unit_class == "land"} == {"corps", "division"}
    for kind in ("INF", "ARM"):
        assert {u.size for u in units if u.type == kind} == {"corps", "division"}
    hqs = [u for u in units if is_hq(u)]
    assert {u.hq_reorg for u in hqs} == {1, 2, 3, 4}
    atrs = [u for u in units if u.atr is not None]
    assert any(u.atr.large for u in atrs if u.atr)
    assert all(u.atr and demo.map.is_hex(u.atr.base) and u.atr.range > 0 for u in atrs)
    assert any(u.type == "TRS" and demo.map.is_sea(u.at) for u in units)
    assert any(u.unit_class == "naval" and demo.map.is_hex(u.at) for u in units)
    assert any(u.ocs and u.ocs.barrage > 0 for u in units)
    assert any(u.ocs and u.ocs.engineer for u in units)
    assert any(u.ocs and u.ocs.rail_repair for u in units)
    assert {u.ocs.action_rating for u in units if u.ocs} >= {0, 1, 2, 3, 4}


def test_dno_demo_gives_reorganization_work_to_every_power(demo: Scenario) -> None:
    for p in demo.powers:
        own = [u for u in demo.units if u.power == p.id]
        down = [u for u in own if not u.face_up]
        assert own and down and len(down) < len(own), p.id
    face_down = sum(not u.face_up for u in demo.units)
    assert 0.25 <= face_down / len(demo.units) <= 0.4  # about a third
    assert sum(u.shattered for u in demo.units) >= 4


def test_dno_demo_has_enemies_adjacent_for_zoc(demo: Scenario) -> None:
    fronts = set()
    for u in demo.units:
        if u.unit_class != "land" or not demo.map.is_hex(u.at):
            continue
        for n in demo.map.neighbours(u.at):
            for v in demo.units_at(n):
                if v.unit_class == "land" and demo.at_war(u.power, v.power):
                    fronts.add(frozenset({demo.side_of_power(u.power),
                                          demo.side_of_power(v.power)}))
    assert len(fronts) == 3


def test_dno_demo_has_units_at_sea_next_to_a_friendly_major_port(demo: Scenario) -> None:
    """11.18.10 at-sea reorganization needs one; 11.18.9 a face-up TRS at sea."""
    found = False
    for u in demo.units:
        if demo.map.is_sea(u.at):
            for h in demo.map.coast_of(u.at):
                ctl = demo.map.hex(h).controller
                port = demo.map.hex(h).port
                if port == "major" and ctl and demo.side_of_power(ctl) == \
                        demo.side_of_power(u.power):
                    found = True
    assert found
    assert any(u.type == "TRS" and u.face_up and demo.map.is_sea(u.at) for u in demo.units)


def test_dno_demo_round_trips(demo: Scenario) -> None:
    doc = scenario_to_json(demo)
    assert json.loads(json.dumps(doc)) == doc
    again = parse_scenario(doc)
    assert again == demo
    assert scenario_to_json(again) == doc
    assert all("class" in u for u in doc["units"])


# --------------------------------------------------------------------------- lookups


def test_lookups(demo: Scenario) -> None:
    assert demo.power("germany").name == "Germany"
    assert demo.side_of_power("cw") == "allies"
    assert demo.side_of_power("hungary") == "axis"
    assert demo.controller_of("hungary") == "germany"
    assert demo.controller_of("ussr") == "ussr"
    assert demo.at_war("hungary", "ussr") and not demo.at_war("usa", "germany")
    unit = demo.units[0]
    assert demo.unit(unit.id) is unit and unit in demo.units_at(unit.at)
    h = demo.map.hexes[10]
    assert demo.map.hex(h.id) is h and demo.map.hex_at(h.q, h.r) is h
    assert demo.map.hex_at(999, 999) is None
    for n in demo.map.neighbours(h.id):
        assert demo.map.distance(h.id, n) == 1
    assert demo.map.sea("channel").adjacent
    with pytest.raises(KeyError):
        demo.power("hungary")
    with pytest.raises(KeyError):
        demo.unit("nope")
    with pytest.raises(KeyError):
        demo.map.hex("channel")
    with pytest.raises(KeyError):
        demo.powers_of_side("nobody")


def test_unit_predicates(demo: Scenario) -> None:
    """OCS 5.1: supply units and hedgehogs use no modes; air and naval units neither."""
    by_type = {u.type: u for u in demo.units}
    assert is_inf_class(by_type["MTN"]) and not is_inf_class(by_type["ARM"])
    assert is_hq(by_type["HQ"]) and is_supply_unit(by_type["SUPPLY"])
    assert is_flying_boat(by_type["FB"])
    assert uses_modes(by_type["INF"]) and uses_modes(by_type["TRANSPORT"])
    for t in ("SUPPLY", "HEDGEHOG", "FTR", "BB"):
        assert not uses_modes(by_type[t]), t


def test_type_vocabulary_is_disjoint() -> None:
    assert not (LAND_TYPES & AIR_TYPES or LAND_TYPES & NAVAL_TYPES or AIR_TYPES & NAVAL_TYPES)
    assert ROUGH_TERRAINS == {"mountain", "swamp", "jungle", "forest"}  # RULES-NOTES 26


# --------------------------------------------------------------------------- defaults


def test_minimal_scenario_gets_documented_defaults() -> None:
    s = parse_scenario(minimal())
    assert s.title == "mini"
    assert s.initiative_last_turn == ("axis", "allies")
    assert (s.side("axis").initiative_box, s.side("axis").reserve_markers) == (2, 6)
    italy = s.power("italy")
    assert italy.name == "italy" and italy.pass_bonus == 0 and not italy.neutral
    assert italy.at_war_with == () and italy.rp_gearing_cap == italy.bp_spent_last_turn
    assert s.map.supply_path_length == 4
    h = s.map.hex("0201")
    assert (h.terrain, h.controller, h.port, h.supply, h.seas) == ("forest", None, None, None, ())
    inf = s.unit("cw-inf-1")
    assert inf.ocs is not None
    assert (inf.ocs.mode, inf.ocs.orientation, inf.ocs.kind) == ("combat", "combat", "combat")
    assert (inf.shattered, inf.oil, inf.hq_reorg, inf.atr) == (False, False, None, None)
    atr = s.unit("ger-atr-1").atr
    assert atr is not None and not atr.large
    assert s.unit("ger-sup-1").ocs is None


def test_move_only_kinds_default_to_move_mode() -> None:
    """OCS 5.5c/5.6b: Repl units and Transport Points have no Combat side."""
    doc = minimal()
    doc["units"].append({"id": "ger-tp-1", "power": "germany", "class": "land",
                         "type": "TRANSPORT", "size": "division", "cost": 1, "at": "0301",
                         "ocs": {"kind": "transport", "move": {"strength": 0, "ma": 10}}})
    ocs = parse_scenario(doc).unit("ger-tp-1").ocs
    assert ocs is not None
    assert (ocs.mode, ocs.orientation, ocs.combat) == ("move", "move", OcsValues(0, 0))


# --------------------------------------------------------------------------- validation


def test_invalid_scenario_lists_every_problem_at_once() -> None:
    doc = minimal()
    doc["sides"][0]["initiative_box"] = 9
    doc["powers"][0]["side"] = "martians"
    doc["powers"][2]["at_war_with"] = ["germany", "narnia"]
    doc["units"][0]["at"] = "9999"
    doc["units"][4]["cost"] = -1
    doc["map"]["hexes"][1]["terrain"] = "lava"
    doc["map"]["seas"][0]["adjacent"] = ["north-sea", "atlantis"]
    doc["initiative_last_turn"] = ["axis"]
    problems = problems_of(doc)
    paths = {p.path for p in problems}
    assert paths >= {
        "sides[0].initiative_box", "powers[0].side", "powers[2].at_war_with[1]",
        "units[0].at", "units[4].cost", "map.hexes[1].terrain", "map.seas[0].adjacent[1]",
        "initiative_last_turn",
    }
    assert all(p.message for p in problems)
    assert "8 problem" in str(ScenarioInvalid(problems[:8]))


Mutation = Callable[[Doc], None]


def _set(path: str, value: Any) -> Mutation:
    """Set (or, with value `...`, delete) the item at a dotted path like 'units.0.at'."""
    *head, last = path.split(".")

    def apply(doc: Doc) -> None:
        target: Any = doc
        for key in head:
            target = target[int(key)] if key.isdigit() else target[key]
        if value is ...:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return apply


def _append(path: str, item: Any) -> Mutation:
    def apply(doc: Doc) -> None:
        target: Any = doc
        for key in path.split("."):
            target = target[int(key)] if key.isdigit() else target[key]
        target.append(item)

    return apply


def _both(*ms: Mutation) -> Mutation:
    def apply(doc: Doc) -> None:
        for m in ms:
            m(doc)

    return apply


_HEX_4 = {"id": "0401", "q": 4, "r": 0}
_INF = {"id": "x-inf", "power": "germany", "class": "land", "type": "INF", "size": "corps",
        "cost": 3, "at": "0301", "ocs": _ocs()}

CASES: list[tuple[str, Mutation, str, str]] = [
    # shapes and types
    ("document_not_object", lambda d: d.clear(), "sides", "required field missing"),
    ("unknown_field", _set("powers.0.colour", "grey"), "powers[0].colour", "unknown field"),
    ("wrong_type_int", _set("sides.0.initiative_box", "2"), "sides[0].initiative_box",
     "integer"),
    ("bool_is_not_int", _set("units.0.cost", True), "units[0].cost", "integer"),
    ("float_is_not_int", _set("units.0.cost", 3.0), "units[0].cost", "integer"),
    ("wrong_type_bool", _set("units.0.face_up", "no"), "units[0].face_up", "boolean"),
    ("missing_required", _set("units.0.cost", ...), "units[0].cost", "missing"),
    ("required_null", _set("units.0.at", None), "units[0].at", "null"),
    ("bad_id_format", _set("units.0.id", "cw inf 1"), "units[0].id", "expected an id"),
    ("array_expected", _set("powers.0.at_war_with", "cw"), "powers[0].at_war_with", "array"),
    ("item_not_object", _set("units.0", 7), "units[0]", "expected an object"),
    ("title_empty", _set("title", " "), "title", "non-empty"),
    # enums and ranges
    ("unknown_terrain", _set("map.hexes.1.terrain", "lava"), "map.hexes[1].terrain",
     "one of"),
    ("unknown_port_kind", _set("map.hexes.0.port", "huge"), "map.hexes[0].port", "one of"),
    ("unknown_supply_kind", _set("map.hexes.0.supply", "tertiary"), "map.hexes[0].supply",
     "one of"),
    ("unknown_class", _set("units.0.class", "space"), "units[0].class", "one of"),
    ("unknown_type", _set("units.0.type", "DRAGON"), "units[0].type", "unknown"),
    ("type_of_other_class", _set("units.0.type", "BB"), "units[0].type", "land unit type"),
    ("unknown_mode", _set("units.0.ocs.mode", "asleep"), "units[0].ocs.mode", "one of"),
    ("unknown_kind", _set("units.0.ocs.kind", "tank"), "units[0].ocs.kind", "one of"),
    ("initiative_box_above_4", _set("sides.0.initiative_box", 5), "sides[0].initiative_box",
     "between 0 and 4"),
    ("negative_reserve_markers", _set("sides.0.reserve_markers", -1),
     "sides[0].reserve_markers", "at least 0"),
    ("negative_cost", _set("units.0.cost", -1), "units[0].cost", "at least 0"),
    ("negative_factories", _set("map.hexes.0.factories", -2), "map.hexes[0].factories",
     "at least 0"),
    ("negative_bp", _set("powers.0.bp_spent_last_turn", -5), "powers[0].bp_spent_last_turn",
     "at least 0"),
    ("negative_supply_path", _set("map.supply_path_length", -1), "map.supply_path_length",
     "at least 0"),
    ("action_rating_above_5", _set("units.0.ocs.action_rating", 6),
     "units[0].ocs.action_rating", "between 0 and 5"),
    ("negative_ma", _set("units.0.ocs.move", {"strength": 1, "ma": -1}),
     "units[0].ocs.move.ma", "at least 0"),
    ("hq_reorg_zero", _set("units.1.hq_reorg", 0), "units[1].hq_reorg", "at least 1"),
    ("atr_range_zero", _set("units.2.atr.range", 0), "units[2].atr.range", "at least 1"),
    # unique ids across everything
    ("duplicate_unit_id", _set("units.1.id", "cw-inf-1"), "units[1].id", "duplicate id"),
    ("hex_id_equals_unit_id", _set("units.0.id", "0201"), "units[0].id", "duplicate id"),
    ("sea_id_equals_power_id", _set("map.seas.1.id", "italy"), "map.seas[1].id",
     "duplicate id"),
    ("minor_id_equals_side_id", _set("minors.0.id", "axis"), "minors[0].id", "duplicate id"),
    ("duplicate_side", _append("sides", {"id": "axis"}), "sides[2].id", "duplicate id"),
    # sides and powers
    ("fewer_than_two_sides", _both(_set("sides", [{"id": "axis"}]),
                                   _set("powers.2.side", "axis"),
                                   _set("powers.2.at_war_with", []),
                                   _set("powers.0.at_war_with", [])),
     "sides", "at least two sides"),
    ("side_without_powers", _append("sides", {"id": "communists"}), "sides[2]",
     "has no powers"),
    ("power_on_unknown_side", _set("powers.1.side", "martians"), "powers[1].side",
     "unknown side"),
    ("power_on_two_sides", _append("powers", {"id": "italy", "side": "allies"}),
     "powers[3].id", "two sides"),
    ("war_with_unknown_power", _set("powers.0.at_war_with", ["cw", "narnia"]),
     "powers[0].at_war_with[1]", "unknown power"),
    ("war_with_a_minor", _set("powers.2.at_war_with", ["germany", "hungary"]),
     "powers[2].at_war_with[1]", "through their controller"),
    ("war_within_a_side", _set("powers.1.at_war_with", ["germany"]),
     "powers[1].at_war_with[0]", "same side"),
    ("war_with_itself", _set("powers.1.at_war_with", ["italy"]), "powers[1].at_war_with[0]",
     "itself"),
    ("war_is_mutual", _set("powers.2.at_war_with", ["germany", "italy"]),
     "powers[2].at_war_with[1]", "mutual"),
    ("war_listed_twice", _set("powers.0.at_war_with", ["cw", "cw"]),
     "powers[0].at_war_with[1]", "twice"),
    ("neutral_at_war", _set("powers.0.neutral", True), "powers[0].at_war_with", "neutral"),
    ("bp_on_rps_exceeds_bp_spent", _set("powers.0.bp_on_rps", 5), "powers[0].bp_on_rps",
     "cannot exceed"),
    ("initiative_last_turn_missing_side", _set("initiative_last_turn", ["axis"]),
     "initiative_last_turn", "missing allies"),
    ("initiative_last_turn_unknown_side", _set("initiative_last_turn",
                                               ["axis", "allies", "reds"]),
     "initiative_last_turn[2]", "unknown side"),
    ("initiative_last_turn_twice", _set("initiative_last_turn", ["axis", "axis", "allies"]),
     "initiative_last_turn[1]", "twice"),
    # minors
    ("minor_unknown_controller", _set("minors.0.controller", "narnia"),
     "minors[0].controller", "not a known power"),
    ("minor_controlled_by_minor", _append("minors", {"id": "slovakia",
                                                     "controller": "hungary"}),
     "minors[1].controller", "is a minor"),
    # map
    ("no_hexes", _set("map.hexes", []), "map.hexes", "at least one hex"),
    ("map_missing", _set("map", ...), "map", "missing"),
    ("duplicate_coordinates", _append("map.hexes", {"id": "0402", "q": 2, "r": 0}),
     "map.hexes[3]", "already used by hex '0201'"),
    ("hex_controller_unknown", _set("map.hexes.1.controller", "narnia"),
     "map.hexes[1].controller", "unknown power or minor"),
    ("hex_sea_unknown", _set("map.hexes.0.seas", ["channel", "atlantis"]),
     "map.hexes[0].seas[1]", "unknown sea"),
    ("supply_power_unknown", _set("map.hexes.0.supply_power", "narnia"),
     "map.hexes[0].supply_power", "unknown power or minor"),
    ("supply_without_power", _set("map.hexes.0.supply_power", None),
     "map.hexes[0].supply_power", "names the power"),
    ("supply_power_without_supply", _set("map.hexes.1.supply_power", "germany"),
     "map.hexes[1].supply_power", "without a supply source"),
    ("port_damaged_without_port", _set("map.hexes.1.port_damaged", True),
     "map.hexes[1].port_damaged", "without a port"),
    ("port_inland", _set("map.hexes.1.port", "minor"), "map.hexes[1].port", "coastal"),
    ("sea_adjacent_unknown", _set("map.seas.0.adjacent", ["north-sea", "atlantis"]),
     "map.seas[0].adjacent[1]", "unknown sea"),
    ("sea_adjacency_asymmetric", _set("map.seas.1.adjacent", []), "map.seas[0].adjacent[0]",
     "symmetric"),
    ("sea_adjacent_to_itself", _set("map.seas.1.adjacent", ["channel", "north-sea"]),
     "map.seas[1].adjacent[1]", "itself"),
    # units
    ("unit_unknown_power", _set("units.0.power", "narnia"), "units[0].power",
     "unknown power or minor"),
    ("unit_at_missing_place", _set("units.0.at", "9999"), "units[0].at",
     "unknown hex or sea"),
    ("land_unit_at_sea", _set("units.0.at", "channel"), "units[0].at", "cannot be at sea"),
    ("naval_unit_in_hex_without_port", _set("units.5.at", "0201"), "units[5].at",
     "must be in a port"),
    ("land_unit_without_size", _set("units.0.size", None), "units[0].size",
     "corps or division"),
    ("air_unit_with_size", _set("units.2.size", "corps"), "units[2].size",
     "only land units"),
    ("shattered_face_up", _set("units.1.shattered", True), "units[1].shattered",
     "face down"),
    ("hq_reorg_on_non_hq", _set("units.0.hq_reorg", 2), "units[0].hq_reorg", "only HQs"),
    ("hq_without_hq_reorg", _set("units.1.hq_reorg", ...), "units[1].hq_reorg", "11.18.2"),
    ("atr_data_on_non_atr", _set("units.0.atr", {"range": 3, "base": "0301"}),
     "units[0].atr", "only ATRs"),
    ("atr_without_atr_data", _set("units.2.atr", None), "units[2].atr", "11.18.1"),
    ("atr_base_is_a_sea", _set("units.2.atr.base", "channel"), "units[2].atr.base",
     "not a hex"),
    ("atr_base_unknown", _set("units.2.atr.base", "9999"), "units[2].atr.base", "not a hex"),
    ("ocs_on_air_unit", _set("units.2.ocs", _ocs()), "units[2].ocs", "only ground units"),
    ("ocs_on_naval_unit", _set("units.5.ocs", _ocs()), "units[5].ocs", "only ground units"),
    ("ground_unit_without_ocs", _set("units.0.ocs", ...), "units[0].ocs", "need OCS data"),
    ("supply_unit_with_ocs", _set("units.3.ocs", _ocs()), "units[3].ocs", "OCS 5.1"),
    ("ocs_kind_does_not_fit_type", _set("units.0.ocs.kind", "repl"), "units[0].ocs.kind",
     "kind combat"),
    ("ocs_values_missing", _set("units.0.ocs.combat", ...), "units[0].ocs.combat", "missing"),
    ("enemy_units_share_a_hex", _set("units.0.at", "0301"), "units[1].at", "enemy unit"),
    ("minor_and_enemy_share_a_hex", _set("units.4.at", "0101"), "units[4].at",
     "enemy unit"),
    ("too_many_reserve_stacks", _both(
        _set("sides.1.reserve_markers", 0),
        _set("units.0.ocs.mode", "reserve")), "sides[1].reserve_markers", "OCS 5.4a"),
    # OCS 5 modes by kind
    ("mode_combat_shows_combat_side", _set("units.0.ocs.orientation", "move"),
     "units[0].ocs.orientation", "OCS 5.2"),
    ("strat_is_move_oriented", _set("units.0.ocs", _ocs(mode="strat", orientation="combat")),
     "units[0].ocs.orientation", "OCS 5.8"),
    ("transport_not_in_combat_mode", _append("units", {
        **_INF, "type": "TRANSPORT", "size": "division",
        "ocs": _ocs(kind="transport", mode="combat")}), "units[7].ocs.mode", "OCS 5.5c"),
    ("transport_oriented_to_move", _append("units", {
        **_INF, "type": "REPL", "size": "division",
        "ocs": _ocs(kind="repl", mode="reserve", orientation="combat")}),
     "units[7].ocs.orientation", "OCS 5.6b"),
    ("transport_not_in_reserve", _append("units", {
        **_INF, "type": "TRANSPORT", "size": "division",
        "ocs": _ocs(kind="transport", mode="reserve")}), "units[7].ocs.mode", "OCS 5.7f"),
    ("transport_not_in_strat", _append("units", {
        **_INF, "type": "TRANSPORT", "size": "division",
        "ocs": _ocs(kind="organic_truck", mode="strat")}), "units[7].ocs.mode", "OCS 5.8c"),
    ("transport_never_dg", _append("units", {
        **_INF, "type": "TRANSPORT", "size": "division",
        "ocs": _ocs(kind="transport", mode="dg")}), "units[7].ocs.mode", "OCS 5.10c"),
    ("hedgehog_uses_no_modes", _append("units", {
        **_INF, "type": "HEDGEHOG", "size": "division",
        "ocs": _ocs(kind="hedgehog", mode="reserve")}), "units[7].ocs.mode", "OCS 5.1"),
]


@pytest.mark.parametrize(
    ("mutate", "path", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_validation_rule(mutate: Mutation, path: str, fragment: str) -> None:
    doc = minimal()
    mutate(doc)
    problems = problems_of(doc)
    matching = [p for p in problems if p.path == path]
    assert matching, f"no problem at {path!r}: {problems}"
    assert any(fragment in p.message for p in matching), matching


def test_the_minimal_fixture_is_valid() -> None:
    parse_scenario(minimal())


def test_organic_truck_may_be_in_reserve() -> None:
    """OCS 5.7f exception: Organic Trucks can enter Reserve Mode."""
    doc = minimal()
    doc["units"].append({**_INF, "type": "TRANSPORT", "size": "division",
                         "ocs": _ocs(kind="organic_truck", mode="reserve")})
    assert parse_scenario(doc).unit("x-inf").ocs is not None


def test_reserve_units_in_one_stack_share_a_marker() -> None:
    """OCS 5.4a: a stack's reserve units need one marker."""
    doc = minimal()
    doc["sides"][0]["reserve_markers"] = 1
    doc["units"][1]["ocs"]["mode"] = "reserve"
    doc["units"].append({**_INF, "ocs": _ocs(mode="reserve")})
    parse_scenario(doc)
    doc["units"].append({**_INF, "id": "x-inf-2", "at": "0201", "ocs": _ocs(mode="reserve")})
    assert "sides[0].reserve_markers" in paths_of(doc)


def test_non_object_documents_are_refused() -> None:
    for doc in (None, [], "scenario", 3, [minimal()]):
        assert [p.path for p in problems_of(doc)] == [""]


# --------------------------------------------------------------------------- robustness

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_FIELD_NAMES = sorted({
    "id", "title", "sides", "initiative_last_turn", "powers", "minors", "map", "units",
    "initiative_box", "reserve_markers", "name", "side", "pass_bonus", "neutral",
    "at_war_with", "controller", "hexes", "seas", "q", "r", "terrain", "port", "supply",
    "class", "type", "size", "cost", "at", "ocs", "atr", "mode", "kind", "base",
})
_keyed_json = st.recursive(
    _json,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(_FIELD_NAMES), inner, max_size=6),
    max_leaves=25,
)


def _parse_or_problems(doc: Any) -> None:
    """Only ScenarioInvalid may escape, with real problems; a result must round-trip."""
    try:
        s = parse_scenario(doc)
    except ScenarioInvalid as e:
        assert e.problems
        assert all(isinstance(p.path, str) and p.message for p in e.problems)
        return
    assert parse_scenario(scenario_to_json(s)) == s


@given(_keyed_json)
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_junk_only_raises_scenario_invalid(doc: Any) -> None:
    _parse_or_problems(doc)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


_MINI_PATHS = _paths(minimal())[1:]
_DEMO_DOC = scenario_to_json(load_builtin_scenario("dno-demo"))
_DEMO_PATHS = _paths(_DEMO_DOC)[1:]


def _mutate(doc: Any, path: tuple[Any, ...], value: Any, delete: bool) -> None:
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


def _strings(node: Any) -> set[str]:
    if isinstance(node, str):
        return {node}
    if isinstance(node, dict):
        return set(node) | {s for v in node.values() for s in _strings(v)}
    if isinstance(node, list):
        return {s for v in node for s in _strings(v)}
    return set()


# Replacement values: junk, or words of the document itself (ids, enum values, keys) and
# small integers, which reach the cross-reference checks.
_WORDS = sorted(_strings(minimal()) | {"reserve", "strat", "dg", "hedgehog", "transport"})
_mutations = st.tuples(
    st.booleans(),
    st.one_of(_json, st.sampled_from(_WORDS), st.integers(-2, 6),
              st.lists(st.sampled_from(_WORDS), max_size=3)),
)


@given(st.lists(st.tuples(st.sampled_from(_MINI_PATHS), _mutations), min_size=1, max_size=4))
@settings(deadline=None, max_examples=300)
def test_mutated_minimal_scenario_only_raises_scenario_invalid(
    changes: list[tuple[tuple[Any, ...], tuple[bool, Any]]],
) -> None:
    doc = minimal()
    for path, (delete, value) in changes:
        try:
            _mutate(doc, path, value, delete)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed or replaced the parent
    _parse_or_problems(doc)


@given(st.sampled_from(_DEMO_PATHS), _mutations)
@settings(deadline=None, max_examples=60)
def test_mutated_demo_only_raises_scenario_invalid(
    path: tuple[Any, ...], change: tuple[bool, Any]
) -> None:
    doc = copy.deepcopy(_DEMO_DOC)
    _mutate(doc, path, change[1], change[0])
    _parse_or_problems(doc)


# --------------------------------------------------------------------------- synthetic


@pytest.mark.parametrize(("hexes", "units"), [(200, 100), (20_000, 2_000)])
def test_synthetic_scenario_is_valid_and_deterministic(hexes: int, units: int) -> None:
    started = time.perf_counter()
    s = generate_scenario(hexes, units, seed=7)
    assert time.perf_counter() - started < 3.0
    assert len(s.map.hexes) == hexes and len(s.units) == units
    assert parse_scenario(scenario_to_json(s)) == s
    assert generate_scenario(hexes, units, seed=7) == s
    assert generate_scenario(hexes, units, seed=8) != s
    assert s.side_ids == ("axis", "allies", "communists")
    assert {p.id for p in s.powers} == {
        "germany", "italy", "japan", "cw", "usa", "france", "nationalist_china", "ussr",
        "communist_china",
    }
    down = sum(not u.face_up for u in s.units)
    assert 0.2 < down / units < 0.5
    kinds = {(h.supply, s.controller_of(h.supply_power)) for h in s.map.hexes if h.supply_power}
    for p in s.powers:
        for kind in ("primary", "secondary", "limited"):
            assert (kind, p.id) in kinds
    assert any(h.rail for h in s.map.hexes) and any(h.port for h in s.map.hexes)
    assert {u.unit_class for u in s.units} == {"land", "air", "naval"}


@pytest.mark.parametrize("sides", [2, 4])
def test_synthetic_scenario_with_other_side_counts(sides: int) -> None:
    s = generate_scenario(400, 150, seed=1, sides=sides)
    assert len(s.side_ids) == sides
    assert all(len(s.powers_of_side(side)) == 2 for side in s.side_ids)
    assert parse_scenario(scenario_to_json(s)) == s
    assert Counter(u.power for u in s.units).keys() >= {p.id for p in s.powers}


def test_synthetic_generator_refuses_impossible_sizes() -> None:
    with pytest.raises(ValueError):
        generate_scenario(10, 5)
    with pytest.raises(ValueError):
        generate_scenario(200, 5, sides=1)
    with pytest.raises(ValueError):
        generate_scenario(200, -1)
