"""Events: the facts of a game, in the past tense (`turn.began`, `power.declared`).

An event carries its position (turn, impulse, step: where the game stands once it has
happened, so "Impulse 3 begins" is labelled impulse 3), who
caused it (`actor`: "server", "clock", "gm", or a player id), a sentence for people
and structured `data` for programs. The referee adds `seq`, `rules_version` and `hash`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RULES_VERSION = "1"


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    actor: str = "server"
    turn: int = 0
    impulse: int = 0
    step: str = "join"
    at: str = ""

    def record(self, seq: int) -> dict[str, Any]:
        """The event as it is stored and hashed (without `hash`)."""
        return {
            "seq": seq,
            "turn": self.turn,
            "impulse": self.impulse,
            "step": self.step,
            "kind": self.kind,
            "actor": self.actor,
            "text": self.text,
            "data": self.data,
            "at": self.at,
            "rules_version": RULES_VERSION,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Event:
        return cls(
            kind=record["kind"],
            text=record["text"],
            data=record["data"],
            actor=record["actor"],
            turn=record["turn"],
            impulse=record["impulse"],
            step=record["step"],
            at=record["at"],
        )
