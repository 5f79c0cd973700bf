"""Answering ahead (issue 20; docs/api.md "Standing orders"): standing orders a side
arms per step (the server answers for it when the step comes, until a stop condition
disarms them), `steps` orders that give several of a side's own orders at once and
hold `done` for its later steps of the impulse, and the server's answering of both.
"""

from service.rules.standing.answer import answer
from service.rules.standing.bodies import Spend, StandingBody, StepsBody, StopBody
from service.rules.standing.evolve import EVOLVE
from service.rules.standing.orders import (
    IMPULSE_STEPS,
    STANDING_STEPS,
    allowed_steps,
    arm,
    first_window,
    play_steps,
)
from service.rules.standing.stops import STOP_KINDS, stops_data
from service.rules.standing.view import HeldShown, StandingShown, StandingView, standing_view

__all__ = ["EVOLVE", "IMPULSE_STEPS", "STANDING_STEPS", "STOP_KINDS", "HeldShown",
           "Spend", "StandingBody", "StandingShown", "StandingView", "StepsBody", "StopBody",
           "allowed_steps", "answer", "arm", "first_window", "play_steps", "standing_view",
           "stops_data"]
