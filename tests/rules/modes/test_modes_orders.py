"""The `mode`, `release` and `report` orders as orders: shapes, refusals that name the
unit, the rule and the item, all-or-nothing, face-down flips, views, replay."""

from __future__ import annotations

import pytest
from modes_kit import done, effective, game, last, mode, move, refused, report, until

from service.rules import fold
from service.rules.codec import to_data
from service.rules.errors import Forbidden, Malformed, Refused, RulesError
from service.rules.view import Viewer, view


def test_a_refusal_names_the_unit_the_rule_the_item_and_the_reason() -> None:
    t = game()
    with pytest.raises(Refused) as caught:
        mode(t, ("ger-inf-2", "move"), ("ger-inf-1", "reserve"))
    error = caught.value
    assert error.message == ("ger-inf-1 (germany INF corps) is in an enemy ZOC in h30: no "
                             "Reserve (OCS 5.7c)")
    assert (error.rule, error.extra["unit"], error.code) == ("OCS 5.7c", "ger-inf-1",
                                                              "mode/enemy_zoc")
    assert error.errors == [("/body/changes/1/mode", "is in an enemy ZOC in h30: no Reserve")]
    assert t.state.units["ger-inf-2"].mode == "combat"  # all or nothing


@pytest.mark.parametrize(("body", "path"), [
    ({}, "/body/changes"),
    ({"changes": []}, "/body/changes"),
    ({"changes": [{"unit": "ger-inf-2", "mode": "fast"}]}, "/body/changes/0/mode"),
    ({"changes": [{"unit": "ger-inf-2", "mode": "move", "speed": 3}]},
     "/body/changes/0/speed"),
    ({"changes": [{"unit": "nobody", "mode": "move"}]}, "/body/changes/0/unit"),
    ({"changes": [{"unit": "ger-inf-2", "mode": "move"}, {"unit": "ger-inf-2",
                                                         "mode": "move"}]},
     "/body/changes/1/unit"),
    ({"changes": [{"unit": "ger-inf-2", "mode": "reserve", "orientation": "up"}]},
     "/body/changes/0/orientation"),
])
def test_malformed_mode_orders_are_422_with_the_items_path(body: dict[str, object],
                                                           path: str) -> None:
    t = game()
    with pytest.raises(Malformed) as caught:
        t.act("mode", body, side="axis")
    assert caught.value.errors[0][0] == path


def test_orders_for_another_sides_units_are_forbidden() -> None:
    t = game()
    with pytest.raises(Forbidden) as caught:
        mode(t, ("cw-inf-1", "move"))
    assert caught.value.extra["unit"] == "cw-inf-1"


def test_face_down_units_cannot_change_mode_rn27() -> None:
    t = game({"ger-inf-2": {"face_up": False}})
    refused(lambda: mode(t, ("ger-inf-2", "move")), "RULES-NOTES 27", "ger-inf-2")
    refused(lambda: report(t, moves=[move("ger-inf-2", "h41")]), "RULES-NOTES 27",
            "ger-inf-2")


def test_a_power_that_passed_takes_no_action() -> None:
    t = game(declare={"germany": "pass"})
    assert t.state.step == "declare"  # every power passed: straight to the next side
    t = game()
    assert t.state.powers["germany"].declared == "land"


def test_moves_add_up_within_a_step_and_cannot_enter_enemy_hexes() -> None:
    """OCS 5.5: a Combat Mode unit moves its Combat side's MA (4 here) in its movement
    step, over any number of reported moves."""
    t = game()
    report(t, moves=[move("ger-arm-1", "h42")])
    report(t, moves=[move("ger-arm-1", "h53", path=["h43", "h53"])])
    assert effective(t, "ger-arm-1").mp_left == 1
    refused(lambda: report(t, moves=[move("ger-arm-1", "h42", path=["h43", "h42"])]),
            "OCS 5.5", "ger-arm-1", "/body/moves/0/path/1")
    refused(lambda: report(t, moves=[move("ger-inf-2", "h21")]), "RULES-NOTES 31",
            "ger-inf-2", "/body/moves/0/to")
    refused(lambda: report(t, moves=[move("ger-inf-2", "h42", path=["h42"])]),
            "RULES-NOTES 31", "ger-inf-2", "/body/moves/0/path/0")


def test_an_overrun_in_the_movement_step_then_moving_on() -> None:
    t = game({"ger-arm-1": {"at": "h31"}})
    report(t, combats=[{"by": "overrun", "hex": "h21", "attackers": ["ger-arm-1"],
                        "results": [{"kind": "retreat", "units": ["cw-inf-1"],
                                     "path": ["h12"]},
                                    {"kind": "advance", "units": ["ger-arm-1"]}]}])
    assert t.state.units["ger-arm-1"].at == "h21"
    assert t.state.units["cw-inf-1"].at == "h12"
    report(t, moves=[move("ger-arm-1", "h22")], face_down=["ger-arm-1"])
    assert not t.state.units["ger-arm-1"].face_up


def test_combat_reports_must_agree_with_the_board() -> None:
    t = game()
    until(t, "combat")
    refused(lambda: report(t, combats=[{"by": "combat", "hex": "h42",
                                        "attackers": ["ger-inf-1"]}]), "RULES-NOTES 31",
            path="/body/combats/0/hex")
    refused(lambda: report(t, combats=[{"by": "combat", "hex": "h21",
                                        "attackers": ["ger-inf-2"]}]), "RULES-NOTES 31",
            "ger-inf-2", "/body/combats/0/attackers/0")
    refused(lambda: report(t, combats=[{"by": "overrun", "hex": "h21",
                                        "attackers": ["ger-inf-1"]}]), "RULES-NOTES 31",
            path="/body/combats/0/by")
    report(t, combats=[{"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"],
                        "results": [{"kind": "eliminated", "units": ["cw-inf-1"]}]}])
    with pytest.raises(Malformed) as caught:
        report(t, face_down=["cw-inf-1"])
    assert "was eliminated" in caught.value.message


