"""The scenario format (docs/api.md): value types, validation, JSON round trip.

A scenario is the fixed start of a game: sides, major powers, minor countries,
the map (hexes in axial coordinates, sea areas) and the units in place.
`parse_scenario` is the only way in from JSON: it checks every field and every
cross-reference and raises `ScenarioInvalid` listing all problems at once
(paths like ``units[3].at``; the empty path is the document itself).
`scenario_to_json` is its inverse. Unknown fields are problems, so a typo never
silently falls back to a default.

Optional JSON fields and their defaults (a ``null`` counts as absent):

- scenario: ``title`` = id, ``initiative_last_turn`` = the side order,
  ``minors`` = [], ``units`` = [].
- side: ``initiative_box`` 2 (index 0-4 from the +2 box), ``reserve_markers`` 6
  (OCS 5.4a; a stack's reserve units share one marker).
- power: ``name`` = id, ``pass_bonus`` 0, ``neutral`` false, ``conquered`` false,
  ``bp_spent_last_turn`` 0, ``bp_on_rps`` 0 (part of ``bp_spent_last_turn``),
  ``rail_moves`` 0, ``at_war_with`` [], ``chits`` 0, ``rp_gearing_cap`` =
  ``bp_spent_last_turn``, ``build_points`` null (production figures taken as reported).
- fuel: null (no fuel: reorganizing costs none); given, `service.rules.scenario.fuel`.
- map: ``supply_path_length`` 4, ``seas`` [], ``hexsides`` [] (features on the edge
  between two adjacent hexes: ``{"hexes": ["1204", "1303"], "feature": "river"}``).
- movement: every key optional, merged over `DEFAULT_MOVEMENT` (the terrain effects
  table, `service.rules.scenario.movement`).
- hex: ``terrain`` clear, ``controller`` null (nobody's), ``rail`` false,
  ``city``/``port``/``supply``/``supply_power`` null, ``port_damaged`` false,
  ``factories`` 0, ``seas`` [] (a hex listing seas is coastal).
- sea: ``adjacent`` [].
- unit: ``name`` null (shown as "<power name> <type> <size>"), ``face_up`` true,
  ``shattered`` false, ``oil`` false, ``hq_reorg``/``atr``/``ocs`` null. ``size`` is
  required for land units and null otherwise.
- atr: ``large`` false.
- unit ``air`` null (an air unit without it flies no combat air patrol, escort or
  interception), ``aa`` 0; air: ``range`` (required but for ATRs, which fly their
  ``atr`` range), ``air_to_air`` 0.
- ocs: ``kind`` combat; ``mode`` combat (move for transport, organic_truck and repl,
  OCS 5.5c); ``orientation`` move for those kinds and for move or strat mode, else
  combat; ``engineer``/``rail_repair`` false; ``combat`` zeros for transport,
  organic_truck and repl (required otherwise); ``move`` zeros for hedgehogs
  (required otherwise); ``action_rating`` 0; ``barrage`` 0.

Terrain (`TERRAINS`): clear, forest, mountain, swamp, jungle, desert, urban; the
first four after clear are `ROUGH_TERRAINS`, which cost one extra hex of a supply
path (RULES-NOTES 26). What terrain, hexsides and weather cost a moving unit is the
scenario's `movement` table (`MovementSpec`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from service.rules.scenario.tables import CombatRules

TERRAINS: Final = ("clear", "forest", "mountain", "swamp", "jungle", "desert", "urban")
ROUGH_TERRAINS: Final = frozenset({"forest", "mountain", "swamp", "jungle"})
HEXSIDE_FEATURES: Final = ("river", "major_river")
MOVE_CLASSES: Final = ("leg", "motorized")
PORTS: Final = ("minor", "major")
SUPPLY_KINDS: Final = ("primary", "secondary", "limited")
UNIT_CLASSES: Final = ("land", "air", "naval")
SIZES: Final = ("corps", "division")
MODES: Final = ("combat", "move", "reserve", "strat", "exploit", "dg")
ORIENTATIONS: Final = ("combat", "move")
OCS_KINDS: Final = ("combat", "transport", "organic_truck", "repl", "hedgehog")


# Land unit types.
INF: Final = "INF"  # infantry
MTN: Final = "MTN"  # mountain
MAR: Final = "MAR"  # marines
PARA: Final = "PARA"  # paratroops
GAR: Final = "GAR"  # garrison
MOT: Final = "MOT"  # motorized
MECH: Final = "MECH"  # mechanized
ARM: Final = "ARM"  # armour
ART: Final = "ART"  # artillery (barrage)
HQ: Final = "HQ"  # headquarters (reorganizes others, 11.18.2)
SUPPLY: Final = "SUPPLY"  # supply unit (11.18.7, 11.18.8); uses no modes
TRANSPORT: Final = "TRANSPORT"  # OCS transport points or an organic truck
REPL: Final = "REPL"  # replacement unit
HEDGEHOG: Final = "HEDGEHOG"  # OCS hedgehog; uses no modes


# Air unit types.
FTR: Final = "FTR"  # fighter
LND: Final = "LND"  # land bomber
NAV: Final = "NAV"  # naval bomber
ATR: Final = "ATR"  # air transport (11.18.1)
FB: Final = "FB"  # flying boat (may reorganize overseas from a coast, 11.18.4)


# Naval unit types.
BB: Final = "BB"  # battleship
CV: Final = "CV"  # carrier
CA: Final = "CA"  # heavy cruiser
CL: Final = "CL"  # light cruiser
DD: Final = "DD"  # destroyer
SUB: Final = "SUB"  # submarine
TRS: Final = "TRS"  # transport (11.18.9)
LAND_TYPES: Final = frozenset(
    {INF, MTN, MAR, PARA, GAR, MOT, MECH, ARM, ART, HQ, SUPPLY, TRANSPORT, REPL, HEDGEHOG}
)
AIR_TYPES: Final = frozenset({FTR, LND, NAV, ATR, FB})
NAVAL_TYPES: Final = frozenset({BB, CV, CA, CL, DD, SUB, TRS})
UNIT_TYPES: Final[Mapping[str, frozenset[str]]] = {
    "land": LAND_TYPES,
    "air": AIR_TYPES,
    "naval": NAVAL_TYPES,
}
INF_CLASS_TYPES: Final = frozenset({INF, MTN, MAR, PARA, GAR})


# The OCS kinds each land type may have; types not listed are kind "combat".
_KINDS_OF_TYPE: Final[Mapping[str, tuple[str, ...]]] = {
    TRANSPORT: ("transport", "organic_truck"),
    REPL: ("repl",),
    HEDGEHOG: ("hedgehog",),
}
_MOVE_ONLY_KINDS: Final = frozenset({"transport", "organic_truck", "repl"})
_ID_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}")
_AXIAL_DIRECTIONS: Final = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


@dataclass(frozen=True, slots=True)
class SideSpec:
    """A side: its starting initiative box (0-4 from the +2 box) and Reserve markers."""

    id: str
    initiative_box: int = 2
    reserve_markers: int = 6


@dataclass(frozen=True, slots=True)
class PowerSpec:
    """A major power. `bp_spent_last_turn` includes `bp_on_rps`; turn 1's RPs are
    their sum (RULES-NOTES 8). `pass_bonus` is added per turn-end die when it passes."""

    id: str
    name: str
    side: str
    pass_bonus: int
    neutral: bool
    bp_spent_last_turn: int
    bp_on_rps: int
    rail_moves: int
    at_war_with: tuple[str, ...]
    chits: int
    rp_gearing_cap: int
    conquered: bool
    build_points: int | None = None


@dataclass(frozen=True, slots=True)
class MinorSpec:
    """A minor country; its units use its controlling major power's RPs (11.18)."""

    id: str
    controller: str


