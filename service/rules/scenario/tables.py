"""The scenario's `combat` section (docs/scenario.md "Combat: the tables"): the land combat
table, the overrun rule and the barrage table of the game the group owns, read by the
table engine (`service.rules.combat`) with the result kinds the referee knows how to
apply; and, for a game without tables, whether players report results instead.

    "combat": {"results": "tables", "advance": "vacated",
               "land": {...a table...}, "overrun": {"minimum": "3:1", "automatic": "9:1",
                                                    "shift": 0},
               "barrage": {...a table...},
               "air": {...a table...}, "aa": {...a table...}}

`results` "tables" (the default): a combat, overrun or barrage is decided by its table,
and one without a table is refused; "reported": the scenario has no tables and players
report what their own tables say (flagged in every view and export). A naval combat is
always reported (the format has no naval table). The air-to-air table decides the
combats of an air reorganization mission (11.18.1 step 5) and the AA table the
anti-aircraft fire on its ATRs (step 6): without the first fighters do not patrol or
intercept, without the second no AA fires (docs/rules-options.md "ATR missions").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from service.rules.combat import (
    Problems,
    Table,
    Vocabulary,
    read_table,
    table_to_json,
    threshold,
)

RESULTS: Final = ("tables", "reported")
ADVANCE: Final = ("vacated", "result")
# What a land combat (and overrun) result may say, with the range of its number.
LAND_KINDS: Final[Mapping[str, tuple[int, int] | None]] = {
    "attacker_loss": (1, 20),  # steps the attackers lose; the attacker picks the units
    "attacker_dg": None,  # the attackers' hexes turn DG (OCS 5.10a A)
    "attacker_shattered": None,  # the attackers are shattered (11.18)
    "attacker_eliminated": None,
    "defender_loss": (1, 20),  # steps the defenders lose; the defender picks the units
    "defender_option": (1, 4),  # losses the defender may take as hexes of retreat instead
    "defender_retreat": (1, 4),  # hexes the defenders must retreat
    "defender_dg": None,  # the defenders' hex turns DG (OCS 5.10a A)
    "defender_shattered": None,
    "defender_eliminated": None,
    "exploit": (2, 4),  # Exploitation Mode for attackers of at least this Action Rating
    "advance": None,  # the attackers may advance into the emptied hex
}
# The inputs land table modifiers may read: the best attacking Action Rating less the
# best defending one, and how many units attack and defend.
LAND_INPUTS: Final = ("action_ratings", "attackers", "defenders")
BARRAGE_KINDS: Final[Mapping[str, tuple[int, int] | None]] = {
    "defender_dg": None, "defender_loss": (1, 20), "defender_eliminated": None,
}
# The target hex's density: its defending land units, or their stacking points.
BARRAGE_INPUTS: Final = ("units", "stacking_points")
# What an air-to-air result may say (11.18.1 step 5): aircraft the intercepting side
# loses, aircraft of the mission lost or aborted (their owners name which).
AIR_KINDS: Final[Mapping[str, tuple[int, int] | None]] = {
    "interceptor_lost": (1, 10), "mission_lost": (1, 10), "mission_aborted": (1, 10),
}
# The inputs air-to-air modifiers may read: the aircraft on each side of the combat.
AIR_INPUTS: Final = ("interceptors", "mission_aircraft")
# What AA fire does to the ATR it fires on (11.18.1 step 6).
AA_KINDS: Final[Mapping[str, tuple[int, int] | None]] = {"aborted": None, "eliminated": None}
# The AA units firing.
AA_INPUTS: Final = ("units",)
MOST_RETREAT: Final = 4  # a code's option and retreat hexes together
_FIELDS: Final = ("results", "advance", "land", "overrun", "barrage", "air", "aa")
_OVERRUN_FIELDS: Final = ("minimum", "automatic", "shift")


@dataclass(frozen=True, slots=True)
class OverrunRule:
    """How an overrun is decided (docs/scenario.md): refused below `minimum` odds,
    the defenders eliminated without a roll from `automatic` odds, else read on the
    land table `shift` columns over; it succeeds when the hex is left empty. Odds are
    labels of the land table's columns."""

    minimum: str | None = None
    automatic: str | None = None
    shift: int = 0


@dataclass(frozen=True, slots=True)
class CombatRules:
    """The scenario's combat tables, or that players report results (`results`)."""

    results: str = "tables"
    advance: str = "vacated"
    land: Table | None = None
    overrun: OverrunRule | None = None
    barrage: Table | None = None
    air: Table | None = None
    aa: Table | None = None

    def how(self, by: str) -> str:
        """"table", "reported" or "none": how a combat of kind `by` is decided."""
        table = self.barrage if by == "barrage" else self.land if by != "naval" else None
        if table is not None:
            return "table"
        return "reported" if self.results == "reported" or by == "naval" else "none"

    def table(self, by: str) -> Table | None:
        return self.barrage if by == "barrage" else self.land if by != "naval" else None