def test_only_units_that_moved_or_attacked_turn_face_down() -> None:
    t = game()
    refused(lambda: report(t, face_down=["ger-inf-2"]), "RULES-NOTES 31", "ger-inf-2",
            "/body/face_down/0")
    with pytest.raises(Malformed):
        report(t)
    report(t, moves=[move("ger-inf-2", "h41")], face_down=["ger-inf-2"])
    assert last(t, "units.turned_face_down").data == {"units": ["ger-inf-2"]}


def test_reports_belong_to_the_side_acting_in_the_step() -> None:
    t = game()
    with pytest.raises(Refused) as caught:
        report(t, "allies", moves=[move("cw-inf-2", "h00")])
    assert caught.value.code == "order/not_your_turn"
    done(t, "axis")
    with pytest.raises(Refused) as caught:
        report(t, moves=[move("ger-inf-2", "h41")])
    assert caught.value.code == "order/not_your_turn"


def test_the_view_shows_effective_values_per_unit_and_step() -> None:
    t = game()
    mode(t, ("ger-inf-2", "reserve"))
    units = view(t.state, Viewer(role="gm"))["units"]
    assert units["ger-inf-2"]["effective"] == {
        "attack": 0, "defence": 2, "ma": 1, "mp_left": 1, "movement_ma": 1,
        "action_rating": 2, "attrition_action_rating": 2, "barrage": 0, "zoc": False,
        "can_attack": False, "can_overrun": False, "can_barrage": False,
        "can_use_transport": False,
    }
    assert units["ger-inf-2"]["this_impulse"]["mode_changed"] is True
    assert units["ger-sp-1"]["effective"] is None
    assert units["cw-inf-1"]["effective"]["ma"] == 0  # not cw's step
    until(t, "combat")
    units = view(t.state, Viewer(role="gm"))["units"]
    assert units["ger-inf-1"]["effective"]["can_attack"] is True
    assert units["ger-art-1"]["effective"]["can_barrage"] is True
    assert units["ger-arm-1"]["effective"]["ma"] == 0


def test_a_mode_impulse_replays_to_the_same_state() -> None:
    t = game({"ger-arm-1": {"at": "h31"}, "ger-inf-2": {"at": "h31"}})
    mode(t, ("ger-art-1", "reserve"))
    report(t, moves=[move("ger-art-1", "h41")])
    until(t, "reaction")
    t.act("release", {"units": ["cw-arm-1"]}, side="allies")
    report(t, "allies", moves=[move("cw-arm-1", "h20")])
    until(t, "combat")
    report(t, combats=[{"by": "combat", "hex": "h21", "attackers": ["ger-arm-1", "ger-inf-1"],
                        "results": [{"kind": "dg"},
                                    {"kind": "retreat", "units": ["cw-inf-1"],
                                     "path": ["h11", "h01"]},
                                    {"kind": "exploit", "units": ["ger-arm-1"],
                                     "rating": 4}]}])
    done(t, "axis")
    t.act("release", {"units": ["ger-art-1"]}, side="axis")
    report(t, moves=[move("ger-arm-1", "h21")], face_down=["ger-arm-1", "ger-inf-1"])
    done(t, "axis")
    assert t.initial is not None
    assert to_data(fold(t.initial, t.events)) == to_data(t.state)


@pytest.mark.parametrize("body", [
    {},
    {"moves": "h31"},
    {"moves": [{"unit": "ger-arm-1", "to": "nowhere", "mp": 1}]},
    {"moves": [{"unit": "ger-arm-1", "to": "h41", "mp": 1}]},
    {"moves": [{"unit": "ger-arm-1", "to": "h31", "mp": -1}]},
    {"moves": [{"unit": "ger-arm-1", "to": "h31", "mp": 1, "transport": "balloon"}]},
    {"moves": [{"unit": "ger-arm-1", "to": "h31", "mp": 1, "path": ["h42"]}]},
    {"moves": [{"unit": "cw-inf-1", "to": "h20", "mp": 1}]},
    {"works": [{"unit": "ger-arm-1", "work": "knitting"}]},
    {"works": [{"unit": "ger-sp-1", "work": "engineering"}]},
    {"combats": [{"by": "duel", "hex": "h21", "attackers": ["ger-arm-1"]}]},
    {"combats": [{"by": "overrun", "hex": "h21", "attackers": ["ger-arm-1"],
                  "results": [{"kind": "dg", "weather": "fine"}]}]},
    {"combats": [{"by": "overrun", "hex": "h21", "attackers": ["ger-inf-1"],
                  "results": "all"}]},
    {"face_down": ["ger-arm-1"]},
    {"face_down": ["ger-arm-1", "ger-arm-1"]},
])
def test_no_refusal_of_a_report_without_a_rule(body: dict[str, object]) -> None:
    """Every refusal of the state names the rule it enforces; a body that could never be
    valid (422), or acts for a power the player does not hold (403), names the item at
    fault by its path (issue 30: never docs/api.md)."""
    t = game()
    with pytest.raises(RulesError) as caught:
        t.act("report", body, side="axis")
    error = caught.value
    if isinstance(error, Malformed | Forbidden) and error.rule is None:
        assert error.errors and error.errors[0][0].startswith("/body"), error.message
    else:
        assert error.rule and error.rule != "docs/api.md", (error.code, error.message)
