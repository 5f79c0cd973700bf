"""The game, pure: state, commands, `decide` and `evolve`, views. No I/O, no clock,
no global randomness, no framework: deterministic given (state, command, dice).
"""

from service.rules import game as _game  # noqa: F401  (registers evolve handlers)
from service.rules import gm as _gm  # noqa: F401  (the GM's powers, rollback)
from service.rules import mode_change, release, report  # noqa: F401  (OCS modes)
from service.rules import reorg as _reorg  # noqa: F401  (the reorg order, 11.18)
from service.rules import turn as _turn  # noqa: F401
from service.rules import weather as _weather  # noqa: F401
from service.rules.decide import Actor, Command, decide
from service.rules.events import RULES_VERSION, Event
from service.rules.evolve import evolve, fold
from service.rules.state import Setup, State, initial_state

__all__ = [
    "RULES_VERSION", "Actor", "Command", "Event", "Setup", "State", "decide", "evolve",
    "fold", "initial_state",
]
