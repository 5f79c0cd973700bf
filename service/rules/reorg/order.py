"""Impulse reorganization (11.18, long and short form): the `reorg` order and the facts
it causes.

`reorg` `{power, items: [{unit, method, ...fields}]}` (docs/api.md) is all-or-nothing:
its port repairs are checked first (a repaired port works at once, 11.18.4), then every
other item in order (`reorg_methods.check_item`), limits counting the earlier items, on
the map as the order found it, and `power` pays the sum, never more than it has
(RULES-NOTES 8: RPs accrue when a reorganization step begins and lapse when it ends).
What one item does to another is the same whichever comes first (`reorg_methods`), so
the order of the items never changes the verdict. Each item becomes a
`unit.reorganized` event (a port repair: `port.repaired`) whose data carries all that
changes, so replaying the log never checks a path again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from service.rules import state as st
from service.rules.awaiting import awaiting, position
from service.rules.command import Command
from service.rules.errors import Forbidden, Malformed, Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.reorg.counters import counters
from service.rules.reorg.methods import (
    FIELD_KINDS,
    FIELDS,
    FUEL,
    METHODS,
    PAYING,
    Claim,
    Context,
    ItemRefused,
    Ledger,
    check_item,
    item_text,
)
from service.rules.state import Evolver, State

MAX_ITEMS = 200


def _known_unit(state: State, uid: str) -> bool:
    try:
        state.setup.scenario.unit(uid)
    except KeyError:
        return False
    return True


def parse_order(state: State, body: Mapping[str, object]) -> tuple[str, list[dict[str, Any]]]:
    """The order's paying power and items, or Malformed listing every problem (a body
    that could never be valid: unknown methods, fields, units or hexes)."""
    sc = state.setup.scenario
    problems: list[tuple[str, str]] = []
    for key in body:
        if key not in ("power", "items"):
            problems.append((f"/body/{key}", "a reorg order has only power and items"))
    power = body.get("power")
    if not isinstance(power, str) or not sc.is_power(power):
        hint = " (a minor's units use its controller's RPs)" if isinstance(power, str) and \
            sc.is_minor(power) else ""
        problems.append(("/body/power", f"expected the major power that pays{hint}"))
    items = body.get("items")
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_ITEMS:
        problems.append(("/body/items", f"expected a list of 1-{MAX_ITEMS} items"))
        items = []
    for i, item in enumerate(items):
        where = f"/body/items/{i}"
        if not isinstance(item, Mapping):
            problems.append((where, "expected {unit, method, ...fields}"))
            continue
        method = item.get("method")
        if method not in METHODS:
            problems.append((f"{where}/method", f"expected one of {', '.join(METHODS)}"))
            continue
        required, optional = FIELDS[method]
        named = ("unit",) if method != "port_repair" else ()
        allowed = {"method", *named, *required, *optional}
        for key in item:
            if key not in allowed:
                problems.append((f"{where}/{key}", f"{method} takes no field {key!r}"))
        for key in (*named, *required):
            if key not in item:
                problems.append((f"{where}/{key}", f"{method} needs {key}"))
        for key in sorted(allowed - {"method"}):
            if key not in item:
                continue
            value, kind = item[key], FIELD_KINDS[key]
            if not isinstance(value, str):
                problems.append((f"{where}/{key}", "expected an id"))
            elif kind == "unit" and not _known_unit(state, value):
                problems.append((f"{where}/{key}", f"unknown unit {value!r}"))
            elif kind == "hex" and not sc.map.is_hex(value):
                problems.append((f"{where}/{key}", f"unknown hex {value!r}"))
            elif kind == "hex_or_unit" and not (sc.map.is_hex(value)
                                                or _known_unit(state, value)):
                problems.append((f"{where}/{key}", f"unknown hex or unit {value!r}"))
    if problems:
        raise Malformed("order/invalid_body", f"{problems[0][0]}: {problems[0][1]}",
                        errors=problems)
    assert isinstance(power, str)
    return power, [dict(item) for item in items]


# The providers one item uses alone in an impulse: an ATR flies once, a TRS dispenses once.
_CARRIERS = ("atr", "trs")


def refusal(e: ItemRefused, index: int, method: str,
            items: list[dict[str, Any]] | None = None) -> Refused:
    """An item's refusal as the order's: the item path, the method, the rule, why, and
    the unit it reorganizes. An ATR or TRS that an earlier item of the order uses
    already names that item too (issue 16: "one ATR added to several basket items")."""
    path = e.field if e.field.startswith("/") else \
        f"/body/items/{index}" + (f"/{e.field}" if e.field else "")
    items = items or []
    item = items[index] if index < len(items) else {}
    errors = [(path, e.reason)]
    units = {path: item["unit"]} if isinstance(item.get("unit"), str) else {}
    uid = item.get("unit") if isinstance(item.get("unit"), str) else None
    who = f"{uid}: " if uid and uid not in e.reason else ""
    message = f"item {index} ({method}, {e.rule}): {who}{e.reason}"
    provider = item.get(e.field) if e.field in _CARRIERS else None
    earlier = [j for j in range(index) if provider is not None
               and items[j].get(e.field) == provider]
    for j in earlier:
        where = f"/body/items/{j}/{e.field}"
        errors.append((where, f"item {j} uses {provider} already"))
        if isinstance(items[j].get("unit"), str):
            units[where] = items[j]["unit"]
    if earlier:
        named = ", ".join(f"item {j}" + (f" ({items[j]['unit']})" if items[j].get("unit")
                                          else "") for j in earlier)
        message += f"; {named} of this order uses {provider} already"
    extra: dict[str, Any] = {"item": index, "method": method}
    if uid:
        extra["unit"] = uid
    if earlier:
        extra["items"] = [*earlier, index]
    return Refused(e.code, message, rule=e.rule, errors=errors, extra=extra, units=units)


def check_order(
    state: State, power: str, items: list[dict[str, Any]], *, flying: bool = False
) -> tuple[Context, list[Claim]]:
    """Check the port repairs, then every other item in order, against the step's
    counters and `power`'s RPs, each in the state the items before it produce (11.18.2
    both ways within one order), on the map as it was but for the ports repaired
    (11.18.4: at once); the context after the last item and the claims (port repairs
    first), or the first refusal. `flying`: the ATR items of a flight as it takes off
    (11.18.1 step 2)."""
    ctx = Context.of(state, flying=flying)
    ledger = Ledger.of(ctx)
    claims: list[Claim] = []
    repairs_first = sorted(range(len(items)), key=lambda i: items[i]["method"] != "port_repair")
    for i in repairs_first:
        item = items[i]
        try:
            claim = check_item(ctx, ledger, i, item, power)
        except ItemRefused as e:
            raise refusal(e, i, item["method"], items) from None
        left = ledger.rps.get(power, 0)
        if claim.cost > left:
            what = claim.unit or f"repairing {item.get('port')}"
            reason = f"{power} has {left} RPs left; {what} costs {claim.cost}"
            raise Refused("reorg/not_enough_rps", f"item {i} ({item['method']}, {PAYING}): "
                          f"{reason}", rule=PAYING, errors=[(f"/body/items/{i}", reason)],
                          extra={"item": i, "method": item["method"],
                                 **({"unit": claim.unit} if claim.unit else {})})
        stock = ledger.fuel.get(power)
        if stock is not None and claim.fuel > stock:
            kind = state.setup.scenario.unit(str(claim.unit)).type
            reason = (f"{power} has {stock} fuel left; {claim.unit} ({kind}) needs "
                      f"{claim.fuel} to reorganize")
            raise Refused("reorg/not_enough_fuel", f"item {i} ({item['method']}, {FUEL}): "
                          f"{reason}", rule=FUEL, errors=[(f"/body/items/{i}", reason)],
                          extra={"item": i, "method": item["method"], "unit": claim.unit})
        ledger.apply(claim, ctx.period)
        claims.append(claim)
        after = _reorganized(ctx.state, Event("unit.reorganized", "",
                                              claim_data(claim, ctx.period, item, 0,
                                                         ledger.fuel.get(power))))
        ctx = ctx.moved_on(after, board_changed=claim.repairs is not None)
    return ctx, claims


def reorganize(f: Flow, c: Command) -> None:
    s = f.state
    if s.step not in (st.REORGANIZATION, st.FINAL_REORGANIZATION):
        raise Refused("order/wrong_step", f"reorg is not allowed now: the step is {s.step}",
                      rule="11.18", extra={"current": position(s),
                                                "awaiting": awaiting(s)})
    power, items = parse_order(s, c.body)
    if power not in c.actor.powers:
        raise Forbidden("order/power_not_held", f"{c.actor.id} does not hold {power}",
                        errors=[("/body/power", "power not held")])
    side = s.powers[power].side
    if side not in s.turn.step_sides:
        raise Refused("order/not_your_turn", f"{side} takes no part in this {s.step} step",
                      rule="RULES-NOTES 6", extra={"awaiting": awaiting(s)})
    if side in s.turn.sides_done:
        raise Refused("order/already_done", f"{side} is already done with {s.step}",
                      rule="11.18")
    ctx, claims = check_order(s, power, items)
    sc = s.setup.scenario
    left = s.powers[power].rps
    fuel = s.powers[power].fuel
    for claim in claims:
        left -= claim.cost
        fuel = None if fuel is None else fuel - claim.fuel
        data = claim_data(claim, ctx.period, items[claim.index], left, fuel)
        has = f"{left} RPs" + ("" if fuel is None else f" and {fuel} fuel")
        text = item_text(claim, items[claim.index], sc) + f" {power} has {has} left."
        if claim.repairs is not None:
            f.emit("port.repaired", text, data, by=c.actor.id)
        else:
            f.emit("unit.reorganized", text, data, by=c.actor.id)


def claim_data(claim: Claim, period: str, item: Mapping[str, object],
               rps_left: int, fuel_left: int | None = None) -> dict[str, Any]:
    """The event data of a claim: everything evolve applies, and the path for people;
    `fuel` and `fuel_left` when the scenario has fuel (RULES-NOTES 30)."""
    path = None if claim.path is None else {
        "kind": claim.path.kind, "hexes": list(claim.path.hexes),
        "seas": list(claim.path.seas), "length": claim.path.length,
    }
    return {
        "period": period, "power": claim.power, "unit": claim.unit, "method": claim.method,
        "item": dict(item), "cost": claim.cost, "full_cost": claim.full_cost,
        "rps_left": rps_left, "provider": claim.provider, "path": path,
        "uses": {u.key: u.amount for u in claim.uses},
        "dispensed": [[unit, role] for unit, role in claim.dispensed],
        "flips": list(claim.flips), "expends": claim.expends, "repairs": claim.repairs,
        "isolated": claim.isolated, "shattered": claim.shattered, "notes": list(claim.notes),
        **({} if fuel_left is None else {"fuel": claim.fuel, "fuel_left": fuel_left}),
    }


def _reorganized(state: State, e: Event) -> State:
    d = e.data
    period = str(d["period"])
    r = counters(state.reorg, period)
    used = dict(r.used)
    for key, amount in d["uses"].items():
        used[key] = used.get(key, 0) + int(amount)
    dispensed = dict(r.dispensed)
    for unit, role in d["dispensed"]:
        if role not in dispensed.get(unit, ()):
            dispensed[unit] = (*dispensed.get(unit, ()), role)
    isolated = dict(r.isolated)
    if d["isolated"]:
        isolated.setdefault(d["isolated"], period)
    repaired = r.repaired_ports
    if d["repairs"] and d["repairs"] not in repaired:
        repaired = (*repaired, d["repairs"])
    reorganized = r.reorganized
    units = dict(state.units)
    uid = d["unit"]
    if uid is not None:
        reorganized = (*reorganized, uid)
        was = units[uid]
        units[uid] = replace(was, face_up=not d["shattered"], shattered=False)
    for flipped in d["flips"]:
        units[flipped] = replace(units[flipped], face_up=False)
    if d["expends"]:
        units.pop(d["expends"], None)
    power = d["power"]
    payer = state.powers[power]
    fuel = payer.fuel if "fuel" not in d or payer.fuel is None else payer.fuel - int(d["fuel"])
    powers = {**state.powers, power: replace(payer, rps=payer.rps - int(d["cost"]), fuel=fuel)}
    reorg = replace(r, reorganized=reorganized, used=used, dispensed=dispensed,
                    isolated=isolated, repaired_ports=repaired)
    state = replace(state, units=units, powers=powers, reorg=reorg)
    if f"rail:{power}" in d["uses"]:
        state = state.with_rail_move(power)
    return state


EVOLVE: dict[EventKind, Evolver] = {
    "unit.reorganized": _reorganized,
    "port.repaired": _reorganized,
}
