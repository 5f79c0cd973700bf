"""The bodies of the modes orders (OCS 5.0; docs/api.md "Order kinds"): mode changes,
releases of Reserves and the report of what was played on the map."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from annotated_types import Ge, Le, MaxLen, MinLen
from typing_extensions import TypedDict

from service.rules.shapes import Pattern, closed

Mode = Literal["combat", "move", "reserve", "strat", "exploit", "dg"]
Orientation = Literal["combat", "move"]
Transport = Literal["rail", "air", "sea", "amphibious"]
Work = Literal["engineering", "gauge", "rail_repair", "hedgehog"]
CombatBy = Literal["overrun", "combat", "barrage", "naval"]
ResultKind = Literal["dg", "loss", "eliminated", "retreat", "exploit", "ignored", "advance",
                     "shattered"]
MissionResult = Literal["shattered", "eliminated"]
Units = Annotated[list[str], MinLen(1), MaxLen(500)]


@closed
class ModeChange(TypedDict):
    """A unit's new mode (OCS 5.3) and, where it has a choice, the side that shows."""

    unit: str
    mode: Mode
    orientation: NotRequired[Orientation]


@closed
class ModeBody(TypedDict):
    """`mode`: mode changes of the phasing side's units in the action step."""

    changes: Annotated[list[ModeChange], MinLen(1), MaxLen(500)]


@closed
class ReleaseBody(TypedDict):
    """`release`: Reserve units released in the reaction step (OCS 5.7b)."""

    units: Units


@closed
class Move(TypedDict):
    """A unit's move: where it ends, the hexes entered (the referee fills in the one
    cheapest path when there is one), by what transport and carrier; `mp`, optional, is
    checked against what the path costs."""

    unit: str
    to: str
    mp: NotRequired[Annotated[float, Ge(0), Le(1000)] | None]
    transport: NotRequired[Transport | None]
    path: NotRequired[Annotated[list[str], MinLen(1), MaxLen(200)] | None]
    carrier: NotRequired[str | None]


@closed
class WorkItem(TypedDict):
    """Engineering, gauge conversion, rail repair or a hedgehog (OCS 5.5b, 5.10e)."""

    unit: str
    work: Work
    hex: NotRequired[str]


@closed
class Mission(TypedDict):
    """An air unit's mission: out to `to`, back to `base`, and what befell it."""

    unit: str
    to: str
    mission: NotRequired[Annotated[str, MinLen(1), MaxLen(60)]]
    base: NotRequired[str]
    result: NotRequired[MissionResult | None]


@closed
class CombatResult(TypedDict):
    """One result of a combat; which keys a kind takes: docs/api.md "report"."""

    kind: ResultKind
    hex: NotRequired[str]
    unit: NotRequired[str]
    steps: NotRequired[Annotated[int, Ge(1), Le(20)]]
    units: NotRequired[Units]
    path: NotRequired[Annotated[list[str], MinLen(1), MaxLen(50)]]
    losses: NotRequired[Annotated[list[str], MaxLen(50)]]
    rating: NotRequired[Literal[2, 3, 4]]
    text: NotRequired[Annotated[str, MaxLen(500)]]


@closed
class Combat(TypedDict):
    """An overrun, combat, barrage or naval combat and its results, in order; or its
    dice, which the referee rolls (no results yet); or the results of a combat rolled
    before (no attackers)."""

    by: CombatBy
    hex: str
    attackers: NotRequired[Units]
    results: NotRequired[Annotated[list[CombatResult], MaxLen(100)]]
    dice: NotRequired[Annotated[str, Pattern(r"^[1-9]d[1-9][0-9]?$")]]


@closed
class ReportBody(TypedDict):
    """`report`: what was played on the map in the action, reaction, combat and
    exploitation steps, applied in the order moves, works, missions, combats, face down."""

    moves: NotRequired[Annotated[list[Move], MaxLen(500)]]
    works: NotRequired[Annotated[list[WorkItem], MaxLen(500)]]
    missions: NotRequired[Annotated[list[Mission], MaxLen(500)]]
    combats: NotRequired[Annotated[list[Combat], MaxLen(200)]]
    face_down: NotRequired[Annotated[list[str], MaxLen(500)]]


@closed
class CombatChooseBody(TypedDict):
    """`combat.choose`: the answer of the side a combat's result asks (docs/api.md
    "Combat choices"): the units that take the step losses (`losses`, one per step),
    the retreat path (`retreat`, empty for none; `losses`: who loses a step in each
    enemy-ZOC hex entered by units already DG, OCS 5.10a C) or the attackers that
    advance (`advance`, empty for none)."""

    hex: str
    losses: NotRequired[Annotated[list[str], MaxLen(100)]]
    retreat: NotRequired[Annotated[list[str], MaxLen(10)]]
    advance: NotRequired[Annotated[list[str], MaxLen(100)]]
