"""The turn of seed 002 and docs/api.md through the pure rules: every branch."""

from __future__ import annotations

import pytest
from engine import Table, skip_initiative, table
from support import SIDES

from service.rules.errors import Forbidden, Malformed, Refused
from service.rules.state import ACTIONS
from service.rules.view import Viewer, view

ALL_LAND = {"axis": {"germany": "land", "italy": "land"},
            "allies": {"cw": "land", "usa": "land", "france": "land"},
            "communists": {"ussr": "land", "china": "land"}}


def _impulse(t: Table, actions: dict[str, str]) -> None:
    side = t.state.turn.phasing_side
    assert side is not None
    t.act("declare", {"actions": actions}, side=side)
    t.done_steps()


def test_initiative_is_a_d10_per_side_plus_the_box_bonus() -> None:
    """Seed 002: boxes +2, +1, 0, 0, 0 from the left. (seed 002 Initiative Track.)"""
    t = table({"initiative": [3, 3, 3]}, boxes={"axis": 0, "allies": 1, "communists": 4})
    assert t.state.initiative.totals == {"axis": 5, "allies": 4, "communists": 3}


def test_no_reroll_window_when_no_side_stands_on_a_reroll_box() -> None:
    """docs/api.md: the reroll window is skipped (and logged) when nobody may reroll.
    (seed 002 Initiative Track.)"""
    t = table({"initiative": [3, 5, 7]}, boxes={"axis": 3, "allies": 4, "communists": 3})
    assert t.state.step == "initiative.choose"
    skipped = [e for e in t.events if e.kind == "step.skipped"]
    assert skipped[0].data["step"] == "initiative.reroll"


def test_reroll_demanded_by_one_side_shifts_it_right_and_all_sides_reroll() -> None:
    """Seed 002 / RULES-NOTES 16: a demander shifts one box right before the bonus;
    all three sides reroll, once. (seed 002 Initiative Track.)"""
    t = table({"initiative": [2, 9, 4, 6, 3, 8]}, boxes={"axis": 0, "allies": 2,
                                                           "communists": 2})
    t.act("initiative.reroll", {"demand": True}, side="axis")
    t.act("initiative.reroll", {"demand": False}, side="allies")
    assert t.state.step == "initiative.reroll"
    t.act("initiative.reroll", {"demand": False}, side="communists")
    assert t.state.initiative.boxes == {"axis": 1, "allies": 2, "communists": 2}
    assert t.state.initiative.rerolled is True
    assert t.state.initiative.totals == {"axis": 6 + 1, "allies": 3, "communists": 8}
    assert t.state.step == "initiative.choose"
    assert t.state.initiative.chooser == "communists"


def test_reroll_demanded_by_two_sides_shifts_both() -> None:
    """seed 002 Initiative Track."""
    t = table({"initiative": [1, 1, 9, 5, 5, 5]}, boxes={"axis": 1, "allies": 2,
                                                           "communists": 2})
    t.act("initiative.reroll", {"demand": True}, side="axis")
    t.act("initiative.reroll", {"demand": True}, side="allies")
    t.act("initiative.reroll", {"demand": False}, side="communists")
    assert t.state.initiative.boxes == {"axis": 2, "allies": 3, "communists": 2}
    closed = [e for e in t.events if e.kind == "initiative.reroll_closed"][0]
    assert closed.data["demanded"] == ["axis", "allies"]
    assert len([e for e in t.events if e.kind == "initiative.rolled"]) == 2


def test_a_side_answers_the_reroll_window_once() -> None:
    """seed 002 Initiative Track."""
    t = table({"initiative": [1, 2, 3]})
    t.act("initiative.reroll", {"demand": False}, side="axis")
    with pytest.raises(Refused) as refused:
        t.act("initiative.reroll", {"demand": True}, side="axis")
    assert refused.value.code == "order/already_answered"


