"""The scenario's part in ATR missions (11.18.1; docs/scenario.md): air units' `air`
(range, air-to-air factor), ground units' `aa`, and the `combat.air` and `combat.aa`
tables, read with their own vocabulary by the table engine, and written back."""

from __future__ import annotations

import copy

import pytest
from air_kit import air_table, mission_doc

from service.rules.scenario import (
    ScenarioInvalid,
    load_builtin_scenario,
    parse_scenario,
    scenario_to_json,
)


def problems(doc: dict) -> list[str]:
    with pytest.raises(ScenarioInvalid) as invalid:
        parse_scenario(doc)
    return [f"{p.path}: {p.message}" for p in invalid.value.problems]


def test_dno_demo_flies_fighters_and_carries_its_own_air_and_aa_tables() -> None:
    sc = load_builtin_scenario("dno-demo")
    assert sc.unit("cw-ftr-1").air is not None and sc.unit("cw-ftr-1").air.range == 4
    assert sc.unit("cw-hq-montgomery").aa == 1
    assert sc.combat.air is not None and "of our own making" in str(sc.combat.air.title)
    assert sc.combat.aa is not None and sc.combat.aa.columns.by == "strength"
    assert parse_scenario(scenario_to_json(sc)) == sc


def test_air_data_belongs_to_air_units_and_aa_to_ground_units() -> None:
    doc = mission_doc(air=air_table("M1", [{"kind": "mission_lost", "value": 1}]))
    units = {u["id"]: u for u in doc["units"]}
    bad = copy.deepcopy(doc)
    for u in bad["units"]:
        if u["id"] == "cw-a":
            u["air"] = {"range": 3}
        if u["id"] == "cw-ftr":
            u["aa"] = 2
        if u["id"] == "ger-ftr-1":
            u["air"] = {"air_to_air": 2}
    index = {u["id"]: i for i, u in enumerate(doc["units"])}
    assert set(problems(bad)) == {
        f"units[{index['cw-a']}].air: only air units have air combat data",
        f"units[{index['cw-ftr']}].aa: air units have no AA factor: AA units are ground or "
        "naval units",
        f"units[{index['ger-ftr-1']}].air.range: an air unit's air data needs its range "
        "(11.18.1)"}
    assert units["cw-atr"].get("air") is None  # an ATR flies its atr range


def test_an_air_table_names_only_air_results() -> None:
    doc = mission_doc(air=air_table("X", [{"kind": "defender_loss", "value": 1}]))
    assert problems(doc) == [
        "combat.air.legend.X.0.kind: expected one of interceptor_lost, mission_lost, "
        "mission_aborted, got the string 'defender_loss'"]
