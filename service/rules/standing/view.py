"""What a side sees of its standing orders and held steps (issue 20): its own, in the
state view; the GM sees every side's. Another side's are not shown (an armed reroll
answer is a sealed decision)."""

from __future__ import annotations

from typing import NotRequired, cast

from typing_extensions import TypedDict

from service.rules.air import Placement
from service.rules.reorg import ReorgBody
from service.rules.standing.bodies import Spend, StopBody
from service.rules.standing.stops import stops_data
from service.rules.state import State


class StandingShown(TypedDict):
    """An armed standing order: the side and step it answers, who armed it (player and
    seq of its order), its stop conditions and, for the reroll, its answer; for the final
    reorganization, how it spends (`spend`, `plan`); for the combat air patrol, where it
    places the fighters (`patrols`)."""

    side: str
    step: str
    player: str
    seq: int | None
    stops: list[StopBody]
    demand: NotRequired[bool]
    spend: NotRequired[Spend]
    plan: NotRequired[list[ReorgBody]]
    answer: NotRequired[str]
    patrols: NotRequired[list[Placement]]


class HeldShown(TypedDict):
    """What a `steps` order holds: done in `side`'s steps after `after` up to
    `through` in this impulse."""

    side: str
    player: str
    seq: int | None
    after: str
    through: str
    stops: list[StopBody]


class StandingView(TypedDict):
    orders: list[StandingShown]
    held: list[HeldShown]


def standing_view(state: State, side: str | None, *, everyone: bool) -> StandingView:
    """The standing orders and held steps of `side` (of every side when `everyone`)."""
    orders: list[StandingShown] = []
    for owner in sorted(state.standing.orders):
        if not everyone and owner != side:
            continue
        for step, o in sorted(state.standing.orders[owner].items()):
            shown: StandingShown = {"side": owner, "step": step, "player": o.player,
                                    "seq": o.seq, "stops": stops_data(o.stops)}
            if step == "initiative.reroll":
                shown["demand"] = o.demand
            if step == "final_reorganization":
                shown["spend"] = cast(Spend, o.spend)
                shown["plan"] = [cast(ReorgBody, dict(b)) for b in o.plan]
            if step == "air.patrol":
                shown["patrols"] = [cast(Placement, dict(b)) for b in o.plan]
            if o.answer is not None:
                shown["answer"] = o.answer
            orders.append(shown)
    t = state.turn
    held: list[HeldShown] = [
        {"side": h.side, "player": h.player, "seq": h.seq, "after": h.after,
         "through": h.through, "stops": stops_data(h.stops)}
        for owner, h in sorted(state.standing.held.items())
        if (everyone or owner == side) and (h.turn, h.impulse) == (t.number, t.impulse)]
    return {"orders": orders, "held": held}