@dataclass(frozen=True, slots=True)
class HexSpec:
    """A land hex. `controller` and `supply_power` name a power or a minor."""

    id: str
    q: int
    r: int
    terrain: str = "clear"
    controller: str | None = None
    rail: bool = False
    city: str | None = None
    port: str | None = None
    port_damaged: bool = False
    factories: int = 0
    supply: str | None = None
    supply_power: str | None = None
    seas: tuple[str, ...] = ()

    @property
    def coastal(self) -> bool:
        return bool(self.seas)


@dataclass(frozen=True, slots=True)
class SeaSpec:
    """A sea area and the sea areas next to it (symmetric)."""

    id: str
    adjacent: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HexsideSpec:
    """A feature on the edge between two adjacent hexes (`a` < `b`): a river costs a
    unit crossing it the extra MP of the movement table's `hexsides`."""

    a: str
    b: str
    feature: str


@dataclass(frozen=True, slots=True)
class MapSpec:
    """Hexes (axial coordinates; neighbours are the six axial neighbours on the map)
    and sea areas. `supply_path_length` is the basic path in fine weather."""

    supply_path_length: int
    hexes: tuple[HexSpec, ...]
    seas: tuple[SeaSpec, ...] = ()
    hexsides: tuple[HexsideSpec, ...] = ()
    _hex_by_id: dict[str, HexSpec] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _hex_by_qr: dict[tuple[int, int], HexSpec] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _sea_by_id: dict[str, SeaSpec] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _coast_of_sea: dict[str, tuple[str, ...]] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _side_feature: dict[tuple[str, str], str] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        self._side_feature.update(((x.a, x.b), x.feature) for x in self.hexsides)
        coast: dict[str, list[str]] = {s.id: [] for s in self.seas}
        for h in self.hexes:
            self._hex_by_id[h.id] = h
            self._hex_by_qr[(h.q, h.r)] = h
            for sea_id in h.seas:
                coast.setdefault(sea_id, []).append(h.id)
        for sea in self.seas:
            self._sea_by_id[sea.id] = sea
        self._coast_of_sea.update({k: tuple(v) for k, v in coast.items()})

    def hex(self, id: str) -> HexSpec:
        """The hex `id` (KeyError if none)."""
        return self._hex_by_id[id]

    def sea(self, id: str) -> SeaSpec:
        """The sea area `id` (KeyError if none)."""
        return self._sea_by_id[id]

    def hex_at(self, q: int, r: int) -> HexSpec | None:
        """The hex at axial (q, r), or None off the map."""
        return self._hex_by_qr.get((q, r))

    def is_hex(self, id: str) -> bool:
        return id in self._hex_by_id

    def is_sea(self, id: str) -> bool:
        return id in self._sea_by_id

    def neighbours(self, id: str) -> tuple[str, ...]:
        """Ids of the axial neighbours of hex `id` that are on the map."""
        h = self._hex_by_id[id]
        out = []
        for dq, dr in _AXIAL_DIRECTIONS:
            n = self._hex_by_qr.get((h.q + dq, h.r + dr))
            if n is not None:
                out.append(n.id)
        return tuple(out)

    def distance(self, a: str, b: str) -> int:
        """Axial distance between hexes `a` and `b` (air ranges)."""
        ha, hb = self._hex_by_id[a], self._hex_by_id[b]
        return axial_distance(ha.q, ha.r, hb.q, hb.r)

    def hexside(self, a: str, b: str) -> str | None:
        """The feature on the edge between hexes `a` and `b` (a river), or None."""
        return self._side_feature.get((a, b) if a < b else (b, a))

    def coast_of(self, sea: str) -> tuple[str, ...]:
        """Ids of the coastal hexes bordering sea area `sea` (KeyError if none)."""
        if sea not in self._sea_by_id:
            raise KeyError(sea)
        return self._coast_of_sea.get(sea, ())


