"""Driving the pure rules directly: a game in memory with scripted dice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from support import SIDES, scenario

from service.rules import Actor, Command, Event, Setup, State, decide, fold, initial_state
from service.rules.awaiting import awaiting
from service.rules.dice import Roll
from service.rules.options import resolve_options
from service.rules.scenario import parse_scenario

AT = "2026-01-01T00:00:00+00:00"


class ScriptDice:
    """Dice from per-purpose lists; when a list runs out, a fixed cycle 1..10."""

    def __init__(self, script: dict[str, list[int]] | None = None) -> None:
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.counter = 0

    def commit(self, chain: int, from_turn: int) -> tuple[str, int]:
        return f"{chain:032x}{from_turn:032x}", 1000

    def reveal(self, turn: int) -> str:
        return f"{turn:064x}"

    def roll(self, *, turn: int, index: int, purpose: str, count: int, faces: int,
             script_position: int, trigger: str) -> Roll:
        values = []
        for _ in range(count):
            if self.script.get(purpose):
                values.append(self.script[purpose].pop(0))
            else:
                self.counter += 1
                values.append((self.counter - 1) % faces + 1)
        return Roll(turn, index, purpose, faces, tuple(values), "scripted", trigger)


@dataclass
class Table:
    """A game in memory: the state, every event so far, and the seats."""

    state: State
    dice: ScriptDice
    events: list[Event] = field(default_factory=list)
    initial: State | None = None

    def act(self, kind: str, body: dict[str, Any] | None = None, *, side: str | None = None,
            role: str = "player", at: str = AT, extra: dict[str, Any] | None = None
            ) -> list[Event]:
        if role == "player":
            assert side is not None
            actor = Actor(id=f"p-{side}", role="player", side=side,
                          powers=self.state.side_powers(side))
        else:
            actor = Actor(id=role, role=role)
        before = self.state
        decision = decide(self.state, Command(kind, body or {}, actor, at, extra=extra or {}),
                          self.dice)
        events, self.state = decision.events, decision.state
        assert fold(before, events) == self.state  # evolve replays what decide saw
        self.events += events
        return events

    def awaiting(self) -> list[dict[str, Any]]:
        return awaiting(self.state)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def done_steps(self) -> None:
        """Answer `done` for every side awaited in a done-step."""
        done = ("action", "reaction", "combat", "exploitation", "reorganization",
                "final_reorganization")
        while (waiting := [a for a in self.awaiting() if a["step"] in done]):
            self.act("done", side=waiting[0]["side"])


def table(script: dict[str, list[int]] | None = None, *, name: str = "mini",
          changes: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
          boxes: dict[str, int] | None = None) -> Table:
    data = scenario(name)
    for side in data["sides"]:
        if boxes and side["id"] in boxes:
            side["initiative_box"] = boxes[side["id"]]
    for key, value in (changes or {}).items():
        data[key] = value
    sc = parse_scenario(data)
    setup = Setup(game_id="g-test", scenario=sc,
                  options=resolve_options(options, len(sc.sides)), dice_mode="scripted")
    state = initial_state(setup)
    t = Table(state=state, dice=ScriptDice(script), initial=state)
    for side in [s.id for s in sc.sides]:
        t.act("seat.take", {"side": side, "powers": None, "name": side,
                            "player_id": f"p-{side}"}, side=side)
    return t


def skip_initiative(t: Table, order: Sequence[str] = SIDES) -> None:
    """Answer the reroll window with no, then choose so the order is `order`."""
    if t.state.step == "initiative.reroll":
        for side in t.state.initiative.eligible:
            t.act("initiative.reroll", {"demand": False}, side=side)
    first = True
    while t.state.step == "initiative.choose":
        chooser = t.state.initiative.chooser
        assert chooser is not None
        remaining = [s for s in order if s not in t.state.initiative.slots]
        wants_front = remaining.index(chooser) == 0
        if first:
            t.act("initiative.choose", {"position": "first" if wants_front else "last"},
                  side=chooser)
        else:
            t.act("initiative.choose", {"position": "before" if wants_front else "after"},
                  side=chooser)
        first = False
