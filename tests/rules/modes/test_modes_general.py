"""OCS 5.1-5.4a through the rules core: who uses modes, one mode at a time, voluntary
and involuntary modes, when and how modes change, Reserve markers."""

from __future__ import annotations

from typing import Any

import pytest
from modes_kit import done, effective, game, last, mode, move, refused, report, until

from service.rules.errors import Malformed, Refused
from service.rules.modes import unit_options
from service.rules.view import Viewer, view


@pytest.mark.parametrize("unit", ["ger-hh-1", "ger-sp-1", "ger-ftr-1"])
def test_5_1_hedgehogs_supply_units_and_air_units_use_no_modes(unit: str) -> None:
    t = game()
    error = refused(lambda: mode(t, (unit, "move")), "OCS 5.1", unit, "/body/changes/0/unit")
    assert isinstance(error, Malformed)
    assert effective(t, unit) is None


def test_5_1_ground_units_use_modes() -> None:
    t = game()
    for unit in ("ger-inf-2", "ger-hq-1", "ger-repl-1", "ger-trk-1"):
        assert effective(t, unit) is not None
    mode(t, ("ger-hq-1", "move"), ("ger-repl-1", "reserve"))
    assert t.state.units["ger-hq-1"].mode == "move"
    assert t.state.units["ger-repl-1"].mode == "reserve"


def test_5_2_values_come_from_the_side_showing_and_a_marker_sets_the_mode() -> None:
    """A unit with a marker is oriented toward a side but is only in the marker's mode: a
    DG unit showing its Move side still cannot go by rail (OCS 5.2's own example)."""
    t = game({"ger-inf-2": {"ocs": {"mode": "dg", "orientation": "move"}}})
    inf = effective(t, "ger-inf-2")
    assert (inf.attack, inf.ma) == (1, 3)  # the Move side (2, 6), halved by DG
    refused(lambda: report(t, moves=[move("ger-inf-2", "h41", "rail")]), "OCS 5.10d",
            "ger-inf-2", "/body/moves/0/transport")


def test_5_2_units_of_differing_modes_stack_without_affecting_each_other() -> None:
    t = game()
    mode(t, ("ger-inf-2", "reserve", "move"))
    units = t.state.units
    assert units["ger-inf-2"].at == units["ger-art-1"].at == "h40"
    assert (units["ger-inf-2"].mode, units["ger-art-1"].mode) == ("reserve", "combat")


def test_5_2_face_up_and_mode_are_separate_rn18() -> None:
    t = game({"ger-inf-2": {"face_up": False, "ocs": {"mode": "dg"}}})
    unit = t.state.units["ger-inf-2"]
    assert (unit.face_up, unit.mode, unit.orientation) == (False, "dg", "combat")


@pytest.mark.parametrize("target", ["dg", "exploit"])
def test_5_3_involuntary_modes_are_not_chosen(target: str) -> None:
    t = game()
    refused(lambda: mode(t, ("ger-inf-2", target)), "OCS 5.3", "ger-inf-2",
            "/body/changes/0/mode")


@pytest.mark.parametrize(("start", "target", "orientation"), [
    ("combat", "move", "move"), ("combat", "reserve", "move"), ("combat", "reserve", "combat"),
    ("combat", "strat", "move"), ("move", "combat", "combat"), ("reserve", "strat", "move"),
    ("strat", "reserve", "combat"), ("reserve", "reserve", "move"),
])
def test_5_4_any_voluntary_mode_changes_to_another_in_the_movement_step(
    start: str, target: str, orientation: str,
) -> None:
    start_orientation = "move" if start in ("move", "strat") else "combat"
    t = game({"ger-inf-2": {"ocs": {"mode": start, "orientation": start_orientation}}})
    mode(t, ("ger-inf-2", target, orientation))
    unit = t.state.units["ger-inf-2"]
    assert (unit.mode, unit.orientation, unit.mode_changed) == (target, orientation, True)
    event = last(t, "unit.mode_changed")
    assert event.data["from"] == {"mode": start, "orientation": start_orientation}


def test_5_4_mode_changes_only_in_the_movement_step() -> None:
    t = game()
    until(t, "combat")
    error = refused(lambda: mode(t, ("ger-inf-2", "move")), "OCS 5.4")
    assert error.code == "order/wrong_step"


def test_5_4_only_the_phasing_side_changes_modes() -> None:
    t = game()
    with pytest.raises(Refused) as caught:
        mode(t, ("cw-inf-1", "move"), side="allies")
    assert caught.value.code == "order/not_your_turn"


def test_5_4_once_per_unit_as_it_begins_to_move() -> None:
    t = game()
    mode(t, ("ger-inf-2", "move"))
    refused(lambda: mode(t, ("ger-inf-2", "combat")), "OCS 5.4", "ger-inf-2")
    report(t, moves=[move("ger-art-1", "h41")])
    refused(lambda: mode(t, ("ger-art-1", "move")), "OCS 5.4", "ger-art-1")


