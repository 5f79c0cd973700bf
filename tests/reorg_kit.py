"""Reorganization positions on hand-drawn maps (legend: map_art.py) for the 11.18
tests: a game put straight into a reorganization step, orders, and refusals."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from engine import AT, ScriptDice, Table
from map_art import POWERS, Unit, scenario_doc

from service.rules import Actor, Command, Event, Setup, decide, fold, initial_state
from service.rules import state as st
from service.rules.errors import Refused, RulesError
from service.rules.options import resolve_options
from service.rules.scenario import parse_scenario

# map_art's powers with RPs and rail moves, and France (allies, at war with the Axis).
REORG_POWERS: list[dict[str, Any]] = [
    {"id": "germany", "side": "axis", "at_war_with": ["cw", "ussr", "france"],
     "bp_spent_last_turn": 20, "rail_moves": 2},
    {"id": "italy", "side": "axis", "at_war_with": ["cw", "france"], "bp_spent_last_turn": 6},
    {"id": "spain", "side": "axis", "neutral": True},
    {"id": "cw", "side": "allies", "at_war_with": ["germany", "italy"],
     "bp_spent_last_turn": 30, "rail_moves": 2},
    {"id": "usa", "side": "allies", "neutral": True, "bp_spent_last_turn": 10,
     "rail_moves": 1},
    {"id": "france", "side": "allies", "at_war_with": ["germany", "italy"],
     "bp_spent_last_turn": 8},
    {"id": "ussr", "side": "communists", "at_war_with": ["germany"]},
]
assert {p["id"] for p in POWERS} <= {p["id"] for p in REORG_POWERS}


def doc(
    art: str,
    *,
    units: Iterable[Unit] = (),
    down: Iterable[str] = (),
    shattered: Iterable[str] = (),
    costs: Mapping[str, int] | None = None,
    oil: Iterable[str] = (),
    atrs: Mapping[str, dict[str, Any]] | None = None,
    hq_values: Mapping[str, int] | None = None,
    factories: Mapping[str, int] | None = None,
    names: Mapping[str, str] | None = None,
    controllers: Mapping[str, str] | None = None,
    powers: list[dict[str, Any]] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """A drawn scenario (map_art.scenario_doc) with face-down / shattered units, costs,
    fuel-dependent units, ATR data, HQ values, factories and city names."""
    data = scenario_doc(art, units=list(units), powers=powers or REORG_POWERS, **kwargs)
    down, shattered, oil = set(down) | set(shattered), set(shattered), set(oil)
    for u in data["units"]:
        u["face_up"] = u["id"] not in down
        u["shattered"] = u["id"] in shattered
        u["oil"] = u["id"] in oil
        u["cost"] = (costs or {}).get(u["id"], u["cost"])
        if atrs and u["id"] in atrs:
            u["atr"] = atrs[u["id"]]
        if hq_values and u["id"] in hq_values:
            u["hq_reorg"] = hq_values[u["id"]]
    for h in data["map"]["hexes"]:
        if factories and h["id"] in factories:
            h["factories"] = factories[h["id"]]
        if names and h["id"] in names:
            h["city"] = names[h["id"]]
        if controllers and h["id"] in controllers:
            h["controller"] = controllers[h["id"]]
    return data


def at_step(
    data: Mapping[str, Any],
    *,
    rps: Mapping[str, int] | None = None,
    options: Mapping[str, Any] | None = None,
    supply_path: int = 4,
    step: str = st.REORGANIZATION,
    sides: Sequence[str] = ("allies",),
    phasing: str = "allies",
    chits: Mapping[str, dict[str, Any]] | None = None,
    turn: int = 1,
    impulse: int = 1,
) -> Table:
    """A game of `data` standing in a reorganization step of `sides` (the phasing
    side's chits as given), each power with `rps` (default: cw 30, usa 10)."""
    sc = parse_scenario(dict(data))
    setup = Setup(game_id="g-reorg", scenario=sc,
                  options=resolve_options(dict(options or {}), len(sc.sides)),
                  dice_mode="scripted")
    state = initial_state(setup)
    given = {"cw": 30, "usa": 10, "france": 8, **(rps or {})}
    powers = {p: replace(ps, rps=given.get(p, 0), holder=f"p-{ps.side}",
                         chit=(chits or {}).get(p))
              for p, ps in state.powers.items()}
    weather = {"roll": 7, "weather": "fine", "dice": 2, "supply_path": supply_path}
    t = st.TurnState(threshold=state.turn.threshold, number=turn, round=1, impulse=impulse,
                     phasing_side=phasing, step=step, order=tuple(setup.sides),
                     weather=weather, impulses_taken={s: 0 for s in setup.sides},
                     step_sides=tuple(sides))
    state = replace(state, status="active", turn=t, powers=powers)
    return Table(state=state, dice=ScriptDice(), initial=state)


def act(t: Table, items: list[dict[str, Any]], power: str = "cw",
        side: str | None = None) -> list[Event]:
    """Order `items` paid by `power` (by its side's player); the events."""
    side = side or t.state.powers[power].side
    return t.act("reorg", {"power": power, "items": items}, side=side)


def refuse(t: Table, items: list[dict[str, Any]], power: str = "cw",
           side: str | None = None, kind: type[RulesError] = Refused) -> RulesError:
    """The refusal of an order, checking it changed nothing."""
    before = t.state
    with pytest.raises(kind) as refused:
        act(t, items, power, side)
    assert t.state is before
    return refused.value


def reason(error: RulesError) -> str:
    """The reason given for the offending item."""
    return error.errors[0][1]


def replayed(t: Table) -> bool:
    assert t.initial is not None
    return fold(t.initial, t.events) == t.state


def decide_as(t: Table, side: str, powers: Sequence[str], body: dict[str, Any]) -> list[Event]:
    actor = Actor(id=f"p-{side}", role="player", side=side, powers=tuple(powers))
    return decide(t.state, Command("reorg", body, actor, AT), t.dice).events
