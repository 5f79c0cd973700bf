"""The scenario format (DESIGN section 6): value types, validation, JSON round trip.

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
  ``bp_spent_last_turn``.
- map: ``supply_path_length`` 4, ``seas`` [].
- hex: ``terrain`` clear, ``controller`` null (nobody's), ``rail`` false,
  ``city``/``port``/``supply``/``supply_power`` null, ``port_damaged`` false,
  ``factories`` 0, ``seas`` [] (a hex listing seas is coastal).
- sea: ``adjacent`` [].
- unit: ``face_up`` true, ``shattered`` false, ``oil`` false, ``hq_reorg``/``atr``/
  ``ocs`` null. ``size`` is required for land units and null otherwise.
- atr: ``large`` false.
- ocs: ``kind`` combat; ``mode`` combat (move for transport, organic_truck and repl,
  OCS 5.5c); ``orientation`` move for those kinds and for move or strat mode, else
  combat; ``engineer``/``rail_repair`` false; ``combat`` zeros for transport,
  organic_truck and repl (required otherwise); ``move`` zeros for hedgehogs
  (required otherwise); ``action_rating`` 0; ``barrage`` 0.

Terrain (`TERRAINS`): clear, forest, mountain, swamp, jungle, desert, urban; the
first four after clear are `ROUGH_TERRAINS`, which cost one extra hex of a supply
path (RULES-NOTES 26).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Final, Generic, TypeVar

# --------------------------------------------------------------------------- vocabulary

TERRAINS: Final = ("clear", "forest", "mountain", "swamp", "jungle", "desert", "urban")
ROUGH_TERRAINS: Final = frozenset({"forest", "mountain", "swamp", "jungle"})
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

# --------------------------------------------------------------------------- value types


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
class MapSpec:
    """Hexes (axial coordinates; neighbours are the six axial neighbours on the map)
    and sea areas. `supply_path_length` is the basic path in fine weather."""

    supply_path_length: int
    hexes: tuple[HexSpec, ...]
    seas: tuple[SeaSpec, ...] = ()
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

    def __post_init__(self) -> None:
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
    (combat unit, transport points, organic truck, replacement, hedgehog), and the
    values on its Combat and Move sides."""

    mode: str = "combat"
    orientation: str = "combat"
    kind: str = "combat"
    engineer: bool = False
    rail_repair: bool = False
    combat: OcsValues = OcsValues(0, 0)
    move: OcsValues = OcsValues(0, 0)
    action_rating: int = 0
    barrage: int = 0


@dataclass(frozen=True, slots=True)
class AtrSpec:
    """An air transport's range, Option 36 size, and home base hex (11.18.1)."""

    range: int
    large: bool
    base: str


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


def is_inf_class(unit: UnitSpec) -> bool:
    """INF-class: INF, MTN, MAR, PARA, GAR (11.18.4 overseas tracing)."""
    return unit.unit_class == "land" and unit.type in INF_CLASS_TYPES


def is_hq(unit: UnitSpec) -> bool:
    return unit.unit_class == "land" and unit.type == HQ


def is_supply_unit(unit: UnitSpec) -> bool:
    return unit.unit_class == "land" and unit.type == SUPPLY


def is_atr(unit: UnitSpec) -> bool:
    return unit.unit_class == "air" and unit.type == ATR


def is_flying_boat(unit: UnitSpec) -> bool:
    return unit.unit_class == "air" and unit.type == FB


def uses_modes(unit: UnitSpec) -> bool:
    """OCS 5.1: ground units use modes, except supply units (SP) and hedgehogs; air
    units do not, and ships use only DG (18.1d), which is not tracked as a mode here."""
    return unit.unit_class == "land" and unit.ocs is not None and unit.ocs.kind != "hedgehog"


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

    def units_at(self, place: str) -> tuple[UnitSpec, ...]:
        """Units the scenario places in hex or sea `place`."""
        return self._units_at.get(place, ())


# --------------------------------------------------------------------------- problems


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


# --------------------------------------------------------------------------- reading JSON

T = TypeVar("T")
_ABSENT: Final = object()


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _what(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list | tuple):
        return "an array"
    if isinstance(v, Mapping):
        return "an object"
    return type(v).__name__


def _is_id(v: object) -> bool:
    return isinstance(v, str) and _ID_RE.fullmatch(v) is not None


_ID_HINT: Final = "an id (1-64 of A-Z a-z 0-9 _ . : -, starting with a letter or digit)"