def test_a_side_off_the_reroll_boxes_cannot_demand() -> None:
    """seed 002 Initiative Track."""
    t = table({"initiative": [1, 2, 3]}, boxes={"axis": 4, "allies": 2, "communists": 2})
    with pytest.raises(Refused) as refused:
        t.act("initiative.reroll", {"demand": True}, side="axis")
    assert refused.value.code == "initiative/not_eligible"


def test_three_way_tie_goes_to_the_side_ranked_lowest_last_turn() -> None:
    """RULES-NOTES 15: last turn's rank (the scenario's on turn 1) breaks ties, the side
    ranked lower winning. (seed 002 Initiative Track.)"""
    t = table({"initiative": [6, 6, 6]})
    skip = [s for s in t.state.initiative.eligible]
    for side in skip:
        t.act("initiative.reroll", {"demand": False}, side=side)
    assert t.state.initiative.ranking == ("communists", "allies", "axis")


def test_only_the_chooser_chooses_and_only_first_or_last() -> None:
    """seed 002 Initiative Track. The winner's choices are named in `awaiting`; a value
    no choice ever takes is malformed (422), one this state does not offer is a
    conflict (409)."""
    t = table({"initiative": [9, 1, 1]}, boxes={s: 3 for s in SIDES})
    [entry] = t.awaiting()
    assert (entry["side"], entry["orders"], entry["choices"]) == (
        "axis", ["initiative.choose"], {"position": ["first", "last"]})
    with pytest.raises(Refused):
        t.act("initiative.choose", {"position": "first"}, side="allies")
    with pytest.raises(Refused) as refused:
        t.act("initiative.choose", {"position": "before"}, side="axis")
    assert refused.value.code == "initiative/not_this_choice"
    with pytest.raises(Malformed):
        t.act("initiative.choose", {"position": "sideways"}, side="axis")
    t.act("initiative.choose", {"position": "first"}, side="axis")
    assert t.awaiting()[0]["choices"] == {"position": ["before", "after"]}


def test_two_sided_game_only_the_winner_chooses() -> None:
    """With two sides the winner takes first or last; the other side the remaining slot.
    (seed 002 Initiative Track and seed 002 More Sides.)"""
    data_changes = {
        "sides": [{"id": "axis", "initiative_box": 3}, {"id": "allies", "initiative_box": 3}],
        "initiative_last_turn": ["axis", "allies"],
    }
    from support import scenario

    mini = scenario("mini")
    powers = [p for p in mini["powers"] if p["side"] in ("axis", "allies")]
    for p in powers:
        p["at_war_with"] = [x for x in p.get("at_war_with", []) if x in
                            {q["id"] for q in powers}]
    units = [u for u in mini["units"] if u["power"] in {p["id"] for p in powers}]
    hexes = [h for h in mini["map"]["hexes"] if h.get("controller") != "ussr"]
    t = table({"initiative": [4, 7]}, changes={**data_changes, "powers": powers,
                                                "units": units,
                                                "map": {**mini["map"], "hexes": hexes}})
    assert t.state.turn.threshold == 55
    t.act("initiative.choose", {"position": "last"}, side="allies")
    assert t.state.turn.order == ("axis", "allies")
    assert t.state.step == "declare"


def test_declare_only_by_the_phasing_side_and_for_its_own_powers() -> None:
    t = table({"initiative": [9, 5, 1], "weather": [7]})
    skip_initiative(t)
    assert t.state.turn.phasing_side == "axis"
    with pytest.raises(Refused) as refused:
        t.act("declare", {"actions": {"cw": "pass"}}, side="allies")
    assert refused.value.code == "order/not_your_turn"
    with pytest.raises(Forbidden):
        from service.rules import Actor, Command, decide

        decide(t.state, Command("declare", {"actions": {"italy": "pass"}},
                                Actor("p-x", "player", "axis", ("germany",)), "x"), t.dice)


