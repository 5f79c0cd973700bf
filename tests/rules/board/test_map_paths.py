"""Supply paths on hand-drawn maps: basic, railway and overseas (11.18, 11.18.4,
11.18.6; RULES-NOTES 2, 23, 26, 28). Map legend: tests/rules/map_art.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from map_art import Unit, drawn, length

from service.rules.board import (
    Board,
    NoPath,
    Path,
    basic_path,
    overseas_path,
    path_length,
    rail_path,
)

# --------------------------------------------------------------------------- basic

ROW = ". . . . . . . ."

STRIP = """
. . . . . .
 g g g g g g
"""


def test_basic_path_counts_the_hexes_entered_not_the_start_rn26() -> None:
    board = drawn(ROW)
    assert basic_path(board, "cw", "0101", "0501", 4) == Path(
        "basic", ("0101", "0201", "0301", "0401", "0501"), (), 4
    )


def test_basic_path_is_a_shortest_path() -> None:
    board = drawn("""
    . . . .
     . . . .
      . . . .
    """)
    path = basic_path(board, "cw", "0103", "0401", 4)
    assert isinstance(path, Path)
    assert path.length == 3  # (0, 2) to (3, 0): axial distance 3
    assert path.hexes[0] == "0103" and path.hexes[-1] == "0401"


def test_weather_shortens_the_basic_path_rn26() -> None:
    board = drawn(". . . . . . ^ .")
    assert basic_path(board, "cw", "0101", "0601", 5) == Path(
        "basic", ("0101", "0201", "0301", "0401", "0501", "0601"), (), 5
    )
    assert basic_path(board, "cw", "0101", "0601", 3) == NoPath(
        "the path needs at least 5 hexes but the weather allows 3", "RULES-NOTES 26", "0601"
    )


def test_rough_terrain_costs_one_extra_hex_rn26() -> None:
    board = drawn(". ^ % .")
    assert basic_path(board, "cw", "0101", "0401", 5) == Path(
        "basic", ("0101", "0201", "0301", "0401"), (), 5
    )
    assert basic_path(board, "cw", "0101", "0401", 4) == NoPath(
        "the path needs 5 hexes but the weather allows 4", "RULES-NOTES 26", "0401"
    )


def test_terrain_cost_comes_from_the_option_rn26() -> None:
    free = drawn(". ^ % .", terrain_cost={})
    assert length(basic_path(free, "cw", "0101", "0401", 3)) == 3
    steep = drawn(". ^ % .", terrain_cost={"mountain": 2})  # forest: no extra cost
    assert length(basic_path(steep, "cw", "0101", "0401", 9)) == 5


def test_weather_and_terrain_shorten_the_path_to_exactly_0_rn26() -> None:
    board = drawn("^ . .", sources={"0101": ("primary", "cw")})
    blizzard = path_length(board.scenario, {"weather": "blizzard", "supply_path": -1})
    assert blizzard == 0
    assert basic_path(board, "cw", "0101", "0101", blizzard) == Path("basic", ("0101",), (), 0)
    assert basic_path(board, "cw", "0101", "0201", blizzard) == NoPath(
        "the path needs at least 1 hex but the weather allows 0", "RULES-NOTES 26", "0201"
    )
    # One hex of path left, but the neighbour is a mountain: also nothing beyond the start.
    assert basic_path(board, "cw", "0201", "0101", 1) == NoPath(
        "the path needs 2 hexes but the weather allows 1", "RULES-NOTES 26", "0101"
    )
    assert length(basic_path(board, "cw", "0201", "0201", 1)) == 0
    assert basic_path(board, "cw", "0101", "0201", -5) == basic_path(
        board, "cw", "0101", "0201", 0
    )


def test_basic_path_may_not_enter_enemy_zoc_rn28() -> None:
    board = drawn(STRIP, units=[("ger-inf", "germany", "INF", "0402", "combat")])
    assert basic_path(board, "cw", "0101", "0601", 9) == NoPath(
        "hex 0401 is in enemy ZOC", "RULES-NOTES 28", "0401"
    )


def test_basic_path_enters_enemy_zoc_negated_by_a_friendly_unit_rn28() -> None:
    board = drawn(STRIP, units=[
        ("ger-inf", "germany", "INF", "0402", "combat"),
        ("cw-inf", "cw", "INF", "0401", "combat"),
        ("usa-arm", "usa", "ARM", "0501", "strat"),  # same side, any mode
    ])
    assert basic_path(board, "cw", "0101", "0601", 5) == Path(
        "basic", ("0101", "0201", "0301", "0401", "0501", "0601"), (), 5
    )


def test_basic_path_passes_units_that_exert_no_zoc_5_5e() -> None:
    board = drawn(STRIP, units=[("ger-inf", "germany", "INF", "0402", "reserve"),
                                ("ger-sup", "germany", "SUPPLY", "0502", None)])
    assert isinstance(basic_path(board, "cw", "0101", "0601", 5), Path)


def test_basic_path_is_stopped_by_exploit_mode_units_5_9c() -> None:
    board = drawn(STRIP, units=[("ger-arm", "germany", "ARM", "0402", "exploit")])
    assert basic_path(board, "cw", "0101", "0601", 5) == NoPath(
        "hex 0401 is in enemy ZOC", "RULES-NOTES 28", "0401"
    )


def test_basic_path_goes_around_enemy_zoc() -> None:
    board = drawn("""
    . . . . . .
     . . . . . .
      . . . . . .
       . . . . . .
    """, units=[("ger-inf", "germany", "INF", "0302", "combat")])
    path = basic_path(board, "cw", "0101", "0501", 20)
    assert isinstance(path, Path)
    assert path.length == 8
    assert not any(board.enemy_zoc(h, "cw") for h in path.hexes)
    assert basic_path(board, "cw", "0101", "0501", 7) == NoPath(
        "the path needs 8 hexes but the weather allows 7", "RULES-NOTES 26", "0501"
    )


def test_basic_path_may_not_enter_neutral_territory() -> None:
    board = drawn(". . s . .")
    assert basic_path(board, "cw", "0101", "0501", 4) == NoPath(
        "hex 0301 is neutral territory", "11.18", "0301"
    )


def test_another_sides_territory_not_at_war_is_neutral() -> None:
    board = drawn(". . r . .")
    assert basic_path(board, "cw", "0101", "0501", 4) == NoPath(
        "hex 0301 is neutral territory", "11.18", "0301"
    )
    # Germany is at war with the USSR: its territory is open to German paths.
    assert isinstance(basic_path(board, "germany", "0101", "0501", 4), Path)


def test_a_neutral_power_traces_only_through_its_own_territory() -> None:
    board = drawn("u u - . u")
    assert length(basic_path(board, "usa", "0101", "0301", 4)) == 2
    assert basic_path(board, "usa", "0101", "0501", 4) == NoPath(
        "hex 0401 is neutral territory", "11.18", "0401"
    )


def test_basic_path_may_enter_enemy_controlled_and_nobodys_hexes() -> None:
    board = drawn(". g h - .")
    assert length(basic_path(board, "cw", "0101", "0501", 4)) == 4


def test_basic_path_may_not_enter_an_enemy_occupied_hex() -> None:
    board = drawn(". . g . .", units=[("ger-inf", "germany", "INF", "0301", "move")])
    assert basic_path(board, "cw", "0101", "0501", 4) == NoPath(
        "hex 0301 is occupied by enemy units", "11.18", "0301"
    )


def test_the_goal_hex_is_entered_under_the_same_rules() -> None:
    board = drawn(STRIP, units=[("ger-inf", "germany", "INF", "0402", "combat")])
    assert basic_path(board, "cw", "0101", "0401", 9) == NoPath(
        "hex 0401 is in enemy ZOC", "RULES-NOTES 28", "0401"
    )


def test_the_start_hex_is_not_entered() -> None:
    board = drawn(STRIP, units=[("ger-inf", "germany", "INF", "0402", "combat")])
    assert basic_path(board, "cw", "0401", "0301", 4) == Path("basic", ("0401", "0301"), (), 1)


def test_basic_path_to_the_nearest_of_several_goals() -> None:
    board = drawn(ROW)
    assert basic_path(board, "cw", "0301", {"0101", "0701"}, 4) == Path(
        "basic", ("0301", "0201", "0101"), (), 2
    )
    by_predicate = basic_path(board, "cw", "0301", lambda h: h in ("0601", "0801"), 4)
    assert by_predicate == Path("basic", ("0301", "0401", "0501", "0601"), (), 3)
    assert isinstance(basic_path(board, "cw", "0301", lambda h: h == "0801", 4), NoPath)


def test_unlimited_path_ignores_the_length_11_18_5() -> None:
    board = drawn(ROW + " ^ .")
    assert basic_path(board, "cw", "0101", "1001", 4) == NoPath(
        "the path needs at least 9 hexes but the weather allows 4", "RULES-NOTES 26", "1001"
    )
    assert length(basic_path(board, "cw", "0101", "1001", 4, unlimited=True)) == 10


def test_unlimited_path_still_respects_zoc_and_territory_11_18_5() -> None:
    board = drawn(STRIP, units=[("ger-inf", "germany", "INF", "0402", "combat")])
    assert basic_path(board, "cw", "0101", "0601", 0, unlimited=True) == NoPath(
        "hex 0401 is in enemy ZOC", "RULES-NOTES 28", "0401"
    )
    walled = drawn(". . s . .")
    assert basic_path(walled, "cw", "0101", "0501", 0, unlimited=True) == NoPath(
        "hex 0301 is neutral territory", "11.18", "0301"
    )


def test_no_path_across_a_gap_in_the_map() -> None:
    board = drawn(". . # . .")
    assert basic_path(board, "cw", "0101", "0501", 9) == NoPath(
        "no hexes link hex 0101 to hex 0501", "11.18", None
    )


def test_unknown_hexes_are_an_error() -> None:
    with pytest.raises(KeyError, match="not on the map"):
        basic_path(drawn(ROW), "cw", "0101", "9999", 4)


# --------------------------------------------------------------------------- rail

RAIL = """
= = = = = =
 . . g g . .
