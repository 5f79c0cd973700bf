"""The running decision: a command's events so far and the state they lead to.

`decide` functions emit events through a Flow, which evolves the state at once so
later steps (the server's automatic ones) see it, and rolls dice with the chain of
events before each roll.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from service.rules.codec import to_data
from service.rules.dice import Dice, Roll
from service.rules.events import Event, EventKind
from service.rules.state import Evolver, State


class Flow:
    """`evolve` is the rules' own (`service.rules.evolve`), passed in by `decide` so that
    the packages that emit events need not import the table that imports them."""

    def __init__(self, state: State, dice: Dice | None, *, evolve: Evolver, actor: str,
                 at: str, trigger: str = "") -> None:
        self.state = state
        self.trigger = trigger
        self.evolve = evolve
        self.dice = dice
        self.actor = actor
        self.at = at
        self.events: list[Event] = []
        self.states: list[State] = []  # the state after each event

    def emit(self, kind: EventKind, text: str, data: dict[str, Any] | None = None, *,
             by: str | None = None) -> Event:
        """Record a fact; `by` is the actor (default: the server's own step). The event is
        labelled with the position it leads to (the turn, impulse and step after it)."""
        event = Event(kind=kind, text=text, data=data or {}, actor=by or "server", at=self.at)
        self.state = self.evolve(self.state, event)
        turn = self.state.turn
        event = replace(event, turn=turn.number, impulse=turn.impulse, step=turn.step)
        self.events.append(event)
        self.states.append(self.state)
        return event

    def roll(self, purpose: str, count: int, faces: int = 10, *, text: str,
             by: str | None = None, label: str | None = None) -> Roll:
        """Roll through the dice and log the roll with its inputs (docs/dice.md)."""
        if self.dice is None:
            raise RuntimeError("this command may not roll dice")
        s = self.state
        if s.turn.number in s.dice.revealed:  # nobody may roll with a known seed
            raise RuntimeError(f"the seed of turn {s.turn.number} is revealed: no more rolls")
        roll = self.dice.roll(
            turn=s.turn.number,
            index=s.dice.rolls_this_turn,
            purpose=purpose,
            count=count,
            faces=faces,
            script_position=s.dice.script_used.get(purpose, 0),
            trigger=self.trigger or s.dice.trigger,
        )
        data = to_data(roll)
        if label is not None:
            data["label"] = label
        values = ", ".join(str(v) for v in roll.values)
        self.emit("dice.rolled", f"{text}: {values}", data, by=by)
        return roll