def test_a_power_declares_once_and_the_step_waits_for_every_power() -> None:
    t = table({"initiative": [9, 5, 1], "weather": [7]})
    skip_initiative(t)
    t.act("declare", {"actions": {"germany": "land"}}, side="axis")
    assert t.awaiting() == [{"side": "axis", "powers": ["italy"], "step": "declare",
                             "orders": ["declare", "steps"],
                             "choices": {"actions.*": list(ACTIONS)},
                             "deadline": None}]
    with pytest.raises(Refused):
        t.act("declare", {"actions": {"germany": "pass"}}, side="axis")
    t.act("declare", {"actions": {"italy": "pass"}}, side="axis")
    assert t.state.step == "action"


def test_offensive_chit_needs_an_hq_of_the_side_and_a_chit_left() -> None:
    """11.18.11."""
    t = table({"initiative": [9, 5, 1], "weather": [7]})
    skip_initiative(t)
    with pytest.raises(Refused) as refused:
        t.act("declare", {"actions": {"germany": "land"},
                          "chits": {"germany": {"kind": "land", "hq": "cw-hq-1"}}}, side="axis")
    assert refused.value.code == "declare/chit_hq"
    with pytest.raises(Refused):
        t.act("declare", {"actions": {"germany": "pass"},
                          "chits": {"germany": {"kind": "land", "hq": "ger-hq-1"}}},
              side="axis")
    t.act("declare", {"actions": {"germany": "land", "italy": "land"},
                      "chits": {"germany": {"kind": "land", "hq": "ger-hq-1"}}}, side="axis")
    assert t.state.powers["germany"].chits == 1
    assert t.state.powers["germany"].chit == {"kind": "land", "hq": "ger-hq-1"}


def test_all_pass_skips_action_reaction_combat_and_exploitation() -> None:
    """docs/api.md: nobody could act in those steps, so they are skipped and logged."""
    t = table({"initiative": [9, 5, 1], "weather": [7]})
    skip_initiative(t)
    t.act("declare", {"actions": {"germany": "pass", "italy": "pass"}}, side="axis")
    skipped = [e for e in t.events if e.kind == "step.skipped"][-1]
    assert skipped.data["skipped"] == ["action", "reaction", "combat", "exploitation"]
    assert t.state.step == "reorganization"  # the Axis has a face-down unit


def test_impulse_steps_in_order_with_reaction_and_exploitation_skipped_without_reserves() -> None:
    t = table({"initiative": [9, 5, 1], "weather": [7]})
    skip_initiative(t)
    t.act("declare", {"actions": ALL_LAND["axis"]}, side="axis")
    steps = [t.state.step]
    while t.state.step in ("action", "combat", "reorganization"):
        t.act("done", side="axis")
        steps.append(t.state.step)
    assert steps == ["action", "combat", "reorganization", "declare"]
    assert t.state.turn.phasing_side == "allies"
    reasons = {e.data["step"] for e in t.events if e.kind == "step.skipped"}
    assert {"reaction", "exploitation"} <= reasons


def test_passing_bonus_counts_non_neutral_non_conquered_powers_only() -> None:
    """Seed 002 'Effects of Passing'; RULES-NOTES 21 (a neutral adds nothing) and 22 (a
    conquered power counts as neutral): USA neutral and France conquered add 0, CW +2.
    (seed 002 Effects of Passing.)"""
    t = table({"initiative": [1, 9, 5], "weather": [7], "turn_end": [5, 5]})
    skip_initiative(t, order=("allies", "axis", "communists"))
    _impulse(t, {"cw": "pass", "usa": "pass", "france": "pass"})
    roll = [e for e in t.events if e.kind == "turn_end.rolled"][0]
    assert roll.data["bonus_per_die"] == 2
    assert roll.data["added"] == (5 + 2) * 2


def test_neutral_and_conquered_passing_add_nothing() -> None:
    """seed 002 Effects of Passing."""
    t = table({"initiative": [1, 9, 5], "weather": [7], "turn_end": [5, 5]})
    skip_initiative(t, order=("allies", "axis", "communists"))
    _impulse(t, {"cw": "land", "usa": "pass", "france": "pass"})
    roll = [e for e in t.events if e.kind == "turn_end.rolled"][0]
    assert roll.data["bonus_per_die"] == 0
    assert roll.data["total"] == 10


