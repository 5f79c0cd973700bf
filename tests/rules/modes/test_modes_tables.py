"""Combats the scenario's table decides (issue 29), on the `modes` scenario: strengths
from the effective values (seed 004: OCS 5.7, 5.8, 5.9, 5.10b), terrain, the column,
every kind of result applied by the referee, and the questions the rules leave to the
players with their defaults (RULES-NOTES 32)."""

from __future__ import annotations

from typing import Any

import pytest
from combat_kit import attack, by_column, fight, one_code, question, resolved
from engine import Table
from modes_kit import done, last, report

from service.rules.errors import Malformed, Refused, RulesError

DL1O1 = [{"kind": "defender_loss", "value": 1}, {"kind": "defender_option", "value": 1}]
TWO = {"ocs": {"steps": 2}}
# The allies' one Reserve marker goes to cw-inf-1.
NO_RESERVE = {"ocs": {"mode": "combat", "orientation": "combat"}}


def cell(code: str, *effects: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return one_code(code, effects, **fields)


def defenders(t: Table) -> list[dict[str, Any]]:
    odds: list[dict[str, Any]] = resolved(t)["odds"]["defenders"]
    return odds


def attackers(t: Table) -> list[dict[str, Any]]:
    odds: list[dict[str, Any]] = resolved(t)["odds"]["attackers"]
    return odds


# -- seed 004: the modes' effects on combat strength ------------------------------------


def test_5_7_a_reserve_defender_defends_at_half_strength() -> None:
    t = fight({"cw-inf-1": {"ocs": {"mode": "reserve"}}, "cw-arm-1": NO_RESERVE},
              land=by_column(), dice=[3])
    attack(t, "h21", "ger-inf-1")
    shown = defenders(t)[0]
    assert (shown["strength"], shown["note"]) == (1.5, "Reserve, half: OCS 5.7")
    odds = resolved(t)["odds"]
    assert (odds["attack"], odds["defence"], odds["column"]) == (4, 1.5, "2:1")
    assert "ger-inf-1 4 (4) against cw-inf-1 1.5 (Reserve, half: OCS 5.7) in clear (1.5): " \
           "4 : 1.5 -> 2:1; column 2:1, 1d6 = 3: c3" in last(t, "combat.resolved").text
    normal = fight(land=by_column(), dice=[3])
    attack(normal, "h21", "ger-inf-1")
    assert resolved(normal)["odds"]["column"] == "1:1"  # 4 : 3 without the Reserve marker


def test_5_8_a_strat_defender_has_zero_strength_and_action_rating() -> None:
    land = by_column(modifiers=[{"input": "action_ratings", "to": "roll"}])
    t = fight({"cw-inf-1": {"ocs": {"mode": "strat", "orientation": "move"}}}, land=land,
              dice=[2])
    attack(t, "h21", "ger-inf-1")
    shown = defenders(t)[0]
    assert (shown["strength"], shown["action_rating"], shown["note"]) == (
        0, 0, "Strat, zero: OCS 5.8")
    odds = resolved(t)["odds"]
    assert odds["column"] == "4:1"  # against nothing: the last column
    assert odds["inputs"]["action_ratings"] == 3  # ger-inf-1's 3 less the Strat unit's 0
    assert odds["roll_modifiers"] == [["action ratings", 3]]


def test_5_10b_a_dg_attacker_is_halved_and_its_action_rating_drops() -> None:
    land = by_column(modifiers=[{"input": "action_ratings", "to": "roll"}])
    t = fight({"ger-inf-1": {"ocs": {"mode": "dg"}}}, land=land, dice=[4])
    attack(t, "h21", "ger-inf-1")
    shown = attackers(t)[0]
    assert (shown["strength"], shown["action_rating"]) == (2, 2)
    odds = resolved(t)["odds"]
    assert (odds["attack"], odds["column"]) == (2, "1:2")  # 2 : 3
    assert odds["inputs"]["action_ratings"] == 0  # 3 - 1 (DG) against cw-inf-1's 2
    assert resolved(t)["total"] == 4
    fresh = fight(land=land, dice=[4])
    attack(fresh, "h21", "ger-inf-1")
    assert resolved(fresh)["odds"]["inputs"]["action_ratings"] == 1
    assert resolved(fresh)["total"] == 5


def test_5_9_an_exploiting_attacker_fights_at_full_strength() -> None:
    t = fight({"ger-inf-1": {"ocs": {"mode": "exploit"}}}, land=by_column(), dice=[1],
              step="exploitation")
    attack(t, "h21", "ger-inf-1")
    shown = attackers(t)[0]
    assert (shown["strength"], shown["action_rating"], shown["note"]) == (
        4, 3, "Exploit, full: OCS 5.9")
    assert resolved(t)["odds"]["column"] == "1:1"


def test_terrain_multiplies_the_defence_and_a_hexside_shifts_the_column() -> None:
    land = by_column(terrain={"mountain": {"defence": 2}}, hexsides={"river": {"shift": -1}})
    t = fight({"cw-inf-1": {"at": "h22"}}, land=land, dice=[5],
              hexsides=[{"hexes": ["h22", "h32"], "feature": "river"}])
    attack(t, "h22", "ger-inf-3")
    odds = resolved(t)["odds"]
    assert (odds["terrain"], odds["multiplier"], odds["defended"]) == ("mountain", 2, 6)
    assert (odds["base_column"], odds["column"]) == ("1:2", "1:2")  # 4 : 6, shifted off
    assert "against cw-inf-1 3 in mountain (3, x2 mountain = 6): 4 : 6 -> 1:2, -1 column " \
           "river hexside -> 1:2" in last(t, "combat.resolved").text


def test_a_hexside_counts_only_when_every_attacking_stack_crosses_it() -> None:
    land = by_column(hexsides={"river": {"shift": -1}})
    t = fight(land=land, dice=[5], hexsides=[{"hexes": ["h21", "h30"], "feature": "river"}],
              units={"ger-inf-3": {"at": "h31"}})
    attack(t, "h21", "ger-inf-1", "ger-inf-3")
    assert resolved(t)["odds"]["shifts"] == []  # ger-inf-3 in h31 does not cross it


# -- every kind of result ----------------------------------------------------------------


def test_an_attacker_loss_on_a_lone_one_step_attacker_eliminates_it() -> None:
    t = fight(land=cell("AL1", {"kind": "attacker_loss", "value": 1}), dice=[2])
    attack(t, "h21", "ger-inf-1")
    assert "ger-inf-1" not in t.state.units and t.state.modes.eliminated["ger-inf-1"] == "h30"
    assert t.state.modes.resolution is None and last(t, "combat.closed").data["code"] == "AL1"
    assert t.awaiting()[0]["step"] == "combat"


def test_the_attacker_names_the_unit_that_takes_a_step_loss() -> None:
    t = fight({"sov-inf-1": {"at": "h50"}, "ger-inf-2": TWO},
              land=cell("AL1", {"kind": "attacker_loss", "value": 1}), dice=[2])
    attack(t, "h50", "ger-inf-2", "ger-art-1")
    entry = question(t)
    assert entry["side"] == "axis" and entry["choices"] == {"losses.*": ["ger-inf-2",
                                                                        "ger-art-1"]}
    assert entry["combat"]["default"] == ["ger-art-1"]  # the weakest (strength 1)
    with pytest.raises(Refused) as wrong:
        t.act("combat.choose", {"hex": "h50", "losses": ["sov-inf-1"]}, side="axis")
    assert wrong.value.code == "combat/not_a_choice"
    t.act("combat.choose", {"hex": "h50", "losses": ["ger-inf-2"]}, side="axis")
    assert t.state.units["ger-inf-2"].steps_lost == 1 and "ger-art-1" in t.state.units


def test_defender_losses_count_against_the_units_steps() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("DL1", {"kind": "defender_loss", "value": 1}),
              dice=[2, 2])
    attack(t, "h21", "ger-inf-1")
    assert t.state.units["cw-inf-1"].steps_lost == 1
    t2 = fight({"cw-inf-1": TWO}, land=cell("DL2", {"kind": "defender_loss", "value": 2}),
               dice=[2])
    attack(t2, "h21", "ger-inf-1")
    assert "cw-inf-1" not in t2.state.units
    assert "more than its steps" in last(t2, "unit.eliminated").text


