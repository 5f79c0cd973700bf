"""OCS 5.5-5.6c through the rules core: Combat Mode and Move Mode."""

from __future__ import annotations

import pytest
from engine import Table
from modes_kit import coast_game, effective, game, mode, move, refused, report, until

from service.rules.board import Board
from service.rules.errors import Malformed


def test_5_5_combat_mode_shows_the_greater_strength_and_lesser_movement() -> None:
    t = game()
    arm = effective(t, "ger-arm-1")
    assert (arm.attack, arm.defence, arm.ma, arm.action_rating) == (6, 6, 4, 4)


@pytest.mark.parametrize("transport", ["rail", "air", "sea"])
def test_5_5a_combat_mode_units_cannot_use_rail_air_or_shipping(transport: str) -> None:
    t = game()
    refused(lambda: report(t, moves=[move("ger-inf-2", "h41", transport)]), "OCS 5.5a",
            "ger-inf-2", "/body/moves/0/transport")
    assert not effective(t, "ger-inf-2").can_use_transport


def test_5_5a_rail_repair_units_may_go_by_rail_in_combat_mode_13_3g() -> None:
    t = game({"ger-inf-1": {"at": "h31"}})
    assert effective(t, "ger-inf-1").can_use_transport
    refused(lambda: report(t, moves=[move("ger-inf-1", "h41", "sea")]), "OCS 5.5a", "ger-inf-1")
    report(t, moves=[move("ger-inf-1", "h41", "rail")])
    assert t.state.units["ger-inf-1"].at == "h41"


def test_5_5b_engineering_and_rail_repair_need_combat_mode() -> None:
    t = game({"ger-inf-1": {"at": "h42"}})
    report(t, works=[{"unit": "ger-inf-1", "work": "engineering"},
                     {"unit": "ger-inf-1", "work": "rail_repair", "hex": "h41"},
                     {"unit": "ger-inf-1", "work": "gauge", "hex": "h41"}])
    worked = [e.data["work"] for e in t.events if e.kind == "unit.worked"]
    assert worked == ["engineering", "rail_repair", "gauge"]
    refused(lambda: report(t, works=[{"unit": "ger-inf-2", "work": "engineering"}]), "OCS 5.5b",
            "ger-inf-2", "/body/works/0/work")
    mode(t, ("ger-inf-1", "move"))
    refused(lambda: report(t, works=[{"unit": "ger-inf-1", "work": "engineering"}]), "OCS 5.5b",
            "ger-inf-1", "/body/works/0/work")


@pytest.mark.parametrize("unit", ["ger-repl-1", "ger-tp-1", "ger-trk-1"])
def test_5_5c_repl_units_and_transport_points_cannot_enter_combat_mode(unit: str) -> None:
    t = game()
    error = refused(lambda: mode(t, (unit, "combat")), "OCS 5.5c", unit, "/body/changes/0/mode")
    assert isinstance(error, Malformed)


def test_5_5d_amphibious_landings_need_combat_or_move_mode() -> None:
    t = coast_game({"ger-inf-2": {"at": "h41"}, "ger-art-1": {"at": "h41"}})
    mode(t, ("ger-art-1", "reserve"))
    refused(lambda: report(t, moves=[move("ger-art-1", "h50", "amphibious")]), "OCS 5.5d",
            "ger-art-1")
    report(t, moves=[move("ger-inf-2", "h50", "amphibious")])  # Combat Mode
    assert t.state.units["ger-inf-2"].at == "h50"


def test_5_5e_only_combat_mode_exerts_a_zoc() -> None:
    t = game()
    assert Board.from_state(t.state).enemy_zoc("h20", "cw")  # ger-inf-1 in h30
    assert effective(t, "ger-inf-1").zoc
    mode(t, ("ger-inf-1", "move"))
    assert not effective(t, "ger-inf-1").zoc
    assert not Board.from_state(t.state).enemy_zoc("h20", "cw")


def test_5_6_move_mode_shows_the_lesser_strength_and_greater_movement() -> None:
    t = game()
    mode(t, ("ger-arm-1", "move"))
    arm = effective(t, "ger-arm-1")
    assert (arm.attack, arm.defence, arm.ma) == (3, 3, 8)


@pytest.mark.parametrize(("transport", "to"), [("rail", "h31"), ("air", "h42"), ("sea", "h43")])
def test_5_6a_move_mode_may_use_rail_air_and_shipping(transport: str, to: str) -> None:
    t = coast_game({"ger-inf-3": {"at": "h31"}})  # negates cw-inf-1's ZOC on the railway
    mode(t, ("ger-arm-1", "move"))
    assert effective(t, "ger-arm-1").can_use_transport
    report(t, moves=[move("ger-arm-1", to, transport)])
    assert last_move(t) == ("ger-arm-1", to, transport)


def test_5_6a_transport_belongs_to_the_movement_step() -> None:
    t = game({"ger-arm-1": {"ocs": {"mode": "exploit", "orientation": "move"}}})
    until(t, "exploitation")
    refused(lambda: report(t, moves=[move("ger-arm-1", "h42", "rail")]), "RULES-NOTES 31",
            "ger-arm-1")


@pytest.mark.parametrize("unit", ["ger-repl-1", "ger-tp-1"])
def test_5_6b_repl_units_and_transport_points_are_always_move_oriented(unit: str) -> None:
    t = game()
    assert t.state.units[unit].orientation == "move"
    error = refused(lambda: mode(t, (unit, "reserve", "combat")), "OCS 5.6b", unit,
                    "/body/changes/0/orientation")
    assert isinstance(error, Malformed)


def test_5_6c_amphibious_landings_in_move_mode_but_not_dg() -> None:
    t = coast_game({"ger-inf-2": {"ocs": {"mode": "dg"}, "at": "h41"}})
    mode(t, ("ger-arm-1", "move"))
    report(t, moves=[move("ger-arm-1", "h50", "amphibious")])
    refused(lambda: report(t, moves=[move("ger-inf-2", "h50", "amphibious")]), "OCS 5.5d",
            "ger-inf-2")


def last_move(t: Table, unit: str = "ger-arm-1") -> tuple[str, str, str | None]:
    e = [e for e in t.events if e.kind == "unit.moved" and e.data["unit"] == unit][-1]
    return e.data["unit"], e.data["to"], e.data["transport"]
