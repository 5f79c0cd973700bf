"""RPs never lapse silently (issue 16, item 4; 11.18: "RPs may not be saved; any unused
RPs are lost"): the view shows what lapses when the side says done; the `done` is
accepted and logs `rps.lapsed` per power; a player who asked for it confirms."""

from __future__ import annotations

import pytest
from engine import Table
from modes_kit import game, until

from service.rules import Actor, Command, decide
from service.rules.errors import Malformed, Refused
from service.rules.view import Viewer, view

AXIS = Viewer(role="player", player_id="p-axis", side="axis", powers=("germany",))


def _reorganizing() -> Table:
    t = game({"ger-inf-3": {"face_up": False}})
    until(t, "reorganization")
    assert t.state.powers["germany"].rps == 35
    return t


def test_the_view_shows_the_rps_that_lapse_when_the_side_is_done_11_18() -> None:
    t = _reorganizing()
    assert view(t.state, AXIS)["reorg"]["rps_lapse_on_done"] == {"germany": 35}


def test_done_with_unspent_rps_logs_their_lapse_11_18() -> None:
    t = _reorganizing()
    t.act("done", side="axis")
    lapsed = [e for e in t.events if e.kind == "rps.lapsed"]
    assert [e.data for e in lapsed] == [{"power": "germany", "amount": 35, "side": "axis",
                                         "step": "reorganization"}]
    assert "germany's 35 unspent RPs lapse" in lapsed[0].text


def _done(t: Table, body: dict[str, object], required: bool) -> None:
    state = t.state
    actor = Actor(id="p-axis", role="player", side="axis", powers=("germany",))
    extra = {"confirm_lapse": "required"} if required else {}
    command = Command("done", body, actor, "2026-01-01T00:00:00+00:00", extra=extra)
    t.state = decide(state, command, t.dice).state


def test_a_player_who_asked_confirms_a_lapse_11_18() -> None:
    t = _reorganizing()
    with pytest.raises(Refused) as caught:
        _done(t, {}, required=True)
    assert (caught.value.code, caught.value.rule, caught.value.extra["lapse"]) == (
        "reorg/confirm_lapse", "11.18", {"germany": 35})
    with pytest.raises(Malformed):
        _done(t, {"confirm_lapse": "yes"}, required=True)
    _done(t, {"confirm_lapse": True}, required=True)
    assert t.state.powers["germany"].rps == 0


def test_a_deadline_forcing_done_logs_the_lapse_too_11_18() -> None:
    t = _reorganizing()
    t.act("admin.force", {"reason": "deadline"}, role="gm")
    assert any(e.kind == "rps.lapsed" for e in t.events)