class _Fields:
    """Typed reads of one JSON object's fields. A bad field is reported, its key is
    added to `bad`, and a placeholder is returned so reading can go on."""

    def __init__(self, problems: list[Problem], value: object, path: str, known: Iterable[str]):
        self.problems = problems
        self.path = path
        self.bad: set[str] = set()
        self.positions: dict[tuple[str, str], str] = {}
        self.m: Mapping[Any, Any]
        if isinstance(value, Mapping):
            self.m = value
            self.is_object = True
            names = frozenset(known)
            for k in value:
                if not (isinstance(k, str) and k in names):
                    self.report(str(k), "unknown field")
        else:
            self.m = {}
            self.is_object = False
            problems.append(Problem(path, f"expected an object, got {_what(value)}"))

    def report(self, key: str, message: str) -> None:
        self.problems.append(Problem(_join(self.path, key), message))

    def fail(self, key: str, message: str) -> None:
        self.bad.add(key)
        self.report(key, message)

    def ok_keys(self, *keys: str) -> bool:
        return not any(k in self.bad for k in keys)

    def raw(self, key: str) -> object:
        """The value of `key`, or _ABSENT when missing or null."""
        v = self.m.get(key, _ABSENT)
        return _ABSENT if v is None else v

    def _required(self, key: str, expected: str) -> object:
        v = self.m.get(key, _ABSENT)
        if v is _ABSENT:
            self.fail(key, "required field missing")
        elif v is None:
            self.fail(key, f"expected {expected}, got null")
            return _ABSENT
        return v

    def id(self, key: str = "id") -> str:
        v = self._required(key, "an id")
        if v is _ABSENT:
            return ""
        if not _is_id(v):
            shown = repr(v) if isinstance(v, str) else _what(v)
            self.fail(key, f"expected {_ID_HINT}, got {shown}")
            return ""
        assert isinstance(v, str)
        return v

    def opt_id(self, key: str) -> str | None:
        v = self.raw(key)
        if v is _ABSENT:
            return None
        if not _is_id(v):
            self.fail(key, f"expected {_ID_HINT} or null, got {_what(v)}")
            return None
        assert isinstance(v, str)
        return v

    def text(self, key: str, default: str | None) -> str:
        """A non-empty string; required when `default` is None."""
        v = self.raw(key) if default is not None else self._required(key, "a string")
        if v is _ABSENT:
            return default or ""
        if not isinstance(v, str) or not v.strip():
            self.fail(key, f"expected a non-empty string, got {_what(v)}")
            return ""
        return v

    def opt_text(self, key: str) -> str | None:
        v = self.raw(key)
        if v is _ABSENT:
            return None
        if not isinstance(v, str) or not v.strip():
            self.fail(key, f"expected a non-empty string or null, got {_what(v)}")
            return None
        return v

    def choice(self, key: str, choices: tuple[str, ...], default: str | None) -> str:
        """One of `choices`; required when `default` is None."""
        v = self.raw(key) if default is not None else self._required(key, "a string")
        if v is _ABSENT:
            return default or ""
        if not isinstance(v, str) or v not in choices:
            shown = repr(v) if isinstance(v, str) else _what(v)
            self.fail(key, f"expected one of {', '.join(choices)}, got {shown}")
            return ""
        return v

    def opt_choice(self, key: str, choices: tuple[str, ...]) -> str | None:
        v = self.raw(key)
        if v is _ABSENT:
            return None
        if not isinstance(v, str) or v not in choices:
            shown = repr(v) if isinstance(v, str) else _what(v)
            self.fail(key, f"expected one of {', '.join(choices)} or null, got {shown}")
            return None
        return v

    def integer(
        self, key: str, default: int | None, lo: int | None = 0, hi: int | None = None
    ) -> int:
        """An integer in [lo, hi] (None: unbounded); required when `default` is None."""
        v = self.raw(key) if default is not None else self._required(key, "an integer")
        if v is _ABSENT:
            return default or 0
        return self._bounded(key, v, lo, hi)

    def opt_integer(self, key: str, lo: int | None = 0, hi: int | None = None) -> int | None:
        v = self.raw(key)
        if v is _ABSENT:
            return None
        return self._bounded(key, v, lo, hi)

    def _bounded(self, key: str, v: object, lo: int | None, hi: int | None) -> int:
        if not isinstance(v, int) or isinstance(v, bool):
            self.fail(key, f"expected an integer, got {_what(v)}")
            return 0
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            if hi is None:
                self.fail(key, f"must be at least {lo}, got {v}")
            elif lo is None:
                self.fail(key, f"must be at most {hi}, got {v}")
            else:
                self.fail(key, f"must be between {lo} and {hi}, got {v}")
            return 0
        return v

    def flag(self, key: str, default: bool) -> bool:
        v = self.raw(key)
        if v is _ABSENT:
            return default
        if not isinstance(v, bool):
            self.fail(key, f"expected a boolean, got {_what(v)}")
            return default
        return v

    def array(self, key: str, required: bool) -> list[tuple[str, object]]:
        """The elements of an array field with their paths ([] when absent)."""
        v = self._required(key, "an array") if required else self.raw(key)
        if v is _ABSENT:
            return []
        if not isinstance(v, list | tuple):
            self.fail(key, f"expected an array, got {_what(v)}")
            return []
        base = _join(self.path, key)
        return [(f"{base}[{i}]", e) for i, e in enumerate(v)]

    def ids(self, key: str, required: bool = False) -> tuple[str, ...]:
        """An array of distinct ids. Bad or repeated elements are reported and dropped;
        the rest stay checkable, so `key` is marked bad only when it is not an array."""
        out: list[str] = []
        for p, e in self.array(key, required):
            if not _is_id(e):
                self.problems.append(Problem(p, f"expected {_ID_HINT}, got {_what(e)}"))
            elif e in out:
                self.problems.append(Problem(p, f"{e!r} is listed twice"))
            else:
                assert isinstance(e, str)
                self.positions[(key, e)] = p
                out.append(e)
        return tuple(out)