def test_the_defender_takes_an_option_as_a_step_loss_or_a_hex_of_retreat() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("DL1o1", *DL1O1), dice=[4])
    attack(t, "h21", "ger-inf-1")
    entry = question(t)
    assert entry["side"] == "allies" and entry["combat"]["kind"] == "retreat"
    assert entry["choices"]["retreat"][0] == []  # no retreat: the option is a step loss
    assert ["h11"] in entry["choices"]["retreat"] and ["h31"] in entry["choices"]["retreat"]
    assert entry["combat"]["default"] == ["h11"]  # the first hex in no enemy ZOC
    t.act("combat.choose", {"hex": "h21", "retreat": []}, side="allies")
    assert "cw-inf-1" not in t.state.units  # 1 + 1 steps: both of its two


def test_a_retreat_is_chosen_among_legal_paths_only() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("DL1o1", *DL1O1), dice=[4])
    attack(t, "h21", "ger-inf-1")
    for bad in (["h30"], ["h11", "h01"], ["h99"]):
        with pytest.raises(Refused) as caught:
            t.act("combat.choose", {"hex": "h21", "retreat": bad}, side="allies")
        assert caught.value.code == "combat/not_a_choice" and "h11" in caught.value.message
    with pytest.raises(Refused) as other:
        t.act("combat.choose", {"hex": "h21", "retreat": ["h11"]}, side="axis")
    assert other.value.code == "order/not_your_turn"
    t.act("combat.choose", {"hex": "h21", "retreat": ["h20"]}, side="allies")
    unit = t.state.units["cw-inf-1"]
    assert (unit.at, unit.steps_lost, unit.mode) == ("h20", 1, "dg")  # h20: ger-inf-1's ZOC
    assert question(t)["combat"]["kind"] == "advance"