def _check_retreats(land: Table, path: str, problems: Problems) -> None:
    for code, effects in land.legend.items():
        hexes = sum(e.value or 0 for e in effects
                    if e.kind in ("defender_option", "defender_retreat"))
        if hexes > MOST_RETREAT:
            problems.append((f"{path}.legend.{code}", f"options and retreat together are at "
                                                      f"most {MOST_RETREAT} hexes"))


def _overrun(value: object, path: str, land: Table | None, problems: Problems
             ) -> OverrunRule | None:
    if value is None:
        return None
    if land is None:
        problems.append((path, "an overrun rule reads the land table: give one"))
        return None
    if not isinstance(value, Mapping):
        problems.append((path, "expected an object"))
        return None
    for key in value:
        if key not in _OVERRUN_FIELDS:
            problems.append((f"{path}.{key}", "unknown field"))
    by = land.columns.by
    labels: dict[str, str | None] = {}
    for key in ("minimum", "automatic"):
        raw = value.get(key)
        if raw is not None and threshold(by, raw) is None:
            problems.append((f"{path}.{key}", f"expected odds read like the land table's "
                                              f"{by} columns, got {raw!r}"))
            raw = None
        labels[key] = raw if isinstance(raw, str) else None
    shift = value.get("shift", 0)
    if isinstance(shift, bool) or not isinstance(shift, int) or not -10 <= shift <= 10:
        problems.append((f"{path}.shift", "expected an integer -10 to 10"))
        shift = 0
    low, high = labels["minimum"], labels["automatic"]
    floor, top = threshold(by, low), threshold(by, high)
    if floor is not None and top is not None and top <= floor:
        problems.append((f"{path}.automatic", "the automatic odds are above the minimum"))
    return OverrunRule(minimum=low, automatic=high, shift=shift)


def read_combat(value: object, path: str, terrains: tuple[str, ...],
                hexsides: tuple[str, ...], problems: Problems) -> CombatRules:
    """The `combat` section (absent: tables, none given, so no land combat)."""
    if value is None:
        return CombatRules()
    if not isinstance(value, Mapping):
        problems.append((path, "expected an object"))
        return CombatRules()
    for key in value:
        if key not in _FIELDS:
            problems.append((f"{path}.{key}", "unknown field"))
    results = value.get("results", "tables")
    if results not in RESULTS:
        problems.append((f"{path}.results", f"expected one of {', '.join(RESULTS)}"))
        results = "tables"
    advance = value.get("advance", "vacated")
    if advance not in ADVANCE:
        problems.append((f"{path}.advance", f"expected one of {', '.join(ADVANCE)}"))
        advance = "vacated"
    land = barrage = None
    if value.get("land") is not None:
        land = read_table(value["land"], f"{path}.land",
                          Vocabulary(LAND_KINDS, LAND_INPUTS, terrains, hexsides), problems)
        if land is not None:
            _check_retreats(land, f"{path}.land", problems)
    if value.get("barrage") is not None:
        barrage = read_table(value["barrage"], f"{path}.barrage",
                             Vocabulary(BARRAGE_KINDS, BARRAGE_INPUTS, terrains, hexsides),
                             problems)
    air = aa = None
    if value.get("air") is not None:
        air = read_table(value["air"], f"{path}.air", Vocabulary(AIR_KINDS, AIR_INPUTS),
                         problems)
    if value.get("aa") is not None:
        aa = read_table(value["aa"], f"{path}.aa", Vocabulary(AA_KINDS, AA_INPUTS), problems)
    overrun = _overrun(value.get("overrun"), f"{path}.overrun", land, problems)
    if results == "reported" and (value.get("land") is not None
                                  or value.get("barrage") is not None):
        problems.append((f"{path}.results", "a scenario with combat tables has them decide: "
                                             "results are reported only without tables"))
    return CombatRules(results=str(results), advance=str(advance), land=land,
                       overrun=overrun, barrage=barrage, air=air, aa=aa)


def combat_to_json(c: CombatRules) -> dict[str, Any]:
    """The `combat` section as written back, every field given."""
    o = c.overrun
    return {
        "results": c.results, "advance": c.advance,
        "land": None if c.land is None else table_to_json(c.land),
        "overrun": None if o is None else {"minimum": o.minimum, "automatic": o.automatic,
                                           "shift": o.shift},
        "barrage": None if c.barrage is None else table_to_json(c.barrage),
        "air": None if c.air is None else table_to_json(c.air),
        "aa": None if c.aa is None else table_to_json(c.aa),
    }
