"""Standing orders and `steps` orders through the pure rules (issue 20): each standing
order is armed, answers its step with an event naming it, and never another step; each
stop condition disarms it with its reason and the side is asked; `steps` plays orders
all or nothing and holds `done` for the side's later steps of the impulse; a sealed
reroll answer given by a standing order is salted like a signed one."""

from __future__ import annotations

from typing import Any

import pytest
from engine import Table, skip_initiative, table
from modes_kit import SCRIPT, game, move, report, until

from service.rules.errors import Malformed, Refused, RulesError
from service.rules.events import Event
from service.rules.reorg import Planner
from service.rules.view import Viewer, is_sealed, view


def arm(t: Table, side: str, step: str, seq: int, **body: Any) -> list[Event]:
    return t.act("standing", {"step": step, **body}, side=side, extra={"seq": seq})


def named(t: Table, kind: str) -> list[Event]:
    return [e for e in t.events if e.kind == kind]


def test_a_standing_reaction_order_answers_done_naming_its_order_rn31() -> None:
    """The reacting sides answer nothing released (done), each with a `standing.answered`
    naming the order (signer and seq) before its `side.done`, in turn order
    (RULES-NOTES 31)."""
    t = game()
    arm(t, "allies", "reaction", 7)
    arm(t, "communists", "reaction", 3)
    t.act("done", side="axis")
    answers = named(t, "standing.answered")
    assert [(e.data["side"], e.data["seq"], e.data["player"], e.data["kind"])
            for e in answers] == [("allies", 7, "p-allies", "standing"),
                                  ("communists", 3, "p-communists", "standing")]
    kinds = [e.kind for e in t.events]
    first = kinds.index("standing.answered")
    assert kinds[first + 1] == "side.done" and t.events[first + 1].data["side"] == "allies"
    assert t.state.step == "combat"  # the game went on without asking them
    assert view(t.state, Viewer(role="player", side="allies"))["standing"]["orders"] == [
        {"side": "allies", "step": "reaction", "player": "p-allies", "seq": 7, "stops": []}]


def test_a_standing_order_never_acts_on_a_step_it_was_not_armed_for() -> None:
    """The Allies armed exploitation only: their reaction step still waits for them, and
    the Communists' reaction order answers theirs alone."""
    t = game()
    arm(t, "allies", "exploitation", 1)
    arm(t, "communists", "reaction", 2)
    t.act("done", side="axis")
    assert t.state.step == "reaction" and t.awaiting()[0]["side"] == "allies"
    assert not [e for e in named(t, "standing.answered") if e.data["side"] == "allies"]
    t.act("done", side="allies")
    answered = [e.data for e in named(t, "standing.answered")]
    assert answered == [{"side": "communists", "step": "reaction", "kind": "standing",
                         "player": "p-communists", "seq": 2}]


def test_combat_and_exploitation_orders_never_end_the_phasing_sides_own_steps() -> None:
    """Issue 30: the Axis armed the combat and exploitation defaults; in its own impulse
    it is still asked in its combat and exploitation steps (its attacks are its own), and
    the orders stay armed for the steps where it is not phasing (RULES-NOTES 31)."""
    t = game({"ger-inf-2": {"ocs": {"mode": "reserve"}}})
    arm(t, "axis", "combat", 6, stops=[{"kind": "unit_attacked"}])
    arm(t, "axis", "exploitation", 7, stops=[{"kind": "unit_attacked"}])
    until(t, "combat")
    assert t.awaiting()[0]["side"] == "axis" and t.awaiting()[0]["step"] == "combat"
    t.act("done", side="axis")
    assert t.state.step == "exploitation" and t.awaiting()[0]["side"] == "axis"
    t.act("done", side="axis")
    assert not named(t, "standing.answered") and not named(t, "standing.disarmed")
    assert set(t.state.standing.orders["axis"]) == {"combat", "exploitation"}


