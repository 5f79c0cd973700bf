"""OCS 5.8-5.8d through the rules core: Strat Mode."""

from __future__ import annotations

import pytest
from modes_kit import effective, game, last, mode, move, refused, report, until

from service.rules.errors import Malformed


def test_5_8_strat_units_show_their_move_side_move_double_and_fight_at_zero() -> None:
    t = game()
    mode(t, ("ger-inf-2", "strat"))
    unit = t.state.units["ger-inf-2"]
    assert (unit.mode, unit.orientation) == ("strat", "move")
    inf = effective(t, "ger-inf-2")
    assert (inf.attack, inf.defence, inf.action_rating, inf.ma) == (0, 0, 0, 12)
    assert inf.attrition_action_rating == 2
    assert not (inf.can_overrun or inf.can_attack or inf.can_barrage)
    report(t, moves=[move("ger-inf-2", "h42")])


def test_5_8_strat_mode_is_move_oriented_and_cannot_overrun() -> None:
    t = game({"ger-arm-1": {"at": "h31"}})
    error = refused(lambda: mode(t, ("ger-inf-2", "strat", "combat")), "OCS 5.8", "ger-inf-2",
                    "/body/changes/0/orientation")
    assert isinstance(error, Malformed)
    t2 = game({"ger-inf-2": {"ocs": {"mode": "strat", "orientation": "move"}, "at": "h31"}})
    refused(lambda: report(t2, combats=[{"by": "overrun", "hex": "h21",
                                         "attackers": ["ger-inf-2"]}]), "OCS 5.8", "ger-inf-2")


def test_5_8a_no_switch_into_strat_in_an_enemy_zoc() -> None:
    t = game()
    refused(lambda: mode(t, ("ger-inf-1", "strat")), "OCS 5.8a", "ger-inf-1",
            "/body/changes/0/mode")


def test_5_8a_strat_units_never_move_into_an_enemy_zoc() -> None:
    t = game()
    mode(t, ("ger-inf-2", "strat"))
    refused(lambda: report(t, moves=[move("ger-inf-2", "h31")]), "OCS 5.8a", "ger-inf-2",
            "/body/moves/0/to")
    refused(lambda: report(t, moves=[move("ger-inf-2", "h42", path=["h31", "h32", "h42"])]),
            "OCS 5.8a", "ger-inf-2", "/body/moves/0/path/0")
    report(t, moves=[move("ger-inf-2", "h42", path=["h41", "h42"])])


def test_5_8a_strat_units_retreating_into_an_enemy_zoc_are_eliminated() -> None:
    t = game({"cw-inf-2": {"at": "h20", "ocs": {"mode": "strat", "orientation": "move"}}})
    until(t, "combat")
    report(t, combats=[{"by": "combat", "hex": "h20", "attackers": ["ger-inf-1"],
                        "results": [{"kind": "retreat", "units": ["cw-inf-2"],
                                     "path": ["h21"]}]}])
    assert "cw-inf-2" not in t.state.units
    assert t.state.modes.eliminated == {"cw-inf-2": "h21"}
    assert last(t, "unit.eliminated").data["rule"] == "OCS 5.8a"
    from service.rules.view import Viewer, view

    assert view(t.state, Viewer(role="gm"))["eliminated"] == {"cw-inf-2": "h21"}


def test_5_8a_an_enemy_moving_next_to_a_strat_unit_changes_nothing() -> None:
    t = game({"cw-inf-2": {"at": "h20", "ocs": {"mode": "strat", "orientation": "move"}}})
    report(t, moves=[move("ger-inf-2", "h31")])
    assert t.state.units["cw-inf-2"].mode == "strat"


def test_5_8b_strat_units_end_their_move_where_trace_supply_is_possible() -> None:
    """Supply path 1: Germany's source in h41 reaches h42; the HQ in h42 throws supply
    one hex further, to h43, unless it is in Strat Mode."""
    t = game({"ger-hq-1": {"at": "h42"}}, supply_path=1)
    mode(t, ("ger-inf-2", "strat"), ("ger-arm-1", "strat"), ("ger-hq-1", "strat"))
    refused(lambda: report(t, moves=[move("ger-inf-2", "h43", path=["h41", "h42", "h43"])]),
            "OCS 5.8b", "ger-inf-2", "/body/moves/0/to")
    report(t, moves=[move("ger-inf-2", "h50")])


def test_5_8b_a_combat_mode_hq_throws_supply_to_a_strat_unit() -> None:
    t = game({"ger-hq-1": {"at": "h42"}}, supply_path=1)
    mode(t, ("ger-inf-2", "strat"))
    report(t, moves=[move("ger-inf-2", "h43")])
    assert t.state.units["ger-inf-2"].at == "h43"


@pytest.mark.parametrize("unit", ["ger-tp-1", "ger-trk-1"])
def test_5_8c_transport_points_cannot_enter_strat_mode(unit: str) -> None:
    t = game()
    error = refused(lambda: mode(t, (unit, "strat")), "OCS 5.8c", unit, "/body/changes/0/mode")
    assert isinstance(error, Malformed)


@pytest.mark.parametrize("transport", ["rail", "air", "sea"])
def test_5_8d_strat_units_cannot_use_transport(transport: str) -> None:
    t = game()
    mode(t, ("ger-inf-2", "strat"))
    refused(lambda: report(t, moves=[move("ger-inf-2", "h42", transport)]), "OCS 5.8d",
            "ger-inf-2", "/body/moves/0/transport")