def test_last_die_1_to_3_keeps_the_turn_going_above_the_threshold() -> None:
    """Seed 002: at or above 83 with a natural last die 1-3 the turn continues.
    (seed 002 Turn End.)"""
    t = table({"initiative": [9, 5, 1], "weather": [7], "turn_end": [10, 3]},
              options={"turn_end": {"threshold": 12}})
    skip_initiative(t)
    _impulse(t, ALL_LAND["axis"])
    roll = [e for e in t.events if e.kind == "turn_end.rolled"][0]
    assert roll.data["total"] == 13 and roll.data["last_die"] == 3
    assert roll.data["ends"] is False
    assert t.state.turn.phasing_side == "allies" and t.state.step == "declare"


def test_reaching_the_threshold_with_last_die_4_ends_the_turn() -> None:
    """seed 002 Turn End."""
    t = table({"initiative": [9, 5, 1], "weather": [7], "turn_end": [10, 4]},
              options={"turn_end": {"threshold": 12}})
    skip_initiative(t)
    _impulse(t, ALL_LAND["axis"])
    assert "turn.ended" in t.kinds()


def test_certain_threshold_rolls_only_the_last_die() -> None:
    """Seed 002: when the dice must reach the threshold, only the last die is rolled.
    (seed 002 Turn End.)"""
    t = table({"initiative": [9, 5, 1], "weather": [7], "turn_end": [2]},
              options={"turn_end": {"threshold": 2}})
    skip_initiative(t)
    _impulse(t, ALL_LAND["axis"])
    roll = [e for e in t.events if e.kind == "turn_end.rolled"][0]
    assert roll.data["certain"] is True and roll.data["values"] == [2]
    assert roll.data["ends"] is False  # 2 is a last die of 1-3


def test_initiative_markers_clamp_at_both_ends_of_the_track() -> None:
    """Seed 002: left for fewer impulses, right for more, never off the five boxes.
    (seed 002 Initiative Track.)"""
    t = table({"initiative": [9, 5, 1], "weather": [7], "turn_end": [10, 10]},
              options={"turn_end": {"threshold": 10}},
              boxes={"axis": 4, "allies": 3, "communists": 3})
    skip_initiative(t, order=("axis", "allies", "communists"))
    _impulse(t, ALL_LAND["axis"])  # the turn ends after one Axis impulse
    t.done_steps()
    assert t.state.turn.impulses_taken == {"axis": 1, "allies": 0, "communists": 0}
    assert t.state.initiative.boxes == {"axis": 4, "allies": 2, "communists": 2}
    t2 = table({"initiative": [9, 5, 1], "weather": [7], "turn_end": [10, 10]},
               options={"turn_end": {"threshold": 10}},
               boxes={"axis": 3, "allies": 0, "communists": 0})
    skip_initiative(t2, order=("axis", "allies", "communists"))
    _impulse(t2, ALL_LAND["axis"])
    t2.done_steps()
    assert t2.state.initiative.boxes == {"axis": 4, "allies": 0, "communists": 0}


def test_production_sets_next_turns_rps_and_respects_gearing() -> None:
    """11.18 Reorganization points: each BP on RPs gives 2 RPs next turn; gearing caps it."""
    t = table({"initiative": [9, 5, 1], "weather": [7], "turn_end": [10, 10]},
              options={"turn_end": {"threshold": 10}})
    skip_initiative(t)
    _impulse(t, ALL_LAND["axis"])
    t.done_steps()
    assert t.state.step == "production"
    with pytest.raises(Refused) as refused:
        t.act("production", {"powers": {"germany": {"bp_spent": 30, "bp_on_rps": 11}}},
              side="axis")
    assert refused.value.code == "production/gearing"
    with pytest.raises(Refused):
        t.act("production", {"powers": {"germany": {"bp_spent": 3, "bp_on_rps": 5}}},
              side="axis")
    t.act("production", {"powers": {"germany": {"bp_spent": 30, "bp_on_rps": 10},
                                    "italy": {"bp_spent": 8, "bp_on_rps": 0}}}, side="axis")
    t.act("production", {"powers": {p: {"bp_spent": 5, "bp_on_rps": 0}
                                    for p in ("cw", "usa", "france")}}, side="allies")
    t.act("production", {"powers": {p: {"bp_spent": 5, "bp_on_rps": 0}
                                    for p in ("ussr", "china")}}, side="communists")
    assert t.state.turn.number == 2
    assert t.state.powers["germany"].bp_spent_last_turn == 30
    assert t.state.powers["germany"].bp_on_rps == 10


