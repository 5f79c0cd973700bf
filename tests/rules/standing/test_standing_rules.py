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
    """The Axis armed exploitation only: its combat step still waits for it; and the
    Allies' exploitation order has nothing to do with the Axis's steps."""
    t = game({"ger-inf-2": {"ocs": {"mode": "reserve"}}})
    arm(t, "axis", "exploitation", 1)
    arm(t, "allies", "exploitation", 2)
    until(t, "combat")
    assert t.state.step == "combat" and t.awaiting()[0]["side"] == "axis"
    assert not [e for e in named(t, "standing.answered") if e.data["side"] == "axis"]
    t.act("done", side="axis")
    answered = [e.data for e in named(t, "standing.answered") if e.data["side"] == "axis"]
    assert answered == [{"side": "axis", "step": "exploitation", "kind": "standing",
                         "player": "p-axis", "seq": 1}]
    assert not [e for e in named(t, "standing.answered") if e.data["side"] == "allies"]


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


def test_a_standing_combat_order_answers_done_at_the_sides_combat_step() -> None:
    """The combat step asks the phasing side only (RULES-NOTES 31): armed for combat,
    its answer is `done` there, named by the order; the game goes on to exploitation."""
    t = game({"ger-inf-2": {"ocs": {"mode": "reserve"}}})
    arm(t, "axis", "combat", 6)
    arm(t, "communists", "combat", 2)  # no combat step of theirs in this impulse
    t.act("done", side="axis")
    until(t, "exploitation")
    answered = [e.data for e in named(t, "standing.answered")]
    assert answered == [{"side": "axis", "step": "combat", "kind": "standing",
                         "player": "p-axis", "seq": 6}]
    kinds = t.kinds()
    at = kinds.index("standing.answered")
    assert kinds[at + 1] == "side.done" and t.events[at + 1].data["side"] == "axis"


# long: a whole turn answered to its final reorganization, with declarations and done.
def test_a_standing_final_reorganization_order_answers_done_for_each_side() -> None:
    """seed 002 Turn End: at the final reorganization every side armed for it answers
    `done` by its order; the side that did not arm one is asked (each side has a unit
    face down, so each is in the step)."""
    t = game({u: {"face_up": False} for u in ("ger-inf-1", "cw-inf-1", "sov-inf-1")})
    arm(t, "axis", "final_reorganization", 3)
    arm(t, "allies", "final_reorganization", 4)
    for _ in range(200):
        if t.state.step == "final_reorganization" or t.state.turn.number > 1:
            break
        entry = t.awaiting()[0]
        if entry["step"] == "declare":
            t.act("declare", {"actions": {p: "pass" for p in entry["powers"]}},
                  side=entry["side"])
        else:
            t.act("done", side=entry["side"])
    assert t.state.step == "final_reorganization"
    answered = {e.data["side"]: e.data["seq"] for e in named(t, "standing.answered")
                if e.data["step"] == "final_reorganization"}
    assert answered == {"axis": 3, "allies": 4}
    assert [a["side"] for a in t.awaiting()] == ["communists"]
