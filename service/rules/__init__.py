"""The game, pure: state, commands, `decide` and `evolve`, views. No I/O, no clock,
no global randomness, no framework: deterministic given (state, command, dice).

The core sits here (state, events, commands, decide/evolve, codec, errors, options,
dice, awaiting, views); the game's parts are packages: `turn` (seed 002), `board` (the
map engine), `reorg` (11.18), `modes` (OCS 5.0), `gm` (the game master) and
`scenario` (the format).
"""

from service.rules.awaiting import awaiting, current_step, next_due, position, steps_of
from service.rules.command import Actor, Command
from service.rules.decide import ACT_BODIES, GM_ACTS, ORDER_BODIES, ORDERS, Decision, decide
from service.rules.errors import Forbidden, Malformed, Refused, RulesError
from service.rules.event_data import EVENT_DATA, Sealed
from service.rules.events import RULES_VERSION, Event, EventRecord
from service.rules.evolve import evolve, fold
from service.rules.gm import (
    ActBody,
    DeadlinesBody,
    DropoutBody,
    EditBody,
    KeyBody,
    PauseBody,
    ReasonBody,
    RollbackBody,
    WeatherBody,
)
from service.rules.state import PositionStep, Setup, State, Step, initial_state

__all__ = [
    "ACT_BODIES", "EVENT_DATA", "GM_ACTS", "ORDERS", "ORDER_BODIES", "RULES_VERSION", "ActBody",
    "Actor", "Command", "DeadlinesBody", "Decision", "DropoutBody", "EditBody", "Event",
    "EventRecord", "Forbidden", "KeyBody", "PauseBody", "PositionStep", "ReasonBody",
    "RollbackBody", "Step", "WeatherBody", "Malformed", "Refused", "RulesError", "Sealed",
    "Setup", "State", "awaiting", "current_step", "decide", "evolve", "fold", "initial_state",
    "next_due", "position", "steps_of",
]
