"""Evolve handlers for the game's life outside the turn: seats, pause, end, deadlines."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from service.rules.events import Event
from service.rules.evolve import evolves
from service.rules.state import Seat, State


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
    return replace(state, status="paused", paused_at=e.at)


@evolves("game.resumed")
def _resumed(state: State, e: Event) -> State:
    """Clocks stop while paused: the step's start moves forward by the pause's length."""
    started = state.turn.step_started_at
    if started and state.paused_at:
        paused_for = datetime.fromisoformat(e.at) - datetime.fromisoformat(state.paused_at)
        started = (datetime.fromisoformat(started) + paused_for).isoformat()
    return replace(state, status="active", paused_at=None,
                   turn=replace(state.turn, step_started_at=started))


@evolves("game.ended")
def _ended(state: State, e: Event) -> State:
    return replace(state, status="finished", turn=replace(state.turn, step="finished"))


@evolves("deadlines.set")
def _deadlines(state: State, e: Event) -> State:
    return replace(state, deadlines={k: int(v) for k, v in e.data["deadlines"].items()})