"""


def test_rail_path_follows_friendly_rail_any_length_11_18_6() -> None:
    board = drawn("= = = = = = = = = = = =")
    path = rail_path(board, "cw", "0101", "1201")
    assert isinstance(path, Path)
    assert (path.kind, path.length, path.hexes[-1]) == ("rail", 11, "1201")


def test_rail_path_is_cut_by_enemy_zoc_11_18_6_rn28() -> None:
    board = drawn(RAIL, units=[("ger-inf", "germany", "INF", "0402", "combat")])
    assert rail_path(board, "cw", "0101", "0601") == NoPath(
        "hex 0401 is in enemy ZOC", "RULES-NOTES 28", "0401"
    )


def test_rail_path_through_zoc_negated_by_friendly_units_rn28() -> None:
    board = drawn(RAIL, units=[
        ("ger-inf", "germany", "INF", "0402", "combat"),
        ("cw-inf-1", "cw", "INF", "0401", "combat"),
        ("cw-inf-2", "cw", "INF", "0501", "move"),
    ])
    assert rail_path(board, "cw", "0101", "0601") == Path(
        "rail", ("0101", "0201", "0301", "0401", "0501", "0601"), (), 5
    )


def test_rail_path_needs_friendly_control_11_18_6() -> None:
    board = drawn("= = G = =")
    assert rail_path(board, "cw", "0101", "0501") == NoPath(
        "hex 0301 is not controlled by a friendly power", "11.18.6", "0301"
    )
    assert rail_path(board, "germany", "0301", "0301") == Path("rail", ("0301",), (), 0)
    assert rail_path(board, "germany", "0301", "0201") == NoPath(
        "hex 0201 is not controlled by a friendly power", "11.18.6", "0201"
    )


def test_rail_path_starts_and_ends_on_rail_11_18_6() -> None:
    board = drawn(". = = . = =")
    assert rail_path(board, "cw", "0101", "0301") == NoPath(
        "hex 0101 has no railway", "11.18.6", "0101"
    )
    assert rail_path(board, "cw", "0201", "0401") == NoPath(
        "hex 0401 has no railway", "11.18.6", "0401"
    )
    assert rail_path(board, "cw", "0201", "0601") == NoPath(
        "no railway links hex 0201 to hex 0601", "11.18.6", None
    )


# --------------------------------------------------------------------------- overseas

#   north-sea -- atlantic -- channel, and north-sea -- bay (a dead end)
COASTS = {"0101": ["north-sea"], "0601": ["channel"], "0501": ["channel"],
          "0401": ["channel"], "0301": ["bay"]}
SEAS = {"north-sea": ["atlantic", "bay"], "atlantic": ["channel"]}
PORTS = {"0101": "major", "0601": "minor", "0301": "minor"}
ISLANDS = ". # . . . ."


def _seaboard(units: Sequence[Unit] = (), **kw: Any) -> Board:
    return drawn(ISLANDS, coasts=COASTS, seas=SEAS, ports=PORTS, units=units, **kw)


def test_overseas_path_port_to_port_through_adjacent_seas_11_18_4() -> None:
    board = _seaboard()
    assert overseas_path(board, "cw", "0601", "0101") == Path(
        "overseas", ("0601", "0101"), ("channel", "atlantic", "north-sea"), 3
    )


def test_overseas_path_blocked_by_an_enemy_naval_unit_11_18_4() -> None:
    board = _seaboard([("ger-bb", "germany", "BB", "atlantic", None)])
    assert overseas_path(board, "cw", "0601", "0101") == NoPath(
        "sea area atlantic holds enemy naval units and no friendly ones", "11.18.4", "atlantic"
    )


def test_overseas_path_through_a_contested_sea_area_11_18_4() -> None:
    board = _seaboard([("ger-bb", "germany", "BB", "atlantic", None),
                       ("cw-dd", "cw", "DD", "atlantic", None)])
    path = overseas_path(board, "cw", "0601", "0101")
    assert isinstance(path, Path) and path.seas == ("channel", "atlantic", "north-sea")


def test_overseas_path_ignores_navies_not_at_war_and_air_units() -> None:
    board = _seaboard([("sov-bb", "ussr", "BB", "atlantic", None),
                       ("ger-nav", "germany", "NAV", "0601", None)])
    assert isinstance(overseas_path(board, "cw", "0601", "0101"), Path)


def test_overseas_path_from_a_blocked_sea_area_names_it() -> None:
    board = _seaboard([("ita-sub", "italy", "SUB", "channel", None)])
    assert overseas_path(board, "cw", "0601", "0101") == NoPath(
        "sea area channel holds enemy naval units and no friendly ones", "11.18.4", "channel"
    )


def test_damaged_port_cannot_be_used_11_18_4() -> None:
    board = _seaboard(damaged=["0601"])
    assert overseas_path(board, "cw", "0601", "0101") == NoPath(
        "the port in hex 0601 is damaged", "11.18.4", "0601"
    )
    assert overseas_path(board, "cw", "0101", "0601") == NoPath(
        "the port in hex 0601 is damaged", "11.18.4", "0601"
    )


def test_damaged_port_receives_rps_for_its_own_repair_11_18_4_rn23() -> None:
    board = _seaboard(damaged=["0601"])
    path = overseas_path(board, "cw", "0601", "0101", allow_damaged=True)
    assert isinstance(path, Path) and path.length == 3


def test_coastal_hex_acts_as_the_port_for_coastal_types_only_rn2() -> None:
    board = _seaboard()
    assert overseas_path(board, "cw", "0501", "0101") == NoPath(
        "hex 0501 has no port (only INF-class divisions, MAR and flying boats trace overseas "
        "from a coastal hex)", "RULES-NOTES 2", "0501"
    )
    path = overseas_path(board, "cw", "0501", "0101", coastal_ok=True)
    assert path == Path("overseas", ("0501", "0101"), ("channel", "atlantic", "north-sea"), 3)


def test_coastal_types_trace_from_the_coast_of_a_damaged_port_rn2() -> None:
    board = _seaboard(damaged=["0601"])
    path = overseas_path(board, "cw", "0601", "0101", coastal_ok=True)
    assert isinstance(path, Path) and path.length == 3


def test_a_coastal_hq_counts_as_a_minor_port_rn2() -> None:
    board = _seaboard([("cw-hq", "cw", "HQ", "0401", "combat")])
    assert isinstance(overseas_path(board, "cw", "0401", "0101"), Path)


def test_overseas_path_needs_friendly_ports_11_18_4() -> None:
    board = drawn("g # . .", coasts={"0101": ["bay"], "0301": ["bay"]},
                  ports={"0101": "minor", "0301": "minor"})
    assert overseas_path(board, "cw", "0301", "0101") == NoPath(
        "the port in hex 0101 is not controlled by a friendly power", "11.18.4", "0101"
    )
    assert overseas_path(board, "cw", "0301", "0401") == NoPath(
        "hex 0401 has no port", "11.18.4", "0401"
    )
    assert overseas_path(board, "cw", "0401", "0301", coastal_ok=True) == NoPath(
        "hex 0401 is not coastal", "11.18.4", "0401"
    )
    assert overseas_path(board, "germany", "0101", "0101") == Path("overseas", ("0101",), (), 0)


def test_overseas_path_takes_another_chain_around_a_blocked_sea() -> None:
    seas = {"north-sea": ["atlantic", "bay"], "atlantic": ["channel"], "bay": ["channel"]}
    board = drawn(ISLANDS, coasts=COASTS, seas=seas, ports=PORTS,
                  units=[("ger-bb", "germany", "BB", "atlantic", None)])
    assert overseas_path(board, "cw", "0601", "0101") == Path(
        "overseas", ("0601", "0101"), ("channel", "bay", "north-sea"), 3
    )
