"""The map engine's board: neighbours, zones of control and who is an enemy
(docs/api.md; RULES-NOTES 26, 28; OCS 5.1, OCS 5.5e, OCS 5.9c)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from map_art import drawn, scenario_doc, unit_states

from service.rules.board import Board, coastal_ok, exerts_zoc, grid_of, path_length
from service.rules.options import resolve_options
from service.rules.scenario import UnitSpec, generate_scenario, parse_scenario
from service.rules.state import Setup, initial_state

PLAIN = """
. . . . .
 . . . . .
  . . . . .
   . . . . .
"""


def _spec(utype: str, cls: str = "land", size: str | None = "corps", **kw: Any) -> UnitSpec:
    return UnitSpec(id="u", power="cw", unit_class=cls, type=utype, size=size, cost=3,
                    at="0101", **kw)


def test_neighbours_are_the_six_axial_neighbours_on_the_map() -> None:
    board = drawn(PLAIN)
    # 0302 is (2, 1): right, up-right, up-left, left, down-left, down-right.
    assert set(board.neighbours("0302")) == {"0402", "0401", "0301", "0202", "0203", "0303"}
    assert set(board.neighbours("0101")) == {"0201", "0102"}
    hole = drawn(". # .\n . . .")
    assert set(hole.neighbours("0101")) == {"0102"}


def test_neighbours_agree_with_the_scenario_map_on_negative_coordinates() -> None:
    scenario = generate_scenario(600, 0, seed=3)
    board = Board.build(scenario, {})
    assert any(h.r < 0 for h in scenario.map.hexes)
    for h in scenario.map.hexes:
        assert set(board.neighbours(h.id)) == set(scenario.map.neighbours(h.id))


def test_grid_is_shared_by_boards_of_one_map() -> None:
    first = drawn(PLAIN)
    second = Board.build(first.scenario, {})
    assert first.grid is second.grid is grid_of(first.scenario.map)


@pytest.mark.parametrize(
    ("mode", "exerts"),
    [("combat", True), ("exploit", True), (None, True), ("move", False),
     ("strat", False), ("reserve", False), ("dg", False)],
)
def test_land_units_exert_zoc_in_combat_or_exploit_mode_only_rn28_5_5e(
    mode: str | None, exerts: bool
) -> None:
    assert exerts_zoc(_spec("INF"), mode) is exerts


@pytest.mark.parametrize("utype", ["SUPPLY", "HEDGEHOG", "TRANSPORT", "REPL"])
def test_units_never_in_combat_mode_exert_no_zoc_ocs_5_1_5_5c(utype: str) -> None:
    size = "division"
    assert not exerts_zoc(_spec(utype, size=size), None)
    assert not exerts_zoc(_spec(utype, size=size), "combat")


def test_air_and_naval_units_exert_no_zoc_rn28() -> None:
    assert not exerts_zoc(_spec("FTR", "air", None), None)
    assert not exerts_zoc(_spec("BB", "naval", None), None)


def test_enemy_zoc_covers_the_unit_hex_and_its_six_neighbours_5_5e() -> None:
    board = drawn(PLAIN, units=[("ger-inf", "germany", "INF", "0302", "combat")])
    zoc = {h for h in board.grid.ids if board.enemy_zoc(h, "cw")}
    assert zoc == {"0302", *board.neighbours("0302")}
    assert not any(board.enemy_zoc(h, "germany") for h in board.grid.ids)


def test_exploit_mode_units_keep_their_zoc_5_9c() -> None:
    board = drawn(PLAIN, units=[("ger-arm", "germany", "ARM", "0302", "exploit")])
    assert board.enemy_zoc("0402", "cw")


@pytest.mark.parametrize("mode", ["move", "strat", "reserve", "dg"])
def test_units_out_of_combat_mode_exert_no_zoc_5_5e(mode: str) -> None:
    board = drawn(PLAIN, units=[("ger-inf", "germany", "INF", "0302", mode)])
    assert not any(board.enemy_zoc(h, "cw") for h in board.grid.ids)


def test_friendly_land_unit_negates_enemy_zoc_for_supply_rn28() -> None:
    board = drawn(PLAIN, units=[
        ("ger-inf", "germany", "INF", "0302", "combat"),
        ("usa-inf", "usa", "INF", "0402", "move"),
    ])
    assert board.enemy_zoc("0402", "cw")
    assert board.zoc_negated("0402", "cw")  # same side, any mode
    assert board.is_open("0402", "cw")
    assert not board.is_open("0401", "cw")
    why = board.why_closed("0401", "cw")
    assert why is not None and why.reason == "hex 0401 is in enemy ZOC"
    assert why.rule == "RULES-NOTES 28"


def test_minor_units_are_at_war_through_their_controller() -> None:
    board = drawn(PLAIN, units=[("hun-inf", "hungary", "INF", "0302", "combat")])
    assert board.enemy_zoc("0402", "cw")
    assert board.enemy_zoc("0402", "greece")  # cw's minor
    assert board.enemies_of("greece") == frozenset({"germany", "italy"})


def test_powers_not_at_war_exert_no_zoc_on_each_other() -> None:
    board = drawn(PLAIN, units=[("sov-inf", "ussr", "INF", "0302", "combat")])
    assert not board.enemy_zoc("0402", "cw")  # the USSR is not at war with the CW
    assert board.enemy_zoc("0402", "germany")
    assert board.enemy_occupied("0302", "germany")
    assert not board.enemy_occupied("0302", "cw")


def test_units_index_hexes_and_seas() -> None:
    board = drawn(
        "= .", ports={"0101": "minor"}, coasts={"0101": ["channel"]},
        units=[("cw-inf", "cw", "INF", "0101", "combat"), ("cw-dd", "cw", "DD", "channel", None),
               ("cw-bb", "cw", "BB", "0101", None)],
    )
    assert board.units_in("0101") == ("cw-inf", "cw-bb")
    assert board.units_in("channel") == ("cw-dd",)
    assert board.units_in("0201") == ()


@pytest.mark.parametrize(
    ("weather", "expected"),
    [(None, 4), ({"weather": "fine"}, 4), ({"supply_path": 2}, 2), ({"supply_path": 0}, 0),
     ({"supply_path": -3}, 0)],
)
def test_path_length_is_the_weather_rows_else_the_maps_never_below_0_rn26(
    weather: dict[str, Any] | None, expected: int
) -> None:
    assert path_length(drawn(PLAIN).scenario, weather) == expected


@pytest.mark.parametrize(
    ("utype", "cls", "size", "ok"),
    [("INF", "land", "division", True), ("INF", "land", "corps", False),
     ("MAR", "land", "corps", True), ("GAR", "land", "division", True),
     ("ARM", "land", "division", False), ("FB", "air", None, True),
     ("FTR", "air", None, False)],
)
def test_coastal_types_are_inf_class_divisions_mar_and_flying_boats_rn2(
    utype: str, cls: str, size: str | None, ok: bool
) -> None:
    assert coastal_ok(_spec(utype, cls, size)) is ok


def test_board_from_state_reads_the_options_rn26() -> None:
    doc = scenario_doc("^ . .", sources={"0101": ("primary", "cw")},
                       units=[("cw-inf", "cw", "INF", "0301", "combat")])
    scenario = parse_scenario(doc)
    options = resolve_options({"supply": {"terrain_cost": {"mountain": 3}}}, 3)
    state = initial_state(Setup("g", scenario, options, "fair"))
    board = Board.from_state(state)
    assert board.step[board.at("0101")] == 4
    assert board.step[board.at("0201")] == 1
    assert set(board.unit_hex) == {"cw-inf"}
    assert "usa" in board.neutral and "spain" in board.neutral
    assert unit_states(scenario, [("cw-inf", "cw", "INF", "0301", "combat")])["cw-inf"].mode \
        == "combat"


def test_board_builds_fast_on_a_large_map() -> None:
    scenario = generate_scenario(20_000, 2_000)
    units = initial_state(Setup("g", scenario, resolve_options({}, 3), "fair")).units
    Board.build(scenario, units)
    started = time.perf_counter()
    Board.build(scenario, units)
    assert time.perf_counter() - started < 0.5  # typically ~20 ms; generous for CI