@dataclass(slots=True)
class _Parsed(Generic[T]):
    """A parsed item, its path, and the keys that were bad (checks skip those)."""

    spec: T
    path: str
    bad: set[str]
    positions: dict[tuple[str, str], str] = field(default_factory=dict)

    def ok(self, *keys: str) -> bool:
        return not any(k in self.bad for k in keys)

    def where(self, key: str, element: str) -> str:
        """The path of `element` in the id array `key`, as given in the input."""
        return self.positions.get((key, element), _join(self.path, key))


_SCENARIO_FIELDS: Final = (
    "id", "title", "sides", "initiative_last_turn", "powers", "minors", "map", "units",
)
_SIDE_FIELDS: Final = ("id", "initiative_box", "reserve_markers")
_POWER_FIELDS: Final = (
    "id", "name", "side", "pass_bonus", "neutral", "bp_spent_last_turn", "bp_on_rps",
    "rail_moves", "at_war_with", "chits", "rp_gearing_cap", "conquered",
)
_MINOR_FIELDS: Final = ("id", "controller")
_MAP_FIELDS: Final = ("supply_path_length", "hexes", "seas")
_HEX_FIELDS: Final = (
    "id", "q", "r", "terrain", "controller", "rail", "city", "port", "port_damaged",
    "factories", "supply", "supply_power", "seas",
)
_SEA_FIELDS: Final = ("id", "adjacent")
_UNIT_FIELDS: Final = (
    "id", "power", "class", "type", "size", "cost", "at", "face_up", "shattered", "oil",
    "hq_reorg", "atr", "ocs",
)
_ATR_FIELDS: Final = ("range", "large", "base")
_OCS_FIELDS: Final = (
    "mode", "orientation", "kind", "engineer", "rail_repair", "combat", "move",
    "action_rating", "barrage",
)
_VALUES_FIELDS: Final = ("strength", "ma")


def _parse_side(problems: list[Problem], v: object, path: str) -> _Parsed[SideSpec] | None:
    f = _Fields(problems, v, path, _SIDE_FIELDS)
    if not f.is_object:
        return None
    spec = SideSpec(
        id=f.id(),
        initiative_box=f.integer("initiative_box", 2, 0, 4),
        reserve_markers=f.integer("reserve_markers", 6),
    )
    return _Parsed(spec, path, f.bad, f.positions)


def _parse_power(problems: list[Problem], v: object, path: str) -> _Parsed[PowerSpec] | None:
    f = _Fields(problems, v, path, _POWER_FIELDS)
    if not f.is_object:
        return None
    pid = f.id()
    bp_spent = f.integer("bp_spent_last_turn", 0)
    spec = PowerSpec(
        id=pid,
        name=f.text("name", pid or "?"),
        side=f.id("side"),
        pass_bonus=f.integer("pass_bonus", 0),
        neutral=f.flag("neutral", False),
        bp_spent_last_turn=bp_spent,
        bp_on_rps=f.integer("bp_on_rps", 0),
        rail_moves=f.integer("rail_moves", 0),
        at_war_with=f.ids("at_war_with"),
        chits=f.integer("chits", 0),
        rp_gearing_cap=f.integer("rp_gearing_cap", bp_spent),
        conquered=f.flag("conquered", False),
    )
    if f.ok_keys("bp_on_rps", "bp_spent_last_turn") and spec.bp_on_rps > spec.bp_spent_last_turn:
        f.fail("bp_on_rps", "BP spent on RPs are part of bp_spent_last_turn and cannot exceed it")
    if spec.neutral and spec.at_war_with:
        f.fail("at_war_with", "a neutral power is at war with nobody")
    return _Parsed(spec, path, f.bad, f.positions)


def _parse_minor(problems: list[Problem], v: object, path: str) -> _Parsed[MinorSpec] | None:
    f = _Fields(problems, v, path, _MINOR_FIELDS)
    if not f.is_object:
        return None
    return _Parsed(MinorSpec(id=f.id(), controller=f.id("controller")), path, f.bad, f.positions)


