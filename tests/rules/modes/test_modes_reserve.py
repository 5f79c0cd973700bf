"""OCS 5.7-5.7g through the rules core: Reserve Mode, releases in the Reaction and
Exploitation steps, Reserve markers and contact."""

from __future__ import annotations

import pytest
from modes_kit import (
    done,
    effective,
    game,
    last,
    mode,
    move,
    next_impulse,
    refused,
    report,
    until,
)

from service.rules.errors import Malformed, Refused


def test_5_7_reserve_units_defend_at_half_move_a_quarter_and_do_not_fight() -> None:
    t = game()
    mode(t, ("ger-art-1", "reserve"), ("ger-inf-2", "reserve"))
    art, inf = effective(t, "ger-art-1"), effective(t, "ger-inf-2")
    assert (inf.defence, inf.attack, inf.ma) == (2, 0, 1)
    assert (art.ma, art.barrage, art.can_barrage) == (0.75, 0, False)
    refused(lambda: report(t, moves=[move("ger-inf-2", "h42", path=["h41", "h42"])]),
            "OCS 5.7", "ger-inf-2", "/body/moves/0/path/1")
    until(t, "combat")
    refused(lambda: report(t, combats=[{"by": "barrage", "hex": "h21",
                                        "attackers": ["ger-art-1"], "results": []}]),
            "OCS 5.7", "ger-art-1", "/body/combats/0/attackers/0")


def test_5_7a_reserve_orientation_is_chosen_and_kept_until_the_next_movement_step() -> None:
    t = game()
    mode(t, ("ger-inf-2", "reserve", "move"))
    assert t.state.units["ger-inf-2"].orientation == "move"
    refused(lambda: mode(t, ("ger-inf-2", "reserve", "combat")), "OCS 5.4", "ger-inf-2")
    until(t, "reaction")
    t.act("release", {"units": ["cw-arm-1"]}, side="allies")
    cw = t.state.units["cw-arm-1"]
    assert (cw.mode, cw.orientation) == ("move", "move")  # the side it showed
    until(t, "exploitation")
    t.act("release", {"units": ["ger-inf-2"]}, side="axis")
    assert t.state.units["ger-inf-2"].mode == "move"
    next_impulse(t)
    assert t.state.turn.phasing_side == "allies" and t.state.step == "declare"
    t.act("declare", {"actions": {"cw": "land"}}, side="allies")
    mode(t, ("cw-arm-1", "reserve", "combat"), side="allies")  # its own movement step
    assert t.state.units["cw-arm-1"].orientation == "combat"


def test_5_7b_released_reserves_react_with_half_ma_overrun_and_barrage_but_no_combat() -> None:
    t = game({"cw-arm-1": {"at": "h20"}})
    until(t, "reaction")
    assert t.state.turn.step_sides == ("allies", "communists")
    t.act("release", {"units": ["cw-arm-1"]}, side="allies")
    cw = effective(t, "cw-arm-1")
    assert (cw.ma, cw.can_overrun, cw.can_attack) == (5, True, False)
    far = ["h10", "h00", "h01", "h02", "h03", "h13"]  # 6 clear hexes: 6 MP
    refused(lambda: report(t, "allies", moves=[move("cw-arm-1", "h13", path=far)]), "OCS 5.7b",
            "cw-arm-1", "/body/moves/0/path/5")
    refused(lambda: report(t, "allies", combats=[{"by": "combat", "hex": "h30",
                                                  "attackers": ["cw-arm-1"]}]),
            "OCS 5.7b", path="/body/combats/0/by")
    report(t, "allies", combats=[{"by": "overrun", "hex": "h30", "attackers": ["cw-arm-1"],
                                  "results": [{"kind": "dg"}]}])
    assert t.state.units["ger-inf-1"].mode == "dg"
    assert t.state.units["cw-arm-1"].attacked


def test_5_7b_only_released_reserves_act_in_the_reaction_step() -> None:
    t = game()
    until(t, "reaction")
    refused(lambda: report(t, "allies", moves=[move("cw-inf-2", "h00")]), "OCS 5.7b",
            "cw-inf-2")
    refused(lambda: t.act("release", {"units": ["cw-inf-2"]}, side="allies"), "OCS 5.7b",
            "cw-inf-2", "/body/units/0")


def test_5_7b_exploitation_releases_have_full_values() -> None:
    t = game()
    mode(t, ("ger-inf-2", "reserve"))
    until(t, "exploitation")
    t.act("release", {"units": ["ger-inf-2"]}, side="axis")
    inf = effective(t, "ger-inf-2")
    assert t.state.units["ger-inf-2"].mode == "combat"
    assert (inf.ma, inf.attack) == (4, 4)
    assert inf.can_attack and inf.can_overrun
    report(t, moves=[move("ger-inf-2", "h41")])


def test_5_7b_one_release_at_a_time() -> None:
    """A released unit moves and overruns before the next release; the next release ends
    its movement."""
    t = game({"cw-inf-2": {"at": "h11", "ocs": {"mode": "reserve", "orientation": "move"}}})
    until(t, "reaction")
    t.act("release", {"units": ["cw-arm-1"]}, side="allies")
    report(t, "allies", moves=[move("cw-arm-1", "h12")])
    t.act("release", {"units": ["cw-inf-2"]}, side="allies")
    assert t.state.modes.release is not None
    assert t.state.modes.release.units == ("cw-inf-2",)
    refused(lambda: report(t, "allies", moves=[move("cw-arm-1", "h02")]), "OCS 5.7b",
            "cw-arm-1")
    report(t, "allies", moves=[move("cw-inf-2", "h10")])


