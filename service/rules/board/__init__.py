"""The map engine (11.18's supply paths; RULES-NOTES 19, 26, 28): hexes and seas, zones
of control, basic, railway and overseas paths, and every unit's supply.
"""

from service.rules.board.grid import (
    FRIENDLY,
    NEUTRAL,
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
from service.rules.board.moves import (
    NEUTRAL_RULE,
    ONE_HEX_RULE,
    TERRAIN_RULE,
    ZOC_RULE,
    Ground,
    MoveReach,
    Step,
    ground,
    move_reach,
    walk_path,
)
from service.rules.board.paths import (
    basic_path,
    basic_path_from,
    overseas_path,
    rail_network,
    rail_path,
    rail_supply_path,
    reach_index,
    reaches_unlimited,
    sea_chain,
)
from service.rules.board.since import SupplyMemo, supply_memo, supply_since
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
    unit_supply_at,
)

__all__ = [
    "FRIENDLY", "NEUTRAL", "NEUTRAL_RULE", "ONE_HEX_RULE", "TERRAIN_RULE", "ZOC_RULE", "Board",
    "Ground", "MoveReach", "NoPath", "Path", "PathResult", "Stance", "Step", "SupplyStatus",
    "SupplyMemo", "ground", "move_reach", "supply_memo", "supply_since", "walk_path",
    "basic_path", "basic_path_from", "coastal_ok", "exerts_zoc", "grid_of", "hex_in_supply",
    "home_ports", "in_communication", "overseas_path", "overseas_route", "path_length",
    "rail_network", "rail_path", "rail_supply_path", "reach_index", "reaches_unlimited",
    "sea_chain", "source_in_supply",
    "state_supply", "supply_report", "throws_supply", "unit_supply", "unit_supply_at",
]