def _parse_hex(problems: list[Problem], v: object, path: str) -> _Parsed[HexSpec] | None:
    f = _Fields(problems, v, path, _HEX_FIELDS)
    if not f.is_object:
        return None
    spec = HexSpec(
        id=f.id(),
        q=f.integer("q", None, lo=None),
        r=f.integer("r", None, lo=None),
        terrain=f.choice("terrain", TERRAINS, "clear"),
        controller=f.opt_id("controller"),
        rail=f.flag("rail", False),
        city=f.opt_text("city"),
        port=f.opt_choice("port", PORTS),
        port_damaged=f.flag("port_damaged", False),
        factories=f.integer("factories", 0),
        supply=f.opt_choice("supply", SUPPLY_KINDS),
        supply_power=f.opt_id("supply_power"),
        seas=f.ids("seas"),
    )
    if spec.port_damaged and spec.port is None and f.ok_keys("port"):
        f.fail("port_damaged", "a hex without a port has no port to damage")
    if spec.port is not None and not spec.seas and f.ok_keys("seas"):
        f.fail("port", "a port needs a coastal hex (list the seas it borders)")
    if f.ok_keys("supply", "supply_power"):
        if spec.supply is not None and spec.supply_power is None:
            f.fail("supply_power", "a supply source names the power or minor it supplies")
        elif spec.supply is None and spec.supply_power is not None:
            f.fail("supply_power", "supply_power without a supply source")
    return _Parsed(spec, path, f.bad, f.positions)


def _parse_sea(problems: list[Problem], v: object, path: str) -> _Parsed[SeaSpec] | None:
    f = _Fields(problems, v, path, _SEA_FIELDS)
    if not f.is_object:
        return None
    return _Parsed(SeaSpec(id=f.id(), adjacent=f.ids("adjacent")), path, f.bad, f.positions)


def _parse_values(g: _Fields, key: str, required: bool) -> OcsValues:
    raw = g.raw(key)
    if raw is _ABSENT:
        if required:
            g.fail(key, "required field missing")
        return OcsValues(0, 0)
    h = _Fields(g.problems, raw, _join(g.path, key), _VALUES_FIELDS)
    values = OcsValues(strength=h.integer("strength", None), ma=h.integer("ma", None))
    if h.bad or not h.is_object:
        g.bad.add(key)
    return values


def _mode_problems(o: OcsSpec) -> list[tuple[str, str]]:
    """Starting mode and orientation that OCS 5 forbids for the unit's kind."""
    out: list[tuple[str, str]] = []
    if o.kind == "hedgehog":
        if o.mode != "combat" or o.orientation != "combat":
            out.append(("mode", "hedgehogs use no modes (OCS 5.1): mode and orientation "
                                "are combat"))
        return out
    if o.kind in _MOVE_ONLY_KINDS:
        if o.orientation != "move":
            out.append(("orientation", "Repl units and Transport Points are always "
                                       "oriented toward Move Mode (OCS 5.6b)"))
        if o.mode == "combat":
            out.append(("mode", "Repl units and Transport Points cannot enter Combat "
                                "Mode (OCS 5.5c)"))
    if o.kind == "transport" and o.mode == "reserve":
        out.append(("mode", "Transport Points cannot enter Reserve Mode (OCS 5.7f)"))
    if o.kind in ("transport", "organic_truck"):
        if o.mode == "strat":
            out.append(("mode", "Transport Points cannot enter Strat Mode (OCS 5.8c)"))
        if o.mode == "dg":
            out.append(("mode", "Transport Points are never in DG Mode (OCS 5.10c)"))
    if o.mode == "strat" and o.orientation != "move":
        out.append(("orientation", "Strat Mode units are oriented to Move Mode (OCS 5.8)"))
    if o.mode in ("combat", "move") and o.orientation not in ("", o.mode):
        out.append(("orientation", f"a unit in {o.mode} mode shows its {o.mode} side "
                                   "(OCS 5.2)"))
    return out


def _parse_ocs(f: _Fields) -> OcsSpec | None:
    raw = f.raw("ocs")
    if raw is _ABSENT:
        return None
    g = _Fields(f.problems, raw, _join(f.path, "ocs"), _OCS_FIELDS)
    if not g.is_object:
        f.bad.add("ocs")
        return None
    kind = g.choice("kind", OCS_KINDS, "combat")
    move_only = kind in _MOVE_ONLY_KINDS
    mode = g.choice("mode", MODES, "move" if move_only else "combat")
    default_orientation = "move" if move_only or mode in ("move", "strat") else "combat"
    spec = OcsSpec(
        mode=mode,
        orientation=g.choice("orientation", ORIENTATIONS, default_orientation),
        kind=kind,
        engineer=g.flag("engineer", False),
        rail_repair=g.flag("rail_repair", False),
        combat=_parse_values(g, "combat", required=not move_only),
        move=_parse_values(g, "move", required=kind != "hedgehog"),
        action_rating=g.integer("action_rating", 0, 0, 5),
        barrage=g.integer("barrage", 0),
    )
    if g.ok_keys("kind", "mode", "orientation"):
        for key, message in _mode_problems(spec):
            g.fail(key, message)
    f.bad.update(f"ocs.{k}" for k in g.bad)
    return spec