def test_a_retreat_goes_away_and_its_second_hex_turns_the_stack_dg_5_10a_b() -> None:
    t = fight({"cw-inf-1": {"at": "h22"}, "cw-inf-2": {"at": "h03"}},
              land=cell("R2", {"kind": "defender_retreat", "value": 2}), dice=[1])
    attack(t, "h22", "ger-inf-3")
    paths = question(t)["choices"]["retreat"]
    assert [] not in paths and all(len(p) == 2 for p in paths)
    assert ["h12", "h02"] in paths and ["h21", "h20"] in paths
    assert ["h21", "h11"] in paths and ["h12", "h11"] in paths
    assert not any(p[1] in ("h22", "h21", "h12", "h23") for p in paths)  # never back
    t.act("combat.choose", {"hex": "h22", "retreat": ["h12", "h02"]}, side="allies")
    assert t.state.units["cw-inf-1"].at == "h02" and t.state.units["cw-inf-1"].mode == "dg"


def test_units_that_cannot_retreat_the_hexes_demanded_are_eliminated() -> None:
    t = fight({"cw-inf-1": {"at": "h00"}, "cw-inf-2": {"at": "h03"},
               "cw-hq-1": {"at": "h13"}, "ger-inf-1": {"at": "h10"},
               "ger-inf-2": {"at": "h01"}},
              land=cell("R1", {"kind": "defender_retreat", "value": 1}), dice=[6])
    attack(t, "h00", "ger-inf-1", "ger-inf-2")
    assert "cw-inf-1" not in t.state.units
    assert "cannot retreat" in last(t, "combat.no_retreat").text


def test_dg_results_hit_the_attackers_hexes_and_the_defenders_where_they_stand() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("X", {"kind": "attacker_dg"},
                                           {"kind": "defender_retreat", "value": 1},
                                           {"kind": "defender_dg"}), dice=[3])
    attack(t, "h21", "ger-inf-1")
    assert t.state.units["ger-inf-1"].mode == "dg"
    t.act("combat.choose", {"hex": "h21", "retreat": ["h11"]}, side="allies")
    assert t.state.units["cw-inf-1"].mode == "dg" and t.state.units["cw-arm-1"].mode == "dg"


