"""Answers an air reorganization mission gets besides its sides' own orders (RULES-NOTES
34): `air.choose`, the owner's answer to what an air-to-air result leaves him (which of
his aircraft are lost and which aborted); the defaults when a window's deadline passes,
the GM forces them or a side is in civil disorder (no patrol, no flight, no
interception, the default losses); and a standing order that places a side's combat air
patrol ahead (`standing` with step `air.patrol` and its `patrols`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.rules.air.orders import (
    give_flight,
    give_interception,
    give_patrol,
    legal,
    window_of,
)
from service.rules.air.resolve import advance, take_losses
from service.rules.air.windows import CHOICE, FLIGHT, PATROL, RULES, hexes_of, mission
from service.rules.command import Command
from service.rules.errors import Malformed, Refused
from service.rules.flow import Flow
from service.rules.state import State


def _strings(value: object, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) \
            or len(value) > 50:
        raise Malformed("order/invalid_body", "expected a list of unit ids",
                        errors=[(path, "expected unit ids")])
    return list(value)


def choose(f: Flow, c: Command) -> None:
    """`air.choose`: the side asked names its aircraft lost and aborted."""
    window_of(f, c)
    q = mission(f.state).question
    assert q is not None
    if c.body.get("hex") != q.hex:
        raise Refused("air/other_combat", f"the question is about the air-to-air combat over "
                      f"{q.hex}, not {c.body.get('hex')!r}", rule=RULES[CHOICE],
                      errors=[("/body/hex", f"expected {q.hex}")])
    lost = _strings(c.body.get("lost"), "/body/lost")
    aborted = _strings(c.body.get("aborted"), "/body/aborted")
    for path, named in (("/body/lost", lost), ("/body/aborted", aborted)):
        for i, uid in enumerate(named):
            if uid not in q.units:
                raise Refused("air/not_a_choice", f"{uid} is not one of {q.side}'s aircraft "
                              f"in the combat ({', '.join(q.units)})", rule=RULES[CHOICE],
                              errors=[(f"{path}/{i}", "not in the combat")],
                              extra={"unit": uid}, units={f"{path}/{i}": uid})
    if len(lost) != q.lost or len(aborted) != q.aborted or len(set(lost + aborted)) != \
            len(lost) + len(aborted):
        raise Refused("air/not_a_choice", f"name {q.lost} aircraft lost and {q.aborted} "
                      f"aborted, each once, among {', '.join(q.units)}", rule=RULES[CHOICE],
                      errors=[("/body/lost", f"{q.lost} lost, {q.aborted} aborted")])
    _give(f, lost, aborted, "chosen", c.actor.id)


def _give(f: Flow, lost: Sequence[str], aborted: Sequence[str], how: str, by: str) -> None:
    m = mission(f.state)
    q = m.question
    assert q is not None
    f.emit("air.answered", f"{q.side} answers the air-to-air combat over {q.hex} ({how}).",
           {"side": q.side, "hex": q.hex, "lost": list(lost), "aborted": list(aborted),
            "how": how}, by=by)
    take_losses(f, q.side, lost, aborted, how, by)
    advance(f, CHOICE, by)


def answer_by_default(f: Flow, by: str, sides: frozenset[str] | None = None) -> int:
    """The default answer of every side the open window awaits (or only of `sides`): no
    patrol, no flight, no interception, the default losses. How many answered."""
    m = f.state.air
    if m is None or m.window == "":
        return 0
    window = m.window
    given = 0
    for side in m.sides:
        now = f.state.air
        if now is None or now.window != window or side in now.answered \
                or (sides is not None and side not in sides):
            continue
        given += 1
        how = f"default, by {by}"
        if window == CHOICE:
            q = now.question
            assert q is not None
            _give(f, q.default[:q.lost], q.default[q.lost:], how, by)
            continue
        if window == PATROL:
            give_patrol(f, side, [], how, by)
        elif window == FLIGHT:
            give_flight(f, side, None, [], [], how, by)
        else:
            give_interception(f, side, window, [], how, by)
        after = mission(f.state)
        if set(after.sides) <= set(after.answered):
            advance(f, window, by)
    return given


def patrol_plan(state: State, value: object, path: str) -> list[dict[str, str]]:
    """A standing patrol's placements, well formed: fighters of the side ({unit, hex})."""
    if not isinstance(value, list) or len(value) > 50:
        raise Malformed("order/invalid_body", "patrols is a list of at most 50 {unit, hex}",
                        errors=[(path, "expected [{unit, hex}]")])
    sc = state.setup.scenario
    out: list[dict[str, str]] = []
    for i, item in enumerate(value):
        where = f"{path}/{i}"
        if not isinstance(item, Mapping) or set(item) != {"unit", "hex"} \
                or not isinstance(item["unit"], str) or not isinstance(item["hex"], str):
            raise Malformed("order/invalid_body", "each patrol is {unit, hex}",
                            errors=[(where, "expected {unit, hex}")])
        try:
            spec = sc.unit(item["unit"])
        except KeyError:
            raise Malformed("order/unknown_unit", f"unknown unit {item['unit']!r}",
                            errors=[(f"{where}/unit", "unknown unit")]) from None
        if spec.type != "FTR":
            raise Malformed("order/invalid_body", f"{spec.id} is not a fighter",
                            errors=[(f"{where}/unit", "only fighters patrol")])
        if not sc.map.is_hex(item["hex"]):
            raise Malformed("order/unknown_hex", f"unknown hex {item['hex']!r}",
                            errors=[(f"{where}/hex", "unknown hex")])
        out.append({"unit": item["unit"], "hex": item["hex"]})
    return out


def _standing_patrol(state: State, side: str, plan: Sequence[Mapping[str, Any]]
                     ) -> tuple[list[tuple[str, str]] | None, str]:
    """What a standing patrol places now: its placements over this mission's potential
    target hexes (the others are left out); None with why when one of those cannot fly
    as it says (then it is disarmed and the side asked)."""
    allowed = legal(state, side, PATROL)
    targets = set(hexes_of(state, PATROL))
    placed: list[tuple[str, str]] = []
    for p in plan:
        uid, hex_id = str(p["unit"]), str(p["hex"])
        if hex_id not in targets:
            continue
        if hex_id not in allowed.get(uid, []):
            return None, f"{uid} cannot patrol over {hex_id} now"
        placed.append((uid, hex_id))
    return placed, ""


def answer_by_standing(f: Flow) -> bool:
    """A standing patrol of a side the patrol window awaits answers it (or, when it
    cannot place as it says, is disarmed and the side asked): True if it did either."""
    m = f.state.air
    if m is None or m.window != PATROL:
        return False
    for side in m.sides:
        if side in m.answered:
            continue
        order = f.state.standing.orders.get(side, {}).get(PATROL)
        if order is None:
            continue
        named = {"side": side, "step": PATROL, "kind": "standing",
                 "player": order.player, "seq": order.seq}
        who = f"order {order.seq} of {order.player}" if order.seq is not None else \
            f"an order of {order.player}"
        placed, why = _standing_patrol(f.state, side, order.plan)
        if placed is None:
            f.emit("standing.disarmed", f"{side}'s standing order for {PATROL} ({who}) "
                   f"is disarmed: {why}; {side} is asked.", {**named, "reason": why,
                                                              "stop": None})
            return True
        f.emit("standing.answered", f"{side} places its combat air patrol by a standing "
               f"order ({who}).", named, by=order.player)
        give_patrol(f, side, placed, "standing order", order.player)
        after = mission(f.state)
        if set(after.sides) <= set(after.answered):
            advance(f, PATROL, order.player)
        return True
    return False

