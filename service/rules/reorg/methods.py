"""The methods of reorganization (11.18.1-11.18.11) and their limits.

`check_item` checks one item of a `reorg` order on the map and against the step's
counters and returns the `Claim` it makes (cost, capacity used, path, providers turned
face down), or raises `ItemRefused` naming the field, the rule and the reason. Orders
(`service.rules.reorg`) and planning (`service.rules.reorg_plan`) share it. Every path
is traced by the map engine (`board`, `supply`).

Capacity keys, counted per reorganization step (`ReorgState.used`):

    atr:<unit>       units an ATR mission reorganized: 1, or 2 for a large ATR within
                     half its range (11.18.1, Option 36)
    hq:<unit>        half-units an HQ reorganized: 2 per unit, 1 for a unit of its
                     chit's kind; limit twice its value (11.18.2, 11.18.11)
    hqp:<unit>       units an HQ acting as a primary source reorganized (11.18.8)
    limited:<hex>    1 (11.18.3)
    port:<hex>       units received through a minor port or coastal HQ: option
                     `reorg.minor_port_limit`; major ports are counted, unlimited (11.18.4)
    primary:<hex>    units from a primary source (option `two_units`: 2)
    corps:<hex>      corps from a primary source (option `factories`: 1, 11.18.5)
    oil:<hex>        fuel-dependent land and air units from a primary source (option
                     `factories`: its factories, 11.18.5)
    secondary:<src>  1 (11.18.7)
    rail:<power>     rail moves used in the impulse, by moves reported with transport
                     rail as well (11.18.6, `State.rail_used`)
    supply:<unit>    units an expended supply unit reorganized: 3 (short form)
    trs:<unit>       1 (11.18.9)
    at_sea:<hex>     counted, unlimited (RULES-NOTES 24)

Readings where the seeds are silent (beyond RULES-NOTES):

- Cooperation: a power pays for its own units, its minors', and those of the other
  non-neutral major powers of its side; a neutral power only for its own (RULES-NOTES
  21); a minor's units only its controlling major power (11.18).
  Providers (HQs, ATRs, TRSs, supply units, sources) serve the unit's friends.
- Half costs round up. A shattered unit's first reorganization leaves it face down.
- An ATR flies from the hex it stands on (its scenario base when it is not on a hex);
  a large ATR's two units are in the one hex it flies to.
- A provider that turned face down dispensing RPs (HQ, ATR, TRS) is not itself
  reorganized in the same step (11.18.2; RULES-NOTES 11), and a unit reorganized in the
  step does not dispense RPs in it as an HQ, an ATR, a TRS or an expended supply unit
  (11.18.2, the other way round; an HQ may still serve as a secondary source or, with a
  supply unit, a primary one, which do not flip it). An HQ that flipped keeps the rest
  of its value for later orders of the step. A city or HQ hex that its supply units
  made a source in the step keeps its last supply unit: that one is not expended in
  the step (RULES-NOTES 5).
- The order of an order's items never changes its verdict: its port repairs come first
  (a repaired port works at once, 11.18.4), every other item is checked on the map as
  the order found it and against the state its earlier items produce, and each rule
  above reads the same whichever of two items comes first. Railway reorganization
  asks the source only whether it is out of communication when it does not count
  against it (option `reorg.rail_counts_against_source`, short form).
- Primary source, long form: a corps counts against the 1-corps limit, a
  fuel-dependent land or air unit against the factories; other units do not count.
  Overseas and (option) rail reorganization count against the source as well.
- Overseas: only primary sources ship RPs; a source ships from its own port, a port
  on its railway, or one within a basic path. Rail: the unit traces a basic path to
  the railway of the source (or of the landing port, with `port`).
- An HQ with a stacked supply unit acting as a primary source (11.18.8) may also
  reorganize as an HQ, but not serve as a secondary source in the same step.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from service.rules import state as st
from service.rules.airspace import Airspace, atr_check
from service.rules.board import (
    FRIENDLY,
    Board,
    NoPath,
    Path,
    basic_path,
    coastal_ok,
    hex_in_supply,
    in_communication,
    overseas_route,
    path_length,
    rail_supply_path,
    reaches_unlimited,
    source_in_supply,
    unit_supply,
)
from service.rules.reorg.counters import counters, period_key
from service.rules.scenario import ATR, HQ, SUPPLY, TRS, Scenario, UnitSpec
from service.rules.state import ReorgState, State, UnitState

METHODS: tuple[str, ...] = (
    "atr", "hq", "limited", "overseas", "primary", "rail", "secondary", "supply_unit",
    "trs", "at_sea", "chit", "port_repair",
)


# Fields per method: (required, optional). Every item but a port repair names its unit.
FIELDS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "atr": (("atr",), ()),
    "hq": (("hq",), ()),
    "limited": (("source",), ()),
    "overseas": (("source",), ("port",)),
    "primary": (("source",), ()),
    "rail": (("source",), ("port",)),
    "secondary": (("source",), ()),
    "supply_unit": (("supply_unit",), ()),
    "trs": (("trs",), ()),
    "at_sea": (("port",), ()),
    "chit": ((), ()),
    "port_repair": (("port", "source"), ()),
}


# What each field names: a unit, a hex, or either (a hex source or an HQ).
FIELD_KINDS: Mapping[str, str] = {
    "unit": "unit", "atr": "unit", "hq": "unit", "supply_unit": "unit", "trs": "unit",
    "port": "hex", "source": "hex_or_unit",
}
SHORT_FORM = "11.18 short form"  # what only the short form (seed 001) says
RULES: Mapping[str, str] = {
    "atr": "11.18.1", "hq": "11.18.2", "limited": "11.18.3", "overseas": "11.18.4",
    "primary": "11.18.5", "rail": "11.18.6", "secondary": "11.18.7",
    "supply_unit": SHORT_FORM, "trs": "11.18.9", "at_sea": "11.18.10", "chit": "11.18.11",
    "port_repair": "RULES-NOTES 23",
}
PAYING = "11.18 Reorganization points"
# The short form's "Fuel costs are separate but necessary when reorganizing as well", as
# the scenario's data (RULES-NOTES 30): the paying power's fuel, whatever the method.
FUEL = "11.18 fuel"


class ItemRefused(Exception):
    """An item breaks a rule. `field` is relative to the item ("source"; "" for the item
    itself) or absolute ("/body/power")."""

    def __init__(self, field: str, reason: str, rule: str, code: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason
        self.rule = rule
        self.code = code


@dataclass(frozen=True, slots=True)
class Use:
    """Capacity an item uses: `amount` of `key`, with `used` before it and the `limit`
    (None: unlimited, counted for the view)."""

    key: str
    amount: int
    used: int
    limit: int | None


@dataclass(frozen=True, slots=True)
class Claim:
    """A checked item: what it costs `power` and what it uses and changes."""

    index: int
    method: str
    unit: str | None
    power: str
    cost: int
    full_cost: int
    provider: str | None
    path: Path | None
    uses: tuple[Use, ...] = ()
    dispensed: tuple[tuple[str, str], ...] = ()
    flips: tuple[str, ...] = ()
    expends: str | None = None
    repairs: str | None = None
    isolated: str | None = None
    shattered: bool = False
    notes: tuple[str, ...] = ()
    fuel: int = 0


@dataclass(frozen=True, slots=True, eq=False)
class Context:
    """What every check of one position reads: the state, its board, the basic path
    allowed by the weather (RULES-NOTES 26), the options and the chits in play."""

    state: State
    board: Board
    limit: int
    options: Mapping[str, Any]
    period: str
    chits: Mapping[str, Mapping[str, Any]]
    want_paths: bool = True
    flying: bool = False
    airspace: Airspace | None = None

    @classmethod
    def of(cls, state: State, board: Board | None = None, *, want_paths: bool = True,
           flying: bool = False) -> Context:
        t = state.turn
        chits: dict[str, Mapping[str, Any]] = {}
        if t.step == st.REORGANIZATION and t.phasing_side is not None:
            for p in state.side_powers(t.phasing_side):
                chit = state.powers[p].chit
                if chit:
                    chits[p] = chit
        return cls(
            state=state,
            board=board or Board.from_state(state),
            limit=path_length(state.setup.scenario, t.weather),
            options=state.setup.options["reorg"],
            period=period_key(t.number, t.impulse, t.step),
            chits=chits,
            want_paths=want_paths,
            flying=flying,
            airspace=Airspace.of(state),
        )

    def moved_on(self, state: State, *, board_changed: bool) -> Context:
        """The same step in `state`, the state the earlier items of an order produce
        (units face up or down, providers flipped, supply units expended, ports repaired:
        RULES-NOTES 23, at once); the board is built again when `board_changed`."""
        board = Board.from_state(state) if board_changed else self.board
        return replace(self, state=state, board=board)


class Ledger:
    """The step's counters while an order is checked, item by item (a running copy of
    `ReorgState` and the powers' RPs: an order is all-or-nothing)."""

    def __init__(self, reorg: ReorgState, period: str, rps: Mapping[str, int]) -> None:
        now = counters(reorg, period)
        self.reorganized: set[str] = set(now.reorganized)
        self.used: dict[str, int] = dict(now.used)
        self.dispensed: dict[str, set[str]] = {k: set(v) for k, v in now.dispensed.items()}
        self.isolated: dict[str, str] = dict(now.isolated)
        self.repaired: list[str] = list(now.repaired_ports)
        self.rps: dict[str, int] = dict(rps)
        self.fuel: dict[str, int] = {}

    @classmethod
    def of(cls, ctx: Context) -> Ledger:
        """The counters of `ctx`'s step; "rail:<power>" counts the rail moves of the whole
        impulse, moves by rail included (11.18.6)."""
        s = ctx.state
        ledger = cls(s.reorg, ctx.period, {p: ps.rps for p, ps in s.powers.items()})
        ledger.fuel = {p: ps.fuel for p, ps in s.powers.items() if ps.fuel is not None}
        for p in s.powers:
            ledger.used[f"rail:{p}"] = s.rail_used(p)
        return ledger

    def roles(self, unit: str) -> set[str]:
        return self.dispensed.get(unit, set())

    def role_value(self, unit: str, prefix: str) -> str | None:
        for role in self.roles(unit):
            if role.startswith(prefix + ":"):
                return role.split(":", 1)[1]
        return None

    def apply(self, claim: Claim, period: str) -> None:
        if claim.unit is not None:
            self.reorganized.add(claim.unit)
        for use in claim.uses:
            self.used[use.key] = self.used.get(use.key, 0) + use.amount
        for unit, role in claim.dispensed:
            self.dispensed.setdefault(unit, set()).add(role)
        if claim.isolated is not None:
            self.isolated.setdefault(claim.isolated, period)
        if claim.repairs is not None and claim.repairs not in self.repaired:
            self.repaired.append(claim.repairs)
        self.rps[claim.power] = self.rps.get(claim.power, 0) - claim.cost
        if claim.power in self.fuel:
            self.fuel[claim.power] -= claim.fuel


