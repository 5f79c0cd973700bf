"""Supply sources and units in supply (11.18.3-11.18.7; RULES-NOTES 2, 5, 19, 25).
Map legend: tests/rules/map_art.py."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from map_art import drawn, scenario_doc

from service.rules.board import (
    Board,
    NoPath,
    Path,
    SupplyStatus,
    in_communication,
    source_in_supply,
    state_supply,
    supply_report,
    unit_supply,
)
from service.rules.options import resolve_options
from service.rules.scenario import generate_scenario, parse_scenario
from service.rules.state import Setup, initial_state

ROW = ". . . . . . . . ."


# --------------------------------------------------------------------------- sources


def test_a_primary_source_is_in_supply() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw")})
    assert source_in_supply(board, "cw", "0101") == Path("primary", ("0101",), (), 0)


def test_secondary_source_in_supply_within_a_basic_path_11_18_7() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw"), "0401": ("secondary", "cw"),
                                "0601": ("secondary", "cw")})
    assert source_in_supply(board, "cw", "0401") == Path(
        "primary", ("0101", "0201", "0301", "0401"), (), 3
    )
    assert source_in_supply(board, "cw", "0601") == NoPath(
        "no primary supply source traces a supply path of at most 4 hexes to hex 0601",
        "11.18.7", "0601",
    )
    assert isinstance(source_in_supply(board, "cw", "0601", max_length=5), Path)
    assert isinstance(source_in_supply(board, "cw", "0401", max_length=2), NoPath)


def test_secondary_source_in_supply_by_rail_from_a_primary_11_18_6() -> None:
    board = drawn("= = = = = = = = .", sources={"0101": ("primary", "cw"),
                                                 "0901": ("secondary", "cw")})
    path = source_in_supply(board, "cw", "0901", max_length=1)
    assert path == Path("rail", tuple(f"0{q}01" for q in range(1, 10)), (), 1)


def test_limited_source_in_a_damaged_port_is_not_in_supply_rn19() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw"), "0201": ("limited", "cw")},
                  ports={"0201": "minor"}, damaged=["0201"], coasts={"0201": ["bay"]})
    assert source_in_supply(board, "cw", "0201") == NoPath(
        "the port in hex 0201 is damaged", "RULES-NOTES 19", "0201"
    )


def test_limited_source_in_supply_11_18_3() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw"), "0301": ("limited", "cw"),
                                "0901": ("limited", "cw")})
    assert source_in_supply(board, "cw", "0301") == Path(
        "primary", ("0101", "0201", "0301"), (), 2
    )
    assert source_in_supply(board, "cw", "0901") == NoPath(
        "no primary supply source traces a supply path of at most 4 hexes to hex 0901",
        "11.18.3", "0901",
    )


def test_sources_serve_only_friends_11_18() -> None:
    board = drawn(". g r u .", sources={"0101": ("secondary", "cw"), "0201": ("primary", "cw"),
                                       "0301": ("primary", "ussr"), "0401": ("primary", "usa"),
                                       "0501": ("primary", "greece")},
                  units=[("ger-inf", "germany", "INF", "0201", "move")])
    assert source_in_supply(board, "cw", "0401") == NoPath(
        "hex 0401 is not controlled by a friendly power", "11.18", "0401"
    )
    assert source_in_supply(board, "cw", "0201") == NoPath(
        "hex 0201 is occupied by enemy units", "11.18", "0201"
    )
    assert source_in_supply(board, "cw", "0501") == Path("primary", ("0501",), (), 0)
    assert source_in_supply(board, "usa", "0401") == Path("primary", ("0401",), (), 0)
    assert source_in_supply(board, "cw", "0301") == NoPath(
        "hex 0301 is not controlled by a friendly power", "11.18", "0301"
    )
    # The CW's only usable primary source (Greece's, 0501) is behind neutral USA.
    assert source_in_supply(board, "cw", "0101") == NoPath(
        "no primary supply source traces a supply path of at most 4 hexes to hex 0101",
        "11.18.7", "0101",
    )
    assert source_in_supply(drawn(". ."), "cw", "0101") == NoPath(
        "hex 0101 is not a supply source", "11.18", "0101"
    )


def test_a_captured_source_serves_nobody_11_18() -> None:
    board = drawn("g . .", sources={"0101": ("primary", "cw")})
    assert isinstance(source_in_supply(board, "cw", "0101"), NoPath)
    assert source_in_supply(board, "germany", "0101") == NoPath(
        "the supply source in hex 0101 belongs to cw, not a friend of germany", "11.18", "0101"
    )


def test_primary_source_in_communication_overland_11_18_5() -> None:
    board = drawn(". . . . . . . . . .", sources={"0101": ("primary", "cw"),
                                                   "1001": ("primary", "cw")})
    path = in_communication(board, "cw", "0101")
    assert isinstance(path, Path)
    assert (path.kind, path.length, path.hexes[-1]) == ("communication", 9, "1001")


def test_primary_source_isolated_by_zoc_is_out_of_communication_11_18_5() -> None:
    board = drawn("""
    . . . . . .
     g g g g g g
    """, sources={"0101": ("primary", "cw"), "0601": ("primary", "cw")},
        units=[("ger-inf", "germany", "INF", "0402", "combat")])
    assert in_communication(board, "cw", "0101") == NoPath(
        "the supply source in hex 0101 cannot trace a path of any length overland or "
        "overseas to another primary supply source", "11.18.5", "0101",
    )
    alone = drawn(". .", sources={"0101": ("primary", "cw")})
    assert isinstance(in_communication(alone, "cw", "0101"), NoPath)


def test_primary_source_in_communication_overseas_11_18_5() -> None:
    kw: dict[str, Any] = {
        "sources": {"0101": ("primary", "cw"), "0601": ("primary", "cw")},
        "ports": {"0101": "major", "0401": "minor"},
        "coasts": {"0101": ["north-sea"], "0401": ["channel"]},
        "seas": {"north-sea": ["channel"]},
    }
    board = drawn(". # # . . .", **kw)
    assert in_communication(board, "cw", "0101") == Path(
        "communication", ("0101", "0401", "0501", "0601"), ("north-sea", "channel"), 2
    )
    blockade = drawn(". # # . . .", units=[("ger-sub", "germany", "SUB", "channel", None)],
                     **kw)
    assert isinstance(in_communication(blockade, "cw", "0601"), NoPath)


# --------------------------------------------------------------------------- units

RAILWAY = """
= = = = = = = = = =
 . . . . . . . . . .
  . . . . . . . . . .
