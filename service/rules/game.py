"""Evolve handlers for the game's life outside the turn: seats, pause, end, deadlines,
missed deadlines and dropouts."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from service.rules.events import Event
from service.rules.evolve import evolves
from service.rules.state import Seat, SideControl, State


@evolves("seat.taken")
def _seat(state: State, e: Event) -> State:
    player = e.data["player_id"]
    seat = Seat(player_id=player, side=e.data["side"], name=e.data["name"],
                powers=tuple(e.data["powers"]))
    powers = dict(state.powers)
    for p in seat.powers:
        powers[p] = replace(powers[p], holder=player)
    return replace(state, seats={**state.seats, player: seat}, powers=powers)


@evolves("game.paused")
def _paused(state: State, e: Event) -> State:
    return replace(state, status="paused", paused_at=e.at, pause_until=e.data.get("until"))


@evolves("game.resumed")
def _resumed(state: State, e: Event) -> State:
    """Clocks stop while paused: the step's start moves forward by the pause's length."""
    started = state.turn.step_started_at
    if started and state.paused_at:
        paused_for = datetime.fromisoformat(e.at) - datetime.fromisoformat(state.paused_at)
        started = (datetime.fromisoformat(started) + paused_for).isoformat()
    return replace(state, status="active", paused_at=None, pause_until=None,
                   turn=replace(state.turn, step_started_at=started))


@evolves("game.ended")
def _ended(state: State, e: Event) -> State:
    return replace(state, status="finished", turn=replace(state.turn, step="finished"))


@evolves("deadlines.set")
def _deadlines(state: State, e: Event) -> State:
    return replace(state, deadlines={k: int(v) for k, v in e.data["deadlines"].items()})


def _control(state: State, side: str, **changes: Any) -> State:
    old = state.dropouts.get(side, SideControl())
    return replace(state, dropouts={**state.dropouts, side: replace(old, **changes)})


@evolves("deadline.passed")
def _deadline_passed(state: State, e: Event) -> State:
    for side in e.data.get("sides", ()):
        state = _control(state, side, missed=state.dropouts.get(side, SideControl()).missed + 1)
    return state


@evolves("side.dropped_out")
def _dropped_out(state: State, e: Event) -> State:
    return _control(state, e.data["side"], mode=e.data["policy"])


@evolves("side.returned", "side.restored")
def _returned(state: State, e: Event) -> State:
    return _control(state, e.data["side"], missed=0, mode=None)