@dataclass(slots=True)
class _Item:
    ctx: Context
    ledger: Ledger
    index: int
    item: Mapping[str, Any]
    power: str
    uid: str = ""
    unit: UnitState | None = None
    spec: UnitSpec | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def u(self) -> UnitState:
        assert self.unit is not None
        return self.unit

    @property
    def s(self) -> UnitSpec:
        assert self.spec is not None
        return self.spec

    @property
    def method(self) -> str:
        return str(self.item["method"])

    def refuse(self, field: str, reason: str, rule: str | None = None,
               code: str = "reorg/refused") -> NoReturn:
        raise ItemRefused(field, reason, rule or RULES[self.method], code)

    def claim(self, provider: str | None, path: Path | None, uses: list[Use], *,
              cost: int | None = None, **more: Any) -> Claim:
        full = self.s.cost if self.spec is not None else 0
        return Claim(
            index=self.index, method=self.method, unit=self.uid or None, power=self.power,
            cost=full if cost is None else cost, full_cost=full, provider=provider,
            path=path, uses=tuple(uses), notes=tuple(self.notes),
            shattered=bool(self.unit and self.unit.shattered), **more,
        )

    # ---------------------------------------------------------------- helpers

    def place(self, hex_id: str) -> str:
        return place(self.ctx.state.setup.scenario, hex_id)

    def major(self, power: str) -> str:
        return self.ctx.state.setup.scenario.controller_of(power)

    def friendly(self, provider_power: str) -> bool:
        """Whether a provider of `provider_power` serves the unit (same side, RULES-NOTES
        21 for neutrals): the unit's stance counts it among its friends."""
        b = self.ctx.board
        return b.majors[provider_power] in b.stance(self.u.power).friends

    def on_map(self) -> str:
        """The unit's hex; refused for a unit at sea."""
        if not self.ctx.state.setup.scenario.map.is_hex(self.u.at):
            self.refuse("unit", f"{self.uid} is in sea area {self.u.at}, not on a hex: at sea "
                        "only at-sea reorganization (11.18.10) and chits apply",
                        code="reorg/wrong_place")
        return self.u.at

    def provider(self, key: str, kind: str, what: str) -> tuple[str, UnitState, UnitSpec]:
        """The provider unit named in field `key`: of type `kind`, of a friend."""
        pid = str(self.item[key])
        s = self.ctx.state
        unit = s.units.get(pid)
        spec = s.setup.scenario.unit(pid)
        if unit is None or spec.type != kind:
            self.refuse(key, f"{pid} is not {what}" if unit else f"{pid} is no longer on "
                        "the map", code="reorg/not_a_provider")
        if not self.friendly(unit.power):
            self.refuse(key, f"{pid} of {self.major(unit.power)} does not serve units of "
                        f"{self.major(self.u.power)}: only cooperating powers' units do",
                        code="reorg/not_cooperating")
        return pid, unit, spec

    def path(self, result: Path | NoPath, field: str) -> Path:
        if isinstance(result, NoPath):
            self.refuse(field, result.reason, result.rule, "reorg/no_supply_path")
        return result

    def use(self, key: str, limit: int | None, field: str, full: str,
            amount: int = 1, rule: str | None = None) -> Use:
        """Capacity `key`; refused with sentence `full` when `limit` would be passed."""
        used = self.ledger.used.get(key, 0)
        if limit is not None and used + amount > limit:
            self.refuse(field, full, rule, "reorg/limit_reached")
        return Use(key, amount, used, limit)

    def source_hex(self, field: str = "source") -> str:
        value = str(self.item[field])
        if not self.ctx.state.setup.scenario.map.is_hex(value):
            self.refuse(field, f"{value} is not a hex", code="reorg/not_a_source")
        return value

    def hq_source(self, field: str = "source") -> tuple[str, UnitState, UnitSpec] | None:
        """The HQ named as a source, or None when the field names a hex."""
        value = str(self.item[field])
        if self.ctx.state.setup.scenario.map.is_hex(value):
            return None
        return self.provider(field, HQ, "an HQ (a source is a hex or an HQ)")

    def source_kind(self, hex_id: str) -> str | None:
        kind = self.ctx.state.setup.scenario.map.hex(hex_id).supply
        if kind is None and self._supply_units_at(hex_id):
            return "secondary"
        return kind

    def props(self, hex_id: str) -> tuple[tuple[str, str], ...]:
        """The hex as "propped" when only its supply units make it a source (RULES-NOTES
        5): those may not all be expended in the step it dispenses in."""
        if self.ctx.state.setup.scenario.map.hex(hex_id).supply is None:
            return ((hex_id, "propped"),)
        return ()

    def _supply_units_at(self, hex_id: str) -> list[str]:
        """Friendly supply units in city `hex_id` not expended in this step (RULES-NOTES
        5, option `reorg.supply_unit_city_source`)."""
        sc = self.ctx.state.setup.scenario
        if not self.ctx.options["supply_unit_city_source"] or not sc.map.hex(hex_id).city:
            return []
        return self.supply_units_in(hex_id)

    def supply_units_in(self, hex_id: str) -> list[str]:
        """Friendly supply units in `hex_id` not expended in this step."""
        s = self.ctx.state
        sc = s.setup.scenario
        return [uid for uid in self.ctx.board.units_in(hex_id)
                if uid in s.units and sc.unit(uid).type == SUPPLY
                and self.ledger.role_value(uid, "expended") is None
                and self.friendly(s.units[uid].power)]

    def in_supply(self, source: str, field: str) -> None:
        r = source_in_supply(self.ctx.board, self.u.power, source, self.ctx.limit)
        if isinstance(r, NoPath):
            self.refuse(field, f"{self._name(source)} is not in supply: {r.reason}", r.rule,
                        "reorg/source_out_of_supply")

    def _name(self, source: str) -> str:
        return place(self.ctx.state.setup.scenario, source)

    def receiving_port(self, port: str, field: str = "port") -> str:
        """A receiving end named `port`: a friendly port, or a coastal hex with a
        friendly HQ (a minor port, RULES-NOTES 2). Returns its kind: minor or major."""
        b = self.ctx.board
        h = self.ctx.state.setup.scenario.map.hex(port)
        hq_coast = b.at(port) in b.stance(self.u.power).hq_coast
        if h.port is None and not hq_coast:
            self.refuse(field, f"hex {port} has no port (nor a coastal HQ, which counts as a "
                        "minor port)", "11.18.4", "reorg/no_port")
        if h.port is not None and b.port_damaged(port) and not hq_coast:
            self.refuse(field, f"the port in {self.place(port)} is damaged: it receives RPs "
                        "only for its own repair (method port_repair)", "RULES-NOTES 23",
                        "reorg/port_damaged")
        if h.port is not None and not b.port_damaged(port):
            return h.port
        return "minor"

    def port_use(self, port: str, kind: str, field: str = "port") -> Use:
        limit = int(self.ctx.options["minor_port_limit"]) if kind == "minor" else None
        used = self.ledger.used.get(f"port:{port}", 0)
        return self.use(f"port:{port}", limit, field,
                        f"{self.place(port)} already passed {used} "
                        f"unit{'' if used == 1 else 's'} this impulse (a minor port passes "
                        f"{limit} per impulse)", rule="11.18.4")

    def primary_uses(self, src: str, field: str = "source") -> tuple[list[Use], str | None]:
        """A primary source's limits (11.18.5, RULES-NOTES 3) and whether it dispenses
        out of communication (once per turn)."""
        o = self.ctx.options
        where = self.place(src)
        uses: list[Use] = []
        if o["primary_limit"] == "two_units":
            uses.append(self.use(f"primary:{src}", 2, field,
                                 f"{where} already reorganized 2 units this impulse (option "
                                 "reorg.primary_limit two_units)"))
        else:
            uses.append(self.use(f"primary:{src}", None, field, ""))
            if self.s.size == "corps":
                uses.append(self.use(f"corps:{src}", 1, field,
                                     f"{where} already gave RPs to 1 corps this impulse (at "
                                     "most 1 corps per primary source)"))
            if self.s.oil and self.s.unit_class in ("land", "air"):
                factories = self.ctx.state.setup.scenario.map.hex(src).factories
                used = self.ledger.used.get(f"oil:{src}", 0)
                uses.append(self.use(f"oil:{src}", factories, field,
                                     f"{where} already gave RPs to {used} fuel-dependent "
                                     f"unit{'' if used == 1 else 's'} this impulse and has "
                                     f"{factories} operating "
                                     f"factor{'y' if factories == 1 else 'ies'}"))
        return uses, self.isolation(src, field)

    def isolation(self, src: str, field: str = "source") -> str | None:
        """11.18.5: `src` when it is out of communication (it dispenses RPs once per
        turn: refused when it did in an earlier step of the turn), else None."""
        where = self.place(src)
        isolated = None
        if isinstance(in_communication(self.ctx.board, self.u.power, src), NoPath):
            before = self.ledger.isolated.get(src)
            if before is not None and before != self.ctx.period:
                self.refuse(field, f"{where} is out of communication and already dispensed "
                            f"RPs this turn (step {before}): once per turn", "11.18.5",
                            "reorg/out_of_communication")
            isolated = src
            self.notes.append(f"{where} is out of communication: it dispenses RPs once this "
                              "turn (11.18.5).")
        return isolated

    def not_reorganized(self, pid: str, field: str) -> None:
        """RULES-NOTES 11 the other way round, as 11.18.2 for HQs: a unit reorganized in
        this step dispenses no RPs in it (an ATR, a TRS, a supply unit expended), so
        the order of the items never decides whether it may."""
        if pid in self.ledger.reorganized:
            self.refuse(field, f"{pid} was reorganized this impulse and dispenses no RPs in it",
                        "RULES-NOTES 11", "reorg/provider_reorganized")

    def hq_throws_supply(self, hid: str, field: str) -> None:
        """OCS 5.8b: an HQ in Strat Mode gives no RPs, in any role (the board's answer)."""
        problem = self.ctx.board.hq_source_problem(hid)
        if problem is not None:
            self.refuse(field, problem.reason, problem.rule, "reorg/hq_in_strat_mode")

    def hq_roles_allow(self, hid: str, role: str, field: str) -> None:
        """RULES-NOTES 9 and 11.18.2, 11.18.8: an HQ reorganizing as an HQ is no secondary
        source that step; one acting as a primary source is no secondary source."""
        roles = self.ledger.roles(hid)
        if role == "secondary" and "hq" in roles:
            self.refuse(field, f"HQ {hid} flipped to reorganize units this impulse and cannot "
                        "also be a secondary source", "11.18.2", "reorg/hq_role")
        if role == "secondary" and "primary" in roles:
            self.refuse(field, f"HQ {hid} acts as a primary source this impulse (11.18.8), "
                        "instead of as a secondary source", "11.18.8", "reorg/hq_role")
        if role in ("hq", "primary") and "secondary" in roles:
            self.refuse(field, f"HQ {hid} served as a secondary source this impulse: one or "
                        "the other per impulse", "RULES-NOTES 9", "reorg/hq_role")


