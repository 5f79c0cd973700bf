"""What rollbacks abandoned: the events a `game.rolled_back` names, except those whose
effects survive it (who plays, the clock, the dice record). Reads mark them
`"rolled_back": true`; a later rollback looks for impulse starts among the others."""

from __future__ import annotations

from dataclasses import dataclass

from service.rules.events import EventRecord
from service.store.uow import UnitOfWork


@dataclass(frozen=True, slots=True)
class Abandoned:
    """The events a rollback abandoned: `first`..`last`, except the `kept` ones."""

    first: int
    last: int
    kept: frozenset[int]

    def __contains__(self, seq: object) -> bool:
        return isinstance(seq, int) and self.first <= seq <= self.last and seq not in self.kept


async def rollbacks(uow: UnitOfWork, game_id: str) -> list[Abandoned]:
    """What every rollback of the game abandoned, in log order."""
    return [Abandoned(int(e["data"]["abandons"][0]), int(e["data"]["abandons"][1]),
                      frozenset(int(k) for k in e["data"].get("kept", ())))
            for e in await uow.log.of_kinds(game_id, ("game.rolled_back",))]


def rolled_back(seq: int, abandoned: list[Abandoned]) -> bool:
    return any(seq in a for a in abandoned)


def annotate(record: EventRecord, abandoned: list[Abandoned]) -> EventRecord:
    """Mark an event a later rollback abandoned (`"rolled_back": true`; not hashed)."""
    if abandoned and rolled_back(record["seq"], abandoned):
        record["rolled_back"] = True
    return record
