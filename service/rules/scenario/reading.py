"""Reading a scenario from JSON (docs/scenario.md): every field checked, every problem
listed with its path; `parse_scenario` is the only way in."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from service.rules.scenario.checking import _Checker, _join, _Parsed
from service.rules.scenario.fuel import read_fuel
from service.rules.scenario.tables import CombatRules, read_combat
from service.rules.scenario.types import (
    _ID_RE,
    _KINDS_OF_TYPE,
    _MOVE_ONLY_KINDS,
    DEFAULT_MOVEMENT,
    HEXSIDE_FEATURES,
    LAND_TYPES,
    MODES,
    OCS_KINDS,
    ORIENTATIONS,
    PORTS,
    SIZES,
    SUPPLY,
    SUPPLY_KINDS,
    TERRAINS,
    UNIT_CLASSES,
    UNIT_TYPES,
    AirSpec,
    AtrSpec,
    Costs,
    HexsideSpec,
    HexSpec,
    MapSpec,
    MinorSpec,
    MovementSpec,
    OcsSpec,
    OcsValues,
    PowerSpec,
    Problem,
    Scenario,
    ScenarioInvalid,
    SeaSpec,
    SideSpec,
    StackingSpec,
    UnitSpec,
    is_atr,
    is_hq,
)

_ABSENT: Final = object()


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


_SCENARIO_FIELDS: Final = (
    "id", "title", "sides", "initiative_last_turn", "powers", "minors", "map", "units",
    "movement", "combat", "fuel",
)
_SIDE_FIELDS: Final = ("id", "initiative_box", "reserve_markers")
_POWER_FIELDS: Final = (
    "id", "name", "side", "pass_bonus", "neutral", "bp_spent_last_turn", "bp_on_rps",
    "rail_moves", "at_war_with", "chits", "rp_gearing_cap", "conquered", "build_points",
)
_MINOR_FIELDS: Final = ("id", "controller")
_MAP_FIELDS: Final = ("supply_path_length", "hexes", "seas", "hexsides")
_HEXSIDE_FIELDS: Final = ("hexes", "feature")
_MOVEMENT_FIELDS: Final = ("terrain", "hexsides", "weather", "motorized", "stacking")
_COSTS_FIELDS: Final = ("leg", "motorized")
_STACKING_FIELDS: Final = ("limit", "corps", "division", "exempt")
_HEX_FIELDS: Final = (
    "id", "q", "r", "terrain", "controller", "rail", "city", "port", "port_damaged",
    "factories", "supply", "supply_power", "seas",
)
_SEA_FIELDS: Final = ("id", "adjacent")
_UNIT_FIELDS: Final = (
    "id", "power", "class", "type", "size", "cost", "at", "face_up", "shattered", "oil",
    "hq_reorg", "atr", "ocs", "name", "air", "aa",
)
_ATR_FIELDS: Final = ("range", "large", "base")
_AIR_FIELDS: Final = ("range", "air_to_air")
_OCS_FIELDS: Final = (
    "mode", "orientation", "kind", "engineer", "rail_repair", "combat", "move",
    "action_rating", "barrage", "steps",
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
        build_points=f.opt_integer("build_points", 0, 100_000),
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
        steps=g.integer("steps", 1, 1, 20),
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


def _parse_air(f: _Fields) -> AirSpec | None:
    raw = f.raw("air")
    if raw is _ABSENT:
        return None
    g = _Fields(f.problems, raw, _join(f.path, "air"), _AIR_FIELDS)
    if not g.is_object:
        f.bad.add("air")
        return None
    spec = AirSpec(range=g.opt_integer("range", lo=1),
                   air_to_air=g.integer("air_to_air", 0, 0, 20))
    f.bad.update(f"air.{k}" for k in g.bad)
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
        name=f.opt_text("name"),
        air=_parse_air(f),
        aa=f.integer("aa", 0, 0, 20),
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
    if "air" not in f.bad and f.raw("air") is not _ABSENT:
        if u.unit_class != "air":
            f.fail("air", "only air units have air combat data")
        elif u.air is not None and u.air.range is None and not atr:
            f.fail("air.range", "an air unit's air data needs its range (11.18.1)")
    if f.ok_keys("aa") and u.aa and u.unit_class == "air":
        f.fail("aa", "air units have no AA factor: AA units are ground or naval units")
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


def _parse_costs(f: _Fields, key: str, problems: list[Problem], *, entering: bool
                 ) -> Costs | None:
    """One row of the movement table: MP for leg and motorized units (1-30 to enter a
    terrain, null where it may not be entered; 0-30 extra for hexsides and weather)."""
    g = _Fields(problems, f.m.get(key), _join(f.path, key), _COSTS_FIELDS)
    if not g.is_object:
        return None
    lo = 1 if entering else 0
    values: list[int | None] = []
    for cls in _COSTS_FIELDS:
        if g.raw(cls) is _ABSENT:
            if not entering:
                values.append(0)
                continue
            if cls in g.m:  # null: the terrain may not be entered
                values.append(None)
                continue
            g.fail(cls, "required field missing (null: may not be entered)")
            values.append(None)
            continue
        values.append(g.integer(cls, None, lo, 30))
    return None if g.bad else Costs(values[0], values[1])


def _parse_table(f: _Fields, key: str, names: tuple[str, ...] | None, default: tuple[
        tuple[str, Costs], ...], *, entering: bool) -> tuple[tuple[str, Costs], ...]:
    raw = f.raw(key)
    if raw is _ABSENT:
        return default
    g = _Fields(f.problems, raw, _join(f.path, key), names or tuple(
        k for k in (raw if isinstance(raw, Mapping) else ()) if isinstance(k, str)))
    merged = dict(default)
    for name in sorted(k for k in g.m if isinstance(k, str)):
        if names is None and not _is_id(name):
            g.fail(name, f"expected {_ID_HINT} as a weather name")
            continue
        if names is not None and name not in names:
            continue  # reported by _Fields as an unknown field
        costs = _parse_costs(g, name, f.problems, entering=entering)
        if costs is not None:
            merged[name] = costs
    if g.bad or not g.is_object:
        f.bad.add(key)
    order = list(names or ()) + sorted(k for k in merged if k not in (names or ()))
    return tuple((k, merged[k]) for k in order if k in merged)


def _parse_stacking(f: _Fields) -> StackingSpec:
    base = DEFAULT_MOVEMENT.stacking
    raw = f.raw("stacking")
    if raw is _ABSENT:
        return base
    g = _Fields(f.problems, raw, _join(f.path, "stacking"), _STACKING_FIELDS)
    exempt = g.ids("exempt") if g.raw("exempt") is not _ABSENT else base.exempt
    for t in exempt:
        if t not in LAND_TYPES:
            g.report("exempt", f"unknown land unit type {t!r}")
    spec = StackingSpec(limit=g.integer("limit", base.limit, 1, 100),
                        corps=g.integer("corps", base.corps, 0, 100),
                        division=g.integer("division", base.division, 0, 100),
                        exempt=tuple(exempt))
    if g.bad or not g.is_object:
        f.bad.add("stacking")
    return spec


def _parse_movement(problems: list[Problem], raw: object) -> MovementSpec:
    """The terrain effects table (`MovementSpec`), merged over `DEFAULT_MOVEMENT`."""
    base = DEFAULT_MOVEMENT
    if raw is _ABSENT:
        return base
    f = _Fields(problems, raw, "movement", _MOVEMENT_FIELDS)
    motorized = f.ids("motorized") if f.raw("motorized") is not _ABSENT else base.motorized
    for t in motorized:
        if t not in LAND_TYPES:
            f.report("motorized", f"unknown land unit type {t!r}")
    return MovementSpec(
        terrain=_parse_table(f, "terrain", TERRAINS, base.terrain, entering=True),
        hexsides=_parse_table(f, "hexsides", HEXSIDE_FEATURES, base.hexsides,
                              entering=False),
        weather=_parse_table(f, "weather", None, base.weather, entering=False),
        motorized=tuple(motorized),
        stacking=_parse_stacking(f),
    )


def _parse_hexside(problems: list[Problem], v: object, path: str,
                   ) -> _Parsed[HexsideSpec] | None:
    f = _Fields(problems, v, path, _HEXSIDE_FIELDS)
    if not f.is_object:
        return None
    ends = f.ids("hexes", required=True)
    feature = f.choice("feature", HEXSIDE_FEATURES, None)
    if len(ends) != 2 and "hexes" not in f.bad:
        f.fail("hexes", "a hexside lies between exactly two hexes")
        ends = ("", "")
    a, b = sorted(ends)[:2] if len(ends) == 2 else ("", "")
    return _Parsed(HexsideSpec(a, b, feature), path, f.bad, f.positions)


def _check_hexsides(problems: list[Problem], sides: list[_Parsed[HexsideSpec]],
                    hexes: list[_Parsed[HexSpec]]) -> None:
    """Each hexside joins two adjacent hexes of the map, listed once."""
    at = {(h.spec.q, h.spec.r): h.spec.id for h in hexes}
    by_id = {h.spec.id: h.spec for h in hexes}
    seen: dict[tuple[str, str], str] = {}
    for side in sides:
        if not side.ok("hexes"):
            continue
        a, b = by_id.get(side.spec.a), by_id.get(side.spec.b)
        where = _join(side.path, "hexes")
        if a is None or b is None:
            missing = side.spec.a if a is None else side.spec.b
            problems.append(Problem(where, f"unknown hex {missing!r}"))
            continue
        if at.get((a.q + 1, a.r)) != b.id and all(
                at.get((a.q + dq, a.r + dr)) != b.id
                for dq, dr in ((1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))):
            problems.append(Problem(where, f"hexes {a.id} and {b.id} are not adjacent"))
            continue
        key = (side.spec.a, side.spec.b)
        if key in seen:
            problems.append(Problem(where, f"the hexside {a.id}-{b.id} is listed twice "
                                           f"(first at {seen[key]})"))
        seen.setdefault(key, side.path)


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


def _parse_combat(problems: list[Problem], raw: object) -> CombatRules:
    """The combat tables (`service.rules.scenario.tables`)."""
    found: list[tuple[str, str]] = []
    combat = read_combat(None if raw is _ABSENT else raw, "combat", TERRAINS,
                         HEXSIDE_FEATURES, found)
    problems += [Problem(p, message) for p, message in found]
    return combat


def parse_scenario(data: Mapping[str, object]) -> Scenario:
    """Validate a JSON scenario (docs/api.md) and build it.

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
    hexsides: list[_Parsed[HexsideSpec]] = []
    path_length = 4
    if m is not None and m.is_object:
        path_length = m.integer("supply_path_length", 4)
        hexes = _items(problems, m.array("hexes", True), _parse_hex)
        seas = _items(problems, m.array("seas", False), _parse_sea)
        hexsides = _items(problems, m.array("hexsides", False), _parse_hexside)
        if not hexes and "hexes" not in m.bad:
            m.fail("hexes", "a map needs at least one hex")
    movement = _parse_movement(problems, f.raw("movement"))
    combat = _parse_combat(problems, f.raw("combat"))
    fuel = read_fuel(problems, f.m.get("fuel"), powers, minors)

    c = _Checker(problems, sides, powers, minors, hexes, seas, units)
    c.check_all()
    _check_hexsides(problems, hexsides, hexes)
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
            hexsides=tuple(sorted((x.spec for x in hexsides), key=lambda x: (x.a, x.b))),
        ),
        units=tuple(u.spec for u in units),
        movement=movement, combat=combat, fuel=fuel,
    )