def test_exploitation_goes_to_attackers_of_the_rating_not_dg_5_9a_5_9b_5_10b_c() -> None:
    t = fight({"sov-inf-1": {"at": "h50"}, "ger-inf-2": {"ocs": {"action_rating": 3}},
               "ger-art-1": {"ocs": {"mode": "dg"}}},
              land=cell("E3", {"kind": "exploit", "value": 3}), dice=[5])
    attack(t, "h50", "ger-inf-2", "ger-art-1")
    assert t.state.units["ger-inf-2"].mode == "exploit"
    assert t.state.units["ger-art-1"].mode == "dg"
    low = fight(land=cell("E4", {"kind": "exploit", "value": 4}), dice=[5])
    attack(low, "h21", "ger-inf-1")  # Action Rating 3: below the marker's 4
    assert low.state.units["ger-inf-1"].mode == "combat"


def test_shattered_and_eliminated_results() -> None:
    t = fight(land=cell("S", {"kind": "defender_shattered"},
                        {"kind": "attacker_shattered"}), dice=[1])
    attack(t, "h21", "ger-inf-1")
    for uid in ("cw-inf-1", "ger-inf-1"):
        unit = t.state.units[uid]
        assert (unit.shattered, unit.face_up) == (True, False), uid
    t2 = fight(land=cell("AE", {"kind": "attacker_eliminated"},
                         {"kind": "defender_eliminated"}), dice=[1])
    attack(t2, "h21", "ger-inf-1")
    assert "ger-inf-1" not in t2.state.units and "cw-inf-1" not in t2.state.units


def test_the_attacker_advances_into_the_emptied_hex_or_stays() -> None:
    t = fight(land=cell("DE", {"kind": "defender_eliminated"}), dice=[1])
    attack(t, "h21", "ger-inf-1")
    entry = question(t)
    assert (entry["side"], entry["choices"], entry["combat"]["default"]) == (
        "axis", {"advance.*": ["ger-inf-1"]}, [])
    t.act("combat.choose", {"hex": "h21", "advance": ["ger-inf-1"]}, side="axis")
    assert t.state.units["ger-inf-1"].at == "h21"
    assert t.state.modes.resolution is None and t.awaiting()[0]["step"] == "combat"


def test_an_advance_that_overstacks_is_refused() -> None:
    t = fight({"ger-inf-2": {"at": "h31"}, "ger-art-1": {"at": "h31"},
               "ger-repl-1": {"at": "h31"}, "ger-hh-1": None, "ger-inf-3": {"at": "h31"}},
              land=cell("DE", {"kind": "defender_eliminated"}), dice=[1])
    attack(t, "h21", "ger-inf-1", "ger-inf-2", "ger-art-1", "ger-inf-3")
    with pytest.raises(Refused) as caught:
        t.act("combat.choose", {"hex": "h21",
                                "advance": ["ger-inf-1", "ger-inf-2", "ger-art-1", "ger-inf-3"]},
              side="axis")
    assert caught.value.code == "combat/stacking"
    t.act("combat.choose", {"hex": "h21", "advance": ["ger-inf-1"]}, side="axis")


def test_5_7d_a_result_on_a_reserve_defender_removes_its_marker() -> None:
    t = fight({"cw-inf-1": {"ocs": {"mode": "reserve", "steps": 2}}, "cw-arm-1": NO_RESERVE},
              land=cell("DL1", {"kind": "defender_loss", "value": 1}), dice=[2])
    attack(t, "h21", "ger-inf-1")
    assert t.state.units["cw-inf-1"].mode == "combat"
    assert [e.kind for e in t.events].index("reserve.removed") > \
        [e.kind for e in t.events].index("combat.resolved")
    quiet = fight({"cw-inf-1": {"ocs": {"mode": "reserve"}}, "cw-arm-1": NO_RESERVE},
                  land=cell("AL1", {"kind": "attacker_loss", "value": 1}), dice=[2])
    attack(quiet, "h21", "ger-inf-1")
    assert quiet.state.units["cw-inf-1"].mode == "reserve"


