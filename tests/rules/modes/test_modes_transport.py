"""Rail, sea, amphibious and air transport refereed on the map (issue 16; OCS 5.5a-5.10d,
11.18.6, 11.18.1; docs/rules-options.md, "Transport"), on a hand-drawn coast."""

from __future__ import annotations

from typing import Any

from map_art import POWERS
from modes_kit import refused
from move_kit import drawn_game, go, land, moved, moves, other

from service.rules.modes.transport import TRANSPORT_RULE

# Germany's coast: a railway along the north (0101-0501), ports in 0101 and 0501 on the
# north sea, the south sea joined to it; 0403 is a coastal hex of the CW's on the south.
COAST = """
G G G G G
 g g g g g
  g g g . .
"""
SEAS: dict[str, Any] = {
    "coasts": {"0101": ["north"], "0501": ["north"], "0403": ["south"], "0503": ["south"]},
    "ports": {"0101": "minor", "0501": "major"},
    "seas": {"north": ["south"]},
}


def _powers(rail_moves: int) -> list[dict[str, Any]]:
    return [{**p, "rail_moves": rail_moves} if p["id"] == "germany" else p for p in POWERS]


def _coast(*units: dict[str, Any], rail_moves: int = 1) -> Any:
    return drawn_game(COAST, *units, powers=_powers(rail_moves), **SEAS)


def test_rail_transport_follows_the_railway_and_uses_a_rail_move_11_18_6() -> None:
    t = _coast(land("ger-inf-1", "0101", mode="move", orientation="move"),
               land("ger-inf-2", "0201", mode="move", orientation="move"),
               land("ger-inf-3", "0102", mode="move", orientation="move"))
    refused(lambda: moves(t, go("ger-inf-3", "0301", transport="rail")), "11.18.6", "ger-inf-3")
    moves(t, go("ger-inf-1", "0501", transport="rail"))
    data = moved(t, "ger-inf-1")
    assert data["path"] == ["0201", "0301", "0401", "0501"] and data["filled"]
    assert (data["mp"], data["rail_power"]) == (6, "germany")  # its whole movement
    assert t.state.rail_left("germany") == 0
    refused(lambda: moves(t, go("ger-inf-2", "0401", transport="rail")), "11.18.6", "ger-inf-2",
            "/body/moves/0/transport")


def test_rail_transport_is_a_units_whole_movement() -> None:
    t = _coast(land("ger-inf-1", "0101", mode="move", orientation="move"))
    moves(t, go("ger-inf-1", "0201"))
    error = refused(lambda: moves(t, go("ger-inf-1", "0501", transport="rail")), TRANSPORT_RULE,
                    "ger-inf-1", "/body/moves/0/transport")
    assert error.code == "report/transport_moved"


def test_rail_transport_stops_at_an_enemy_zoc_on_the_railway() -> None:
    t = _coast(land("ger-inf-1", "0101", mode="move", orientation="move"),
               land("cw-inf-1", "0402", power="cw"))
    error = refused(lambda: moves(t, go("ger-inf-1", "0501", transport="rail")), "11.18.6",
                    "ger-inf-1", "/body/moves/0/to")
    assert "enemy ZOC" in error.message
    moves(t, go("ger-inf-1", "0301", transport="rail"))


def test_sea_transport_goes_port_to_port_with_a_trs_of_the_side() -> None:
    trs = other("ger-trs-1", "north", "TRS")
    t = _coast(land("ger-inf-1", "0101", mode="move", orientation="move"),
               land("ger-inf-2", "0101", mode="move", orientation="move"), trs)
    refused(lambda: moves(t, go("ger-inf-1", "0403", transport="sea")), TRANSPORT_RULE,
            "ger-inf-1", "/body/moves/0/to")  # no port there
    moves(t, go("ger-inf-1", "0501", transport="sea"))
    data = moved(t, "ger-inf-1")
    assert (data["carrier"], data["seas"], data["mp"]) == ("ger-trs-1", ["north"], 6)
    assert t.state.units["ger-trs-1"].moved  # it sailed: face down at clean up (11.18)
    error = refused(lambda: moves(t, go("ger-inf-2", "0501", transport="sea")), TRANSPORT_RULE,
                    "ger-inf-2")
    assert error.code == "report/carrier"


def test_5_5d_amphibious_landings_reach_any_coast_free_of_enemy_units() -> None:
    trs = other("ger-trs-1", "north", "TRS")
    t = _coast(land("ger-inf-1", "0101"), land("ger-inf-2", "0101"),
               land("cw-inf-1", "0503", power="cw"), trs,
               other("ger-trs-2", "north", "TRS"))
    refused(lambda: moves(t, go("ger-inf-1", "0403", transport="amphibious")), TRANSPORT_RULE,
            "ger-inf-1", "/body/moves/0/carrier")  # two TRSs: name one
    refused(lambda: moves(t, go("ger-inf-1", "0503", transport="amphibious",
                                carrier="ger-trs-1")), "RULES-NOTES 31", "ger-inf-1")
    moves(t, go("ger-inf-1", "0403", transport="amphibious", carrier="ger-trs-2"))
    data = moved(t, "ger-inf-1")
    assert (data["carrier"], data["seas"]) == ("ger-trs-2", ["north", "south"])
    assert t.state.units["ger-trs-2"].at == "south"


def test_air_transport_flies_within_the_atr_range_and_turns_it_face_down_11_18_1() -> None:
    atr = other("ger-atr-1", "0101", "ATR", atr={"range": 2, "base": "0101"})
    t = _coast(land("ger-inf-1", "0101", mode="move", orientation="move"), atr)
    refused(lambda: moves(t, go("ger-inf-1", "0501", transport="air")), TRANSPORT_RULE,
            "ger-inf-1", "/body/moves/0/to")  # 4 hexes away
    moves(t, go("ger-inf-1", "0301", transport="air"))
    assert moved(t, "ger-inf-1")["carrier"] == "ger-atr-1"
    assert not t.state.units["ger-atr-1"].face_up
    assert [e.kind for e in t.events[-2:]] == ["unit.moved", "unit.flew_mission"]


def test_5_6a_transport_needs_move_mode_and_the_movement_step() -> None:
    atr = other("ger-atr-1", "0101", "ATR", atr={"range": 2, "base": "0101"})
    t = _coast(land("ger-inf-1", "0101"), atr)
    refused(lambda: moves(t, go("ger-inf-1", "0301", transport="air")), "OCS 5.5a", "ger-inf-1",
            "/body/moves/0/transport")
