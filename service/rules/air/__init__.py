"""Air reorganization flown as 11.18.1 says (seed 000; docs/rules-options.md "ATR
missions"): the windows of a mission (combat air patrol, the flight of ATRs and escorts,
each side's interception), the air-to-air combats and AA fire the scenario's tables
decide, the reorganization the surviving ATRs dispense and the return of every aircraft
face down. Who could fly where is `service.rules.airspace`.
"""

from service.rules.air.bodies import (
    AirBeginBody,
    AirChooseBody,
    AirFlyBody,
    AirInterceptBody,
    AirPatrolBody,
    Flight,
    Placement,
    Placements,
)
from service.rules.air.choose import answer_by_default, answer_by_standing, choose, patrol_plan
from service.rules.air.evolve import EVOLVE
from service.rules.air.orders import begin, fly, intercept, patrol, refuse_while_flying

__all__ = [
    "EVOLVE", "AirBeginBody", "AirChooseBody", "AirFlyBody", "AirInterceptBody",
    "AirPatrolBody", "Flight", "Placement", "Placements", "answer_by_default",
    "answer_by_standing", "begin", "choose", "fly", "intercept", "patrol", "patrol_plan",
    "refuse_while_flying",
]