def test_5_7b_sides_react_in_turn_order_rn31() -> None:
    t = game()
    until(t, "reaction")
    refused(lambda: t.act("release", {"units": ["sov-inf-2"]}, side="communists"),
            "RULES-NOTES 31")
    done(t, "allies")
    t.act("release", {"units": ["sov-inf-2"]}, side="communists")
    assert t.state.units["sov-inf-2"].released == "reaction"


def test_5_7b_no_reaction_step_without_reserves_and_no_exploitation_without_units() -> None:
    t = game({"cw-arm-1": {"ocs": {"mode": "combat", "orientation": "combat"}},
              "sov-inf-2": {"ocs": {"mode": "combat"}}})
    done(t, "axis")
    skipped = [e.data["step"] for e in t.events if e.kind == "step.skipped"]
    assert "reaction" in skipped and t.state.step == "combat"
    done(t, "axis")
    assert "exploitation" in [e.data["step"] for e in t.events if e.kind == "step.skipped"]


def test_5_7b_release_belongs_to_the_reaction_and_exploitation_steps() -> None:
    t = game({"ger-inf-2": {"ocs": {"mode": "reserve"}}})
    error = refused(lambda: t.act("release", {"units": ["ger-inf-2"]}, side="axis"), "OCS 5.7b")
    assert error.code == "order/wrong_step"


def test_5_7c_no_switch_into_reserve_in_an_enemy_zoc() -> None:
    t = game()
    refused(lambda: mode(t, ("ger-inf-1", "reserve")), "OCS 5.7c", "ger-inf-1",
            "/body/changes/0/mode")


def test_5_7c_reserve_units_enter_and_leave_enemy_zocs_normally() -> None:
    t = game({"ger-inf-1": {"ocs": {"mode": "reserve"}}})
    mode(t, ("ger-inf-2", "reserve"))
    report(t, moves=[move("ger-inf-2", "h31"), move("ger-inf-1", "h40")])
    assert t.state.units["ger-inf-2"].at == "h31"


def test_5_7d_reserve_markers_come_off_a_defending_stack_with_any_result() -> None:
    t = game({"cw-arm-1": {"at": "h20"}})
    until(t, "combat")
    report(t, combats=[{"by": "barrage", "hex": "h20", "attackers": ["ger-art-1"],
                        "results": [{"kind": "ignored", "text": "no effect"}]}])
    assert t.state.units["cw-arm-1"].mode == "reserve"  # barrage is not OCS 5.7d
    report(t, combats=[{"by": "combat", "hex": "h20", "attackers": ["ger-inf-1"],
                        "results": [{"kind": "ignored", "text": "Do1"}]}])
    cw = t.state.units["cw-arm-1"]
    assert (cw.mode, cw.orientation) == ("move", "move")
    assert last(t, "reserve.removed").data == {"hex": "h20", "units": ["cw-arm-1"],
                                               "rule": "OCS 5.7d"}


def test_5_7d_a_result_on_the_attacker_alone_leaves_the_defenders_reserve() -> None:
    t = game({"cw-arm-1": {"at": "h20"}})
    until(t, "combat")
    report(t, combats=[{"by": "combat", "hex": "h20", "attackers": ["ger-inf-1"],
                        "results": [{"kind": "loss", "unit": "ger-inf-1"}]}])
    assert t.state.units["cw-arm-1"].mode == "reserve"
    assert t.state.units["ger-inf-1"].steps_lost == 1


@pytest.mark.parametrize("transport", ["rail", "air", "sea"])
def test_5_7e_reserve_units_cannot_use_transport(transport: str) -> None:
    t = game()
    mode(t, ("ger-arm-1", "reserve", "move"))
    refused(lambda: report(t, moves=[move("ger-arm-1", "h42", transport)]), "OCS 5.7e",
            "ger-arm-1", "/body/moves/0/transport")


def test_5_7f_transport_points_cannot_enter_reserve_but_organic_trucks_can() -> None:
    t = game()
    error = refused(lambda: mode(t, ("ger-tp-1", "reserve")), "OCS 5.7f", "ger-tp-1")
    assert isinstance(error, Malformed)
    mode(t, ("ger-trk-1", "reserve"))
    truck = t.state.units["ger-trk-1"]
    assert (truck.mode, truck.orientation) == ("reserve", "move")


def test_5_7g_no_reserve_unit_with_a_hedgehog() -> None:
    t = game({"ger-inf-2": {"at": "h42"}})
    refused(lambda: mode(t, ("ger-inf-3", "reserve")), "OCS 5.7g", "ger-inf-3",
            "/body/changes/0/mode")
    mode(t, ("ger-inf-2", "reserve"))
    with pytest.raises(Refused) as caught:
        report(t, moves=[move("ger-inf-2", "h32")])
    assert caught.value.rule == "OCS 5.7g" and "ger-hh-1" in caught.value.message