def _atr(it: _Item) -> Claim:
    """11.18.1: an ATR flies from its base to the unit's hex, within range; it
    reorganizes 1 unit (a large one within half range: 2) and turns face down. Where
    enemy fighters or AA could meet it, it first flies its mission (`service.rules.air`)."""
    aid, a, aspec = it.provider("atr", ATR, "an air transport (ATR)")
    assert aspec.atr is not None
    sc = it.ctx.state.setup.scenario
    it.not_reorganized(aid, "atr")
    flown = it.ledger.role_value(aid, "atr")
    if flown is None and not a.face_up:
        it.refuse("atr", f"ATR {aid} is face down", code="reorg/provider_face_down")
    base = a.at if sc.map.is_hex(a.at) else aspec.atr.base
    target = it.on_map()
    if flown is not None and flown != target:
        it.refuse("atr", f"ATR {aid} already flew to {it.place(flown)} this impulse",
                  code="reorg/limit_reached")
    distance = sc.map.distance(base, target)
    rng = aspec.atr.range
    if distance > rng:
        it.refuse("atr", f"{it.place(target)} is {distance} hexes from ATR {aid}'s base "
                  f"{it.place(base)}; its range is {rng}", code="reorg/out_of_range")
    large = aspec.atr.large and 2 * distance <= rng
    used = it.ledger.used.get(f"atr:{aid}", 0)
    why = ("a large ATR within half its range reorganizes 2" if large else
           "only a large ATR within half its range reorganizes 2 (Option 36)")
    use = it.use(f"atr:{aid}", 2 if large else 1, "atr",
                 f"ATR {aid} already reorganized {used} unit{'' if used == 1 else 's'} this "
                 f"impulse ({why})")
    note, problem = atr_check(it.ctx.state, aid, target, flying=it.ctx.flying,
                              airspace=it.ctx.airspace)
    if problem is not None:
        it.refuse("atr", problem, code="reorg/atr_opposed")
    if note:
        it.notes.append(note)
    return it.claim(aid, Path("air", (base, target), (), distance), [use],
                    dispensed=((aid, f"atr:{target}"),), flips=(aid,) if a.face_up else ())


