"""Impulse reorganization (11.18, long form seed 000 and short form seed 001): the `reorg`
order, every method with its limits, planning, and what a side sees of it.
"""

from service.rules.reorg.bodies import ReorgBody, ReorgItem
from service.rules.reorg.methods import FIELDS, METHODS
from service.rules.reorg.order import EVOLVE, reorganize
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
    "EVOLVE", "FIELDS", "METHODS", "NEAREST", "Plan", "Planner", "could_reorganize",
    "rail_moves_left", "reorg_options", "reorg_view", "reorganize",
]