def axial_distance(q1: int, r1: int, q2: int, r2: int) -> int:
    """Hex distance between two axial coordinates."""
    dq, dr = q1 - q2, r1 - r2
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@dataclass(frozen=True, slots=True)
class OcsValues:
    """Strength and movement allowance printed on one side of an OCS counter."""

    strength: int
    ma: int


@dataclass(frozen=True, slots=True)
class OcsSpec:
    """A ground unit's OCS data: starting mode and orientation (OCS 5.2), kind
    (combat unit, transport points, organic truck, replacement, hedgehog), the
    values on its Combat and Move sides, and the step losses it takes before it is
    eliminated (`steps`)."""

    mode: str = "combat"
    orientation: str = "combat"
    kind: str = "combat"
    engineer: bool = False
    rail_repair: bool = False
    combat: OcsValues = OcsValues(0, 0)
    move: OcsValues = OcsValues(0, 0)
    action_rating: int = 0
    barrage: int = 0
    steps: int = 1


@dataclass(frozen=True, slots=True)
class AtrSpec:
    """An air transport's range, Option 36 size, and home base hex (11.18.1)."""

    range: int
    large: bool
    base: str


@dataclass(frozen=True, slots=True)
class AirSpec:
    """An air unit's air combat data (11.18.1): the hexes it flies from its base
    (`range`; an ATR flies its `atr` range) and its air-to-air factor."""

    range: int | None
    air_to_air: int = 0


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A unit as placed by the scenario. `power` is a power or minor id; `at` is a
    hex id or a sea id; `cost` is its reorganization cost in RPs (11.18)."""

    id: str
    power: str
    unit_class: str
    type: str
    size: str | None
    cost: int
    at: str
    face_up: bool = True
    shattered: bool = False
    oil: bool = False
    hq_reorg: int | None = None
    atr: AtrSpec | None = None
    ocs: OcsSpec | None = None
    name: str | None = None
    air: AirSpec | None = None
    aa: int = 0


def is_inf_class(unit: UnitSpec) -> bool:
    """INF-class: INF, MTN, MAR, PARA, GAR (11.18.4 overseas tracing)."""
    return unit.unit_class == "land" and unit.type in INF_CLASS_TYPES


def is_hq(unit: UnitSpec) -> bool:
    return unit.unit_class == "land" and unit.type == HQ


def is_supply_unit(unit: UnitSpec) -> bool:
    return unit.unit_class == "land" and unit.type == SUPPLY


def is_atr(unit: UnitSpec) -> bool:
    return unit.unit_class == "air" and unit.type == ATR


def is_fighter(unit: UnitSpec) -> bool:
    return unit.unit_class == "air" and unit.type == FTR


def air_range(unit: UnitSpec) -> int | None:
    """How far an air unit flies from its base (11.18.1): an ATR its `atr` range, any
    other its `air` range (None: the scenario gives none, so it flies no mission)."""
    if unit.atr is not None:
        return unit.atr.range
    return unit.air.range if unit.air is not None else None


def air_to_air(unit: UnitSpec) -> int:
    return unit.air.air_to_air if unit.air is not None else 0


def is_flying_boat(unit: UnitSpec) -> bool:
    return unit.unit_class == "air" and unit.type == FB


def uses_modes(unit: UnitSpec) -> bool:
    """OCS 5.1: ground units use modes, except supply units (SP) and hedgehogs; air
    units do not, and ships use only DG (18.1d), which is not tracked as a mode here."""
    return unit.unit_class == "land" and unit.ocs is not None and unit.ocs.kind != "hedgehog"


@dataclass(frozen=True, slots=True)
class Costs:
    """MP for a leg and for a motorized unit; None: the terrain may not be entered."""

    leg: int | None
    motorized: int | None

    def of(self, move_class: str) -> int | None:
        return self.motorized if move_class == "motorized" else self.leg


@dataclass(frozen=True, slots=True)
class StackingSpec:
    """How many land units a hex holds at the end of a move: `limit` stacking points,
    a corps counting `corps`, a division `division`; units of the `exempt` types
    (hedgehogs, supply units, transport points and trucks) count nothing."""

    limit: int = 3
    corps: int = 1
    division: int = 1
    exempt: tuple[str, ...] = (HEDGEHOG, SUPPLY, TRANSPORT)

    def points(self, unit: UnitSpec) -> int:
        if unit.unit_class != "land" or unit.type in self.exempt:
            return 0
        return self.division if unit.size == "division" else self.corps


@dataclass(frozen=True, slots=True)
class MovementSpec:
    """The terrain effects table: MP a hex of each terrain costs to enter, the extra
    MP of crossing each hexside feature and of each weather (per hex entered), for leg
    and motorized units (`motorized`: the land types that move as motorized); and the
    stacking limit. Missing entries cost 1 (terrain) or 0 (hexsides, weather)."""

    terrain: tuple[tuple[str, Costs], ...]
    hexsides: tuple[tuple[str, Costs], ...]
    weather: tuple[tuple[str, Costs], ...]
    motorized: tuple[str, ...]
    stacking: StackingSpec = StackingSpec()
    _tables: dict[str, dict[str, Costs]] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        self._tables.update(terrain=dict(self.terrain), hexsides=dict(self.hexsides),
                            weather=dict(self.weather))

    def move_class(self, unit: UnitSpec) -> str:
        """"motorized" or "leg": how `unit` pays for terrain."""
        return "motorized" if unit.type in self.motorized else "leg"

    def terrain_cost(self, terrain: str, move_class: str) -> int | None:
        found = self._tables["terrain"].get(terrain)
        return 1 if found is None else found.of(move_class)

    def hexside_cost(self, feature: str | None, move_class: str) -> int:
        found = None if feature is None else self._tables["hexsides"].get(feature)
        return 0 if found is None else found.of(move_class) or 0

    def weather_cost(self, weather: str | None, move_class: str) -> int:
        found = None if weather is None else self._tables["weather"].get(weather)
        return 0 if found is None else found.of(move_class) or 0


# The default terrain effects table (README, docs/rules-options.md): a placeholder in
# the spirit of OCS's, until a game's printed chart is entered.
DEFAULT_MOVEMENT: Final = MovementSpec(
    terrain=(("clear", Costs(1, 1)), ("forest", Costs(2, 3)), ("mountain", Costs(3, 6)),
             ("swamp", Costs(3, 5)), ("jungle", Costs(3, 5)), ("desert", Costs(1, 1)),
             ("urban", Costs(1, 1))),
    hexsides=(("river", Costs(1, 2)), ("major_river", Costs(2, 3))),
    weather=(("blizzard", Costs(1, 2)), ("rain", Costs(0, 1)), ("snow", Costs(1, 1)),
             ("storm", Costs(0, 1))),
    motorized=(ARM, MECH, MOT, HQ, TRANSPORT),
)


@dataclass(frozen=True, slots=True)
class FuelSpec:
    """Fuel as scenario data (RULES-NOTES 30; `service.rules.scenario.fuel`): what
    reorganizing a unit of each listed type costs, and each major power's stock at the
    start and what its production adds each turn."""

    reorganize: tuple[tuple[str, int], ...]
    stock: tuple[tuple[str, int], ...]
    per_turn: tuple[tuple[str, int], ...]

    def cost(self, unit_type: str) -> int:
        """The fuel a unit of `unit_type` costs to reorganize (0 for a type not listed)."""
        return dict(self.reorganize).get(unit_type, 0)

    def start(self, power: str) -> int:
        return dict(self.stock).get(power, 0)

    def income(self, power: str) -> int:
        return dict(self.per_turn).get(power, 0)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A whole scenario with lookups by id."""

    id: str
    title: str
    sides: tuple[SideSpec, ...]
    initiative_last_turn: tuple[str, ...]
    powers: tuple[PowerSpec, ...]
    minors: tuple[MinorSpec, ...]
    map: MapSpec
    units: tuple[UnitSpec, ...]
    movement: MovementSpec = DEFAULT_MOVEMENT
    combat: CombatRules = CombatRules()
    fuel: FuelSpec | None = None
    _side_by_id: dict[str, SideSpec] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _power_by_id: dict[str, PowerSpec] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _minor_by_id: dict[str, MinorSpec] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _unit_by_id: dict[str, UnitSpec] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _powers_of_side: dict[str, tuple[str, ...]] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )
    _units_at: dict[str, tuple[UnitSpec, ...]] = field(
        init=False, default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        self._side_by_id.update((s.id, s) for s in self.sides)
        self._power_by_id.update((p.id, p) for p in self.powers)
        self._minor_by_id.update((m.id, m) for m in self.minors)
        self._unit_by_id.update((u.id, u) for u in self.units)
        self._powers_of_side.update(
            (s.id, tuple(p.id for p in self.powers if p.side == s.id)) for s in self.sides
        )
        at: dict[str, list[UnitSpec]] = {}
        for u in self.units:
            at.setdefault(u.at, []).append(u)
        self._units_at.update((k, tuple(v)) for k, v in at.items())

    @property
    def side_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.sides)

    def side(self, id: str) -> SideSpec:
        return self._side_by_id[id]

    def power(self, id: str) -> PowerSpec:
        """The major power `id` (KeyError for anything else, minors included)."""
        return self._power_by_id[id]

    def minor(self, id: str) -> MinorSpec:
        return self._minor_by_id[id]

    def is_power(self, id: str) -> bool:
        return id in self._power_by_id

    def is_minor(self, id: str) -> bool:
        return id in self._minor_by_id

    def controller_of(self, power_or_minor: str) -> str:
        """The major power that pays for and commands `power_or_minor`."""
        m = self._minor_by_id.get(power_or_minor)
        if m is not None:
            return m.controller
        return self._power_by_id[power_or_minor].id

    def side_of_power(self, id: str) -> str:
        """The side of a power, or of a minor's controller."""
        return self._power_by_id[self.controller_of(id)].side

    def powers_of_side(self, side: str) -> tuple[str, ...]:
        """Power ids of `side` in scenario order (KeyError for an unknown side)."""
        return self._powers_of_side[side]

    def at_war(self, a: str, b: str) -> bool:
        """Whether powers or minors `a` and `b` are at war (minors through controllers)."""
        ca, cb = self.controller_of(a), self.controller_of(b)
        return cb in self._power_by_id[ca].at_war_with

    def unit(self, id: str) -> UnitSpec:
        return self._unit_by_id[id]

    def unit_name(self, id: str) -> str:
        """The unit's name: the scenario's, else "<power name> <type> <size>"."""
        u = self._unit_by_id[id]
        if u.name:
            return u.name
        owner = self._power_by_id.get(u.power)
        power = owner.name if owner is not None else u.power.replace("_", " ").title()
        return " ".join(x for x in (power, u.type, u.size) if x)

    def units_at(self, place: str) -> tuple[UnitSpec, ...]:
        """Units the scenario places in hex or sea `place`."""
        return self._units_at.get(place, ())


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation problem: where (``units[3].at``; "" is the document) and what."""

    path: str
    message: str


class ScenarioInvalid(Exception):
    """A scenario failed validation; `problems` lists every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        shown = "; ".join(f"{p.path or '(document)'}: {p.message}" for p in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(f"invalid scenario, {len(problems)} problem(s): {shown}{more}")