# -- barrage, overrun, surprise ----------------------------------------------------------


def barrage_table() -> dict[str, Any]:
    return {"columns": {"by": "strength", "labels": ["1", "2", "3-4", "5-7", "8+"]},
            "dice": "1d6", "rows": {"1-3": ["-", "-", "-", "DG", "DG"],
                                    "4-6": ["-", "DG", "DG", "L1", "L1"]},
            "legend": {"DG": [{"kind": "defender_dg"}],
                       "L1": [{"kind": "defender_dg"}, {"kind": "defender_loss", "value": 1}]},
            "modifiers": [{"input": "units", "to": "columns",
                           "bands": [{"at_least": 1, "value": -1}, {"at_least": 2, "value": 0}]}]}


def test_a_barrage_reads_its_strength_column_shifted_by_the_hexs_density() -> None:
    t = fight({"cw-inf-1": TWO}, land=by_column(), dice=[5],
              combat={"barrage": barrage_table()})
    report(t, combats=[{"by": "barrage", "hex": "h21", "attackers": ["ger-art-1"]}])
    odds = resolved(t)["odds"]
    assert (odds["base_column"], odds["column"], odds["shifts"]) == ("8+", "5-7",
                                                                     [["units", -1]])
    assert "ger-art-1 8 (8) barrage cw-inf-1 in clear: strength 8 -> 8+, -1 column units " \
           "-> 5-7; column 5-7, 1d6 = 5: L1" in last(t, "combat.resolved").text
    unit = t.state.units["cw-inf-1"]
    assert (unit.mode, unit.steps_lost) == ("dg", 1)


def overrun_game(rule: dict[str, Any], **units: Any) -> Table:
    return fight({"cw-inf-1": {"ocs": {"combat": {"strength": 1, "ma": 4}}}, **units},
                 land=cell("DE", {"kind": "defender_eliminated"}), dice=[3], step="action",
                 combat={"overrun": rule})


def test_an_overrun_below_the_rules_minimum_is_refused_with_its_odds() -> None:
    t = overrun_game({"minimum": "5:1"})
    with pytest.raises(Refused) as caught:
        attack(t, "h21", "ger-inf-1", by="overrun")
    assert caught.value.code == "report/overrun_odds" and "4 : 1" in caught.value.message
    assert t.state.units["cw-inf-1"].at == "h21"


def test_an_overrun_at_the_automatic_odds_eliminates_without_a_roll() -> None:
    t = overrun_game({"minimum": "2:1", "automatic": "4:1"})
    rolls = t.state.dice.rolls_this_turn
    attack(t, "h21", "ger-inf-1", by="overrun")
    assert "cw-inf-1" not in t.state.units and t.state.dice.rolls_this_turn == rolls
    assert last(t, "combat.closed").data["succeeded"] is True
    assert "the overrun succeeds" in last(t, "combat.closed").text


def test_an_overrun_rolls_on_the_land_table_shifted_by_the_rule() -> None:
    t = overrun_game({"shift": -2})
    attack(t, "h21", "ger-inf-1", by="overrun")
    odds = resolved(t)["odds"]
    assert (odds["base_column"], odds["column"]) == ("4:1", "2:1")
    assert "cw-inf-1" not in t.state.units and "advance" not in str(t.awaiting())


def test_a_surprise_roll_shifts_the_column_for_the_attacker() -> None:
    land = by_column(surprise={"dice": "2d6", "attacker": {"at_least": 10, "shift": "1d6"},
                               "defender": {"at_most": 3, "shift": 1}})
    t = fight(land=land, dice=[5, 6, 2, 4])
    attack(t, "h21", "ger-inf-1")
    data = resolved(t)
    assert data["surprise"] == "surprise 2d6 = 11 -> 11: attacker surprise, 2 columns"
    assert (data["odds"]["base_column"], data["odds"]["column"]) == ("1:1", "2:1")
    labels = [e.data.get("label") for e in t.events if e.kind == "dice.rolled"]
    assert labels[-3:] == ["surprise, combat on h21", "surprise shift, combat on h21",
                           "combat on h21"]
    calm = fight(land=land, dice=[1, 1, 4])
    attack(calm, "h21", "ger-inf-1")
    assert resolved(calm)["odds"]["column"] == "1:2"  # defender surprise: one left