def _parse_atr(f: _Fields) -> AtrSpec | None:
    raw = f.raw("atr")
    if raw is _ABSENT:
        return None
    g = _Fields(f.problems, raw, _join(f.path, "atr"), _ATR_FIELDS)
    if not g.is_object:
        f.bad.add("atr")
        return None
    spec = AtrSpec(range=g.integer("range", None, lo=1), large=g.flag("large", False),
                   base=g.id("base"))
    f.bad.update(f"atr.{k}" for k in g.bad)
    return spec


def _parse_unit(problems: list[Problem], v: object, path: str) -> _Parsed[UnitSpec] | None:
    f = _Fields(problems, v, path, _UNIT_FIELDS)
    if not f.is_object:
        return None
    spec = UnitSpec(
        id=f.id(),
        power=f.id("power"),
        unit_class=f.choice("class", UNIT_CLASSES, None),
        type=f.text("type", None),
        size=f.opt_choice("size", SIZES),
        cost=f.integer("cost", None),
        at=f.id("at"),
        face_up=f.flag("face_up", True),
        shattered=f.flag("shattered", False),
        oil=f.flag("oil", False),
        hq_reorg=f.opt_integer("hq_reorg", lo=1),
        atr=_parse_atr(f),
        ocs=_parse_ocs(f),
    )
    cls, utype = spec.unit_class, spec.type
    if f.ok_keys("class", "type") and utype not in UNIT_TYPES[cls]:
        f.fail("type", f"unknown {cls} unit type {utype!r}; expected one of "
                       f"{', '.join(sorted(UNIT_TYPES[cls]))}")
    elif f.ok_keys("type") and not f.ok_keys("class") and not any(
        utype in types for types in UNIT_TYPES.values()
    ):
        f.fail("type", f"unknown unit type {utype!r}")
    if f.ok_keys("class", "size"):
        if cls == "land" and spec.size is None:
            f.fail("size", "land units need a size: corps or division")
        elif cls != "land" and spec.size is not None:
            f.fail("size", "only land units have a size")
    if spec.shattered and spec.face_up and f.ok_keys("shattered", "face_up"):
        f.fail("shattered", "a shattered unit is face down (11.18: reorganized twice)")
    if f.ok_keys("class", "type"):
        _check_unit_extras(f, spec)
    return _Parsed(spec, path, f.bad, f.positions)


def _check_unit_extras(f: _Fields, u: UnitSpec) -> None:
    """hq_reorg only and always on HQs, atr on ATRs, ocs on ground units but SUPPLY."""
    hq, atr = is_hq(u), is_atr(u)
    if f.ok_keys("hq_reorg"):
        if hq and u.hq_reorg is None:
            f.fail("hq_reorg", "an HQ needs its reorganization value (11.18.2)")
        elif not hq and u.hq_reorg is not None:
            f.fail("hq_reorg", "only HQs have a reorganization value")
    if "atr" not in f.bad:
        if atr and u.atr is None:
            f.fail("atr", "an ATR needs its range and base (11.18.1)")
        elif not atr and f.raw("atr") is not _ABSENT:
            f.fail("atr", "only ATRs have atr data")
    if "ocs" not in f.bad:
        present = f.raw("ocs") is not _ABSENT
        if u.unit_class != "land":
            if present:
                f.fail("ocs", "only ground units have OCS data")
        elif u.type == SUPPLY:
            if present:
                f.fail("ocs", "supply units use no modes (OCS 5.1): omit ocs")
        elif not present:
            f.fail("ocs", "ground units need OCS data (mode, kind, values)")
        elif u.ocs is not None and "ocs.kind" not in f.bad:
            allowed = _KINDS_OF_TYPE.get(u.type, ("combat",))
            if u.ocs.kind not in allowed:
                f.fail("ocs.kind", f"a {u.type} unit has kind {' or '.join(allowed)}")


def _items(
    problems: list[Problem],
    elements: list[tuple[str, object]],
    parse: Any,
) -> list[_Parsed[Any]]:
    out: list[_Parsed[Any]] = []
    for path, e in elements:
        item = parse(problems, e, path)
        if item is not None:
            out.append(item)
    return out


# --------------------------------------------------------------------------- parse