def _chit_benefit(it: _Item, hid: str, hq: UnitState) -> tuple[bool, bool, str | None]:
    """11.18.11, RULES-NOTES 10: (half cost, counts half, note) for HQ reorganization.
    A combined chit benefits any HQ of the side that played it, its own power's or a
    cooperating power's (the chits in play are the phasing side's)."""
    powers = it.ctx.state.powers
    for power, chit in it.ctx.chits.items():
        kind = chit.get("kind")
        if kind in ("air", "land") and chit.get("hq") == hid and it.s.unit_class == kind:
            return True, True, (f"{power}'s {kind} chit: HQ {hid} reorganizes {kind} units at "
                                "half cost, each counting half (11.18.11)")
        if kind == "combined" and powers[it.major(hq.power)].side == powers[power].side:
            return True, False, (f"{power}'s combined chit: any HQ doing HQ reorganization "
                                 "reorganizes at half cost (11.18.11)")
    return False, False, None


def _hq(it: _Item) -> Claim:
    """11.18.2: a face-up HQ in supply reorganizes units within a basic path, up to its
    reorganization value, then turns face down."""
    hid, hq, hspec = it.provider("hq", HQ, "an HQ")
    if hid == it.uid:
        it.refuse("hq", "an HQ does not reorganize itself")
    it.hq_roles_allow(hid, "hq", "hq")
    if hid in it.ledger.reorganized:
        it.refuse("hq", f"HQ {hid} was reorganized this impulse and may not flip to "
                  "reorganize units", code="reorg/provider_reorganized")
    if not hq.face_up and "hq" not in it.ledger.roles(hid):
        it.refuse("hq", f"HQ {hid} is face down", code="reorg/provider_face_down")
    b = it.ctx.board
    if not it.ctx.state.setup.scenario.map.is_hex(hq.at):
        it.refuse("hq", f"HQ {hid} is not on the map")
    it.hq_throws_supply(hid, "hq")
    if it.ctx.options["hq_needs_supply"]:
        status = unit_supply(b, hid, it.ctx.limit)
        if not status.in_supply:
            it.refuse("hq", f"HQ {hid} is out of supply: {status.reason}", "RULES-NOTES 25",
                      "reorg/provider_out_of_supply")
    target = it.on_map()
    path = it.path(basic_path(b, it.u.power, hq.at, target, it.ctx.limit), "hq")
    half, counts_half, note = _chit_benefit(it, hid, hq)
    if note:
        it.notes.append(note)
    value = hspec.hq_reorg or 0
    used = it.ledger.used.get(f"hq:{hid}", 0)
    done = f"{used // 2}" if used % 2 == 0 else f"{used / 2:g}"
    use = it.use(f"hq:{hid}", 2 * value, "hq",
                 f"HQ {hid} already reorganized {done} unit{'' if used == 2 else 's'} this "
                 f"impulse; its reorganization value is {value}",
                 amount=1 if counts_half else 2)
    cost = math.ceil(it.s.cost / 2) if half else it.s.cost
    return it.claim(hid, path, [use], cost=cost, dispensed=((hid, "hq"),),
                    flips=(hid,) if hq.face_up else ())


