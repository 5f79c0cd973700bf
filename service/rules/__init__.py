"""The game, pure: state, commands, `decide` and `evolve`, views. No I/O, no clock,
no global randomness, no framework: deterministic given (state, command, dice).

The core sits here (state, events, commands, decide/evolve, codec, errors, options,
dice, awaiting, views, the combat preview); the game's parts are packages: `turn` (seed
002), `board` (the map engine), `reorg` (11.18), `modes` (OCS 5.0, and the combats the
scenario's tables decide), `combat` (the table engine), `gm` (the game master),
`standing` (answers given ahead) and `scenario` (the format).
"""

from service.rules.awaiting import (
    awaiting,
    clock_started,
    current_step,
    next_due,
    position,
    steps_of,
)
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
from service.rules.preview import combat_preview
from service.rules.state import PositionStep, Setup, State, Step, initial_state

__all__ = [
    "ACT_BODIES", "ActBody", "Actor", "Command", "DeadlinesBody", "Decision", "DropoutBody",
    "EVENT_DATA", "EditBody", "Event", "EventRecord", "Forbidden", "GM_ACTS", "KeyBody",
    "Malformed", "ORDERS", "ORDER_BODIES", "PauseBody", "PositionStep", "RULES_VERSION",
    "ReasonBody", "Refused", "RollbackBody", "RulesError", "Sealed", "Setup", "State", "Step",
    "WeatherBody", "awaiting", "clock_started", "combat_preview", "current_step", "decide",
    "evolve", "fold", "initial_state", "next_due", "position", "steps_of",
]