def test_a_disarmed_standing_order_answers_no_more() -> None:
    t = game()
    arm(t, "allies", "reaction", 1)
    arm(t, "allies", "reaction", 2, armed=False)
    [gone] = named(t, "standing.disarmed")
    assert gone.data["reason"] == "disarmed by p-allies" and gone.data["seq"] == 1
    t.act("done", side="axis")
    assert t.state.step == "reaction" and not named(t, "standing.answered")
    with pytest.raises(Refused) as caught:
        arm(t, "allies", "reaction", 3, armed=False)
    assert caught.value.code == "standing/not_armed"


def test_the_unit_attacked_stop_disarms_with_its_reason() -> None:
    """Germany overruns cw-inf-1 in its action step: the Allies' reaction order, armed
    with `unit_attacked`, is disarmed with the attack named, and the Allies are asked;
    the Communists' (not attacked) answers."""
    t = game({"ger-arm-1": {"at": "h31"}})
    arm(t, "allies", "reaction", 4, stops=[{"kind": "unit_attacked"}])
    arm(t, "communists", "reaction", 5, stops=[{"kind": "unit_attacked"}])
    report(t, combats=[{"by": "overrun", "hex": "h21", "attackers": ["ger-arm-1"],
                        "results": [{"kind": "ignored", "text": "NE"}]}])
    t.act("done", side="axis")
    [gone] = named(t, "standing.disarmed")
    assert gone.data["side"] == "allies" and gone.data["stop"] == "unit_attacked"
    assert "overrun by axis on h21" in gone.data["reason"]
    assert t.awaiting()[0]["side"] == "allies" and t.state.step == "reaction"
    t.act("done", side="allies")
    assert [e.data["side"] for e in named(t, "standing.answered")] == ["communists"]


def test_the_enemy_adjacent_reserve_stop_disarms_with_its_reason() -> None:
    """A German unit moves next to cw-arm-1 (Reserve, h11): the Allies' order is disarmed
    naming both units; without an enemy next to its Reserve the Communists' answers."""
    t = game()
    arm(t, "allies", "reaction", 1, stops=[{"kind": "enemy_adjacent_reserve"}])
    arm(t, "communists", "reaction", 1, stops=[{"kind": "enemy_adjacent_reserve"}])
    report(t, moves=[move("ger-inf-1", "h20")])
    t.act("done", side="axis")
    [gone] = named(t, "standing.disarmed")
    assert gone.data["stop"] == "enemy_adjacent_reserve"
    assert gone.data["reason"] == "enemy ger-inf-1 in h20 is next to cw-arm-1 (Reserve) in h11"
    assert [e.data["side"] for e in named(t, "standing.answered")] == []
    t.act("done", side="allies")
    assert [e.data["side"] for e in named(t, "standing.answered")] == ["communists"]


def test_an_enemy_already_next_to_the_reserve_when_armed_stops_nothing() -> None:
    """The stop is about new contact: ger-inf-1 stands next to cw-arm-1 (Reserve) when
    the Allies arm, so their order answers; once answered, the same contact still stops
    nothing."""
    t = game({"ger-inf-1": {"at": "h20"}})
    arm(t, "allies", "reaction", 1, stops=[{"kind": "enemy_adjacent_reserve"}])
    assert t.state.standing.orders["allies"]["reaction"].adjacent_seen == (
        "ger-inf-1>cw-arm-1",)
    t.act("done", side="axis")
    assert not named(t, "standing.disarmed")
    assert [e.data["side"] for e in named(t, "standing.answered")] == ["allies"]


def test_the_hq_out_of_supply_stop_disarms_with_its_reason() -> None:
    """The Soviet HQ stands cut off behind German lines: the Communists' order is
    disarmed naming it; the Allies' HQ is in supply and their order answers."""
    t = game({"sov-hq-1": {"at": "h31"}})
    arm(t, "communists", "reaction", 2, stops=[{"kind": "hq_out_of_supply"}])
    arm(t, "allies", "reaction", 2, stops=[{"kind": "hq_out_of_supply"}])
    t.act("done", side="axis")
    [gone] = named(t, "standing.disarmed")
    assert gone.data["side"] == "communists" and gone.data["stop"] == "hq_out_of_supply"
    assert gone.data["reason"].startswith("HQ sov-hq-1 in h31 is out of supply")
    assert [e.data["side"] for e in named(t, "standing.answered")] == ["allies"]


