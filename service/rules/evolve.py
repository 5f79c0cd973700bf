"""`evolve(state, event) -> state`: apply one fact, by the explicit table of event kinds
each package keeps (`EVOLVE`). An event kind no package changes the state for (a roll's
label, a refusal in the log) leaves it as it is.

Replaying a game's events from its initial state with `fold` must give its snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from service.rules import air, gm, modes, reorg, standing, turn
from service.rules.events import Event, EventKind
from service.rules.state import Evolver, State


def _merged(*tables: Mapping[EventKind, Evolver]) -> dict[EventKind, Evolver]:
    merged: dict[EventKind, Evolver] = {}
    for table in tables:
        for kind, handler in table.items():
            if kind in merged:
                raise ValueError(f"two packages change the state for {kind}")
            merged[kind] = handler
    return merged


EVOLVE: Mapping[EventKind, Evolver] = _merged(turn.EVOLVE, modes.EVOLVE, reorg.EVOLVE, gm.EVOLVE,
                                             standing.EVOLVE, air.EVOLVE)


def evolve(state: State, event: Event) -> State:
    handler = EVOLVE.get(event.kind)
    return state if handler is None else handler(state, event)


def fold(state: State, events: Iterable[Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state