# -- what the table decides is never a player's word -------------------------------------


@pytest.mark.parametrize("item", [{"dice": "2d6"}, {"results": [{"kind": "dg"}]}])
def test_where_a_table_decides_no_reported_result_or_dice_is_taken(item: dict[str, Any]
                                                                    ) -> None:
    t = fight(land=by_column(), dice=[1])
    with pytest.raises(Refused) as caught:
        report(t, combats=[{"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"],
                            **item}])
    assert caught.value.code == "report/table_decides"
    assert "cw-inf-1" in t.state.units and t.state.units["cw-inf-1"].mode == "combat"


def test_without_a_table_or_leave_to_report_a_combat_is_refused() -> None:
    t = fight(land=by_column(), dice=[1])
    with pytest.raises(Refused) as caught:
        report(t, combats=[{"by": "barrage", "hex": "h21", "attackers": ["ger-art-1"]}])
    assert caught.value.code == "report/no_table" and caught.value.rule == "RULES-NOTES 32"


def test_the_game_waits_for_the_question_and_nothing_else_is_taken() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("DL1o1", *DL1O1), dice=[4])
    attack(t, "h21", "ger-inf-1")
    for act in (lambda: done(t, "axis"), lambda: attack(t, "h21", "ger-inf-3"),
                lambda: t.act("roll", {"dice": "1d6", "purpose": "x"}, side="axis")):
        with pytest.raises(RulesError) as caught:
            act()
        assert caught.value.code == "combat/choice_pending", caught.value.code
    with pytest.raises(Malformed):
        t.act("combat.choose", {"hex": "h21", "advance": []}, side="allies")
    with pytest.raises(Refused) as elsewhere:
        t.act("combat.choose", {"hex": "h20", "retreat": []}, side="allies")
    assert elsewhere.value.code == "combat/other_combat"


# -- deadlines, defaults and standing orders ---------------------------------------------


def test_a_question_has_the_steps_time_and_its_default_when_the_clock_runs_out() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("DL1o1", *DL1O1), dice=[4])
    t.act("admin.deadlines", {"deadlines": {"combat": 3600}}, role="gm")
    attack(t, "h21", "ger-inf-1")
    asked = question(t)
    assert asked["deadline"] == "2026-01-01T01:00:00Z"
    with pytest.raises(Refused):
        t.act("clock.expire", role="clock", at="2026-01-01T00:59:59+00:00")
    t.act("clock.expire", role="clock", at="2026-01-01T01:00:00+00:00")
    answer = last(t, "combat.answered")
    assert answer.data["how"] == "default, by clock" and answer.data["answer"] == ["h11"]
    assert t.state.units["cw-inf-1"].at == "h11"
    assert t.state.dropouts["allies"].missed == 1


def test_the_gm_forces_the_default_of_a_question() -> None:
    t = fight({"sov-inf-1": {"at": "h50"}, "ger-inf-2": TWO},
              land=cell("AL1", {"kind": "attacker_loss", "value": 1}), dice=[2])
    attack(t, "h50", "ger-inf-2", "ger-art-1")
    t.act("admin.force", {"reason": "axis is away"}, role="gm")
    assert "ger-art-1" not in t.state.units and t.state.units["ger-inf-2"].steps_lost == 0


def test_a_standing_order_answers_a_retreat_or_is_disarmed_when_it_would_cost_more() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("DL1o1", *DL1O1), dice=[4, 4])
    t.act("standing", {"step": "combat.retreat", "answer": "retreat"}, side="allies")
    t.act("standing", {"step": "combat.advance", "answer": "stay"}, side="axis")
    attack(t, "h21", "ger-inf-1")
    kinds = [e.kind for e in t.events]
    assert kinds.count("standing.answered") == 2 and t.state.modes.resolution is None
    assert t.state.units["cw-inf-1"].at == "h11" and t.state.units["ger-inf-1"].at == "h30"
    boxed = fight({"cw-inf-1": TWO, "ger-inf-2": {"at": "h12"}, "ger-art-1": {"at": "h20"},
                   "cw-arm-1": {"at": "h01"}},
                  land=cell("DL1o1", *DL1O1), dice=[4])
    boxed.act("standing", {"step": "combat.retreat", "answer": "retreat"}, side="allies")
    attack(boxed, "h21", "ger-inf-1")
    disarmed = last(boxed, "standing.disarmed")
    assert disarmed.data["reason"] == "no retreat path avoids every enemy ZOC"
    assert question(boxed)["side"] == "allies"


