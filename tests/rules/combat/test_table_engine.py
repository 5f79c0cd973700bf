"""The table engine (service/rules/combat) and the scenario's `combat` section: tables of
our own making in the forms the format must hold (an OCS-style odds table with a
surprise roll, a WiF-style 2d10 table with defence multipliers, a differential table,
the dno-demo tables), read with every problem listed, and looked up."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import scenario

from service.rules.combat import Vocabulary, odds, read, read_table, table_to_json
from service.rules.scenario import (
    HEXSIDE_FEATURES,
    TERRAINS,
    ScenarioInvalid,
    load_builtin_scenario,
    parse_scenario,
    scenario_to_json,
)
from service.rules.scenario.tables import BARRAGE_INPUTS, BARRAGE_KINDS, LAND_INPUTS, LAND_KINDS

TABLES = Path(__file__).parents[2] / "scenarios" / "tables"
LAND = Vocabulary(LAND_KINDS, LAND_INPUTS, TERRAINS, HEXSIDE_FEATURES)
BARRAGE = Vocabulary(BARRAGE_KINDS, BARRAGE_INPUTS, TERRAINS, HEXSIDE_FEATURES)


def data(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((TABLES / f"{name}.json").read_text())
    return loaded


def land(name: str) -> Any:
    problems: list[tuple[str, str]] = []
    table = read_table(data(name), "land", LAND, problems)
    assert problems == [] and table is not None
    return table


def with_combat(combat: Any) -> dict[str, Any]:
    doc = scenario("mini")
    doc["combat"] = combat
    return doc


@pytest.mark.parametrize("name", ["ocs-style", "wif-style", "differential"])
def test_a_table_loads_from_a_scenario_and_round_trips(name: str) -> None:
    sc = parse_scenario(with_combat({"land": data(name)}))
    assert sc.combat.land is not None and sc.combat.how("combat") == "table"
    again = parse_scenario(scenario_to_json(sc))
    assert again.combat == sc.combat
    assert table_to_json(sc.combat.land)["dice"] == data(name)["dice"]


def test_dno_demo_carries_tables_of_its_own_marked_as_such() -> None:
    sc = load_builtin_scenario("dno-demo")
    assert sc.combat.land is not None and sc.combat.barrage is not None
    for table in (sc.combat.land, sc.combat.barrage):
        assert table.title is not None and "of our own making" in table.title
        assert "not a published table" in table.title
    assert {sc.combat.how(by) for by in ("overrun", "combat", "barrage")} == {"table"}
    assert sc.combat.how("naval") == "reported"


def test_odds_columns_round_in_the_defenders_favour() -> None:
    t = land("ocs-style")
    assert odds(t, Fraction(6), Fraction(4)).label == "3:2"
    assert odds(t, Fraction(7), Fraction(2)).label == "3:1"  # 3.5:1 reads 3:1
    assert odds(t, Fraction(5), Fraction(6)).label == "1:2"  # 0.83 is below 1:1
    assert odds(t, Fraction(1), Fraction(9)).label == "1:4"  # below the first: the first
    assert odds(t, Fraction(4), Fraction(0)).label == "9:1"  # nobody defends: the last
    assert odds(t, Fraction(3), Fraction(3, 2)).label == "2:1"  # halves are kept


def test_terrain_and_hexsides_shift_columns_or_multiply_the_defence() -> None:
    ocs, wif = land("ocs-style"), land("wif-style")
    o = odds(ocs, Fraction(12), Fraction(3), terrain="mountain", hexsides=["river"])
    assert (o.table.columns.labels[o.base], o.label) == ("4:1", "3:2")
    assert o.words() == "12 : 3 -> 4:1, -2 columns mountain, -1 column river hexside -> 3:2"
    w = odds(wif, Fraction(8), Fraction(3), terrain="forest")
    assert (w.multiplier, w.defended, w.label) == (2, Fraction(6), "1:1")
    assert odds(wif, Fraction(30), Fraction(1), terrain="mountain",
                hexsides=["major_river"]).multiplier == 9


def test_die_roll_modifiers_and_rows_read_the_cell() -> None:
    t = land("ocs-style")
    o = odds(t, Fraction(6), Fraction(4), inputs={"action_ratings": -1})
    assert o.drms == (("action ratings", -1),)
    out = read(o, (3, 4))  # 7 - 1 = 6: the 6-7 row
    assert (out.total, out.code) == (6, "DL1o1")
    assert out.words() == "column 3:2, 2d6 = 7, -1 action ratings -> 6: DL1o1"
    assert [e.kind for e in out.effects] == ["defender_loss", "defender_option"]
    assert read(o, (1, 1)).total == 1 and read(o, (1, 1)).code == "AL1"  # below: first row


def test_a_surprise_roll_says_who_is_surprised() -> None:
    sp = land("ocs-style").surprise
    assert sp is not None and sp.attacker is not None and sp.attacker.shift_dice is not None
    assert (sp.side(10), sp.side(9), sp.side(4), sp.side(5)) == ("attacker", None,
                                                                  "defender", None)
    assert sp.attacker.shift_dice.text == "1d6"


def test_differential_columns_and_a_band_modifier() -> None:
    t = land("differential")
    assert odds(t, Fraction(7), Fraction(5)).label == "+2"
    assert odds(t, Fraction(12), Fraction(5)).label == "+6"
    assert odds(t, Fraction(1), Fraction(9)).label == "-3"
    o = odds(t, Fraction(7), Fraction(5), inputs={"attackers": 3})
    assert o.label == "+3" and o.words() == "7 - 5 = 2 -> +2, +1 column attackers -> +3"


def test_strength_columns_and_density_bands_of_the_demo_barrage_table() -> None:
    t = load_builtin_scenario("dno-demo").combat.barrage
    assert t is not None
    assert odds(t, Fraction(3), Fraction(0), inputs={"units": 2}).label == "3-4"
    assert odds(t, Fraction(13), Fraction(0), inputs={"units": 2}).label == "12+"
    lone = odds(t, Fraction(3), Fraction(0), inputs={"units": 1}, terrain="forest")
    assert lone.label == "1" and lone.shifts == (("forest", -1), ("units", -1))
    assert odds(t, Fraction(8), Fraction(0), inputs={"units": 5}).label == "12+"


def test_every_problem_of_a_table_is_listed_with_its_path() -> None:
    bad = data("ocs-style")
    bad["columns"]["labels"][3] = "1:5"  # out of order
    bad["rows"]["3-4"] = bad["rows"].pop("3-5")  # a gap before 6-7
    bad["legend"]["AL1"] = [{"kind": "attacker_retreat", "value": 1}]
    bad["modifiers"] = [{"input": "weather", "to": "roll"}]
    bad["terrain"]["ocean"] = {"shift": -1}
    bad["surprise"] = {"dice": "2d6"}
    problems: list[tuple[str, str]] = []
    assert read_table(bad, "combat.land", LAND, problems) is None
    paths = {p for p, _ in problems}
    assert {"combat.land.columns.labels.3", "combat.land.legend.AL1.0.kind",
            "combat.land.modifiers.0.input", "combat.land.terrain.ocean",
            "combat.land.surprise"} <= paths, problems
    fixed = data("ocs-style")
    fixed["rows"]["3-4"] = fixed["rows"].pop("3-5")
    problems = []
    read_table(fixed, "combat.land", LAND, problems)
    assert any(p == "combat.land.rows.6-7" and "gap" in m for p, m in problems)
    fixed = data("ocs-style")
    fixed["rows"]["12"][0] = "XX"
    problems = []
    read_table(fixed, "t", LAND, problems)
    assert problems == [("t.rows.12.0", "code 'XX' is not in the legend")]


def test_the_combat_section_is_checked_as_a_whole() -> None:
    too_far = data("ocs-style")
    too_far["legend"]["DL2o2"] = [{"kind": "defender_option", "value": 3},
                                  {"kind": "defender_retreat", "value": 2}]
    with pytest.raises(ScenarioInvalid) as caught:
        parse_scenario(with_combat({"results": "reported", "land": too_far,
                                    "overrun": {"minimum": "3-4", "shift": 99},
                                    "barrage": {"dice": "2d6"}, "extra": 1}))
    shown = {p.path: p.message for p in caught.value.problems}
    assert "options and retreat together" in shown["combat.land.legend.DL2o2"]
    assert "results are reported only without tables" in shown["combat.results"]
    assert "combat.overrun.minimum" in shown and "combat.overrun.shift" in shown
    assert shown["combat.extra"] == "unknown field"
    assert "combat.barrage.columns" in shown
    with pytest.raises(ScenarioInvalid) as caught:
        parse_scenario(with_combat({"overrun": {"minimum": "3:1"}}))
    assert caught.value.problems[0].path == "combat.overrun"


def test_without_tables_a_scenario_says_whether_players_report_results() -> None:
    none = parse_scenario(scenario("mini")).combat
    assert {none.how(by) for by in ("overrun", "combat", "barrage")} == {"none"}
    reported = parse_scenario(with_combat({"results": "reported"})).combat
    assert {reported.how(by) for by in ("overrun", "combat", "barrage")} == {"reported"}


@given(st.fractions(min_value=0, max_value=200), st.fractions(min_value=0, max_value=200),
       st.fractions(min_value=Fraction(1, 4), max_value=100),
       st.integers(min_value=-30, max_value=60))
def test_more_attack_or_less_defence_never_reads_a_worse_column_and_every_roll_a_cell(
        a: Fraction, extra: Fraction, d: Fraction, total: int) -> None:
    for name in ("ocs-style", "wif-style", "differential"):
        t = land(name)
        weak, strong = odds(t, a, d + extra), odds(t, a + extra, d)
        assert weak.column <= odds(t, a, d).column <= strong.column
        assert 0 <= strong.column < len(t.columns.labels)
        out = read(weak, [total])
        assert out.code == t.rows[out.row].cells[weak.column]
        assert t.rows[0].low > total or t.rows[-1].high < total or \
            t.rows[out.row].low <= total <= t.rows[out.row].high
