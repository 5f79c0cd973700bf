"""Game options: every settled gap of RULES-NOTES.md, with its default.

Options are data, fixed at creation (the GM may replace the weather table for a coming
turn). `resolve_options` merges a game's choices over the defaults and lists every
problem at once.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from annotated_types import Ge, Le, MaxLen, MinLen
from typing_extensions import TypedDict

from service.rules.errors import Malformed
from service.rules.scenario import AIR_TYPES, LAND_TYPES, NAVAL_TYPES, TERRAINS
from service.rules.shapes import closed


@closed
class WeatherRow(TypedDict):
    """One row of a weather table: the d10 roll, the weather, the circled number (the
    turn-end dice) and the basic supply path (RULES-NOTES 17, 26)."""

    roll: Annotated[int, Ge(1), Le(10)]
    weather: Annotated[str, MinLen(1), MaxLen(40)]
    dice: Annotated[int, Ge(1), Le(4)]
    supply_path: Annotated[int, Ge(0), Le(20)]

# RULES-NOTES "Default weather table": one d10 per round (row 17).
DEFAULT_WEATHER_TABLE: list[WeatherRow] = [
    {"roll": 1, "weather": "blizzard", "dice": 4, "supply_path": 2},
    {"roll": 2, "weather": "snow", "dice": 3, "supply_path": 3},
    {"roll": 3, "weather": "storm", "dice": 3, "supply_path": 3},
    {"roll": 4, "weather": "rain", "dice": 2, "supply_path": 4},
    {"roll": 5, "weather": "rain", "dice": 2, "supply_path": 4},
    {"roll": 6, "weather": "fine", "dice": 2, "supply_path": 4},
    {"roll": 7, "weather": "fine", "dice": 2, "supply_path": 4},
    {"roll": 8, "weather": "fine", "dice": 2, "supply_path": 4},
    {"roll": 9, "weather": "fine", "dice": 1, "supply_path": 4},
    {"roll": 10, "weather": "fine", "dice": 1, "supply_path": 4},
]

DEFAULTS: dict[str, Any] = {
    "weather": {"table": DEFAULT_WEATHER_TABLE},
    # RULES-NOTES 13: ceil(27.5 x sides); None means "computed from the sides".
    "turn_end": {"threshold": None},
    "reorg": {
        "minor_port_limit": 2,  # 1
        "coastal_types": ["INF", "MTN", "MAR", "PARA", "GAR", "FB"],  # 2
        "primary_limit": "factories",  # 3: factories | two_units
        "rail_counts_against_source": True,  # 4
        "supply_unit_hq_primary": True,  # 5
        "supply_unit_expend": True,  # 5
        "supply_unit_city_source": True,  # 5
        "impulse_step": "phasing",  # 6: phasing | all
        "final_step": True,  # 7
        "reorganize_units_chit": False,  # 10
        "port_repair_cost": {"minor": 2, "major": 4},  # 23
        "hq_needs_supply": True,  # 25
        # docs/rules-options.md: units that moved, attacked or are at sea turn face down
        # at clean up (clean_up), or only when a report says so (report)
        "face_down": "clean_up",
        # RULES-NOTES 29, 34: the referee flies ATR missions as 11.18.1 says (combat air
        # patrol, escorts, interception, air-to-air combat, AA fire); false: a mission
        # simply arrives
        "atr_interception": True,
    },
    "supply": {"terrain_cost": {"mountain": 1, "swamp": 1, "jungle": 1, "forest": 1}},  # 26
    # docs/rules-options.md, "Movement": a unit entering a hex in an enemy ZOC stops there
    # ("stop") or moves on ("free"); leaving one costs `zoc_exit_cost` more MP.
    "movement": {"zoc": "stop", "zoc_exit_cost": 0},
    # A pause ends by itself after this many hours (0: the GM may not pause). A key the
    # GM binds without the player's consent may order only this many hours later.
    "game": {"max_pause_hours": 168, "key_wait_hours": 24},
    # What happens to a side whose players are gone (docs/game-master.md): "gm" (the GM
    # plays it), "substitute" (a substitute takes the seat by a new join code) or
    # "civil_disorder" (default orders at once until a substitute joins). The policy
    # applies after `missed_deadlines` deadlines missed in a row (0: only when the GM
    # declares the dropout). `sides` overrides either per side.
    "dropout": {"policy": "civil_disorder", "missed_deadlines": 3, "sides": {}},
    # docs/rules-options.md, "Standing orders": the steps players may arm standing orders
    # for (issue 20); [] allows none.
    "standing": {"steps": ["initiative.reroll", "reaction", "combat", "exploitation",
                           "final_reorganization", "air.patrol"]},
}

DROPOUT_POLICIES = ("gm", "substitute", "civil_disorder")

CHOICES: dict[str, tuple[str, ...]] = {
    "reorg.primary_limit": ("factories", "two_units"),
    "reorg.impulse_step": ("phasing", "all"),
    "reorg.face_down": ("clean_up", "report"),
    "movement.zoc": ("stop", "free"),
    "dropout.policy": DROPOUT_POLICIES,
}
# Options that are lists of names from a fixed set.
LIST_CHOICES: dict[str, tuple[str, ...]] = {
    "standing.steps": ("initiative.reroll", "reaction", "combat", "exploitation",
                       "final_reorganization", "air.patrol"),
}


def default_threshold(sides: int) -> int:
    """seed 002 More Sides; RULES-NOTES 13: 27.5 per side, rounded up (55 for two
    sides, 83 for three)."""
    return math.ceil(27.5 * sides)


def _check_weather(table: object, problems: list[tuple[str, str]]) -> None:
    path = "/options/weather/table"
    if not isinstance(table, list) or len(table) != 10:
        problems.append((path, "the weather table needs exactly one row per d10 roll 1-10"))
        return
    seen: set[int] = set()
    for i, row in enumerate(table):
        where = f"{path}/{i}"
        if not isinstance(row, Mapping):
            problems.append((where, "a row is an object {roll, weather, dice, supply_path}"))
            continue
        roll, dice, path_len = row.get("roll"), row.get("dice"), row.get("supply_path")
        if not isinstance(roll, int) or isinstance(roll, bool) or not 1 <= roll <= 10:
            problems.append((f"{where}/roll", "roll must be an integer 1-10"))
        elif roll in seen:
            problems.append((f"{where}/roll", f"roll {roll} appears twice"))
        else:
            seen.add(roll)
        if not isinstance(row.get("weather"), str) or not row.get("weather"):
            problems.append((f"{where}/weather", "weather must be a non-empty name"))
        if not isinstance(dice, int) or isinstance(dice, bool) or not 1 <= dice <= 4:
            problems.append((f"{where}/dice", "the circled number (turn-end dice) is 1-4"))
        if not isinstance(path_len, int) or isinstance(path_len, bool) or not 0 <= path_len <= 20:
            problems.append((f"{where}/supply_path", "supply_path must be an integer 0-20"))


def _check_dropout_sides(
    given: object, path: str, problems: list[tuple[str, str]], side_ids: tuple[str, ...]
) -> dict[str, Any]:
    if not isinstance(given, Mapping):
        problems.append((path, "expected {side: {policy, missed_deadlines}}"))
        return {}
    out: dict[str, Any] = {}
    for side, choice in given.items():
        where = f"{path}/{side}"
        if side_ids and side not in side_ids:
            problems.append((where, f"unknown side {side!r}; sides are {', '.join(side_ids)}"))
            continue
        if not isinstance(choice, Mapping):
            problems.append((where, "expected {policy, missed_deadlines}"))
            continue
        entry: dict[str, Any] = {}
        for key, value in choice.items():
            if key == "policy":
                if value not in DROPOUT_POLICIES:
                    problems.append((f"{where}/policy",
                                     f"expected one of {', '.join(DROPOUT_POLICIES)}"))
                    continue
            elif key == "missed_deadlines":
                if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
                    problems.append((f"{where}/missed_deadlines", "expected an integer 0-100"))
                    continue
            else:
                problems.append((f"{where}/{key}", f"unknown option {key!r}"))
                continue
            entry[key] = value
        out[str(side)] = entry
    return out


def _check_terrain_cost(given: object, path: str, problems: list[tuple[str, str]]
                        ) -> dict[str, int]:
    """RULES-NOTES 26: the extra supply-path cost of any of the scenario format's
    terrains (docs/scenario.md), 0-20 each; terrains not named cost nothing extra."""
    if not isinstance(given, Mapping):
        problems.append((path, "expected {terrain: extra cost}"))
        return {}
    out: dict[str, int] = {}
    for terrain, cost in given.items():
        if terrain not in TERRAINS:
            problems.append((f"{path}/{terrain}",
                             f"unknown terrain {terrain!r}; terrains are {', '.join(TERRAINS)}"))
        elif not isinstance(cost, int) or isinstance(cost, bool) or not 0 <= cost <= 20:
            problems.append((f"{path}/{terrain}", "expected an integer 0-20"))
        else:
            out[str(terrain)] = cost
    return out


def _check_unit_types(given: object, path: str, problems: list[tuple[str, str]]
                      ) -> list[str]:
    """RULES-NOTES 2: the unit types that may trace supply overseas (INF-class
    divisions, MAR, flying boats by default)."""
    if not isinstance(given, list) or not all(isinstance(v, str) for v in given):
        problems.append((path, "expected a list of unit types"))
        return []
    known = LAND_TYPES | AIR_TYPES | NAVAL_TYPES
    for i, t in enumerate(given):
        if t not in known:
            problems.append((f"{path}/{i}", f"unknown unit type {t!r}; types are "
                             f"{', '.join(sorted(known))}"))
    return [t for t in given if t in known]


def _merge(
    default: object, given: object, path: str, problems: list[tuple[str, str]],
    side_ids: tuple[str, ...] = (),
) -> Any:
    if path == "/options/dropout/sides":
        return _check_dropout_sides(given, path, problems, side_ids)
    if path == "/options/supply/terrain_cost":
        return _check_terrain_cost(given, path, problems)
    if path == "/options/reorg/coastal_types":
        return _check_unit_types(given, path, problems)
    if path == "/options/dropout/missed_deadlines" and (
            not isinstance(given, int) or isinstance(given, bool) or not 0 <= given <= 100):
        problems.append((path, "expected an integer 0-100"))
        return default
    if isinstance(default, dict):
        if not isinstance(given, Mapping):
            problems.append((path, "expected an object"))
            return copy.deepcopy(default)
        merged = copy.deepcopy(default)
        for key, value in given.items():
            if key not in default:
                problems.append((f"{path}/{key}", f"unknown option {key!r}"))
                continue
            merged[key] = _merge(default[key], value, f"{path}/{key}", problems, side_ids)
        return merged
    if default is None:
        if given is not None and (
            not isinstance(given, int) or isinstance(given, bool) or not 1 <= given <= 1000
        ):
            problems.append((path, "expected a positive integer (or null for the default)"))
            return None
        return given
    if isinstance(default, bool):
        if not isinstance(given, bool):
            problems.append((path, "expected true or false"))
            return default
        return given
    if isinstance(default, int):
        if not isinstance(given, int) or isinstance(given, bool) or not 0 <= given <= 10_000:
            problems.append((path, "expected an integer 0-10000"))
            return default
        return given
    if isinstance(default, str):
        choices = CHOICES.get(path.removeprefix("/options/").replace("/", "."), ())
        if not isinstance(given, str) or (choices and given not in choices):
            problems.append((path, f"expected one of {', '.join(choices)}"))
            return default
        return given
    if isinstance(default, list):
        return _merge_list(default, given, path, problems)
    return given


def _merge_list(default: Sequence[object], given: object, path: str,
                problems: list[tuple[str, str]]) -> Any:
    """A list option: the weather table, or names (from a fixed set, `LIST_CHOICES`)."""
    if path.endswith("weather/table"):
        _check_weather(given, problems)
        return copy.deepcopy(given) if isinstance(given, list) else copy.deepcopy(default)
    if not isinstance(given, list) or not all(isinstance(v, str) for v in given):
        problems.append((path, "expected a list of names"))
        return copy.deepcopy(default)
    known = LIST_CHOICES.get(path.removeprefix("/options/").replace("/", "."))
    if known is not None and any(v not in known for v in given):
        problems.append((path, f"expected names among {', '.join(known)}"))
        return copy.deepcopy(default)
    return list(given)


def resolve_options(given: Mapping[str, Any] | None, sides: int,
                    side_ids: tuple[str, ...] = ()) -> dict[str, Any]:
    """Merge `given` over the defaults; raise Malformed listing every problem.
    `side_ids`, when given, are the only sides per-side options may name."""
    problems: list[tuple[str, str]] = []
    merged = _merge(DEFAULTS, given or {}, "/options", problems, side_ids)
    if problems:
        raise Malformed(
            "game/invalid_options",
            f"{len(problems)} problem(s) in the options: {problems[0][0]}: {problems[0][1]}",
            rule="RULES-NOTES",
            errors=problems,
        )
    if merged["turn_end"]["threshold"] is None:
        merged["turn_end"]["threshold"] = default_threshold(sides)
    return dict(merged)


def dropout_policy(options: Mapping[str, Any], side: str) -> tuple[str, int]:
    """The dropout policy of `side` and after how many missed deadlines it applies."""
    dropout = options.get("dropout") or DEFAULTS["dropout"]
    own = dropout.get("sides", {}).get(side, {})
    return (str(own.get("policy", dropout["policy"])),
            int(own.get("missed_deadlines", dropout["missed_deadlines"])))


def weather_row(table: list[WeatherRow], roll: int) -> WeatherRow:
    for row in table:
        if row["roll"] == roll:
            return row.copy()
    raise KeyError(roll)
