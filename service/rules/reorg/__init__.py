"""Impulse reorganization (11.18, long form seed 000 and short form seed 001): the `reorg`
order, every method with its limits, planning, and what a side sees of it.
"""

from service.rules.reorg.bodies import ReorgBody, ReorgItem
from service.rules.reorg.counters import counters, period_key
from service.rules.reorg.methods import FIELDS, METHODS, item_text
from service.rules.reorg.order import EVOLVE, check_order, claim_data, reorganize
from service.rules.reorg.plan import (
    NEAREST,
    PathShown,
    Plan,
    Planner,
    PlanShown,
    Repair,
    RepairShown,
    reorg_options,
)
from service.rules.reorg.step import could_reorganize, rail_moves_left
from service.rules.reorg.view import ReorgView, reorg_view

__all__ = [
    "PathShown", "PlanShown", "ReorgBody", "ReorgItem", "ReorgView", "Repair", "RepairShown",
    "EVOLVE", "FIELDS", "METHODS", "NEAREST", "Plan", "Planner", "check_order", "claim_data",
    "could_reorganize", "counters", "item_text", "period_key", "rail_moves_left",
    "reorg_options", "reorg_view", "reorganize",
]