"""


def _report(board: Board, power: str | None = None, limit: int = 4) -> dict[str, SupplyStatus]:
    return supply_report(board, power, limit)


def test_units_in_supply_from_a_primary_source_or_by_rail_11_18_6() -> None:
    board = drawn(RAILWAY, sources={"0101": ("primary", "cw")}, units=[
        ("cw-inf-1", "cw", "INF", "0102", "combat"),
        ("cw-inf-2", "cw", "INF", "0903", "combat"),
    ])
    report = _report(board)
    assert report["cw-inf-1"] == SupplyStatus("cw-inf-1", True, "primary", "0101", None, 1)
    far = report["cw-inf-2"]
    assert (far.in_supply, far.method, far.source, far.length, far.route) == (
        True, "rail", "0101", 2, ("rail",)
    )
    assert far.via in ("0901", "1001")


def test_units_in_supply_from_a_secondary_source_hq_11_18_7() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw")}, units=[
        ("cw-hq", "cw", "HQ", "0401", "move"),
        ("cw-inf-1", "cw", "INF", "0801", "combat"),
        ("cw-inf-2", "cw", "INF", "0901", "combat"),
    ])
    report = _report(board)
    assert report["cw-hq"] == SupplyStatus("cw-hq", True, "primary", "0101", None, 3)
    assert report["cw-inf-1"] == SupplyStatus("cw-inf-1", True, "secondary", "cw-hq", None, 4)
    assert report["cw-inf-2"] == SupplyStatus(
        "cw-inf-2", False, reason="no supply source traces a supply path of at most 4 hexes "
                                  "to hex 0901", rule="11.18",
    )


def test_hex_secondary_sources_and_supply_unit_cities_rn5_11_18_7() -> None:
    def board(supply_unit_cities: bool) -> Board:
        return drawn(ROW, sources={"0101": ("primary", "cw"), "0401": ("secondary", "cw")},
                     cities=["0501"], supply_unit_cities=supply_unit_cities, units=[
                         ("cw-sup", "cw", "SUPPLY", "0501", None),
                         ("cw-inf-1", "cw", "INF", "0801", "combat"),
                         ("cw-inf-2", "cw", "INF", "0901", "combat"),
                     ])

    report = _report(board(True))
    assert report["cw-inf-1"] == SupplyStatus("cw-inf-1", True, "secondary", "0501", None, 3)
    assert report["cw-inf-2"] == SupplyStatus("cw-inf-2", True, "secondary", "0501", None, 4)
    report = _report(board(False))
    assert report["cw-inf-1"] == SupplyStatus("cw-inf-1", True, "secondary", "0401", None, 4)
    assert not report["cw-inf-2"].in_supply


def test_units_in_supply_overseas_through_a_port_11_18_4() -> None:
    board = drawn(
        "= # # . . . . .",
        sources={"0101": ("primary", "cw")},
        ports={"0101": "major", "0401": "minor"},
        coasts={"0101": ["north-sea"], "0401": ["north-sea"], "0801": ["north-sea"]},
        units=[("cw-inf", "cw", "INF", "0601", "combat"),
               ("cw-mar", "cw", "MAR", "0801", "combat"),
               ("cw-div", "cw", "INFdiv", "0801", "combat"),
               ("cw-arm", "cw", "ARMdiv", "0801", "combat")],
        supply_path_length=2,
    )
    report = _report(board, limit=2)
    assert report["cw-inf"] == SupplyStatus(
        "cw-inf", True, "overseas", "0101", "0401", 2, ("overseas",)
    )
    # 0801 is 4 hexes from the port; the coast itself is the port for RULES-NOTES 2 types.
    assert report["cw-mar"] == SupplyStatus(
        "cw-mar", True, "overseas", "0101", "0801", 0, ("overseas",)
    )
    assert report["cw-div"].in_supply and report["cw-div"].via == "0801"
    assert not report["cw-arm"].in_supply


def test_overseas_then_rail_11_18_6() -> None:
    board = drawn(
        ". # = = = = = = .",
        sources={"0101": ("primary", "cw")},
        ports={"0101": "major", "0301": "minor"},
        coasts={"0101": ["north-sea"], "0301": ["north-sea"]},
        units=[("cw-inf", "cw", "INF", "0901", "combat")],
    )
    status = _report(board, limit=1)["cw-inf"]
    assert (status.method, status.via, status.length, status.route) == (
        "rail", "0801", 1, ("overseas", "rail")
    )


def test_enemy_navy_cuts_overseas_supply_11_18_4() -> None:
    board = drawn(
        ". # . .",
        sources={"0101": ("primary", "cw")},
        ports={"0101": "major", "0301": "minor"},
        coasts={"0101": ["north-sea"], "0301": ["north-sea"]},
        units=[("cw-inf", "cw", "INF", "0401", "combat"),
               ("ger-sub", "germany", "SUB", "north-sea", None)],
    )
    assert not _report(board)["cw-inf"].in_supply


def test_enemy_zoc_cuts_supply_rn28() -> None:
    board = drawn("""
    . . . . . .
     g g g g g g
    """, sources={"0101": ("primary", "cw")}, units=[
        ("ger-inf", "germany", "INF", "0402", "combat"),
        ("cw-inf", "cw", "INF", "0601", "combat"),
    ])
    report = _report(board, None, 9)
    assert not report["cw-inf"].in_supply
    assert not report["ger-inf"].in_supply  # no German source on this map


def test_a_weather_of_0_supplies_only_units_on_the_source_rn26() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw")}, units=[
        ("cw-inf-1", "cw", "INF", "0101", "combat"),
        ("cw-inf-2", "cw", "INF", "0201", "combat"),
    ])
    report = _report(board, limit=0)
    assert report["cw-inf-1"] == SupplyStatus("cw-inf-1", True, "primary", "0101", None, 0)
    assert not report["cw-inf-2"].in_supply
    assert _report(board, limit=-2) == report


def test_report_of_one_power_includes_its_minors() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw")}, units=[
        ("cw-inf", "cw", "INF", "0201", "combat"),
        ("gre-inf", "greece", "INF", "0301", "combat"),
        ("cw-ftr", "cw", "FTR", "0301", None),
        ("usa-inf", "usa", "INF", "0401", "combat"),
    ])
    assert set(_report(board, "cw")) == {"cw-inf", "gre-inf"}
    assert set(_report(board, "greece")) == {"gre-inf"}
    assert set(_report(board)) == {"cw-inf", "gre-inf", "usa-inf"}
    # The USA is neutral: the CW's source is not its own.
    assert not _report(board)["usa-inf"].in_supply


def test_an_hq_must_be_in_supply_to_reorganize_rn25() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw")}, units=[
        ("cw-hq-1", "cw", "HQ", "0301", "combat"),
        ("cw-hq-2", "cw", "HQ", "0901", "combat"),
        ("cw-inf", "cw", "INF", "0201", "combat"),
    ])
    assert unit_supply(board, "cw-hq-1", 4).in_supply
    # An HQ is a secondary source only when in supply itself.
    assert not unit_supply(board, "cw-hq-2", 4).in_supply


def test_an_hq_as_a_secondary_source_in_supply_11_18_7() -> None:
    board = drawn(ROW, sources={"0101": ("primary", "cw")}, units=[
        ("cw-hq-1", "cw", "HQ", "0301", "combat"),
        ("cw-hq-2", "cw", "HQ", "0901", "combat"),
        ("cw-inf", "cw", "INF", "0201", "combat"),
    ])
    assert source_in_supply(board, "greece", "cw-hq-1") == Path(
        "primary", ("0101", "0201", "0301"), (), 2
    )
    assert source_in_supply(board, "cw", "cw-hq-2") == NoPath(
        "no primary supply source traces a supply path of at most 4 hexes to hex 0901",
        "11.18.7", "cw-hq-2",
    )
    assert source_in_supply(board, "cw", "cw-inf") == NoPath(
        "unit cw-inf is not an HQ", "11.18.7", "cw-inf"
    )
    assert source_in_supply(board, "germany", "cw-hq-1") == NoPath(
        "HQ cw-hq-1 is not a friend of germany", "11.18.7", "cw-hq-1"
    )


def test_state_supply_uses_the_weather_and_the_options_rn26() -> None:
    doc = scenario_doc(ROW, sources={"0101": ("primary", "cw")}, units=[
        ("cw-inf", "cw", "INF", "0301", "combat"),
        ("cw-arm", "cw", "ARM", "0501", "combat"),
    ])
    scenario = parse_scenario(doc)
    state = initial_state(Setup("g", scenario, resolve_options({}, 3), "fair"))
    assert state_supply(state) == supply_report(Board.from_state(state), None, 4)
    snow = replace(state, turn=replace(state.turn, weather={"roll": 2, "supply_path": 3}))
    report = state_supply(snow)
    assert report["cw-inf"].in_supply and not report["cw-arm"].in_supply


def test_supply_report_is_fast_on_a_large_map() -> None:
    scenario = generate_scenario(20_000, 2_000)
    units = initial_state(Setup("g", scenario, resolve_options({}, 3), "fair")).units
    Board.build(scenario, units)
    started = time.perf_counter()
    report = supply_report(Board.build(scenario, units), None, 4)
    assert time.perf_counter() - started < 2.0  # typically ~100 ms; generous for CI
    assert len(report) == sum(1 for u in scenario.units if u.unit_class == "land")