def _reroll_table(initiative: list[int]) -> Table:
    return table({**SCRIPT, "initiative": initiative})


@pytest.mark.parametrize(("dice", "disarmed"), [([9, 8, 1], True), ([9, 5, 1], False)])
def test_the_initiative_close_stop_disarms_a_reroll_order_when_totals_are_near(
    dice: list[int], disarmed: bool,
) -> None:
    """seed 002 Initiative Track: a reroll standing order with `initiative_close` within
    1 is disarmed (the side is asked) when its total is within 1 of another side's."""
    t = _reroll_table(dice)
    assert t.state.step == "initiative.reroll"
    arm(t, "allies", "initiative.reroll", 1, stops=[{"kind": "initiative_close",
                                                     "within": 1}])
    if disarmed:
        [gone] = named(t, "standing.disarmed")
        assert gone.data["stop"] == "initiative_close"
        assert gone.data["reason"] == "allies's initiative total 8 is within 1 of axis's 9"
        assert "allies" not in t.state.turn.sides_done
    else:
        assert not named(t, "standing.disarmed")
        assert "allies" in t.state.turn.sides_done


def test_a_standing_reroll_answer_is_salted_and_sealed_like_a_signed_one() -> None:
    """seed 002 Initiative Track, RULES-NOTES 16: the standing order answers the open
    window at once with its `demand`, salted with the referee's salt for the side
    (`extra.standing_salts`); the answer and the arming are sealed from the other sides
    until the window closes, and the arming is never shown them before."""
    t = _reroll_table([9, 5, 1])
    salt = "ab" * 32
    t.act("standing", {"step": "initiative.reroll", "demand": True}, side="allies",
          extra={"seq": 2, "standing_salts": {"allies": salt, "axis": "cd" * 32}})
    armed = named(t, "standing.armed")[0]
    answered = named(t, "initiative.reroll_answered")[0]
    assert answered.data == {"side": "allies", "demand": True, "salt": salt}
    assert armed.data["first_window"] == 1
    axis, allies = Viewer(role="player", side="axis"), Viewer(role="player", side="allies")
    for event in (armed, named(t, "standing.answered")[0], answered):
        assert is_sealed(event, t.state, axis) and not is_sealed(event, t.state, allies)
    assert view(t.state, axis)["standing"]["orders"] == []
    t.act("initiative.reroll", {"demand": False}, side="axis", extra={"salt": "ee" * 32})
    t.act("initiative.reroll", {"demand": False}, side="communists", extra={"salt": "ef" * 32})
    assert t.state.step != "initiative.reroll"
    for event in (armed, answered):
        assert not is_sealed(event, t.state, axis)


def test_a_reroll_order_armed_after_its_window_is_sealed_until_the_next_one_closes() -> None:
    t = _reroll_table([9, 5, 1])
    skip_initiative(t)
    arm(t, "allies", "initiative.reroll", 1)
    armed = named(t, "standing.armed")[0]
    assert armed.data["first_window"] == 2
    assert is_sealed(armed, t.state, Viewer(role="player", side="axis"))
    assert not is_sealed(armed, t.state, Viewer(role="gm"))


def test_steps_plays_its_orders_then_holds_done_through_a_later_step() -> None:
    """The Axis moves and is done through exploitation in one order: its action step's
    done now, its combat step's answered by the held done (named by the order), and the
    game stops at its reorganization step."""
    t = game({"ger-inf-2": {"ocs": {"mode": "reserve"}},
              "cw-arm-1": {"ocs": {"mode": "combat", "orientation": "combat"}},
              "sov-inf-2": {"ocs": {"mode": "combat", "orientation": "combat"}}})
    t.act("steps", {"orders": [{"kind": "report", "body": {"moves": [
        move("ger-inf-1", "h31")]}}], "through": "exploitation"}, side="axis",
        extra={"seq": 11})
    held = [e.data for e in named(t, "standing.answered")]
    assert [(d["step"], d["kind"], d["seq"]) for d in held] == [
        ("combat", "steps", 11), ("exploitation", "steps", 11)]
    assert t.state.step == "reorganization"


