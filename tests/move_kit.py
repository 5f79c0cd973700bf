"""Moves on small hand-drawn maps (map_art.py), through the pure rules: a game in which
Germany (axis) moves first, has declared land and stands in its action step.

    game = drawn_game('''
        g g g g
         g % g g
        ''', land("ger-inf-1", "0101"))

Units are scenario units (`land` makes a ground unit); `terrain` overrides a hex's
terrain, `hexsides` adds rivers, `movement` the scenario's terrain effects table,
`weather` the weather of every round, `options` the game's options.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import ScriptDice, Table, skip_initiative
from map_art import scenario_doc

from service.rules import Setup, initial_state
from service.rules.options import DEFAULT_WEATHER_TABLE, resolve_options
from service.rules.scenario import parse_scenario

SCRIPT = {"initiative": [9, 5, 1], "weather": [7] * 10, "turn_end": [5] * 30}


def land(uid: str, at: str, *, power: str = "germany", type: str = "INF",
         mode: str = "combat", orientation: str | None = None, combat: int = 3, move: int = 6,
         size: str = "corps", face_up: bool = True, **ocs: Any) -> dict[str, Any]:
    """A ground unit: Combat side MA `combat`, Move side MA `move` (strength 2 / 1)."""
    data: dict[str, Any] = {"mode": mode, "combat": {"strength": 2, "ma": combat},
                            "move": {"strength": 1, "ma": move}, "action_rating": 3, **ocs}
    if orientation is not None:
        data["orientation"] = orientation
    if data.get("kind") in ("transport", "organic_truck", "repl"):
        data.pop("combat")
    unit: dict[str, Any] = {"id": uid, "power": power, "class": "land", "type": type,
                            "size": size, "cost": 3, "at": at, "face_up": face_up, "ocs": data}
    if type == "HQ":
        unit["hq_reorg"] = 2
    return unit


def other(uid: str, at: str, type: str, *, power: str = "germany", **more: Any
          ) -> dict[str, Any]:
    """An air or naval unit (ATR needs `atr`)."""
    cls = "air" if type in ("ATR", "FTR", "LND", "NAV", "FB") else "naval"
    return {"id": uid, "power": power, "class": cls, "type": type, "size": None, "cost": 2,
            "at": at, **more}


def drawn_game(art: str, *units: Mapping[str, Any], terrain: Mapping[str, str] | None = None,
               hexsides: list[tuple[str, str, str]] | None = None,
               movement: Mapping[str, Any] | None = None, weather: str | None = None,
               options: Mapping[str, Any] | None = None, declare: str = "land",
               reserve_markers: int | None = None, **kwargs: Any) -> Table:
    """The game of a drawn map (see the module docstring), Germany in its action step;
    `reserve_markers`: the Axis's (OCS 5.4a; the scenario's default otherwise)."""
    doc = scenario_doc(art, **kwargs)
    doc["units"] = [dict(u) for u in units]
    if reserve_markers is not None:
        doc["sides"] = [{**x, "reserve_markers": reserve_markers} if x["id"] == "axis" else x
                        for x in doc["sides"]]
    for h in doc["map"]["hexes"]:
        if terrain and h["id"] in terrain:
            h["terrain"] = terrain[h["id"]]
    if hexsides:
        doc["map"]["hexsides"] = [{"hexes": [a, b], "feature": f} for a, b, f in hexsides]
    if movement is not None:
        doc["movement"] = dict(movement)
    given = dict(options or {})
    if weather is not None:
        given["weather"] = {"table": [{**row, "weather": weather}
                                      for row in DEFAULT_WEATHER_TABLE]}
    sc = parse_scenario(doc)
    setup = Setup(game_id="g-drawn", scenario=sc, dice_mode="scripted",
                  options=resolve_options(given, len(sc.sides)))
    state = initial_state(setup)
    t = Table(state=state, dice=ScriptDice(SCRIPT), initial=state)
    for side in [s.id for s in sc.sides]:
        t.act("seat.take", {"side": side, "powers": None, "name": side,
                            "player_id": f"p-{side}"}, side=side)
    skip_initiative(t)
    actions = {p: declare if p == "germany" else "pass" for p in t.state.side_powers("axis")}
    t.act("declare", {"actions": actions}, side="axis")
    return t


def moves(t: Table, *items: dict[str, Any], side: str = "axis") -> None:
    t.act("report", {"moves": list(items)}, side=side)


def go(unit: str, to: str, *path: str, **more: Any) -> dict[str, Any]:
    """A move item to `to` through `path` (the hexes entered; `to` is added)."""
    item: dict[str, Any] = {"unit": unit, "to": to, **more}
    if path:
        item["path"] = [*path, to]
    return item


def moved(t: Table, unit: str) -> dict[str, Any]:
    """The data of the unit's last move."""
    found = [e for e in t.events if e.kind == "unit.moved" and e.data["unit"] == unit]
    assert found, f"{unit} did not move"
    data: dict[str, Any] = found[-1].data
    return data
