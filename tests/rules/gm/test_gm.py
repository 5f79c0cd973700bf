"""The game master's powers in the pure rules (docs/game-master.md): map edits reach the
board and survive a snapshot, civil disorder answers at once, a rollback restores the
position and keeps who plays, a pause ends on the clock."""

from __future__ import annotations

from dataclasses import replace

import pytest
from engine import AT, Table, skip_initiative, table

from service.rules import Actor, Command, decide, fold
from service.rules.board import Board
from service.rules.codec import to_data
from service.rules.errors import Malformed, Refused
from service.rules.gm import rolled_back_state
from service.rules.state import state_from_data


def _pass_impulse(t: Table) -> None:
    side = t.state.turn.phasing_side
    assert side is not None
    t.act("declare", {"actions": {p: "pass" for p in t.state.side_powers(side)}}, side=side)
    t.done_steps()


def test_hex_control_and_port_damage_edits_reach_the_board_and_the_snapshot() -> None:
    t = table()
    assert not Board.from_state(t.state).port_damaged("h00")
    t.act("admin.edit", {"hexes": {"h00": {"port_damaged": True},
                                   "h10": {"controller": "germany"}}, "reason": "r"}, role="gm")
    board = Board.from_state(t.state)
    assert board.port_damaged("h00")
    assert t.state.setup.scenario.map.hex("h10").controller == "germany"
    assert t.state.setup.original().scenario.map.hex("h10").controller == "cw"
    again = state_from_data(to_data(t.state), t.state.setup.original())
    assert again == t.state
    assert again.setup.scenario.map.hex("h10").controller == "germany"


def test_an_edit_names_every_bad_item() -> None:
    t = table()
    with pytest.raises(Malformed) as refused:
        t.act("admin.edit", {"units": {"cw-inf-1": {"mode": "flying", "speed": 3}}},
              role="gm")
    assert {p for p, _ in refused.value.errors} == {"/units/cw-inf-1/mode",
                                                     "/units/cw-inf-1/speed"}


def test_civil_disorder_answers_every_step_of_the_side_at_once() -> None:
    t = table({"initiative": [9, 5, 1]}, options={"dropout": {"missed_deadlines": 0}})
    t.act("admin.dropout", {"side": "communists", "reason": "gone"}, role="gm")
    assert "communists" not in [a["side"] for a in t.awaiting()]
    for side in ("axis", "allies"):
        t.act("initiative.reroll", {"demand": False}, side=side)
    skip_initiative(t, ("axis", "allies", "communists"))
    for _ in range(2):
        _pass_impulse(t)
    assert t.state.turn.phasing_side == "axis" or t.state.step != "declare"
    played = [e for e in t.events if e.actor == "civil_disorder"]
    assert {e.data["power"] for e in played if e.kind == "power.declared"} == {"ussr", "china"}


def test_every_side_in_civil_disorder_waits_for_the_gm() -> None:
    t = table(options={"dropout": {"missed_deadlines": 0}})
    for side in ("axis", "allies", "communists"):
        t.act("admin.dropout", {"side": side}, role="gm")
    # The first two were answered for while another side was still played; the last not.
    assert t.state.step == "initiative.reroll"
    assert [a["side"] for a in t.awaiting()] == ["communists"]


def test_a_rollback_restores_the_position_and_keeps_who_plays_and_the_dice_record() -> None:
    t = table({"initiative": [9, 5, 1]})
    skip_initiative(t, ("axis", "allies", "communists"))
    start = t.state
    _pass_impulse(t)
    now = replace(t.state, deadlines={"declare": 60})
    restored = rolled_back_state(now, start, "2026-02-01T00:00:00Z")
    assert restored.units == start.units and restored.turn.impulse == start.turn.impulse
    assert restored.turn.step_started_at == "2026-02-01T00:00:00Z"
    assert restored.deadlines == {"declare": 60}
    assert restored.seats == now.seats and restored.dice.commitments == now.dice.commitments
    assert restored.dice.rolls_this_turn == start.dice.rolls_this_turn


def test_consent_is_needed_from_every_other_side_and_completes_the_rollback() -> None:
    t = table({"initiative": [9, 5, 1]})
    skip_initiative(t, ("axis", "allies", "communists"))
    start = to_data(t.state)
    _pass_impulse(t)
    target = {"to_seq": 40, "abandons": [41, 60], "kept": [], "rolls": 2, "restore": start}
    events = decide(t.state, Command("admin.rollback", {"turn": 1, "impulse": 1,
                                                        "requested_by": "axis"},
                                     Actor("gm", "gm"), AT, extra={"rollback": target}),
                    t.dice).events
    t.state = fold(t.state, events)
    assert [a["step"] for a in t.awaiting()] == ["consent", "consent"]
    with pytest.raises(Refused):
        t.act("declare", {"actions": {"cw": "pass"}}, side="allies")
    t.act("consent", {"proposal": 1, "agree": True}, side="allies")
    last = decide(t.state, Command("consent", {"proposal": 1, "agree": True},
                                   Actor("p-communists", "player", "communists",
                                         ("ussr", "china")), AT), t.dice).events
    assert [e.kind for e in last] == ["rollback.consented", "game.rolled_back"]
    after = fold(t.state, last)
    assert to_data(after)["units"] == start["units"]
    assert (after.turn.number, after.turn.impulse, after.turn.step) == (1, 1, "declare")
    assert after.proposal is None


def test_a_pause_ends_on_the_clock_after_its_hours() -> None:
    t = table(options={"game": {"max_pause_hours": 5}})
    t.act("admin.pause", {"reason": "r", "hours": 2}, role="gm")
    assert t.state.pause_until == "2026-01-01T02:00:00Z"
    with pytest.raises(Refused):
        t.act("clock.expire", {}, role="clock", at="2026-01-01T01:59:00+00:00")
    t.act("clock.expire", {}, role="clock", at="2026-01-01T02:00:00+00:00")
    assert t.state.status == "active" and t.events[-1].actor == "clock"


def test_deadlines_are_logged_in_words_in_step_order() -> None:
    """Issue 30: the log says "declare 1 day; action 2 h 30 min", not a mapping of
    seconds."""
    t = table()
    t.act("admin.deadlines", {"deadlines": {"action": 9000, "declare": 86400},
                              "reason": "a day to declare"}, role="gm")
    [event] = [e for e in t.events if e.kind == "deadlines.set"]
    assert event.text == ("The GM sets step deadlines: declare 1 day; action 2 h 30 min. "
                          "a day to declare")
    assert event.data["deadlines"] == {"action": 9000, "declare": 86400}