def test_steps_is_all_or_nothing_and_points_into_the_refused_order() -> None:
    t = game()
    before = t.state
    with pytest.raises(RulesError) as caught:
        t.act("steps", {"orders": [
            {"kind": "report", "body": {"moves": [move("ger-inf-2", "h50")]}},
            {"kind": "mode", "body": {"changes": [{"unit": "ger-inf-2", "mode": "strat"}]}}]},
              side="axis")
    assert caught.value.errors[0][0].startswith("/body/orders/1/body/changes/0")
    assert caught.value.message.startswith("orders/1 (mode):")
    assert t.state == before


def test_held_done_is_disarmed_when_a_unit_of_the_side_is_attacked_rn31() -> None:
    """RULES-NOTES 31: the Allies react with a released Reserve that overruns ger-inf-1;
    the Axis's held done, stopped by `unit_attacked`, is disarmed at its combat step and
    the Axis is asked."""
    t = game({"cw-arm-1": {"at": "h20"}})
    t.act("steps", {"orders": [], "through": "exploitation",
                    "stops": [{"kind": "unit_attacked"}]}, side="axis", extra={"seq": 4})
    t.act("release", {"units": ["cw-arm-1"]}, side="allies")
    report(t, "allies", combats=[{"by": "overrun", "hex": "h30", "attackers": ["cw-arm-1"],
                                  "results": [{"kind": "dg"}]}])
    t.act("done", side="allies")
    t.act("done", side="communists")
    [gone] = named(t, "standing.disarmed")
    assert (gone.data["kind"], gone.data["stop"], gone.data["seq"]) == (
        "steps", "unit_attacked", 4)
    assert t.state.step == "combat" and t.awaiting()[0]["side"] == "axis"


def test_steps_through_a_passed_step_is_refused() -> None:
    t = game()
    until(t, "combat")
    with pytest.raises(Refused) as caught:
        t.act("steps", {"orders": [], "through": "action"}, side="axis")
    assert caught.value.code == "steps/through_passed"


@pytest.mark.parametrize(("body", "code"), [
    ({"step": "reaction", "stops": [{"kind": "initiative_close", "within": 1}]},
     "standing/stop_step"),
    ({"step": "reaction", "demand": True}, "order/invalid_body"),
    ({"step": "declare"}, "order/invalid_body"),
    ({"step": "reaction", "stops": [{"kind": "unit_attacked"}, {"kind": "unit_attacked"}]},
     "order/invalid_body"),
])
def test_malformed_standing_orders_are_refused(body: dict[str, Any], code: str) -> None:
    t = game()
    with pytest.raises(Malformed) as caught:
        t.act("standing", body, side="allies")
    assert caught.value.code == code


def test_the_game_may_forbid_standing_orders_for_a_step() -> None:
    t = game(options={"standing": {"steps": ["reaction"]}})
    arm(t, "allies", "reaction", 1)
    with pytest.raises(Refused) as caught:
        arm(t, "allies", "initiative.reroll", 2)
    assert caught.value.code == "standing/not_allowed"


def to_final_reorganization(t: Table) -> None:
    """Every side passes (or is done) until the turn's final reorganization step."""
    for _ in range(200):
        if t.state.step == "final_reorganization" or t.state.turn.number > 1:
            break
        entry = t.awaiting()[0]
        if entry["step"] == "declare":
            t.act("declare", {"actions": {p: "pass" for p in entry["powers"]}},
                  side=entry["side"])
        else:
            t.act("done", side=entry["side"], body={"confirm_lapse": True}
                  if entry["step"] == "reorganization" else None)
    assert t.state.step == "final_reorganization"