def test_rps_in_a_reorganization_step_are_bp_spent_plus_bp_on_rps() -> None:
    """RULES-NOTES 8: Germany 30 spent (5 of them on RPs) + 5 = 35; unused RPs lapse."""
    t = table({"initiative": [9, 5, 1], "weather": [7]})
    skip_initiative(t)
    t.act("declare", {"actions": ALL_LAND["axis"]}, side="axis")
    t.act("done", side="axis")
    t.act("done", side="axis")
    assert t.state.step == "reorganization"
    assert t.state.powers["germany"].rps == 35
    t.act("done", side="axis")
    assert t.state.powers["germany"].rps == 0


def test_defaults_apply_to_every_awaited_step() -> None:
    """Issue 4 deadlines: declare -> pass, reroll -> no, choose -> first/before,
    done-steps -> done, production -> last turn's figures."""
    t = table()
    while t.state.turn.number < 2:
        t.act("admin.force", {"reason": "test"}, role="gm")
    kinds = t.kinds()
    assert "production.applied" in kinds and kinds.count("turn.began") == 2
    declared = [e for e in t.events if e.kind == "power.declared"]
    assert declared and all(e.data["action"] == "pass" and e.actor == "gm" for e in declared)
    germany = t.state.powers["germany"]
    assert (germany.bp_spent_last_turn, germany.bp_on_rps) == (30, 5)


def test_certain_threshold_with_passing_powers_still_reaches_it() -> None:
    """Seed 002: when the dice 'will automatically add up to 83 or more' only the last die
    is rolled, and a 4+ ends the turn; with passing powers the unrolled dice count at their
    least (1 + bonus), so the total does reach the threshold.
    (seed 002 Turn End and seed 002 Effects of Passing.)"""
    t = table({"initiative": [9, 5, 1], "weather": [2], "turn_end": [4]},
              options={"turn_end": {"threshold": 15}})
    skip_initiative(t)
    _impulse(t, {"germany": "pass", "italy": "pass"})  # +3 a die; 3 dice: at least 12
    roll = [e for e in t.events if e.kind == "turn_end.rolled"][0]
    assert roll.data["certain"] is False and len(roll.data["values"]) == 3
    t2 = table({"initiative": [9, 5, 1], "weather": [2], "turn_end": [4]},
               options={"turn_end": {"threshold": 12}})
    skip_initiative(t2)
    _impulse(t2, {"germany": "pass", "italy": "pass"})
    roll = [e for e in t2.events if e.kind == "turn_end.rolled"][0]
    assert roll.data["certain"] is True and roll.data["values"] == [4]
    assert roll.data["total"] == (4 + 3) + 2 * (1 + 3) >= 12
    assert roll.data["ends"] is True


def test_the_turn_end_total_shows_the_pass_bonuses_in_it() -> None:
    """Seed 002 Effects of Passing (issue 30): the state says how much of the turn-end
    total the passing powers added: +3 a die (Germany +2, Italy +1), for each die rolled
    and each die a certain threshold left unrolled."""
    t = table({"initiative": [9, 5, 1], "weather": [2], "turn_end": [4]},
              options={"turn_end": {"threshold": 15}})
    skip_initiative(t)
    _impulse(t, {"germany": "pass", "italy": "pass"})
    assert t.state.turn.turn_end_bonus == 3 * 3
    assert view(t.state, Viewer(role="gm"))["turn"]["turn_end_bonus"] == 9
    t2 = table({"initiative": [9, 5, 1], "weather": [2], "turn_end": [4]},
               options={"turn_end": {"threshold": 12}})
    skip_initiative(t2)
    _impulse(t2, {"germany": "pass", "italy": "pass"})
    assert t2.state.turn.turn_end_bonus == 3 * 3  # one die rolled, two counted unrolled


