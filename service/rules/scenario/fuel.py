"""Fuel in the scenario format (docs/scenario.md, "Fuel"; RULES-NOTES 30): the short
form's "Fuel costs are separate but necessary when reorganizing", as data rather than
one game's oil rules. Optional; a scenario without it has no fuel and plays as before.

    "fuel": {"reorganize": {"ARM": 1, "MECH": 1, "FTR": 1},
             "powers": {"germany": {"stock": 12, "per_turn": 4}}}

`reorganize`: the fuel a unit of each listed type (any class) costs to reorganize; other
types cost none. `powers`: a major power's `stock` at the start and what production adds
`per_turn` (both 0 for a power not listed; a minor's units use its controller's fuel).
Written back with every major power listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from service.rules.scenario.checking import _join, _Parsed
from service.rules.scenario.types import UNIT_TYPES, FuelSpec, MinorSpec, PowerSpec, Problem

__all__ = ["MOST_FUEL", "fuel_to_json", "read_fuel"]

_FIELDS: Final = ("reorganize", "powers")
_POWER_FIELDS: Final = ("stock", "per_turn")
MOST_FUEL: Final = 100_000  # a power's stock and income, and a unit type's cost
_TYPES: Final = tuple(t for kinds in UNIT_TYPES.values() for t in sorted(kinds))


def _count(problems: list[Problem], value: object, path: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        problems.append(Problem(path, f"expected an integer, got {type(value).__name__}"))
        return 0
    if not 0 <= value <= MOST_FUEL:
        problems.append(Problem(path, f"must be between 0 and {MOST_FUEL}, got {value}"))
        return 0
    return value


def _object(problems: list[Problem], value: object, path: str,
            known: Iterable[str] | None) -> Mapping[str, Any]:
    """`value` as an object whose keys are among `known` (None: any), each unknown key
    reported; {} when it is no object."""
    if not isinstance(value, Mapping):
        problems.append(Problem(path, f"expected an object, got {type(value).__name__}"))
        return {}
    names = None if known is None else frozenset(known)
    for key in value:
        if names is not None and key not in names:
            problems.append(Problem(_join(path, str(key)), "unknown field"))
    return value


def read_fuel(problems: list[Problem], raw: object, powers: Iterable[_Parsed[PowerSpec]],
              minors: Iterable[_Parsed[MinorSpec]]) -> FuelSpec | None:
    """The scenario's `fuel` (None when absent or null) for the major powers and minors
    read, every problem listed."""
    if raw is None:
        return None
    doc = _object(problems, raw, "fuel", _FIELDS)
    costs: list[tuple[str, int]] = []
    raw_costs, raw_powers = doc.get("reorganize"), doc.get("powers")
    table = {} if raw_costs is None else _object(problems, raw_costs, "fuel.reorganize", None)
    for unit_type, value in table.items():
        where = _join("fuel.reorganize", str(unit_type))
        if unit_type not in _TYPES:
            problems.append(Problem(where, f"unknown unit type {unit_type!r}"))
            continue
        costs.append((unit_type, _count(problems, value, where)))
    majors = tuple(p.spec.id for p in powers)
    minor_ids = frozenset(x.spec.id for x in minors)
    given = {} if raw_powers is None else _object(problems, raw_powers, "fuel.powers", None)
    for pid in given:
        if pid not in majors:
            hint = (": a minor's units use its controller's fuel" if pid in minor_ids
                    else "")
            problems.append(Problem(_join("fuel.powers", str(pid)),
                                    f"not a major power{hint}"))
    stock: list[tuple[str, int]] = []
    per_turn: list[tuple[str, int]] = []
    for pid in majors:
        where = _join("fuel.powers", pid)
        entry = _object(problems, given[pid], where, _POWER_FIELDS) if pid in given else {}
        stock.append((pid, _count(problems, entry.get("stock", 0), _join(where, "stock"))))
        per_turn.append((pid, _count(problems, entry.get("per_turn", 0),
                                     _join(where, "per_turn"))))
    order = {t: i for i, t in enumerate(_TYPES)}
    return FuelSpec(reorganize=tuple(sorted(costs, key=lambda c: order[c[0]])),
                    stock=tuple(stock), per_turn=tuple(per_turn))


def fuel_to_json(fuel: FuelSpec) -> dict[str, Any]:
    """The JSON form of `fuel`; `read_fuel` reads it back."""
    income = dict(fuel.per_turn)
    return {"reorganize": dict(fuel.reorganize),
            "powers": {p: {"stock": n, "per_turn": income.get(p, 0)} for p, n in fuel.stock}}
