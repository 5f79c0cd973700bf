"""The scenario's cross-references: ids unique and known, units on the map, sides
and powers consistent (docs/scenario.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from service.rules.scenario.types import (
    HexSpec,
    MinorSpec,
    PowerSpec,
    Problem,
    SeaSpec,
    SideSpec,
    UnitSpec,
)

T = TypeVar("T")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


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