def parse_scenario(data: Mapping[str, Any]) -> Scenario:
    """Validate a JSON scenario (DESIGN section 6) and build it.

    Raises ScenarioInvalid listing every problem found, and nothing else, for any
    JSON-like input."""
    problems: list[Problem] = []
    f = _Fields(problems, data, "", _SCENARIO_FIELDS)
    if not f.is_object:
        raise ScenarioInvalid(problems)
    sid = f.id()
    title = f.text("title", sid or "?")
    sides: list[_Parsed[SideSpec]] = _items(problems, f.array("sides", True), _parse_side)
    powers: list[_Parsed[PowerSpec]] = _items(problems, f.array("powers", True), _parse_power)
    minors: list[_Parsed[MinorSpec]] = _items(problems, f.array("minors", False), _parse_minor)
    units: list[_Parsed[UnitSpec]] = _items(problems, f.array("units", False), _parse_unit)
    ilt_given = f.raw("initiative_last_turn") is not _ABSENT
    ilt = f.ids("initiative_last_turn")

    m = _Fields(problems, f.m.get("map"), "map", _MAP_FIELDS) if "map" in f.m else None
    if m is None:
        f.fail("map", "required field missing")
    hexes: list[_Parsed[HexSpec]] = []
    seas: list[_Parsed[SeaSpec]] = []
    path_length = 4
    if m is not None and m.is_object:
        path_length = m.integer("supply_path_length", 4)
        hexes = _items(problems, m.array("hexes", True), _parse_hex)
        seas = _items(problems, m.array("seas", False), _parse_sea)
        if not hexes and "hexes" not in m.bad:
            m.fail("hexes", "a map needs at least one hex")

    c = _Checker(problems, sides, powers, minors, hexes, seas, units)
    c.check_all()
    if ilt_given and "initiative_last_turn" not in f.bad:
        c.check_initiative_last_turn(ilt)
    if problems:
        raise ScenarioInvalid(problems)
    side_specs = tuple(s.spec for s in sides)
    return Scenario(
        id=sid,
        title=title,
        sides=side_specs,
        initiative_last_turn=ilt if ilt_given else tuple(s.id for s in side_specs),
        powers=tuple(p.spec for p in powers),
        minors=tuple(x.spec for x in minors),
        map=MapSpec(
            supply_path_length=path_length,
            hexes=tuple(h.spec for h in hexes),
            seas=tuple(s.spec for s in seas),
        ),
        units=tuple(u.spec for u in units),
    )


