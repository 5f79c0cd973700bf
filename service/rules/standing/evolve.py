"""How standing orders and held steps change the state (issue 20)."""

from __future__ import annotations

from dataclasses import replace

from service.rules.events import Event, EventKind
from service.rules.standing.stops import adjacent_seen, hits, stops_of
from service.rules.state import Evolver, Held, Standing, StandingState, State


def _with(state: State, standing: StandingState) -> State:
    return replace(state, standing=standing)


def _armed(state: State, e: Event) -> State:
    d = e.data
    side, step = str(d["side"]), str(d["step"])
    now = state.standing
    if d["kind"] == "steps":
        held = Held(side=side, player=str(d["player"]), seq=d["seq"], turn=int(d["turn"]),
                    impulse=int(d["impulse"]), after=str(d["after"]), through=step,
                    stops=stops_of(d["stops"]), hits_seen=int(d["hits_seen"]),
                    adjacent_seen=adjacent_seen(state, side))
        return _with(state, replace(now, held={**now.held, side: held}))
    order = Standing(side=side, step=step, player=str(d["player"]), seq=d["seq"],
                     stops=stops_of(d["stops"]), demand=bool(d.get("demand", False)),
                     first_window=int(d.get("first_window", 0)),
                     hits_seen=int(d["hits_seen"]), adjacent_seen=adjacent_seen(state, side),
                     spend=str(d.get("spend", "none")),
                     plan=tuple(dict(b) for b in d.get("plan", d.get("patrols", ()))),
                     answer=d.get("answer"))
    orders = {**now.orders, side: {**now.orders.get(side, {}), step: order}}
    return _with(state, replace(now, orders=orders))


def _disarmed(state: State, e: Event) -> State:
    d = e.data
    side, step = str(d["side"]), str(d["step"])
    now = state.standing
    if d["kind"] == "steps":
        return _with(state, replace(now, held={k: v for k, v in now.held.items() if k != side}))
    mine = {k: v for k, v in now.orders.get(side, {}).items() if k != step}
    orders = {k: v for k, v in now.orders.items() if k != side}
    if mine:
        orders[side] = mine
    return _with(state, replace(now, orders=orders))


def _answered(state: State, e: Event) -> State:
    """The order saw the side's attacks and enemy contacts up to now (`unit_attacked`
    and `enemy_adjacent_reserve` look beyond)."""
    d = e.data
    side, step = str(d["side"]), str(d["step"])
    now = state.standing
    seen, near = hits(state, side), adjacent_seen(state, side)
    if d["kind"] == "steps":
        held = now.held.get(side)
        if held is None:
            return state
        return _with(state, replace(now, held={**now.held,
                                               side: replace(held, hits_seen=seen,
                                                             adjacent_seen=near)}))
    order = now.orders.get(side, {}).get(step)
    if order is None:
        return state
    orders = {**now.orders, side: {**now.orders[side], step: replace(order, hits_seen=seen,
                                                                  adjacent_seen=near)}}
    return _with(state, replace(now, orders=orders))


EVOLVE: dict[EventKind, Evolver] = {
    "standing.armed": _armed,
    "standing.disarmed": _disarmed,
    "standing.answered": _answered,
}
