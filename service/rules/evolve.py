"""`evolve(state, event) -> state`: apply one fact. Handlers register by event kind.

Replaying a game's events from its initial state with `fold` must give its snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from service.rules.events import Event
from service.rules.state import State

Handler = Callable[[State, Event], State]
HANDLERS: dict[str, Handler] = {}


def evolves(*kinds: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for kind in kinds:
            if kind in HANDLERS:
                raise ValueError(f"two handlers for {kind}")
            HANDLERS[kind] = handler
        return handler

    return register


def evolve(state: State, event: Event) -> State:
    handler = HANDLERS.get(event.kind)
    return state if handler is None else handler(state, event)


def fold(state: State, events: Iterable[Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state