def test_5_4_mode_change_costs_no_mp() -> None:
    t = game()
    mode(t, ("ger-arm-1", "move"))
    arm = effective(t, "ger-arm-1")
    assert (arm.ma, arm.mp_left) == (8, 8)


def test_5_4_dg_units_may_flip_orientation_in_the_movement_step_only() -> None:
    t = game({"ger-inf-2": {"ocs": {"mode": "dg"}}})
    refused(lambda: mode(t, ("ger-inf-2", "combat")), "OCS 5.4", "ger-inf-2",
            "/body/changes/0/mode")
    mode(t, ("ger-inf-2", "dg", "move"))
    unit = t.state.units["ger-inf-2"]
    assert (unit.mode, unit.orientation) == ("dg", "move")


def test_5_4_involuntary_markers_go_only_in_the_phasing_sides_clean_up() -> None:
    t = game({"ger-arm-1": {"ocs": {"mode": "exploit"}}, "cw-inf-1": {"ocs": {"mode": "dg"}},
              "ger-inf-2": {"ocs": {"mode": "dg", "orientation": "move"}}})
    refused(lambda: mode(t, ("ger-arm-1", "move")), "OCS 5.4", "ger-arm-1")
    until(t, "exploitation")
    assert t.state.units["ger-arm-1"].mode == "exploit"
    done(t, "axis")
    cleaned = last(t, "impulse.cleaned_up")
    assert cleaned.data["units"] == ["ger-arm-1", "ger-inf-2"]
    units = t.state.units
    assert (units["ger-arm-1"].mode, units["ger-inf-2"].mode) == ("combat", "move")
    assert units["cw-inf-1"].mode == "dg"  # not the phasing side's


def test_5_4a_reserve_markers_are_counted_after_the_25_percent_move_not_at_the_mode_change(
) -> None:
    """OCS 5.4a: "the marker need not be placed until after units have finished moving
    their 25%". Axis has 2 markers, both out (h40, h41): ger-inf-1 may still enter
    Reserve in h42 and join the h41 stack, sharing its marker; ger-art-1 entering
    Reserve alone in h43 leaves the side short when its movement ends, until it leaves
    Reserve again (it has not moved: no marker was placed for it)."""
    t = game({"ger-inf-1": {"at": "h42"}, "ger-art-1": {"at": "h43"}})
    mode(t, ("ger-inf-2", "reserve"), ("ger-arm-1", "reserve"))
    mode(t, ("ger-inf-1", "reserve"))
    report(t, moves=[move("ger-inf-1", "h41")])
    assert t.state.units["ger-inf-1"].at == "h41"
    mode(t, ("ger-art-1", "reserve"))
    error = refused(lambda: done(t, "axis"), "OCS 5.4a")
    assert "axis would need 3 Reserve markers (stacks in Reserve: h40, h41, h43)" in \
        error.message
    mode(t, ("ger-art-1", "combat"))
    done(t, "axis")
    assert t.state.step != "action"


def test_5_4a_a_sides_reserve_markers_are_limited_and_a_stack_shares_one() -> None:
    """Axis has 2 markers: h40 (two units, one marker) and h41 use both; a third stack
    leaves the side short when its movement ends, the stacks named."""
    t = game({"ger-inf-1": {"at": "h42"}})
    mode(t, ("ger-inf-2", "reserve"), ("ger-art-1", "reserve"), ("ger-arm-1", "reserve"))
    mode(t, ("ger-hq-1", "reserve"))  # joins the h41 stack: no new marker
    mode(t, ("ger-inf-1", "reserve"))
    error = refused(lambda: done(t, "axis"), "OCS 5.4a", path="/body")
    assert "axis would need 3 Reserve markers (stacks in Reserve: h40, h41, h42) but has 2" \
        in error.message


def test_5_4a_a_reserve_move_that_splits_a_stack_needs_a_marker() -> None:
    """Units in Reserve since an earlier impulse have their markers placed: one moving
    off on its own needs a third marker."""
    reserve = {"ocs": {"mode": "reserve"}}
    t = game({"ger-inf-2": reserve, "ger-art-1": reserve, "ger-arm-1": reserve})
    refused(lambda: report(t, moves=[move("ger-inf-2", "h50")]), "OCS 5.4a", "ger-inf-2",
            "/body/moves/0")
    report(t, moves=[move("ger-inf-2", "h41")])  # joins the h41 stack
    assert t.state.units["ger-inf-2"].at == "h41"


def test_5_4a_the_marker_limit_is_counted_after_all_the_moves_of_a_report() -> None:
    """The marker need not be placed until the units have moved their 25%."""
    t = game()
    mode(t, ("ger-inf-2", "reserve"), ("ger-art-1", "reserve"), ("ger-arm-1", "reserve"))
    report(t, moves=[move("ger-art-1", "h50"), move("ger-inf-2", "h50"),
                     move("ger-arm-1", "h50")])
    assert {t.state.units[u].at for u in ("ger-inf-2", "ger-art-1", "ger-arm-1")} == {"h50"}


