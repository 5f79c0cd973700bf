"""The dice as the rules see them: an argument, never a global.

The referee supplies an implementation (seed chains, docs/dice.md); tests supply
scripted ones. A roll's `trigger` is what the signed command that made it contributes
(the hash of its signature), so no server-chosen input enters a die.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll: `count` dice of `faces` for one purpose, with the inputs that made it."""

    turn: int
    index: int
    purpose: str
    faces: int
    values: tuple[int, ...]
    source: str  # fair | seeded | scripted
    trigger: str
    scripted: int = 0  # how many values came from the GM's script


class Dice(Protocol):
    def commit(self, chain: int, from_turn: int) -> tuple[str, int]:
        """A new chain of seeds from `from_turn` on: its anchor and its length in turns."""
        ...

    def reveal(self, turn: int) -> str:
        """The turn's seed as hex, for the log once the turn is over."""
        ...

    def roll(self, *, turn: int, index: int, purpose: str, count: int, faces: int,
             script_position: int, trigger: str) -> Roll: ...
