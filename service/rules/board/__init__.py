"""The map engine (11.18's supply paths; RULES-NOTES 19, 26, 28): hexes and seas, zones
of control, basic, railway and overseas paths, and every unit's supply.
"""

from service.rules.board.grid import (
    FRIENDLY,
    NoPath,
    Path,
    PathResult,
    coastal_ok,
    exerts_zoc,
    grid_of,
    path_length,
    throws_supply,
)
from service.rules.board.layout import Board, Stance
from service.rules.board.paths import (
    basic_path,
    basic_path_from,
    overseas_path,
    rail_path,
    rail_supply_path,
    reach_index,
    reaches_unlimited,
)
from service.rules.board.supply import (
    SupplyStatus,
    hex_in_supply,
    home_ports,
    in_communication,
    overseas_route,
    source_in_supply,
    state_supply,
    supply_report,
    unit_supply,
)

__all__ = [
    "FRIENDLY", "Board", "NoPath", "Path", "PathResult", "Stance", "SupplyStatus",
    "basic_path", "basic_path_from", "coastal_ok", "exerts_zoc", "grid_of", "hex_in_supply",
    "home_ports", "in_communication", "overseas_path", "overseas_route", "path_length",
    "rail_path", "rail_supply_path", "reach_index", "reaches_unlimited", "source_in_supply",
    "state_supply", "supply_report", "throws_supply", "unit_supply",
]
