"""A final-reorganization standing order spends before it is done (issue 30; 11.18: RPs
may not be saved): first the side's own plan (its `reorg` bodies, in order), then the
cheapest legal way for every unit of the side still face down, power by power, as the
page's planner offers it ("Add the cheapest way for every unit"). Each is a `reorg`
order decided like a signed one (its events name the order's signer); an item the step
refuses is left out and the rest sent again, so what is spent is exactly what the
rules accept.

Pure and deterministic: units in id order, for each the cheapest option the planner
lists (the first of equal cost) that the power's RPs and the capacities the earlier
items use still allow.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.rules.command import Actor, Command
from service.rules.errors import RulesError
from service.rules.flow import Flow
from service.rules.reorg import Planner
from service.rules.state import Standing, State

Handler = Callable[[Flow, Command], None]


def cheapest_items(state: State, power: str) -> list[dict[str, Any]]:
    """The cheapest legal way for every face-down unit `power` pays for, within its RPs,
    its fuel (11.18 fuel, when the scenario has fuel) and each source's, port's and
    provider's capacity (the items of one `reorg` order)."""
    sc = state.setup.scenario
    left = state.powers[power].rps
    fuel = state.powers[power].fuel
    down = [uid for uid, u in sorted(state.units.items())
            if not u.face_up and sc.controller_of(u.power) == power]
    if left <= 0 or not down:
        return []
    planner = Planner(state)
    used: dict[str, int] = {}
    items: list[dict[str, Any]] = []
    for uid in down:
        fitting = [o for o in planner.plan(uid).options
                   if o.power == power and o.cost is not None and o.cost <= left
                   and (fuel is None or (o.fuel or 0) <= fuel)
                   and all(u.limit is None or u.used + used.get(u.key, 0) + u.amount <= u.limit
                           for u in o.uses)]
        if not fitting:
            continue
        best = min(fitting, key=lambda o: o.cost or 0)
        left -= best.cost or 0
        fuel = None if fuel is None else fuel - (best.fuel or 0)
        for u in best.uses:
            used[u.key] = used.get(u.key, 0) + u.amount
        items.append(dict(best.item))
    return items


def _refused_item(refusal: RulesError) -> int | None:
    item = refusal.extra.get("item")
    return item if isinstance(item, int) and not isinstance(item, bool) else None


def _play(f: Flow, actor: Actor, power: str, items: list[dict[str, Any]],
          handlers: Mapping[str, Handler]) -> None:
    """One `reorg` order of `power`; an item the rules refuse is left out and the rest
    sent again (nothing at all when the refusal names no item)."""
    while items:
        body = {"power": power, "items": items}
        try:
            handlers["reorg"](f, Command(kind="reorg", body=body, actor=actor, at=f.at))
            return
        except RulesError as refusal:
            at = _refused_item(refusal)
            if at is None or not 0 <= at < len(items):
                return
            items = items[:at] + items[at + 1:]


def spend(f: Flow, order: Standing, handlers: Mapping[str, Handler]) -> None:
    """What `order` spends in the final reorganization step before its `done`."""
    side = order.side
    actor = Actor(id=order.player, role="gm" if order.player == "gm" else "player",
                  side=side, powers=f.state.side_powers(side))
    for body in order.plan:
        _play(f, actor, str(body["power"]), [dict(i) for i in body["items"]], handlers)
    if order.spend != "cheapest":
        return
    for power in f.state.side_powers(side):
        items = cheapest_items(f.state, power)
        if items:
            _play(f, actor, power, items, handlers)