def _limited(it: _Item) -> Claim:
    """11.18.3, RULES-NOTES 19: an in-supply limited source (undamaged, if a port)
    reorganizes 1 unit per impulse, standing on it."""
    src = it.source_hex()
    if it.source_kind(src) != "limited":
        it.refuse("source", f"{it.place(src)} is not a limited supply source",
                  code="reorg/not_a_source")
    it.in_supply(src, "source")
    if it.on_map() != src:
        it.refuse("unit", f"{it.uid} is not on {it.place(src)}: a limited source's basic path "
                  "is 0 hexes, so the unit must stand on it", code="reorg/no_supply_path")
    use = it.use(f"limited:{src}", 1, "source",
                 f"{it.place(src)} already reorganized 1 unit this impulse")
    return it.claim(src, Path("basic", (src,), (), 0), [use])


def _overseas(it: _Item) -> Claim:
    """11.18.4: a primary source traces overseas through a port (minor: the option's
    units per impulse; major: any); coastal types may land on their own coastal hex."""
    src = it.source_hex()
    if it.source_kind(src) != "primary":
        it.refuse("source", f"{it.place(src)} is not a primary supply source (overseas "
                  "reorganization traces from one)", code="reorg/not_a_source")
    it.in_supply(src, "source")
    target = it.on_map()
    b, limit = it.ctx.board, it.ctx.limit
    port = it.item.get("port")
    uses: list[Use] = []
    if port is None:
        if not coastal_ok(it.s, b.coastal_types):
            it.refuse("port", f"{it.uid} ({it.s.type} {it.s.size or it.s.unit_class}) must "
                      "trace via a port: only INF-class divisions, MAR and flying boats trace "
                      "from a coastal hex", "RULES-NOTES 2", "reorg/no_port")
        if not it.ctx.state.setup.scenario.map.hex(target).seas:
            it.refuse("unit", f"{it.place(target)} is not coastal", code="reorg/wrong_place")
        landing, basic = target, Path("basic", (target,), (), 0)
    else:
        landing = str(port)
        kind = it.receiving_port(landing)
        basic = it.path(basic_path(b, it.u.power, landing, target, limit), "port")
        uses.append(it.port_use(landing, kind))
    leg = it.path(overseas_route(b, it.u.power, src, landing, limit, coastal=port is None),
                  "source")
    more, isolated = it.primary_uses(src)
    path = Path("overseas", leg.hexes + basic.hexes[1:], leg.seas, basic.length)
    return it.claim(src, path, uses + more, isolated=isolated)


def _primary(it: _Item) -> Claim:
    """11.18.5: a primary source within a basic path (beyond it, but reachable: double
    cost); 11.18.8: an HQ with a supply unit acting as one."""
    hq = it.hq_source()
    target = it.on_map()
    if hq is not None:
        return _hq_primary(it, *hq, target)
    src = it.source_hex()
    if it.source_kind(src) != "primary":
        it.refuse("source", f"{it.place(src)} is not a primary supply source",
                  code="reorg/not_a_source")
    it.in_supply(src, "source")
    found, cost = _far_path(it, src, target, "source")
    uses, isolated = it.primary_uses(src)
    return it.claim(src, found, uses, cost=cost, isolated=isolated)


def _far_path(it: _Item, start: str, target: str, field: str) -> tuple[Path | None, int]:
    """A basic path within the weather's limit; else, reachable with unlimited movement
    points, the out-of-supply reorganization at double cost (11.18.5)."""
    b, limit = it.ctx.board, it.ctx.limit
    result = basic_path(b, it.u.power, start, target, limit)
    if isinstance(result, Path):
        return result, it.s.cost
    if not reaches_unlimited(b, it.u.power, start, target):
        it.path(result, field)
    it.notes.append(f"out of supply reorganization: no basic path of at most {limit} "
                    f"hexes, so the cost doubles (11.18.5)")
    far = basic_path(b, it.u.power, start, target, limit, unlimited=True) \
        if it.ctx.want_paths else None
    return (far if isinstance(far, Path) else None), 2 * it.s.cost


