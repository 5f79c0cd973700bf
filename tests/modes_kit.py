"""Driving OCS mode orders through the pure rules on the `modes` test scenario.

The strip (axial hexes hQR, q 0-7, r 0-3): the CW holds q 0-2, Germany q 3-4, the
USSR q 5-7. Germany moves first (order axis, allies, communists), declares land and
stands in its action step. Neighbours used most: h21 (cw-inf-1) touches h31, h30,
h20, h11, h12, h22; h41 (Germany's primary source) touches h51, h50, h40, h31, h32,
h42; h30 (ger-inf-1, in cw-inf-1's ZOC) touches h40, h20, h21, h31.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import pytest
from engine import Table, skip_initiative, table
from support import scenario

from service.rules.errors import RulesError
from service.rules.options import DEFAULT_WEATHER_TABLE

SCRIPT = {"initiative": [9, 5, 1], "weather": [7, 7, 7], "turn_end": [5] * 30}


def game(units: Mapping[str, Mapping[str, Any]] | None = None, *, supply_path: int | None = None,
         declare: Mapping[str, str] | None = None,
         chits: Mapping[str, Mapping[str, str]] | None = None,
         powers: Mapping[str, Mapping[str, Any]] | None = None,
         extra: list[dict[str, Any]] | None = None,
         options: Mapping[str, Any] | None = None,
         hexes: Mapping[str, Mapping[str, Any]] | None = None,
         seas: list[dict[str, Any]] | None = None,
         combat: Mapping[str, Any] | None = None,
         hexsides: list[dict[str, Any]] | None = None) -> Table:
    """The modes scenario with `units` patched (fields per unit id; a value of None for
    the whole unit drops it), `powers` and `hexes` patched likewise, `extra` units and
    `seas` added, `options` given and the scenario's `combat` section replaced,
    Germany in its action step."""
    data = scenario("modes")
    patched = []
    for u in data["units"]:
        change = (units or {}).get(u["id"], {})
        if change is None:
            continue
        u = {**u, **{k: v for k, v in change.items() if k != "ocs"}}
        if "ocs" in change:
            u["ocs"] = {**u["ocs"], **change["ocs"]}
        patched.append(u)
    patched += extra or []
    given = {**(options or {})}
    if supply_path is not None:
        rows = [{**row, "supply_path": supply_path} for row in DEFAULT_WEATHER_TABLE]
        given["weather"] = {"table": rows}
    changes: dict[str, Any] = {"units": patched}
    if combat is not None:
        changes["combat"] = dict(combat)
    if powers:
        changes["powers"] = [{**p, **powers.get(p["id"], {})} for p in data["powers"]]
    if hexes or seas or hexsides:
        board = data["map"]
        changes["map"] = {**board, "seas": board["seas"] + (seas or []),
                          "hexes": [{**h, **(hexes or {}).get(h["id"], {})}
                                    for h in board["hexes"]],
                          "hexsides": board.get("hexsides", []) + (hexsides or [])}
    t = table(SCRIPT, name="modes", changes=changes, options=given or None)
    skip_initiative(t)
    assert t.state.turn.phasing_side == "axis"
    t.act("declare", {"actions": dict(declare or {"germany": "land"}),
                      "chits": {p: dict(c) for p, c in (chits or {}).items()}}, side="axis")
    return t


# Germany's coast, for transport: minor ports in h41 (north sea) and h43 (south sea), the
# seas joined, the USSR's h50 on the north sea; a German TRS at sea and an ATR in h41.
CARRIERS = [
    {"id": "ger-trs-1", "power": "germany", "class": "naval", "type": "TRS", "size": None,
     "cost": 2, "at": "north-sea"},
    {"id": "ger-atr-1", "power": "germany", "class": "air", "type": "ATR", "size": None,
     "cost": 2, "at": "h41", "atr": {"range": 4, "base": "h41"}},
]
COAST_HEXES = {"h41": {"seas": ["north-sea"], "port": "minor"},
               "h43": {"seas": ["south-sea"], "port": "minor"},
               "h50": {"seas": ["north-sea"]}}
COAST_SEAS = [{"id": "north-sea", "adjacent": ["south-sea"]},
              {"id": "south-sea", "adjacent": ["north-sea"]}]


def coast_game(units: Mapping[str, Mapping[str, Any]] | None = None, **kwargs: Any) -> Table:
    """`game` with Germany's coast and carriers (`CARRIERS`)."""
    return game(units, hexes=COAST_HEXES, seas=COAST_SEAS,
                extra=CARRIERS + list(kwargs.pop("extra", [])), **kwargs)


def mode(t: Table, *changes: tuple[str, str] | tuple[str, str, str], side: str = "axis") -> None:
    items = [{"unit": c[0], "mode": c[1], **({"orientation": c[2]} if len(c) > 2 else {})}
             for c in changes]
    t.act("mode", {"changes": items}, side=side)


def report(t: Table, side: str = "axis", **body: Any) -> None:
    t.act("report", body, side=side)


def move(unit: str, to: str, transport: str | None = None, *, path: list[str] | None = None,
         mp: float | None = None, carrier: str | None = None) -> dict[str, Any]:
    """A move item: the referee counts its MP unless `mp` claims some."""
    item: dict[str, Any] = {"unit": unit, "to": to, "transport": transport}
    for key, value in (("path", path), ("mp", mp), ("carrier", carrier)):
        if value is not None:
            item[key] = value
    return item


def done(t: Table, side: str) -> None:
    t.act("done", side=side)


def until(t: Table, step: str) -> None:
    """Answer `done` for whoever is awaited until the game reaches `step`."""
    for _ in range(40):
        if t.state.step == step:
            return
        waiting = t.awaiting()
        assert waiting and waiting[0]["step"] != "declare", (t.state.step, waiting)
        done(t, waiting[0]["side"])
    raise AssertionError(f"never reached {step}")


def next_impulse(t: Table) -> None:
    """Answer `done` until the next side declares."""
    side = t.state.turn.phasing_side
    for _ in range(40):
        if t.state.step == "declare" and t.state.turn.phasing_side != side:
            return
        done(t, t.awaiting()[0]["side"])
    raise AssertionError("the impulse did not end")


def refused(fn: Callable[[], object], rule: str, unit: str | None = None,
            path: str | None = None) -> RulesError:
    """`fn` is refused under `rule`, naming `unit` and the item `path` if given."""
    with pytest.raises(RulesError) as caught:
        fn()
    error = caught.value
    assert error.rule == rule, (error.rule, error.message)
    if unit is not None:
        assert error.extra.get("unit") == unit, error.extra
        assert unit in error.message
    if path is not None:
        assert error.errors and error.errors[0][0] == path, error.errors
    assert f"({rule})" in error.message or rule in error.message
    return error


def effective(t: Table, uid: str) -> Any:
    """The unit's effective values (the view's `effective`), read as attributes."""
    from service.rules.modes import effective as eff

    found = eff(t.state, uid)
    return None if found is None else SimpleNamespace(**found)


def last(t: Table, kind: str) -> Any:
    return [e for e in t.events if e.kind == kind][-1]
