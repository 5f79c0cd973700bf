"""The bodies of the turn's orders (seed 002; docs/api.md "Order kinds"): the reroll
answer, the initiative choice, declarations, `done`, production and generic rolls."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from annotated_types import Ge, Le, MaxLen, MinLen
from typing_extensions import TypedDict

from service.rules.shapes import Pattern, closed
from service.rules.state import Action, ChitKind

Count = Annotated[int, Ge(0), Le(10_000)]


@closed
class RerollBody(TypedDict):
    """`initiative.reroll`: demand a reroll of the initiative dice (seed 002 Initiative
    Track), sealed until every eligible side answered."""

    demand: bool


@closed
class ChooseBody(TypedDict):
    """`initiative.choose`: the winner moves first or last, the runner-up before or after
    the lowest (seed 002 Initiative Track); `awaiting[].choices` says which."""

    position: Literal["first", "last", "before", "after"]


@closed
class Chit(TypedDict):
    """An offensive chit played with a power's action, by an HQ (11.18.11)."""

    kind: ChitKind
    hq: str


@closed
class DeclareBody(TypedDict):
    """`declare`: each power's action for the impulse, and the chits played."""

    actions: dict[str, Action]
    chits: NotRequired[dict[str, Chit]]


@closed
class DoneBody(TypedDict):
    """`done`: the side has finished the current step; `confirm_lapse` agrees that the
    RPs it leaves unspent in a reorganization step lapse (11.18), which a player's
    setting may require."""

    confirm_lapse: NotRequired[bool]


@closed
class PowerFigures(TypedDict):
    """A power's production: BP spent (including those on RPs) and BP on RPs."""

    bp_spent: Count
    bp_on_rps: Count


@closed
class ProductionBody(TypedDict):
    """`production`: each power's figures; next turn's RPs are `bp_spent + bp_on_rps`."""

    powers: dict[str, PowerFigures]


@closed
class RollBody(TypedDict):
    """`roll`: dice the rules need rolled on the table, by the server (docs/dice.md)."""

    dice: Annotated[str, Pattern(r"^[1-9][0-9]?d[1-9][0-9]{0,2}$")]
    purpose: Annotated[str, MinLen(1), MaxLen(200)]