class _Checker:
    """Cross-reference checks over parsed items; fields already reported are skipped."""

    def __init__(
        self,
        problems: list[Problem],
        sides: list[_Parsed[SideSpec]],
        powers: list[_Parsed[PowerSpec]],
        minors: list[_Parsed[MinorSpec]],
        hexes: list[_Parsed[HexSpec]],
        seas: list[_Parsed[SeaSpec]],
        units: list[_Parsed[UnitSpec]],
    ) -> None:
        self.problems = problems
        self.sides, self.powers, self.minors = sides, powers, minors
        self.hexes, self.seas, self.units = hexes, seas, units
        self.claimed: dict[str, tuple[str, str]] = {}
        self.side_by_id: dict[str, _Parsed[SideSpec]] = {}
        self.power_by_id: dict[str, _Parsed[PowerSpec]] = {}
        self.minor_by_id: dict[str, _Parsed[MinorSpec]] = {}
        self.hex_by_id: dict[str, _Parsed[HexSpec]] = {}
        self.sea_by_id: dict[str, _Parsed[SeaSpec]] = {}

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def check_all(self) -> None:
        self._claim_ids()
        self._check_sides()
        self._check_powers()
        self._check_minors()
        self._check_seas()
        self._check_hexes()
        self._check_units()

    def _claim_ids(self) -> None:
        groups: list[tuple[str, list[Any], dict[str, Any]]] = [
            ("side", self.sides, self.side_by_id),
            ("power", self.powers, self.power_by_id),
            ("minor", self.minors, self.minor_by_id),
            ("hex", self.hexes, self.hex_by_id),
            ("sea", self.seas, self.sea_by_id),
            ("unit", self.units, {}),
        ]
        for kind, items, index in groups:
            for item in items:
                if not item.ok("id"):
                    continue
                iid = item.spec.id
                first = self.claimed.get(iid)
                if first is None:
                    self.claimed[iid] = (kind, item.path)
                    index[iid] = item
                    continue
                path = _join(item.path, "id")
                other = self.power_by_id.get(iid)
                if kind == "power" and other is not None and other.spec.side != item.spec.side:
                    self.add(path, f"power {iid!r} is listed on two sides "
                                   f"({other.spec.side} at {other.path}, and "
                                   f"{item.spec.side} here)")
                else:
                    self.add(path, f"duplicate id {iid!r}: ids are unique across sides, "
                                   f"powers, minors, hexes, seas and units (first used by "
                                   f"the {first[0]} at {first[1]})")
                item.bad.add("id")

    def _check_sides(self) -> None:
        if len(self.side_by_id) < 2 and all(s.ok("id") for s in self.sides):
            self.add("sides", "a game needs at least two sides")
        with_powers = {p.spec.side for p in self.powers if p.ok("side")}
        for side in self.side_by_id.values():
            if side.spec.id not in with_powers:
                self.add(side.path, f"side {side.spec.id!r} has no powers")

    def check_initiative_last_turn(self, ilt: tuple[str, ...]) -> None:
        if not all(s.ok("id") for s in self.sides):
            return
        for i, side in enumerate(ilt):
            if side not in self.side_by_id:
                self.add(f"initiative_last_turn[{i}]", f"unknown side {side!r}")
        missing = [s for s in self.side_by_id if s not in ilt]
        if missing:
            self.add("initiative_last_turn", "must list every side once; missing "
                                             f"{', '.join(missing)}")

    def _check_powers(self) -> None:
        for p in self.powers:
            spec = p.spec
            if p.ok("side") and spec.side not in self.side_by_id:
                self.add(_join(p.path, "side"), f"unknown side {spec.side!r}")
            if not p.ok("at_war_with", "id", "side"):
                continue
            for enemy in spec.at_war_with:
                where = p.where("at_war_with", enemy)
                other = self.power_by_id.get(enemy)
                if other is None:
                    hint = (" (minors are at war through their controller)"
                            if enemy in self.minor_by_id else "")
                    self.add(where, f"unknown power {enemy!r}{hint}")
                elif enemy == spec.id:
                    self.add(where, "a power cannot be at war with itself")
                elif other.ok("side") and other.spec.side == spec.side:
                    self.add(where, f"{enemy} is of the same side ({spec.side}); powers of "
                                    "one side are never at war with each other")
                elif other.ok("at_war_with") and spec.id not in other.spec.at_war_with:
                    self.add(where, f"war is mutual: {enemy} does not list {spec.id} in "
                                    "its at_war_with")

    def _check_minors(self) -> None:
        for m in self.minors:
            if not m.ok("controller"):
                continue
            ctl = m.spec.controller
            if ctl not in self.power_by_id:
                what = "a minor" if ctl in self.minor_by_id else "not a known power"
                self.add(_join(m.path, "controller"),
                         f"{ctl!r} is {what}; a minor is controlled by a major power")

    def _is_power_or_minor(self, x: str) -> bool:
        return x in self.power_by_id or x in self.minor_by_id

    def _major(self, x: str) -> str | None:
        if x in self.power_by_id:
            return x
        m = self.minor_by_id.get(x)
        if m is not None and m.ok("controller") and m.spec.controller in self.power_by_id:
            return m.spec.controller
        return None

    def _check_seas(self) -> None:
        for s in self.seas:
            if not s.ok("id", "adjacent"):
                continue
            for other in s.spec.adjacent:
                where = s.where("adjacent", other)
                o = self.sea_by_id.get(other)
                if other == s.spec.id:
                    self.add(where, "a sea area is not adjacent to itself")
                elif o is None:
                    self.add(where, f"unknown sea {other!r}")
                elif o.ok("adjacent") and s.spec.id not in o.spec.adjacent:
                    self.add(where, f"adjacency is symmetric: {other} does not list "
                                    f"{s.spec.id}")

    def _check_hexes(self) -> None:
        at: dict[tuple[int, int], _Parsed[HexSpec]] = {}
        for h in self.hexes:
            spec = h.spec
            for key in ("controller", "supply_power"):
                ref = getattr(spec, key)
                if ref is not None and h.ok(key) and not self._is_power_or_minor(ref):
                    self.add(_join(h.path, key), f"unknown power or minor {ref!r}")
            if h.ok("seas"):
                for sea in spec.seas:
                    if sea not in self.sea_by_id:
                        self.add(h.where("seas", sea), f"unknown sea {sea!r}")
            if h.ok("q", "r"):
                first = at.get((spec.q, spec.r))
                if first is None:
                    at[(spec.q, spec.r)] = h
                else:
                    self.add(h.path, f"coordinates ({spec.q}, {spec.r}) are already used by "
                                     f"hex {first.spec.id!r} at {first.path}")

    def _check_units(self) -> None:
        wars: dict[str, frozenset[str]] = {
            p.spec.id: frozenset(p.spec.at_war_with) if p.ok("at_war_with") else frozenset()
            for p in self.power_by_id.values()
        }
        stacks: dict[str, list[tuple[str, str]]] = {}
        reserves: dict[str, set[str]] = {}
        for u in self.units:
            spec = u.spec
            major: str | None = None
            if u.ok("power"):
                if self._is_power_or_minor(spec.power):
                    major = self._major(spec.power)
                else:
                    self.add(_join(u.path, "power"), f"unknown power or minor {spec.power!r}")
            if u.ok("atr.base") and spec.atr is not None and spec.atr.base not in self.hex_by_id:
                self.add(f"{u.path}.atr.base", f"ATR base {spec.atr.base!r} is not a hex")
            if not u.ok("at"):
                continue
            hx = self.hex_by_id.get(spec.at)
            if hx is None:
                if spec.at not in self.sea_by_id:
                    self.add(_join(u.path, "at"), f"unknown hex or sea {spec.at!r}")
                elif u.ok("class") and spec.unit_class == "land":
                    self.add(_join(u.path, "at"), "land units cannot be at sea")
                continue
            if u.ok("class") and spec.unit_class == "naval" and hx.ok("port") \
                    and hx.spec.port is None:
                self.add(_join(u.path, "at"), f"naval units in a hex must be in a port; "
                                              f"{spec.at} has none")
            if major is None:
                continue
            stack = stacks.setdefault(spec.at, [])
            for other_major, other_id in stack:
                if other_major in wars[major] or major in wars[other_major]:
                    self.add(_join(u.path, "at"), f"shares hex {spec.at} with enemy unit "
                                                  f"{other_id!r}")
                    break
            stack.append((major, spec.id))
            side = self.power_by_id[major].spec.side
            if spec.ocs is not None and u.ok("ocs.mode") and spec.ocs.mode == "reserve":
                reserves.setdefault(side, set()).add(spec.at)
        for side, stacks_in_reserve in reserves.items():
            s = self.side_by_id.get(side)
            if s is not None and s.ok("reserve_markers") and \
                    len(stacks_in_reserve) > s.spec.reserve_markers:
                self.add(_join(s.path, "reserve_markers"),
                         f"{len(stacks_in_reserve)} stacks of {side} are in Reserve Mode but "
                         f"the side has {s.spec.reserve_markers} Reserve markers (OCS 5.4a)")


