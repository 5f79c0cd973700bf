"""Supply paths claimed by reorganization, traced by the map engine on hand-drawn maps
(legend: map_art.py): ZOC blocking and negated, railways, a blocked sea area, a damaged
port, the weather shortening the path (11.18, 11.18.4, 11.18.6; RULES-NOTES 23, 26,
28), and the engine functions reorganization added."""

from __future__ import annotations

from map_art import drawn
from reorg_kit import act, at_step, doc, reason, refuse

from service.rules.board import (
    NoPath,
    Path,
    basic_path,
    basic_path_from,
    hex_in_supply,
    home_ports,
    overseas_route,
    rail_supply_path,
    reach_index,
    reaches_unlimited,
    source_in_supply,
)

ROW = ". . . . . . . ."
WIDE = """
. . . . . .
 . . . . . .
  . . . . . .
"""


def _hq_item(unit: str = "cw-a") -> dict:
    return {"unit": unit, "method": "hq", "hq": "cw-hq"}


# --------------------------------------------------------------------------- ZOC


def _zoc_map(*extra: tuple) -> dict:
    units = [("cw-hq", "cw", "HQ", "0101", "combat"), ("cw-a", "cw", "INF", "0501", "combat"),
             ("ger", "germany", "INF", "0302", "combat"), *extra]
    return doc("""
    . . . . .
     . . g . .
    """, sources={"0101": ("primary", "cw")}, units=units, down=["cw-a"])


def test_enemy_zoc_blocks_the_supply_path_rn28() -> None:
    error = refuse(at_step(_zoc_map()), [_hq_item()])
    assert reason(error) == "hex 0301 is in enemy ZOC"
    assert error.rule == "RULES-NOTES 28" and error.errors[0][0] == "/body/items/0/hq"


def test_a_friendly_unit_negates_enemy_zoc_for_supply_rn28() -> None:
    t = at_step(_zoc_map(("cw-b", "cw", "INF", "0301", "combat"),
                         ("cw-c", "cw", "INF", "0401", "combat")))
    events = act(t, [_hq_item()])
    assert events[0].data["path"]["hexes"] == ["0101", "0201", "0301", "0401", "0501"]


def test_enemy_units_out_of_combat_mode_exert_no_zoc_rn28() -> None:
    data = _zoc_map()
    data["units"][2]["ocs"]["mode"] = "move"
    data["units"][2]["ocs"]["orientation"] = "move"
    act(at_step(data), [_hq_item()])


# --------------------------------------------------------------------------- weather


def test_the_weather_shortens_the_basic_path_rn26() -> None:
    units = [("cw-hq", "cw", "HQ", "0101", "combat"), ("cw-a", "cw", "INF", "0401", "combat")]
    data = doc(ROW, sources={"0101": ("primary", "cw")}, units=units, down=["cw-a"])
    error = refuse(at_step(data, supply_path=2), [_hq_item()])
    assert reason(error) == "the path needs at least 3 hexes but the weather allows 2"
    assert error.rule == "RULES-NOTES 26"
    act(at_step(data, supply_path=3), [_hq_item()])


def test_rough_terrain_lengthens_the_basic_path_rn26() -> None:
    units = [("cw-hq", "cw", "HQ", "0101", "combat"), ("cw-a", "cw", "INF", "0401", "combat")]
    data = doc(". ^ % .", sources={"0101": ("primary", "cw")}, units=units, down=["cw-a"])
    error = refuse(at_step(data), [_hq_item()])
    assert reason(error) == "the path needs 5 hexes but the weather allows 4"


# --------------------------------------------------------------------------- railways


def test_a_railway_in_enemy_zoc_carries_no_rps_11_18_6() -> None:
    units = [("cw-a", "cw", "INF", "0801", "combat"), ("ger", "germany", "INF", "0502",
                                                         "combat")]
    data = doc("""
    = = = = = = = =
     . . . g . . . .
    """, sources={"0101": ("primary", "cw")}, units=units, down=["cw-a"])
    error = refuse(at_step(data), [{"unit": "cw-a", "method": "rail", "source": "0101"}])
    assert reason(error) == "hex 0801 is not within a basic path of 4 hexes of the railway " \
                            "from hex 0101"


def test_rail_source_must_stand_on_a_railway_11_18_6() -> None:
    data = doc(". = = =", sources={"0101": ("primary", "cw")},
               units=[("cw-a", "cw", "INF", "0401", "combat")], down=["cw-a"])
    error = refuse(at_step(data), [{"unit": "cw-a", "method": "rail", "source": "0101"}])
    assert reason(error) == "hex 0101 has no railway"


# --------------------------------------------------------------------------- seas, ports

COASTS = {"0101": ["north-sea"], "0601": ["channel"], "0501": ["channel"]}
SEAS = {"north-sea": ["atlantic"], "atlantic": ["channel"]}


def _sea_map(*extra: tuple, damaged: tuple[str, ...] = ()) -> dict:
    units = [("cw-a", "cw", "INFdiv", "0601", "combat"), *extra]
    return doc(". # . . . .", coasts=COASTS, seas=SEAS, ports={"0101": "major", "0601": "minor"},
               damaged=damaged, sources={"0101": ("primary", "cw")}, units=units,
               down=["cw-a"])