DOWN = ("ger-inf-1", "ger-inf-3", "cw-inf-1", "sov-inf-1")


def final_game() -> Table:
    """A game whose final reorganization step has a face-down unit of every side."""
    return game({u: {"face_up": False} for u in DOWN})


def test_a_final_reorganization_order_spends_the_cheapest_way_then_is_done_11_18() -> None:
    """11.18, issue 30: the Axis's and the Allies' orders each spend their RPs on every
    face-down unit, the cheapest legal way the planner lists, in `reorg` orders named by
    their signer, and only then are done; the side that armed none is asked."""
    t = final_game()
    arm(t, "axis", "final_reorganization", 3)
    arm(t, "allies", "final_reorganization", 4)
    to_final_reorganization(t)
    answered = {e.data["side"]: e.data["seq"] for e in named(t, "standing.answered")
                if e.data["step"] == "final_reorganization"}
    assert answered == {"axis": 3, "allies": 4}
    spent = [e for e in named(t, "unit.reorganized") if e.step == "final_reorganization"]
    assert sorted(e.data["unit"] for e in spent) == ["cw-inf-1", "ger-inf-1", "ger-inf-3"]
    assert {e.data["unit"]: e.actor for e in spent} == {
        "ger-inf-1": "p-axis", "ger-inf-3": "p-axis", "cw-inf-1": "p-allies"}
    for uid in ("ger-inf-1", "ger-inf-3", "cw-inf-1"):
        assert t.state.units[uid].face_up
    kinds = [(e.kind, e.data.get("side")) for e in t.events if e.step == "final_reorganization"]
    axis_done = kinds.index(("side.done", "axis"))
    assert kinds.index(("standing.answered", "axis")) < axis_done
    assert [a["side"] for a in t.awaiting()] == ["communists"]
    assert not t.state.units["sov-inf-1"].face_up


def test_the_cheapest_way_is_what_the_planner_lists_cheapest() -> None:
    """Each unit is reorganized at the least cost the planner (`GET .../reorg/options`)
    lists for it at the start of the step, as the page's "Add the cheapest way" picks."""
    asked = final_game()
    to_final_reorganization(asked)
    planner = Planner(asked.state)
    least = {uid: min(o.cost or 0 for o in planner.plan(uid).options if o.power == "germany")
             for uid in ("ger-inf-1", "ger-inf-3")}
    t = final_game()
    arm(t, "axis", "final_reorganization", 3)
    to_final_reorganization(t)
    costs = {e.data["unit"]: e.data["cost"] for e in named(t, "unit.reorganized")
             if e.step == "final_reorganization"}
    assert {uid: costs[uid] for uid in least} == least


def test_the_rps_lapse_stop_asks_the_side_after_spending_with_the_figure() -> None:
    """11.18 (RPs may not be saved): with `rps_lapse` the order spends, then, RPs still
    left, is disarmed with the figure and the side asked; what it spent stays, and no RP
    lapsed until a player of the side says done."""
    t = final_game()
    arm(t, "axis", "final_reorganization", 3, stops=[{"kind": "rps_lapse"}])
    to_final_reorganization(t)
    [gone] = named(t, "standing.disarmed")
    left = t.state.powers["germany"].rps
    assert left > 0 and gone.data["stop"] == "rps_lapse"
    assert gone.data["reason"] == (f"{left} RPs would lapse (germany {left}; 11.18: RPs may "
                                   "not be saved)")
    assert t.state.units["ger-inf-1"].face_up and "axis" not in t.state.turn.sides_done
    assert not [e for e in named(t, "rps.lapsed") if e.data["side"] == "axis"
                and e.data["step"] == "final_reorganization"]
    assert "axis" in [a["side"] for a in t.awaiting()]


