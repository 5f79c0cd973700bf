"""The bodies of the orders of an air reorganization mission (11.18.1; docs/api.md "ATR
missions"): announcing it, the combat air patrol, the flight of ATRs and escorts, each
side's interception, and the answer to what an air-to-air result leaves to a side."""

from __future__ import annotations

from typing import Annotated, NotRequired

from annotated_types import MaxLen, MinLen
from typing_extensions import TypedDict

from service.rules.shapes import closed

Units = Annotated[list[str], MaxLen(50)]


@closed
class Placement(TypedDict):
    """A fighter and the hex it flies to."""

    unit: str
    hex: str


Placements = Annotated[list[Placement], MaxLen(50)]


@closed
class AirBeginBody(TypedDict):
    """`air.begin`: the reorganizing side flies air reorganization this step; the
    enemies' combat air patrol comes first (11.18.1 step 1)."""


@closed
class AirPatrolBody(TypedDict):
    """`air.patrol`: the fighters flown on combat air patrol, each to a potential target
    hex (11.18.1 step 1); empty: no patrol."""

    patrols: Placements


@closed
class Flight(TypedDict):
    """An ATR flown to `hex` to reorganize `units` there (1, or 2 for a large ATR within
    half its range: Option 36)."""

    atr: str
    hex: str
    units: Annotated[list[str], MinLen(1), MaxLen(2)]


@closed
class AirFlyBody(TypedDict):
    """`air.fly`: every ATR selected, with its target, and the escorting fighters, each to
    a target hex (11.18.1 step 2); `power` pays for the reorganization. No flights: the
    side flies nothing."""

    power: str
    flights: Annotated[list[Flight], MaxLen(20)]
    escorts: NotRequired[Placements]


@closed
class AirInterceptBody(TypedDict):
    """`air.intercept`: the fighters flown to intercept, each to a target hex (11.18.1
    step 3 for the enemies, step 4 for the flying side); empty: none."""

    interceptors: Placements


@closed
class AirChooseBody(TypedDict):
    """`air.choose`: which of the side's aircraft in the air-to-air combat over `hex` are
    lost and which aborted, as the result asks (11.18.1 step 5)."""

    hex: str
    lost: Units
    aborted: Units