def _hq_primary(it: _Item, hid: str, hq: UnitState, hspec: UnitSpec, target: str) -> Claim:
    """11.18.8 (long form): an HQ stacked with a supply unit traces as a primary source,
    its reorganization value of units every impulse, without flipping."""
    if not it.ctx.options["supply_unit_hq_primary"]:
        it.refuse("source", "an HQ acts as a primary source only with option "
                  "reorg.supply_unit_hq_primary", "RULES-NOTES 5", "reorg/option_off")
    sc = it.ctx.state.setup.scenario
    if not sc.map.is_hex(hq.at):
        it.refuse("source", f"HQ {hid} is not on the map")
    it.hq_throws_supply(hid, "source")
    if not it.supply_units_in(hq.at):
        it.refuse("source", f"no supply unit is stacked with HQ {hid}: an HQ acts as a "
                  "primary source only with one", "11.18.8", "reorg/not_a_source")
    it.hq_roles_allow(hid, "primary", "source")
    found, cost = _far_path(it, hq.at, target, "source")
    value = hspec.hq_reorg or 0
    used = it.ledger.used.get(f"hqp:{hid}", 0)
    use = it.use(f"hqp:{hid}", value, "source",
                 f"HQ {hid} already reorganized {used} unit{'' if used == 1 else 's'} as a "
                 f"primary source this impulse; its reorganization value is {value}",
                 rule="11.18.8")
    return it.claim(hid, found, [use], cost=cost,
                    dispensed=((hid, "primary"), (hq.at, "propped")))


def _rail(it: _Item) -> Claim:
    """11.18.6: one of the paying power's unused rail moves of the impulse (moves by
    rail use them too) carries RPs along a railway path
    from the source (or from a landing port, then overseas); it counts against the
    source per option `reorg.rail_counts_against_source`, and against the port."""
    s = it.ctx.state
    moves = s.setup.scenario.power(it.power).rail_moves
    used = it.ledger.used.get(f"rail:{it.power}", 0)
    rail_use = it.use(f"rail:{it.power}", moves, "",
                      f"{it.power} has no rail move left this impulse ({used} of {moves} used, "
                      "by moves and railway reorganization)")
    hq = it.hq_source()
    if hq is not None:
        hid, unit, _ = hq
        it.hq_roles_allow(hid, "secondary", "source")
        it.in_supply(hid, "source")
        src, key, kind = unit.at, f"secondary:{hid}", "secondary"
        dispensed: tuple[tuple[str, str], ...] = ((hid, "secondary"),)
    else:
        src = it.source_hex()
        found_kind = it.source_kind(src)
        if found_kind not in ("primary", "secondary"):
            it.refuse("source", f"{it.place(src)} is not a primary or secondary supply source",
                      code="reorg/not_a_source")
        it.in_supply(src, "source")
        kind, key, dispensed = str(found_kind), f"secondary:{src}", it.props(src)
    target = it.on_map()
    b, limit = it.ctx.board, it.ctx.limit
    port = it.item.get("port")
    uses = [rail_use]
    if port is None:
        path = it.path(rail_supply_path(b, it.u.power, src, target, limit), "source")
    else:
        landing = str(port)
        if kind != "primary":
            it.refuse("source", f"{it.place(src)} is a secondary source: only primary sources "
                      "trace overseas", "11.18.4", "reorg/not_a_source")
        port_kind = it.receiving_port(landing)
        rail = it.path(rail_supply_path(b, it.u.power, landing, target, limit), "port")
        leg = it.path(overseas_route(b, it.u.power, src, landing, limit), "source")
        uses.append(it.port_use(landing, port_kind))
        path = Path("rail", leg.hexes + rail.hexes[1:], leg.seas, rail.length)
    isolated = None
    if it.ctx.options["rail_counts_against_source"]:
        if kind == "primary":
            more, isolated = it.primary_uses(src)
            uses += more
        else:
            uses.append(it.use(key, 1, "source", f"{it._name(key.split(':', 1)[1])} already "
                               "reorganized 1 unit this impulse", rule="11.18.7"))
    elif kind == "primary":
        isolated = it.isolation(src)
    return it.claim(hq[0] if hq else src, path, uses, dispensed=dispensed, isolated=isolated)


def _secondary(it: _Item) -> Claim:
    """11.18.7: an in-supply secondary source (an HQ, which stays face up; a city with
    a supply unit, RULES-NOTES 5) reorganizes 1 unit per impulse within a basic path."""
    hq = it.hq_source()
    dispensed: tuple[tuple[str, str], ...] = ()
    if hq is not None:
        hid, unit, _ = hq
        it.hq_roles_allow(hid, "secondary", "source")
        if not it.ctx.state.setup.scenario.map.is_hex(unit.at):
            it.refuse("source", f"HQ {hid} is not on the map")
        it.in_supply(hid, "source")
        provider, src = hid, unit.at
        dispensed = ((hid, "secondary"),)
    else:
        src = provider = it.source_hex()
        if it.source_kind(src) != "secondary":
            it.refuse("source", f"{it.place(src)} is not a secondary supply source (nor a "
                      "city with a supply unit)", code="reorg/not_a_source")
        it.in_supply(src, "source")
        dispensed = it.props(src)
    target = it.on_map()
    path = it.path(basic_path(it.ctx.board, it.u.power, src, target, it.ctx.limit), "source")
    name = provider if hq else it.place(src)
    use = it.use(f"secondary:{provider}", 1, "source",
                 f"{name} already reorganized 1 unit this impulse")
    return it.claim(provider, path, [use], dispensed=dispensed)


