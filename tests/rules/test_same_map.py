"""What a version changes on the map (issue 33, `same_map`): a standing order or a roll
bumps a game's version but changes nothing a unit's legal choices (OCS 5.3-5.9), a
reorganization plan (11.18) or supply read, so what was computed for the version before
holds; a move does change the map."""

from __future__ import annotations

from dataclasses import replace

from modes_kit import game, move, report

from service.rules.modes import unit_options
from service.rules.state import OFF_THE_MAP, same_map


def test_a_standing_order_and_a_roll_leave_the_map_the_same() -> None:
    t = game()
    before = t.state
    t.act("standing", {"step": "reaction"}, side="allies", extra={"seq": 1})
    assert t.state is not before and t.state.standing != before.standing
    assert same_map(before, t.state)
    armed = t.state
    t.act("roll", {"dice": "1d6", "purpose": "for the table"}, side="axis")
    assert t.state.dice != armed.dice and same_map(before, t.state)
    assert unit_options(before, "ger-arm-1") == unit_options(t.state, "ger-arm-1")


def test_a_move_changes_the_map() -> None:
    t = game()
    before = t.state
    report(t, moves=[move("ger-arm-1", "h31")])
    assert not same_map(before, t.state)


def test_every_field_off_the_map_is_one_a_unit_choice_never_reads() -> None:
    """Changing any other field makes the map differ (the list is the whole exception)."""
    t = game()
    state = t.state
    assert OFF_THE_MAP == {"standing", "dice", "deadlines", "seats", "proposal", "proposals"}
    assert not same_map(state, replace(state, status="paused"))
    assert not same_map(state, replace(state, units=dict(state.units, **{
        "ger-arm-1": replace(state.units["ger-arm-1"], face_up=False)})))
    assert same_map(state, replace(state, deadlines={"action": 3600}))