def test_a_standing_losses_order_asks_before_it_would_eliminate_a_unit() -> None:
    t = fight({"sov-inf-1": {"at": "h50"}, "ger-inf-2": TWO},
              land=cell("AL1", {"kind": "attacker_loss", "value": 1}), dice=[2])
    t.act("standing", {"step": "combat.losses"}, side="axis")
    attack(t, "h50", "ger-inf-2", "ger-art-1")
    assert "ger-art-1" in last(t, "standing.disarmed").data["reason"]
    assert question(t)["combat"]["kind"] == "losses"
    with pytest.raises(Malformed):
        t.act("standing", {"step": "combat.advance", "answer": "retreat"}, side="axis")


def test_a_steps_order_with_an_attack_holds_its_done_until_the_question_is_answered() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("DL1o1", *DL1O1), dice=[4])
    t.act("steps", {"orders": [{"kind": "report", "body": {"combats": [
        {"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"]}]}}],
        "through": "exploitation"}, side="axis")
    assert question(t)["side"] == "allies" and t.state.step == "combat"
    t.act("combat.choose", {"hex": "h21", "retreat": ["h11"]}, side="allies")
    t.act("combat.choose", {"hex": "h21", "advance": []}, side="axis")
    assert t.state.step not in ("combat", "exploitation")  # the held done went on
    with pytest.raises(RulesError) as caught:
        fight({"cw-inf-1": TWO}, land=cell("DL1o1", *DL1O1), dice=[4]).act(
            "steps", {"orders": [
                {"kind": "report", "body": {"combats": [
                    {"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"]}]}},
                {"kind": "done", "body": {}}]}, side="axis")
    assert caught.value.code == "combat/choice_pending"


def test_a_side_in_civil_disorder_answers_its_question_by_default_at_once() -> None:
    t = fight({"cw-inf-1": TWO}, land=cell("DL1o1", *DL1O1), dice=[4],
              options={"dropout": {"policy": "civil_disorder"}})
    t.act("admin.dropout", {"side": "allies", "reason": "gone"}, role="gm")
    attack(t, "h21", "ger-inf-1")
    answer = last(t, "combat.answered")
    assert answer.data["side"] == "allies" and answer.data["how"].startswith("default")
    assert t.state.units["cw-inf-1"].at == "h11"
    assert question(t)["side"] == "axis"  # the advance: the attacker is asked


def test_the_options_say_a_kind_without_a_table_may_not_be_fought() -> None:
    from service.rules.modes import unit_options

    t = fight(land=by_column(), dice=[1])
    attack_by = unit_options(t.state, "ger-art-1")["attack"]["by"]
    assert attack_by["barrage"]["may"] is False
    assert attack_by["barrage"]["why"]["code"] == "report/no_table"
    assert unit_options(t.state, "ger-inf-1")["attack"]["by"]["combat"]["may"] is True


def test_with_advance_by_result_only_a_cell_that_says_so_lets_the_attacker_advance() -> None:
    plain = fight(land=cell("DE", {"kind": "defender_eliminated"}), dice=[1],
                  combat={"advance": "result"})
    attack(plain, "h21", "ger-inf-1")
    assert plain.state.modes.resolution is None and plain.awaiting()[0]["step"] == "combat"
    breakthrough = fight(land=cell("B", {"kind": "defender_eliminated"}, {"kind": "advance"}),
                         dice=[1], combat={"advance": "result"})
    attack(breakthrough, "h21", "ger-inf-1")
    assert question(breakthrough)["combat"]["kind"] == "advance"