def _supply_unit(it: _Item) -> Claim:
    """Short form: a face-up supply unit is expended (removed) to reorganize 3 units
    within a basic path, free, whatever their supply (option `reorg.supply_unit_expend`)."""
    if not it.ctx.options["supply_unit_expend"]:
        it.refuse("method", "expending supply units is off in this game (option "
                  "reorg.supply_unit_expend)", "RULES-NOTES 5", "reorg/option_off")
    sid = str(it.item["supply_unit"])
    at = it.ledger.role_value(sid, "expended")
    first = at is None
    if at is None:
        sid, unit, _ = it.provider("supply_unit", SUPPLY, "a supply unit")
        it.not_reorganized(sid, "supply_unit")
        if not unit.face_up:
            it.refuse("supply_unit", f"supply unit {sid} is face down: only a face-up one is "
                      "expended", code="reorg/provider_face_down")
        if not it.ctx.state.setup.scenario.map.is_hex(unit.at):
            it.refuse("supply_unit", f"supply unit {sid} is not on the map")
        at = unit.at
        if "propped" in it.ledger.roles(at) and it.supply_units_in(at) == [sid]:
            it.refuse("supply_unit", f"supply unit {sid} is the last one keeping "
                      f"{it.place(at)} a supply source that dispensed RPs this impulse: it "
                      "is not expended in the same impulse", "RULES-NOTES 5",
                      "reorg/provider_used")
    target = it.on_map()
    path = it.path(basic_path(it.ctx.board, it.u.power, at, target, it.ctx.limit),
                   "supply_unit")
    use = it.use(f"supply:{sid}", 3, "supply_unit",
                 f"supply unit {sid} already reorganized 3 units")
    it.notes.append(f"supply unit {sid} is expended: the units it reorganizes cost no RPs.")
    return it.claim(sid, path, [use], cost=0, dispensed=((sid, f"expended:{at}"),),
                    expends=sid if first else None)


def _trs(it: _Item) -> Claim:
    """11.18.9: a face-up TRS at sea reorganizes 1 unit on a coastal hex of its sea
    area, then turns face down (RULES-NOTES 11)."""
    tid, trs, _ = it.provider("trs", TRS, "a transport (TRS)")
    it.not_reorganized(tid, "trs")
    sc = it.ctx.state.setup.scenario
    used = it.ledger.used.get(f"trs:{tid}", 0)
    use = it.use(f"trs:{tid}", 1, "trs", f"TRS {tid} already reorganized 1 unit this impulse")
    if not trs.face_up and not used:
        it.refuse("trs", f"TRS {tid} is face down", code="reorg/provider_face_down")
    if not sc.map.is_sea(trs.at):
        it.refuse("trs", f"TRS {tid} is not at sea (it is in {it.place(trs.at)})",
                  code="reorg/wrong_place")
    target = it.on_map()
    if trs.at not in sc.map.hex(target).seas:
        it.refuse("unit", f"{it.place(target)} is not a coastal hex of sea area {trs.at}",
                  code="reorg/wrong_place")
    return it.claim(tid, Path("sea", (target,), (trs.at,), 0), [use],
                    dispensed=((tid, "trs"),), flips=(tid,))


def _at_sea(it: _Item) -> Claim:
    """11.18.10: a naval or air unit in a sea area with an in-supply major port of a
    cooperating power on its coast, paid by the port's controller (RULES-NOTES 24)."""
    sc = it.ctx.state.setup.scenario
    if it.s.unit_class not in ("naval", "air"):
        it.refuse("unit", f"{it.uid} is a land unit: only naval and air units reorganize at "
                  "sea", code="reorg/wrong_place")
    if not sc.map.is_sea(it.u.at):
        it.refuse("unit", f"{it.uid} is not in a sea area", code="reorg/wrong_place")
    port = str(it.item["port"])
    h = sc.map.hex(port)
    where = it.place(port)
    if h.port != "major":
        it.refuse("port", f"{where} is not a major port", code="reorg/no_port")
    if it.u.at not in h.seas:
        it.refuse("port", f"{where} is not on the coast of sea area {it.u.at}",
                  code="reorg/wrong_place")
    b = it.ctx.board
    holder = None if h.controller is None else it.major(h.controller)
    if holder is None or not it.friendly(holder):
        it.refuse("port", f"{where} is not controlled by a power cooperating with "
                  f"{it.major(it.u.power)}", code="reorg/not_cooperating")
    if holder != it.power:
        it.refuse("/body/power", f"{where} is controlled by {holder}, which pays for at-sea "
                  f"reorganization: the order's power must be {holder}", code="reorg/payer")
    if b.port_damaged(port) or b.enemy_occupied(port, it.u.power):
        it.refuse("port", f"the port in {where} is damaged or held by the enemy",
                  code="reorg/port_damaged")
    supplied = hex_in_supply(b, holder, port, it.ctx.limit)
    if isinstance(supplied, NoPath):
        it.refuse("port", f"{where} is not in supply: {supplied.reason}",
                  code="reorg/source_out_of_supply")
    use = it.use(f"at_sea:{port}", None, "port", "")
    return it.claim(port, Path("sea", (port,), (it.u.at,), 0), [use])


def _chit(it: _Item) -> Claim:
    """11.18.11, RULES-NOTES 10: a naval chit reorganizes the power's naval units freely;
    a reorganize-HQs chit (short form) flips its HQs up free; with option
    `reorg.reorganize_units_chit`, a reorganize-units chit flips its units in supply."""
    if it.ctx.state.turn.step != st.REORGANIZATION:
        it.refuse("method", "offensive chits count only in the reorganization step of the "
                  "impulse they were played in", code="reorg/no_chit")
    major = it.major(it.u.power)
    chit = it.ctx.chits.get(major) or {}
    kind = chit.get("kind")
    if kind == "naval" and it.s.unit_class == "naval":
        it.notes.append(f"{major}'s naval chit: naval units are reorganized freely (11.18.11).")
    elif kind == "reorganize_hqs" and it.s.type == HQ:
        it.notes.append(f"{major}'s reorganize-HQs chit: HQs flip face up free (short form).")
    elif kind == "reorganize_units" and it.ctx.options["reorganize_units_chit"]:
        here = it.on_map()
        supplied = hex_in_supply(it.ctx.board, it.u.power, here, it.ctx.limit)
        if isinstance(supplied, NoPath):
            it.refuse("unit", f"{it.uid} is not in supply: {supplied.reason}",
                      code="reorg/no_supply_path")
        it.notes.append(f"{major}'s reorganize-units chit: units in supply flip face up free "
                        "(option reorg.reorganize_units_chit).")
    else:
        played = f"a {kind} chit" if kind else "no chit"
        it.refuse("method", f"{major} played {played} this impulse: only a naval chit (naval "
                  "units) or a reorganize-HQs chit (HQs) reorganizes units free",
                  code="reorg/no_chit")
    return it.claim(major, None, [], cost=0)


