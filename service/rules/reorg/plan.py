"""Planning reorganization (11.18): for a face-down unit, every method that would work
now, with its source, path, cost and the capacity it would use, and why each other
method would not.

`Planner(state)` builds the board and the candidate indexes of a position once;
`Planner.plan(unit)` then lists candidates per method from the indexes and checks each
with `reorg_methods.check_item`, exactly as an order would be checked (so a listed
option is accepted as an item on its own). `reorg_options(state, unit)` is the
one-shot form. `Planner.repairs(side)` lists the side's damaged ports and the ways to
repair each now (11.18.4: "Damaged ports can receive RPs in order to repair the port
only"), from the nearest primary sources.

Lists are bounded where the map could offer dozens of equivalent sources: beyond the
sources within a basic path, out-of-supply primary sources (double cost), railway
sources and overseas sources per landing are the nearest `NEAREST` that work.
Planning does not propose rail with an overseas leg (orders accept it), nor trace the
full path of an out-of-supply option (its `path` is null).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NotRequired, cast

from typing_extensions import TypedDict

from service.rules import state as st
from service.rules.airspace import OppositionShown, opposition_shown
from service.rules.board import Board, Path, Stance, coastal_ok, reach_index, reaches_unlimited
from service.rules.reorg.bodies import ReorgItem
from service.rules.reorg.methods import (
    METHODS,
    RULES,
    Claim,
    Context,
    ItemRefused,
    Ledger,
    Use,
    check_item,
    cooperates,
    place,
)
from service.rules.scenario import ATR, HQ, SUPPLY, TRS
from service.rules.state import State

NEAREST = 3
_LOOK = 8  # candidates examined per bounded list


class PathShown(TypedDict):
    kind: str
    hexes: list[str]
    seas: list[str]
    length: int


class CapacityShown(TypedDict):
    key: str
    amount: int
    used: int
    limit: int | None
    left_after: int | None


class OptionShown(TypedDict):
    """A method for the unit: when `legal`, the `item` to send in a `reorg` order and
    what it costs; when not, why (`reason`, `rule`, the item `field` at fault)."""

    method: str
    legal: bool
    item: ReorgItem
    power: NotRequired[str | None]
    cost: NotRequired[int | None]
    fuel: NotRequired[int | None]
    affordable: NotRequired[bool | None]
    provider: NotRequired[str | None]
    path: NotRequired[PathShown | None]
    capacity: NotRequired[list[CapacityShown]]
    flips: NotRequired[list[str]]
    expends: NotRequired[str | None]
    notes: NotRequired[list[str]]
    reason: NotRequired[str | None]
    rule: NotRequired[str | None]
    field: NotRequired[str | None]
    code: NotRequired[str | None]
    interception: NotRequired[OppositionShown]


class PlanShown(TypedDict):
    """Every way to reorganize `unit` now (11.18): the options that work and the methods
    that would not, with why; `power` pays by default, `rps` it has left."""

    unit: str
    power: str
    rps: int
    step_open: bool
    reason: str | None
    rule: str | None
    options: list[OptionShown]
    illegal: list[OptionShown]


@dataclass(frozen=True, slots=True)
class Option:
    """One way to reorganize a unit: `legal`, with the `item` to send and what it costs
    `power` (RPs, and `fuel` when the scenario has fuel: None otherwise), `affordable`
    with what it has left, or not, with the `reason`, the `rule` and the item `field` at
    fault."""

    method: str
    legal: bool
    item: dict[str, Any]
    power: str | None = None
    cost: int | None = None
    affordable: bool | None = None
    fuel: int | None = None
    provider: str | None = None
    path: Path | None = None
    uses: tuple[Use, ...] = ()
    flips: tuple[str, ...] = ()
    expends: str | None = None
    notes: tuple[str, ...] = ()
    reason: str | None = None
    rule: str | None = None
    field: str | None = None
    code: str | None = None
    interception: OppositionShown | None = None

    def as_data(self) -> OptionShown:
        out: OptionShown = {"method": self.method, "legal": self.legal,
                            "item": cast(ReorgItem, self.item)}
        if self.legal:
            out["power"], out["cost"], out["fuel"] = self.power, self.cost, self.fuel
            out["affordable"], out["provider"] = self.affordable, self.provider
            out["path"] = None if self.path is None else {
                "kind": self.path.kind, "hexes": list(self.path.hexes),
                "seas": list(self.path.seas), "length": self.path.length}
            out["capacity"] = [{"key": u.key, "amount": u.amount, "used": u.used,
                                "limit": u.limit, "left_after": None if u.limit is None
                                else u.limit - u.used - u.amount} for u in self.uses]
            out["flips"], out["expends"] = list(self.flips), self.expends
            out["notes"] = list(self.notes)
        else:
            out["reason"], out["rule"] = self.reason, self.rule
            out["field"], out["code"] = self.field, self.code
        if self.interception is not None:
            out["interception"] = self.interception
        return out


@dataclass(frozen=True, slots=True)
class Plan:
    """Every way to reorganize `unit` now: `options` that work, `illegal` methods with
    why. `power` pays by default; `step_open` says whether it may order now."""

    unit: str
    power: str
    rps: int
    step_open: bool
    options: tuple[Option, ...] = ()
    illegal: tuple[Option, ...] = ()
    reason: str | None = None
    rule: str | None = None

    def as_data(self) -> PlanShown:
        return {
            "unit": self.unit, "power": self.power, "rps": self.rps,
            "step_open": self.step_open, "reason": self.reason, "rule": self.rule,
            "options": [o.as_data() for o in self.options],
            "illegal": [o.as_data() for o in self.illegal],
        }


class RepairShown(TypedDict):
    """The ways to repair the damaged port in `port` now (11.18.4, RULES-NOTES 23): paid
    by `power` (its `rps` left); the options that work, nearest primary source first,
    and, when none does, why."""

    port: str
    name: str | None
    kind: str
    power: str
    rps: int
    step_open: bool
    options: list[OptionShown]
    illegal: list[OptionShown]


@dataclass(frozen=True, slots=True)
class Repair:
    """A damaged port and the ways to repair it now (`RepairShown`)."""

    port: str
    power: str
    rps: int
    step_open: bool
    options: tuple[Option, ...] = ()
    illegal: tuple[Option, ...] = ()

    def as_data(self, state: State) -> RepairShown:
        h = state.setup.scenario.map.hex(self.port)
        return {"port": self.port, "name": h.city, "kind": h.port or "", "power": self.power,
                "rps": self.rps, "step_open": self.step_open,
                "options": [o.as_data() for o in self.options],
                "illegal": [o.as_data() for o in self.illegal]}


@dataclass(slots=True)
class _Candidates:
    items: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    none: dict[str, str] = field(default_factory=dict)  # method -> why there is nothing

    def add(self, method: str, **fields: str) -> None:
        """One candidate; a source found twice (a city with a supply unit that is also a
        secondary source) is listed once."""
        item = {"method": method, **fields}
        listed = self.items.setdefault(method, [])
        if item not in listed:
            listed.append(item)


class Planner:
    """The planning view of one position."""

    def __init__(self, state: State, board: Board | None = None) -> None:
        self.state = state
        self.ctx = Context.of(state, board, want_paths=False)
        self.ledger = Ledger.of(self.ctx)
        self._by_type: dict[str, list[tuple[str, str]]] = {}

    # ----------------------------------------------------------------- indexes

    def _index(self, name: str, stance: Stance,
               starts: Callable[[], Iterable[tuple[str, str]]]) -> dict[str, list[tuple[str, int]]]:
        b = self.ctx.board
        power = next(iter(sorted(stance.friends))) if stance.friends else ""
        return b.cached(("plan", name, stance.key, self.ctx.limit),
                        lambda: reach_index(b, power, list(starts()), self.ctx.limit))

    def _sources(self, stance: Stance, kind: str) -> list[str]:
        """The hex sources of `kind` serving `stance`'s powers; memoized."""
        b = self.ctx.board
        g = b.grid

        def make() -> list[str]:
            return [g.ids[i] for i, (k, supplier) in sorted(g.source_at.items())
                    if k == kind and b.majors.get(supplier) in stance.friends]

        return b.cached(("plan", "sources", stance.key, kind), make)

    def _units(self, stance: Stance, utype: str) -> list[str]:
        """The units of type `utype` of `stance`'s powers; memoized."""
        s = self.state
        sc = s.setup.scenario
        b = self.ctx.board
        if not self._by_type:
            for uid, u in s.units.items():
                self._by_type.setdefault(sc.unit(uid).type, []).append((uid, u.power))
        return b.cached(("plan", "units", stance.key, utype), lambda: sorted(
            uid for uid, power in self._by_type.get(utype, ())
            if b.majors[power] in stance.friends))

    # ----------------------------------------------------------------- candidates

    # long: one candidate list per method of 11.18, from the planner's indexes.
    def _candidates(self, uid: str) -> _Candidates:
        s, b, limit = self.state, self.ctx.board, self.ctx.limit
        sc = s.setup.scenario
        u = s.units[uid]
        spec = sc.unit(uid)
        stance = b.stance(u.power)
        c = _Candidates()
        here = u.at
        if not sc.map.is_hex(here):
            for m in METHODS:
                if m not in ("at_sea", "chit", "port_repair"):
                    c.none[m] = f"{uid} is in sea area {here}: at sea only at-sea " \
                                "reorganization (11.18.10) and chits apply"
            for port in sc.map.coast_of(here):
                h = sc.map.hex(port)
                if h.port == "major" and h.controller and b.majors[h.controller] in stance.friends:
                    c.add("at_sea", unit=uid, port=port)
            c.none.setdefault("at_sea", f"no major port of a cooperating power is on the coast "
                                        f"of sea area {here}")
            c.add("chit", unit=uid)
            return c
        c.none["at_sea"] = f"{uid} is on a hex, not in a sea area"
        where = place(sc, here)
        # 11.18.1
        for aid in self._units(stance, ATR):
            a = s.units[aid]
            atr = sc.unit(aid).atr
            base = a.at if sc.map.is_hex(a.at) else (atr.base if atr else None)
            if atr is None or base is None:
                continue
            up = a.face_up or self.ledger.role_value(aid, "atr") == here
            if up and sc.map.distance(base, here) <= atr.range:
                c.add("atr", unit=uid, atr=aid)
        c.none["atr"] = f"no face-up ATR of a cooperating power has {where} in range"
        # 11.18.2, 11.18.7 (HQ), 11.18.8
        hqs = self._index("hq", stance, lambda: [(hid, s.units[hid].at)
                                                 for hid in self._units(stance, HQ)
                                                 if sc.map.is_hex(s.units[hid].at)])
        for hid, _ in sorted(hqs.get(here, ()), key=lambda x: (x[1], x[0])):
            if hid != uid:
                c.add("hq", unit=uid, hq=hid)
                c.add("secondary", unit=uid, source=hid)
                c.add("primary", unit=uid, source=hid)
        c.none["hq"] = f"no HQ of a cooperating power traces a basic path of at most {limit} " \
                       f"hexes to {where}"
        # 11.18.3
        found = sc.map.hex(here).supply
        if found == "limited":
            c.add("limited", unit=uid, source=here)
        c.none["limited"] = f"{where} is not a limited supply source (the unit must stand " \
                            "on one)"
        # 11.18.5
        primaries = self._index("primary", stance,
                                lambda: [(h, h) for h in self._sources(stance, "primary")])
        near = sorted(primaries.get(here, ()), key=lambda x: (x[1], x[0]))
        for src, _ in near:
            c.add("primary", unit=uid, source=src)
        close = {src for src, _ in near}
        far = 0
        for src in self._nearest(here, self._sources(stance, "primary")):
            if far == _LOOK:
                break
            if src not in close and reaches_unlimited(b, u.power, src, here):
                c.add("primary", unit=uid, source=src)
                far += 1
        c.none["primary"] = f"no primary supply source traces a path of any length to {where}"
        # 11.18.7
        seconds = self._index("secondary", stance, lambda: [
            (h, h) for h in self._sources(stance, "secondary") + self._supply_cities(stance)])
        for src, _ in sorted(seconds.get(here, ()), key=lambda x: (x[1], x[0])):
            c.add("secondary", unit=uid, source=src)
        c.none["secondary"] = f"no secondary supply source traces a basic path of at most " \
                              f"{limit} hexes to {where}"
        # 11.18.4
        landings = self._index("landing", stance,
                               lambda: [(b.grid.ids[i], b.grid.ids[i])
                                        for i in sorted(stance.receiving)])
        ports = [p for p, _ in sorted(landings.get(here, ()), key=lambda x: (x[1], x[0]))]
        ports_and_coast: list[str | None] = list(ports)
        if sc.map.hex(here).seas and coastal_ok(spec, b.coastal_types):
            ports_and_coast.insert(0, None)
        for via in ports_and_coast:
            for src in self._nearest(via or here, self._sources(stance, "primary"))[:_LOOK]:
                if via is None:
                    c.add("overseas", unit=uid, source=src)
                else:
                    c.add("overseas", unit=uid, source=src, port=via)
        c.none["overseas"] = f"no friendly port within a basic path of {limit} hexes of " \
                             f"{where} receives RPs (and {uid} does not trace from a coast)"
        # 11.18.6
        rails = [h for h in self._sources(stance, "primary") + self._sources(stance, "secondary")
                 if b.grid.rail[b.at(h)]]
        for src in self._nearest(here, rails)[:_LOOK]:
            c.add("rail", unit=uid, source=src)
        c.none["rail"] = f"no supply source's railway comes within a basic path of {limit} " \
                         f"hexes of {where}"
        # short form: supply units
        sups = self._index("supply", stance, lambda: [
            (sid, s.units[sid].at) for sid in self._units(stance, SUPPLY)
            if sc.map.is_hex(s.units[sid].at)])
        for sid, _ in sorted(sups.get(here, ()), key=lambda x: (x[1], x[0])):
            c.add("supply_unit", unit=uid, supply_unit=sid)
        c.none["supply_unit"] = f"no supply unit of a cooperating power traces a basic path " \
                                f"of at most {limit} hexes to {where}"
        # 11.18.9
        seas = sc.map.hex(here).seas
        for tid in self._units(stance, TRS):
            if s.units[tid].at in seas:
                c.add("trs", unit=uid, trs=tid)
        c.none["trs"] = f"no TRS of a cooperating power is at sea next to {where}"
        c.add("chit", unit=uid)
        return c

    def _nearest(self, here: str, hexes: list[str]) -> list[str]:
        m = self.state.setup.scenario.map
        return sorted(hexes, key=lambda h: (m.distance(here, h), h))

    def _supply_cities(self, stance: Stance) -> list[str]:
        if not self.ctx.options["supply_unit_city_source"]:
            return []
        b = self.ctx.board
        return sorted({b.grid.ids[i] for f in stance.friends
                       for i in b.supply_units_of.get(f, ())})

    # ----------------------------------------------------------------- plan

    def plan(self, uid: str) -> Plan:
        """Every way to reorganize `uid` now (KeyError for a unit not in the game)."""
        s = self.state
        u = s.units[uid]
        sc = s.setup.scenario
        payer = sc.controller_of(u.power)
        open_ = self._open(s.powers[payer].side)
        rps = s.powers[payer].rps
        try:
            check_item(self.ctx, self.ledger, 0, {"method": "chit", "unit": uid}, payer)
        except ItemRefused as e:
            if e.field == "unit":
                return Plan(uid, payer, rps, open_, reason=e.reason, rule=e.rule)
        cands = self._candidates(uid)
        legal: list[Option] = []
        illegal: list[Option] = []
        for method in METHODS:
            if method == "port_repair":
                continue
            mine: list[Option] = []
            first: Option | None = None
            found: dict[tuple[str, str | None], int] = {}
            for item in cands.items.get(method, []):
                key = _bound_key(item)
                if key is not None and found.get(key, 0) >= NEAREST:
                    continue
                option = self._check(item, payer)
                if option.legal:
                    if key is not None and (method != "primary" or option.path is None):
                        found[key] = found.get(key, 0) + 1
                    mine.append(option)
                elif first is None:
                    first = option
            legal += mine
            if not mine:
                illegal.append(first or Option(
                    method, False, {"method": method, "unit": uid},
                    reason=cands.none.get(method, "no candidate"), rule=RULES[method],
                    code="reorg/no_candidate"))
        return Plan(uid, payer, rps, open_, tuple(legal), tuple(illegal))

    def _open(self, side: str) -> bool:
        s = self.state
        return (s.step in (st.REORGANIZATION, st.FINAL_REORGANIZATION)
                and side in s.turn.step_sides and side not in s.turn.sides_done)

    def repairs(self, side: str | None) -> tuple[Repair, ...]:
        """Every damaged port of `side` (None: of every side), each with the ways to
        repair it now: paid by the major power controlling it, from the nearest primary
        sources (`NEAREST` that work of the `_LOOK` nearest), as an order would check
        them."""
        s, b = self.state, self.ctx.board
        sc = s.setup.scenario
        out = []
        for i, (_, damaged) in sorted(b.grid.ports.items()):
            port = b.grid.ids[i]
            controller = b.grid.controllers[b.grid.controller_code[i]]
            if not damaged or not controller or not b.port_damaged(port):
                continue
            power = sc.controller_of(controller)
            owner = s.powers[power].side
            if side is not None and owner != side:
                continue
            legal: list[Option] = []
            first: Option | None = None
            sources = self._nearest(port, self._sources(b.stance(power), "primary"))
            for src in sources[:_LOOK]:
                option = self._check({"method": "port_repair", "port": port, "source": src},
                                     power)
                if option.legal:
                    legal.append(option)
                elif first is None:
                    first = option
                if len(legal) == NEAREST:
                    break
            none = Option("port_repair", False, {"method": "port_repair", "port": port},
                          reason=f"no primary supply source of a power cooperating with "
                                 f"{power}", rule=RULES["port_repair"],
                          code="reorg/no_candidate")
            out.append(Repair(port, power, s.powers[power].rps, self._open(owner),
                              tuple(legal), () if legal else (first or none,)))
        return tuple(out)

    def _check(self, item: dict[str, Any], payer: str) -> Option:
        s = self.state
        method = item["method"]
        power = payer
        if method == "at_sea":
            h = s.setup.scenario.map.hex(item["port"])
            assert h.controller is not None
            power = s.setup.scenario.controller_of(h.controller)
            if not cooperates(s, power, s.units[item["unit"]].power):
                power = payer
        try:
            claim = check_item(self.ctx, self.ledger, 0, item, power)
        except ItemRefused as e:
            option = Option(method, False, item, reason=e.reason, rule=e.rule,
                            field=e.field or None, code=e.code)
        else:
            option = _legal(claim, item, s.powers[power].rps, s.powers[power].fuel)
        if method == "atr":  # who could meet the ATR (11.18.1 steps 1-6)
            unit = s.units[item["unit"]]
            option = replace(option, interception=opposition_shown(
                s, s.setup.scenario.side_of_power(unit.power), unit.at, self.ctx.airspace))
        return option


def _bound_key(item: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """Bounded lists (NEAREST each): overseas sources per landing, railway sources,
    out-of-supply primary sources (counted when found)."""
    method = item["method"]
    if method in ("overseas", "rail", "primary"):
        return method, item.get("port")
    return None


def _legal(claim: Claim, item: dict[str, Any], rps: int, fuel: int | None) -> Option:
    return Option(
        claim.method, True, item, power=claim.power, cost=claim.cost,
        fuel=None if fuel is None else claim.fuel,
        affordable=claim.cost <= rps and (fuel is None or claim.fuel <= fuel),
        provider=claim.provider, path=claim.path,
        uses=claim.uses, flips=claim.flips, expends=claim.expends, notes=claim.notes,
    )


def reorg_options(state: State, unit: str, board: Board | None = None) -> Plan:
    """Every way to reorganize `unit` in `state` (KeyError for a unit not in the game)."""
    return Planner(state, board).plan(unit)


def plans(state: State, units: Iterable[str]) -> Mapping[str, Plan]:
    """Plans for many units of one position, sharing its board and indexes."""
    planner = Planner(state)
    return {uid: planner.plan(uid) for uid in units}
