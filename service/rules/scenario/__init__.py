"""The scenario format (docs/scenario.md): value types, reading and checking JSON, writing it
back, the built-in scenarios and generated ones for benchmarks.
"""

from service.rules.scenario.builtins import builtin_scenario_ids, load_builtin_scenario
from service.rules.scenario.fuel import MOST_FUEL
from service.rules.scenario.reading import parse_scenario
from service.rules.scenario.synthetic import generate_scenario
from service.rules.scenario.tables import CombatRules, OverrunRule, combat_to_json, read_combat
from service.rules.scenario.types import (
    AIR_TYPES,
    ATR,
    DEFAULT_MOVEMENT,
    HEDGEHOG,
    HEXSIDE_FEATURES,
    HQ,
    LAND_TYPES,
    MAR,
    MODES,
    NAVAL_TYPES,
    OCS_KINDS,
    REPL,
    ROUGH_TERRAINS,
    SUPPLY,
    TERRAINS,
    TRANSPORT,
    TRS,
    MapSpec,
    MovementSpec,
    OcsValues,
    Problem,
    Scenario,
    ScenarioInvalid,
    UnitSpec,
    air_range,
    air_to_air,
    axial_distance,
    is_fighter,
    is_flying_boat,
    is_hq,
    is_inf_class,
    is_supply_unit,
    uses_modes,
)
from service.rules.scenario.writing import movement_to_json, scenario_to_json

__all__ = [
    "AIR_TYPES", "ATR", "DEFAULT_MOVEMENT", "HEDGEHOG", "HEXSIDE_FEATURES", "HQ", "LAND_TYPES",
    "MAR", "MODES", "MOST_FUEL", "NAVAL_TYPES", "OCS_KINDS", "REPL", "ROUGH_TERRAINS",
    "SUPPLY", "TERRAINS", "TRANSPORT", "TRS", "CombatRules", "MapSpec", "MovementSpec",
    "OcsValues", "OverrunRule", "Problem", "Scenario",
    "ScenarioInvalid", "UnitSpec",
    "air_range", "air_to_air", "axial_distance", "builtin_scenario_ids", "combat_to_json",
    "generate_scenario", "is_fighter", "is_flying_boat", "is_hq", "is_inf_class",
    "is_supply_unit", "load_builtin_scenario", "movement_to_json", "parse_scenario",
    "read_combat", "scenario_to_json", "uses_modes",
]