def _port_repair(it: _Item) -> Claim:
    """11.18.4, RULES-NOTES 23: a damaged port receives RPs for its own repair (2 minor,
    4 major), using its slot for the impulse; repaired, it works at once."""
    sc = it.ctx.state.setup.scenario
    port = it.source_hex("port")
    h = sc.map.hex(port)
    b = it.ctx.board
    where = it.place(port)
    if h.port is None:
        it.refuse("port", f"hex {port} has no port", code="reorg/no_port")
    if not b.port_damaged(port):
        it.refuse("port", f"the port in {where} is not damaged", code="reorg/nothing_to_repair")
    stance = b.stance(it.power)
    if stance.territory[b.at(port)] != FRIENDLY or b.enemy_occupied(port, it.power):
        it.refuse("port", f"{where} is not held by a power cooperating with {it.power}",
                  code="reorg/not_cooperating")
    src = it.source_hex()
    if sc.map.hex(src).supply != "primary":
        it.refuse("source", f"{it.place(src)} is not a primary supply source",
                  code="reorg/not_a_source")
    found = source_in_supply(b, it.power, src)
    if isinstance(found, NoPath):
        it.refuse("source", found.reason, found.rule, "reorg/source_out_of_supply")
    overland = basic_path(b, it.power, src, port, it.ctx.limit)
    path = overland if isinstance(overland, Path) else it.path(
        overseas_route(b, it.power, src, port, it.ctx.limit, allow_damaged=True), "source")
    cost = int(it.ctx.options["port_repair_cost"][h.port])
    use = it.port_use(port, h.port)
    return Claim(index=it.index, method="port_repair", unit=None, power=it.power, cost=cost,
                 full_cost=cost, provider=src, path=path, uses=(use,), repairs=port)


_METHODS = {
    "atr": _atr, "hq": _hq, "limited": _limited, "overseas": _overseas, "primary": _primary,
    "rail": _rail, "secondary": _secondary, "supply_unit": _supply_unit, "trs": _trs,
    "at_sea": _at_sea, "chit": _chit,
}


def cooperates(state: State, payer: str, unit_power: str) -> bool:
    """11.18, RULES-NOTES 21: a power pays for its own and its minors' units, and for
    those of the other non-neutral major powers of its side; a minor's units only
    with its controlling major's RPs ("Minor country units must use RPs available to
    their controlling major power")."""
    major = state.setup.scenario.controller_of(unit_power)
    if major == payer:
        return True
    if major != unit_power:
        return False
    a, b = state.powers[payer], state.powers[major]
    return a.side == b.side and not a.neutral and not b.neutral


def check_item(ctx: Context, ledger: Ledger, index: int, item: Mapping[str, Any],
               power: str) -> Claim:
    """Check item `index` of a `reorg` order paid by `power` (its fields already
    well-formed) against the map and `ledger`; the RPs and the fuel (`Claim.fuel`, the
    scenario's cost of the unit's type, 11.18 fuel) are the caller's to check."""
    it = _Item(ctx, ledger, index, item, power)
    if item["method"] == "port_repair":
        return _port_repair(it)
    s = ctx.state
    uid = str(item["unit"])
    unit = s.units.get(uid)
    it.uid = uid
    if unit is None:
        it.refuse("unit", f"{uid} is no longer on the map", "11.18", "reorg/unit_gone")
    it.unit, it.spec = unit, s.setup.scenario.unit(uid)
    if unit.face_up and not unit.shattered:
        it.refuse("unit", f"{uid} is face up: there is nothing to reorganize", "11.18",
                  "reorg/face_up")
    if uid in ledger.reorganized:
        it.refuse("unit", f"{uid} was already reorganized this impulse (once per impulse; "
                  "a shattered unit needs two impulses)", "11.18", "reorg/once_per_impulse")
    roles = ledger.roles(uid)
    if "hq" in roles:
        it.refuse("unit", f"HQ {uid} flipped to reorganize units this impulse and may not "
                  "itself be reorganized", "11.18.2", "reorg/provider_flipped")
    if any(r.startswith("atr:") or r == "trs" for r in roles):
        it.refuse("unit", f"{uid} turned face down dispensing RPs this impulse",
                  "RULES-NOTES 11", "reorg/provider_flipped")
    controller = s.setup.scenario.controller_of(unit.power)
    if controller != unit.power and power != controller:
        it.refuse("/body/power", f"{power} cannot pay for {uid} of {unit.power}: a minor "
                  "country's units use the RPs of its controlling major power, "
                  f"{controller}", PAYING, "reorg/payer")
    if not cooperates(s, power, unit.power):
        it.refuse("/body/power", f"{power} cannot pay for {uid} of "
                  f"{it.major(unit.power)}: only cooperating major powers pay for each "
                  "other's units (a neutral power only for its own)", PAYING,
                  "reorg/not_cooperating")
    claim = _METHODS[it.method](it)
    fuel = s.setup.scenario.fuel
    return claim if fuel is None else replace(claim, fuel=fuel.cost(it.s.type))


def place(scenario: Scenario, hex_id: str) -> str:
    """A hex as players say it: its city's name, else "hex 1332"; other ids as they are."""
    if scenario.map.is_hex(hex_id):
        return scenario.map.hex(hex_id).city or f"hex {hex_id}"
    return hex_id


_HOW: Mapping[str, str] = {
    "atr": "flown in by ATR {p}", "hq": "by HQ {p}", "limited": "on limited source {p}",
    "overseas": "overseas from {p}", "primary": "from primary source {p}",
    "rail": "by rail from {p}", "secondary": "from secondary source {p}",
    "supply_unit": "by expending supply unit {p}", "trs": "by TRS {p}",
    "at_sea": "at sea, from the port of {p}", "chit": "by {p}'s chit",
}


def item_text(claim: Claim, item: Mapping[str, Any], scenario: Scenario) -> str:
    """A sentence for the log."""
    provider = "" if claim.provider is None else place(scenario, claim.provider)
    if claim.method == "port_repair":
        assert claim.repairs is not None
        return (f"{claim.power} repairs the port of {place(scenario, claim.repairs)} from "
                f"{provider}: {claim.cost} RPs (RULES-NOTES 23).")
    how = _HOW[claim.method].format(p=provider)
    if item.get("port") and claim.method in ("overseas", "rail"):
        how += f" via {place(scenario, str(item['port']))}"
    state = "face down, no longer shattered" if claim.shattered else "face up"
    cost = f"{claim.cost} RP{'' if claim.cost == 1 else 's'}" if claim.cost else "free"
    notes = "".join(" " + n for n in claim.notes)
    return f"{claim.power} reorganizes {claim.unit} {how} ({cost}): {state}.{notes}"