def test_a_saved_plan_is_played_first() -> None:
    """The side's own plan (a `reorg` body) goes before the cheapest way: ger-inf-1 is
    reorganized from the HQ as planned; a planned item the step refuses (a unit face
    up) is left out, and the cheapest way takes the rest."""
    t = final_game()
    plan = [{"power": "germany", "items": [
        {"unit": "ger-arm-1", "method": "primary", "source": "h41"},
        {"unit": "ger-inf-1", "method": "hq", "hq": "ger-hq-1"}]}]
    arm(t, "axis", "final_reorganization", 3, plan=plan)
    to_final_reorganization(t)
    spent = [e.data for e in named(t, "unit.reorganized") if e.step == "final_reorganization"
             and e.data["power"] == "germany"]
    assert spent[0]["unit"] == "ger-inf-1" and spent[0]["method"] == "hq"
    assert {d["unit"] for d in spent} == {"ger-inf-1", "ger-inf-3"}


def test_spend_none_is_only_done_and_says_what_lapses() -> None:
    """`spend: none` spends nothing; its `done` says in the answer what lapses, and the
    lapse is logged (never silently)."""
    t = final_game()
    arm(t, "axis", "final_reorganization", 3, spend="none")
    to_final_reorganization(t)
    final = [e for e in t.events if e.step == "final_reorganization"]
    assert not [e for e in final if e.kind == "unit.reorganized"
                and e.data["power"] == "germany"]
    [lapsed] = [e for e in final if e.kind == "rps.lapsed" and e.data["side"] == "axis"]
    assert lapsed.data["amount"] == 35
    [answer] = [e for e in final if e.kind == "standing.answered"]
    assert answer.text.startswith("axis: the final reorganization step answered by order 3 "
                                  "of p-axis: it spends RPs (nothing), then is done")


def test_rps_lapse_is_a_stop_of_final_reorganization_and_steps_orders_only() -> None:
    t = game()
    with pytest.raises(Malformed) as caught:
        arm(t, "allies", "reaction", 1, stops=[{"kind": "rps_lapse"}])
    assert caught.value.code == "standing/stop_step" and caught.value.rule == "11.18"
    with pytest.raises(Malformed) as caught:
        arm(t, "allies", "reaction", 1, spend="cheapest")
    assert caught.value.errors[0][0] == "/body/spend"
    with pytest.raises(Malformed) as caught:
        arm(t, "allies", "final_reorganization", 1, plan=[{"power": "cw", "items": [
            {"unit": "nobody", "method": "chit"}]}])
    assert caught.value.errors[0][0] == "/body/plan/0/items/0/unit"


def test_done_through_reorganization_stops_before_rps_lapse() -> None:
    """Issue 30: the Axis is done through its reorganization step with `rps_lapse`; a unit
    of it is face down, so the step has RPs to spend: the held done is disarmed with the
    figure and the Axis is asked there, its RPs whole."""
    t = game({"ger-inf-3": {"face_up": False}})
    t.act("steps", {"orders": [], "through": "reorganization",
                    "stops": [{"kind": "rps_lapse"}]}, side="axis", extra={"seq": 9})
    until(t, "reorganization")
    [gone] = named(t, "standing.disarmed")
    assert (gone.data["kind"], gone.data["stop"]) == ("steps", "rps_lapse")
    assert gone.data["reason"].startswith("35 RPs would lapse (germany 35")
    assert t.awaiting()[0]["side"] == "axis" and t.state.powers["germany"].rps == 35
    assert not named(t, "rps.lapsed")


def test_a_held_done_that_lets_rps_lapse_says_how_many() -> None:
    """Without the stop the held done answers, and its answer says what lapses."""
    t = game({"ger-inf-3": {"face_up": False}})
    t.act("steps", {"orders": [], "through": "reorganization"}, side="axis",
          extra={"seq": 9})
    until(t, "declare")
    [answer] = [e for e in named(t, "standing.answered") if e.data["step"] == "reorganization"]
    assert answer.text.endswith("; 35 unspent RPs lapse (germany 35).")
    assert [e.data["amount"] for e in named(t, "rps.lapsed")] == [35]