# --------------------------------------------------------------------------- JSON out


def _values_json(v: OcsValues) -> dict[str, Any]:
    return {"strength": v.strength, "ma": v.ma}


def _unit_json(u: UnitSpec) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": u.id, "power": u.power, "class": u.unit_class, "type": u.type, "size": u.size,
        "cost": u.cost, "at": u.at, "face_up": u.face_up, "shattered": u.shattered,
        "oil": u.oil, "hq_reorg": u.hq_reorg,
        "atr": None if u.atr is None else {
            "range": u.atr.range, "large": u.atr.large, "base": u.atr.base,
        },
    }
    if u.ocs is not None:
        o = u.ocs
        out["ocs"] = {
            "mode": o.mode, "orientation": o.orientation, "kind": o.kind,
            "engineer": o.engineer, "rail_repair": o.rail_repair,
            "combat": _values_json(o.combat), "move": _values_json(o.move),
            "action_rating": o.action_rating, "barrage": o.barrage,
        }
    return out


def scenario_to_json(s: Scenario) -> dict[str, Any]:
    """The JSON form of `s` (every field written out); `parse_scenario` reads it back."""
    return {
        "id": s.id,
        "title": s.title,
        "sides": [
            {"id": x.id, "initiative_box": x.initiative_box,
             "reserve_markers": x.reserve_markers}
            for x in s.sides
        ],
        "initiative_last_turn": list(s.initiative_last_turn),
        "powers": [
            {"id": p.id, "name": p.name, "side": p.side, "pass_bonus": p.pass_bonus,
             "neutral": p.neutral, "bp_spent_last_turn": p.bp_spent_last_turn,
             "bp_on_rps": p.bp_on_rps, "rail_moves": p.rail_moves,
             "at_war_with": list(p.at_war_with), "chits": p.chits,
             "rp_gearing_cap": p.rp_gearing_cap, "conquered": p.conquered}
            for p in s.powers
        ],
        "minors": [{"id": m.id, "controller": m.controller} for m in s.minors],
        "map": {
            "supply_path_length": s.map.supply_path_length,
            "hexes": [
                {"id": h.id, "q": h.q, "r": h.r, "terrain": h.terrain,
                 "controller": h.controller, "rail": h.rail, "city": h.city, "port": h.port,
                 "port_damaged": h.port_damaged, "factories": h.factories,
                 "supply": h.supply, "supply_power": h.supply_power, "seas": list(h.seas)}
                for h in s.map.hexes
            ],
            "seas": [{"id": x.id, "adjacent": list(x.adjacent)} for x in s.map.seas],
        },
        "units": [_unit_json(u) for u in s.units],
    }


# --------------------------------------------------------------------------- built-ins


def _scenario_dir() -> Any:
    return resources.files(__name__.rpartition(".")[0]).joinpath("scenarios")


def builtin_scenario_ids() -> list[str]:
    """Ids of the scenarios shipped in ``service/rules/scenarios/``, sorted."""
    return sorted(
        p.name[: -len(".json")] for p in _scenario_dir().iterdir() if p.name.endswith(".json")
    )


@cache
def load_builtin_scenario(id: str) -> Scenario:
    """The built-in scenario `id` (KeyError if there is none)."""
    if id not in builtin_scenario_ids():
        raise KeyError(id)
    text = _scenario_dir().joinpath(f"{id}.json").read_text(encoding="utf-8")
    return parse_scenario(json.loads(text))