def test_5_4_a_unit_that_overran_has_begun_to_move() -> None:
    t = game({"ger-arm-1": {"at": "h31"}})
    report(t, combats=[{"by": "overrun", "hex": "h21", "attackers": ["ger-arm-1"],
                        "results": [{"kind": "ignored", "text": "no result"}]}])
    refused(lambda: mode(t, ("ger-arm-1", "move")), "OCS 5.4", "ger-arm-1")


def _reserve_choice(t: Any, uid: str, orientation: str = "combat") -> dict[str, Any]:
    options = unit_options(t.state, uid)["modes"]
    return next(c for c in options["legal"]
                if (c["mode"], c["orientation"]) == ("reserve", orientation))


def test_5_4a_options_count_the_markers_left_and_which_reserve_changes_need_a_new_one(
) -> None:
    """OCS 5.4a: the options count the side's Reserve markers (axis has 2) and say which
    offered changes into Reserve would need a new one: ger-art-1 joins ger-inf-2's stack
    in h40, ger-inf-1 in h42 would need a third, which the options say before it is
    chosen (the change is accepted, its marker counted when the movement ends)."""
    t = game({"ger-inf-1": {"at": "h42"}})
    assert unit_options(t.state, "ger-inf-2")["modes"]["reserve_markers"] == {
        "limit": 2, "in_use": 0, "left": 2}
    assert _reserve_choice(t, "ger-inf-2")["needs_marker"] is True
    mode(t, ("ger-inf-2", "reserve"), ("ger-arm-1", "reserve"))
    markers = unit_options(t.state, "ger-art-1")["modes"]["reserve_markers"]
    assert markers == {"limit": 2, "in_use": 2, "left": 0}
    seen = view(t.state, Viewer(role="player", player_id="p-axis", side="axis",
                                powers=("germany",)))
    assert seen["sides"]["axis"]["reserve_markers"] == markers  # the page shows it
    assert _reserve_choice(t, "ger-art-1")["needs_marker"] is False
    short = _reserve_choice(t, "ger-inf-1")
    assert short["needs_marker"] is True
    assert short["marker_note"] == (
        "needs a new Reserve marker and axis has none left: before its movement ends it "
        "must join a Reserve stack or leave Reserve (OCS 5.4a)")
    mode(t, ("ger-inf-1", "reserve"))
    refused(lambda: done(t, "axis"), "OCS 5.4a")


def test_5_4a_moves_offered_to_a_reserve_unit_keep_within_the_markers() -> None:
    """OCS 5.4a, issue 34: with both axis markers placed (h40, h41, in Reserve since an
    earlier impulse), a unit that just entered Reserve in h42 is offered only the moves
    the `report` order accepts (onto the h41 stack), each saying whether it needs a new
    marker; the others are listed as refused, with the rule."""
    reserve = {"ocs": {"mode": "reserve"}}
    t = game({"ger-inf-1": {"at": "h42"}, "ger-inf-2": reserve, "ger-arm-1": reserve})
    mode(t, ("ger-inf-1", "reserve"))
    moves_ = unit_options(t.state, "ger-inf-1")["moves"]
    assert [(h["to"], h["needs_marker"]) for h in moves_["hexes"]] == [("h41", False)]
    refused_to = {r["to"]: (r["code"], r["rule"]) for r in moves_["refused"]}
    assert refused_to and set(refused_to.values()) == {("report/reserve_markers", "OCS 5.4a")}
    for to in refused_to:
        refused(lambda to=to: report(t, moves=[move("ger-inf-1", to)]), "OCS 5.4a", "ger-inf-1")
    report(t, moves=[move("ger-inf-1", "h41")])
    assert t.state.units["ger-inf-1"].at == "h41"


def test_5_4a_a_reserve_unit_moving_with_its_own_marker_needs_no_new_one() -> None:
    """A unit in Reserve since an earlier impulse, alone in h41, carries its marker: any
    move is offered and none needs a new marker; ger-inf-2, sharing h40 with ger-art-1,
    needs one to go off on its own, and with both markers out may not."""
    reserve = {"ocs": {"mode": "reserve"}}
    t = game({"ger-inf-2": reserve, "ger-art-1": reserve, "ger-arm-1": reserve,
              "ger-hq-1": {"at": "h42"}, "ger-trk-1": {"at": "h42"},
              "ger-tp-1": {"at": "h42"}, "ger-sp-1": {"at": "h42"}, "ger-ftr-1": {"at": "h42"}})
    other_side = "move" if t.state.units["ger-arm-1"].orientation == "combat" else "combat"
    assert _reserve_choice(t, "ger-arm-1", other_side)["needs_marker"] is False  # its own
    alone = unit_options(t.state, "ger-arm-1")["moves"]
    assert alone["hexes"] and not any(h["needs_marker"] for h in alone["hexes"])
    assert alone.get("refused", []) == []
    shared = unit_options(t.state, "ger-inf-2")["moves"]
    assert {h["to"] for h in shared["hexes"]} <= {"h41"}
    assert all(r["rule"] == "OCS 5.4a" for r in shared["refused"])