def test_reorganize_units_chit_only_when_its_option_is_on() -> None:
    """RULES-NOTES 10: the bracketed "Reorganize Units" chit is off by default."""
    chit = {"germany": {"kind": "reorganize_units", "hq": "ger-hq-1"}}
    t = table({"initiative": [9, 5, 1], "weather": [7]})
    skip_initiative(t)
    with pytest.raises(Refused) as refused:
        t.act("declare", {"actions": ALL_LAND["axis"], "chits": chit}, side="axis")
    assert refused.value.code == "declare/chit_off"
    t2 = table({"initiative": [9, 5, 1], "weather": [7]},
               options={"reorg": {"reorganize_units_chit": True}})
    skip_initiative(t2)
    t2.act("declare", {"actions": ALL_LAND["axis"], "chits": chit}, side="axis")
    assert t2.state.powers["germany"].chit == chit["germany"]


def test_the_gms_weather_table_applies_from_the_turn_it_names() -> None:
    monsoon = [{"roll": r, "weather": "monsoon", "dice": 1, "supply_path": 1}
               for r in range(1, 11)]
    t = table({"weather": [7, 7]})
    t.act("admin.weather", {"table": monsoon, "from_turn": 2, "reason": "season"}, role="gm")
    while t.state.turn.round < 1:
        t.act("admin.force", {}, role="gm")
    assert t.state.turn.weather is not None and t.state.turn.weather["weather"] == "fine"
    while t.state.turn.number < 2 or t.state.turn.round < 1:
        t.act("admin.force", {}, role="gm")
    assert t.state.turn.weather is not None and t.state.turn.weather["weather"] == "monsoon"


def _to_production(changes: dict | None = None) -> Table:
    t = table({"initiative": [9, 5, 1], "weather": [7], "turn_end": [10, 10]},
              options={"turn_end": {"threshold": 10}}, changes=changes)
    skip_initiative(t)
    _impulse(t, ALL_LAND["axis"])
    t.done_steps()
    assert t.state.step == "production"
    return t


def test_production_is_bounded_by_the_scenarios_build_points_or_flagged_as_reported_11_18(
) -> None:
    """11.18 Reorganization points: RPs come from the BP spent. Where the scenario gives a
    power's build points (Germany 40), the referee bounds what it spends; where it does
    not (Italy), the figures are the player's word, and the event and the view say so."""
    from support import scenario

    from service.rules.view import Viewer, view

    powers = [{**p, "build_points": 40} if p["id"] == "germany" else p
              for p in scenario("mini")["powers"]]
    t = _to_production({"powers": powers})
    with pytest.raises(Refused) as refused:
        t.act("production", {"powers": {"germany": {"bp_spent": 41, "bp_on_rps": 10}}},
              side="axis")
    assert (refused.value.code, refused.value.rule) == ("production/build_points",
                                                        "11.18 Reorganization points")
    assert refused.value.errors == [("/body/powers/germany/bp_spent",
                                     "above the scenario's 40 build points")]
    events = t.act("production", {"powers": {"germany": {"bp_spent": 40, "bp_on_rps": 10},
                                             "italy": {"bp_spent": 231, "bp_on_rps": 4}}},
                   side="axis")
    submitted = {e.data["power"]: e for e in events if e.kind == "production.submitted"}
    assert submitted["germany"].data["reported"] is False
    assert submitted["germany"].data["build_points"] == 40
    assert submitted["italy"].data["reported"] is True
    assert "as reported: the scenario gives italy no build points" in submitted["italy"].text
    seen = view(t.state, Viewer(role="gm"))["powers"]
    assert (seen["germany"]["build_points"], seen["germany"]["bp_reported"]) == (40, False)
    assert (seen["italy"]["build_points"], seen["italy"]["bp_reported"]) == (None, True)
