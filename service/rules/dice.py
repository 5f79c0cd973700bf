"""The dice as the rules see them: an argument, never a global.

The referee supplies an implementation (commit-reveal seeds, DESIGN.md 4.2); tests
supply scripted ones. `pending` is every event this command produced so far, so the
implementation can chain each roll to the hash of the event just before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from service.rules.events import Event


@dataclass(frozen=True, slots=True)
class Roll:
    """One roll: `count` dice of `faces` for one purpose, with the inputs that made it."""

    turn: int
    index: int
    purpose: str
    faces: int
    values: tuple[int, ...]
    source: str  # fair | seeded | scripted
    chain_hash: str
    scripted: int = 0  # how many values came from the GM's script


class Dice(Protocol):
    def commit(self, turn: int) -> str:
        """The commitment (sha256 hex of the turn's secret seed), made before its first roll."""
        ...

    def reveal(self, turn: int) -> str:
        """The turn's seed as hex, for the log once the turn is over."""
        ...

    def recommit(self, turn: int, epoch: int) -> str:
        """A new secret seed for the rest of `turn` (its `epoch`-th replacement: after a
        rollback past its reveal, or an import) and its commitment."""
        ...

    def roll(
        self,
        *,
        turn: int,
        index: int,
        purpose: str,
        count: int,
        faces: int,
        script_position: int,
        pending: Sequence[Event],
    ) -> Roll: ...
