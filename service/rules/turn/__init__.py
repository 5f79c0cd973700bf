"""The turn (seed 002 "Drang Nach Osten: the Initiative and Impulse Tracks"; docs/api.md):
three-sided initiative, rounds and weather, the impulse's steps, the turn-end track.
"""

from service.rules.turn.bodies import (
    Chit,
    ChooseBody,
    DeclareBody,
    DoneBody,
    ProductionBody,
    RerollBody,
    RollBody,
)
from service.rules.turn.defaults import apply_defaults
from service.rules.turn.evolve import EVOLVE as _TURN_EVOLVE
from service.rules.turn.orders import (
    answer_reroll,
    choose_slot,
    declare,
    done,
    produce,
    reroll,
    roll,
)
from service.rules.turn.sequence import new_chain, start_game
from service.rules.turn.weather import EVOLVE as _WEATHER_EVOLVE
from service.rules.turn.weather import set_weather_table

EVOLVE = {**_TURN_EVOLVE, **_WEATHER_EVOLVE}

__all__ = [
    "Chit", "ChooseBody", "DeclareBody", "DoneBody", "ProductionBody", "RerollBody", "RollBody",
    "EVOLVE", "answer_reroll", "apply_defaults", "choose_slot", "declare", "done", "produce",
    "reroll", "roll",    "new_chain", "set_weather_table", "start_game",
]