def test_an_enemy_navy_blocks_the_overseas_path_11_18_4() -> None:
    t = at_step(_sea_map(("ger-bb", "germany", "BB", "atlantic", None)))
    error = refuse(t, [{"unit": "cw-a", "method": "overseas", "source": "0101",
                        "port": "0601"}])
    assert reason(error) == "sea area atlantic holds enemy naval units and no friendly ones"
    assert error.errors[0][0] == "/body/items/0/source"


def test_a_friendly_navy_keeps_a_contested_sea_area_open_11_18_4() -> None:
    t = at_step(_sea_map(("ger-bb", "germany", "BB", "atlantic", None),
                         ("cw-dd", "cw", "DD", "atlantic", None)))
    act(t, [{"unit": "cw-a", "method": "overseas", "source": "0101", "port": "0601"}])


def test_a_damaged_home_port_ships_nothing_11_18_4() -> None:
    t = at_step(_sea_map(damaged=("0101",)))
    error = refuse(t, [{"unit": "cw-a", "method": "overseas", "source": "0101",
                        "port": "0601"}])
    assert reason(error) == ("the supply source in hex 0101 reaches no friendly port by "
                             "railway or a basic path")


# --------------------------------------------------------------------------- engine


def test_basic_path_from_the_nearest_of_many_starts() -> None:
    board = drawn(ROW)
    assert basic_path_from(board, "cw", ["0101", "0601"], "0801", 4) == Path(
        "basic", ("0601", "0701", "0801"), (), 2)
    assert basic_path_from(board, "cw", ["0101", "0201"], "0801", 4) == NoPath(
        "the path needs at least 6 hexes but the weather allows 4", "RULES-NOTES 26", "0801")


def test_reach_index_finds_what_basic_path_finds() -> None:
    board = drawn(WIDE, units=[("ger", "germany", "INF", "0402", "combat")])
    starts = [("a", "0101"), ("b", "0603")]
    index = reach_index(board, "cw", starts, 3)
    for hid in board.grid.ids:
        for label, start in starts:
            found = basic_path(board, "cw", start, hid, 3)
            listed = dict(index.get(hid, ()))
            assert (label in listed) == isinstance(found, Path), (label, hid)
            if isinstance(found, Path):
                assert listed[label] == found.length


def test_reaches_unlimited_agrees_with_an_unlimited_basic_path_11_18_5() -> None:
    board = drawn("""
    . . s . . .
     . . s . . .
      . . s . . .
    """, units=[("ger", "germany", "INF", "0502", "combat")])
    for a in board.grid.ids:
        for b in board.grid.ids:
            found = basic_path(board, "cw", a, b, 0, unlimited=True)
            assert reaches_unlimited(board, "cw", a, b) == isinstance(found, Path), (a, b)


def test_rail_supply_path_rail_then_a_basic_path_11_18_6() -> None:
    board = drawn("""
    = = = = .
     . . . . .
    """)
    assert rail_supply_path(board, "cw", "0101", "0502", 4) == Path(
        "rail", ("0101", "0201", "0301", "0401", "0501", "0502"), (), 2)
    assert rail_supply_path(board, "cw", "0101", "0502", 1) == NoPath(
        "hex 0502 is not within a basic path of 1 hex of the railway from hex 0101", "11.18.6",
        "0502")


def test_overseas_route_from_a_source_to_its_port_then_overseas_11_18_4() -> None:
    board = drawn(". = = # . .", coasts={"0301": ["bay"], "0501": ["bay"]},
                  ports={"0301": "minor", "0501": "minor"}, sources={"0101": ("primary", "cw")})
    assert home_ports(board, "cw", "0101", 4) == (Path("basic", ("0101", "0201", "0301"), (),
                                                       2),)
    assert overseas_route(board, "cw", "0101", "0501", 4) == Path(
        "overseas", ("0101", "0201", "0301", "0501"), ("bay",), 1)
    assert overseas_route(board, "cw", "0101", "0301", 4) == NoPath(
        "hex 0301 is the supply source's own port: no sea to cross", "11.18.4", "0301")


def test_hex_in_supply_from_the_network_11_18_10() -> None:
    board = drawn(". . . . . . .", sources={"0101": ("primary", "cw")})
    assert hex_in_supply(board, "cw", "0501", 4) == Path(
        "primary", ("0101", "0201", "0301", "0401", "0501"), (), 4)
    assert isinstance(hex_in_supply(board, "cw", "0701", 4), NoPath)


def test_a_repaired_port_works_again_rn23() -> None:
    from service.rules.board import Board

    board = drawn(". . .", ports={"0301": "minor"}, damaged=["0301"], coasts={"0301": ["bay"]},
                  sources={"0301": ("limited", "cw"), "0101": ("primary", "cw")})
    assert board.port_damaged("0301")
    assert isinstance(source_in_supply(board, "cw", "0301"), NoPath)
    fixed = Board.build(board.scenario, {}, repaired_ports=["0301"])
    assert not fixed.port_damaged("0301")
    assert isinstance(source_in_supply(fixed, "cw", "0301"), Path)
