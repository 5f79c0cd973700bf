"""The bodies of the orders that answer ahead (issue 20; docs/api.md "Standing orders"):
`standing` arms or disarms a side's standing order for a step, `steps` gives several
orders of the side's own steps at once and holds `done` for its later steps."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from annotated_types import Ge, Le, MaxLen
from typing_extensions import TypedDict

from service.rules.air import Placements
from service.rules.modes import ModeBody, ReleaseBody, ReportBody
from service.rules.reorg import ReorgBody
from service.rules.shapes import closed
from service.rules.turn import DeclareBody, DoneBody, RollBody

# The steps a standing order may answer, and how: `initiative.reroll` with its `demand`
# (default: no reroll), every other one with `done` (the reaction: nothing released).
StandingStep = Literal["initiative.reroll", "reaction", "combat", "exploitation",
                       "final_reorganization", "combat.losses", "combat.retreat",
                       "combat.advance", "air.patrol"]
# What a standing order for a combat choice answers (docs/api.md "Combat choices").
ChoiceAnswer = Literal["default", "retreat", "losses", "advance", "stay"]
# The steps of an impulse a `steps` order may hold `done` for, up to `through`.
ThroughStep = Literal["action", "reaction", "combat", "exploitation", "reorganization"]
StopKind = Literal["enemy_adjacent_reserve", "hq_out_of_supply", "unit_attacked",
                   "initiative_close", "rps_lapse"]
# How a `final_reorganization` standing order spends the side's RPs before its `done`.
Spend = Literal["cheapest", "none"]


@closed
class StopBody(TypedDict):
    """A stop condition: when it holds as the order would answer, the order is disarmed
    and the side asked. `enemy_adjacent_reserve`: an enemy land unit next to one of the
    side's Reserve units that was not next to it when the order was armed or last
    answered; `hq_out_of_supply`: an HQ of the side out of supply;
    `unit_attacked`: a unit of the side was attacked since the order was armed or last
    answered; `initiative_close` (reroll only): the side's initiative total is within
    `within` of another side's; `rps_lapse` (`final_reorganization` and `steps` orders):
    the side's `done` would let RPs lapse (11.18: RPs may not be saved)."""

    kind: StopKind
    within: NotRequired[Annotated[int, Ge(0), Le(20)]]


Stops = Annotated[list[StopBody], MaxLen(4)]


@closed
class StandingBody(TypedDict):
    """`standing`: arm the side's standing order for `step` (replacing one armed for it),
    or disarm it with `"armed": false`. `demand` is an `initiative.reroll` order's answer
    (default false: never demand a reroll); `stops` disarm it when they hold. A
    `final_reorganization` order spends before it is done: first the `reorg` orders of
    `plan` (the side's own plan; an item the step refuses is left out), then, with
    `spend` "cheapest" (the default), the cheapest legal way for every unit still face
    down; "none" spends nothing. `answer` is a combat choice's: `combat.losses`
    "default", `combat.retreat` "retreat" or "losses", `combat.advance` "advance" or
    "stay" (the first is the default). `patrols` is a standing combat air patrol's
    (`air.patrol`, 11.18.1 step 1): the fighters it places, each over its hex whenever
    that hex is a potential target of an enemy air reorganization (empty: no patrol)."""

    step: StandingStep
    armed: NotRequired[bool]
    demand: NotRequired[bool]
    stops: NotRequired[Stops]
    spend: NotRequired[Spend]
    plan: NotRequired[Annotated[list[ReorgBody], MaxLen(12)]]
    answer: NotRequired[ChoiceAnswer]
    patrols: NotRequired[Placements]


@closed
class DeclareItem(TypedDict):
    kind: Literal["declare"]
    body: DeclareBody


@closed
class ModeItem(TypedDict):
    kind: Literal["mode"]
    body: ModeBody


@closed
class ReleaseItem(TypedDict):
    kind: Literal["release"]
    body: ReleaseBody


@closed
class ReportItem(TypedDict):
    kind: Literal["report"]
    body: ReportBody


@closed
class RollItem(TypedDict):
    kind: Literal["roll"]
    body: RollBody


@closed
class DoneItem(TypedDict):
    kind: Literal["done"]
    body: DoneBody


@closed
class ReorgStep(TypedDict):
    """A `reorg` in a `steps` order (named apart from the reorganization's own items)."""

    kind: Literal["reorg"]
    body: ReorgBody


# One order of a `steps` order: a kind of the side's own steps and its body.
StepItem = DeclareItem | ModeItem | ReleaseItem | ReportItem | RollItem | DoneItem | ReorgStep
ITEM_KINDS: tuple[str, ...] = ("declare", "mode", "release", "report", "roll", "done", "reorg")


@closed
class StepsBody(TypedDict):
    """`steps`: `orders` applied now, in order, each as if signed alone at the step the
    game is then in (all or nothing); then, with `through`, the side is done with the
    step it is in and the server answers `done` for it in each of its later steps of
    this impulse up to `through`, unless one of `stops` holds first."""

    orders: Annotated[list[StepItem], MaxLen(50)]
    through: NotRequired[ThroughStep]
    stops: NotRequired[Stops]
