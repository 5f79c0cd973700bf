"""Reorganization planning for the API (11.18): one `Planner` per game version and
process, so planning every face-down unit of a big game builds its board and candidate
indexes once. (game id, version) names one committed state."""

from __future__ import annotations

from collections import OrderedDict

from service.referee.core import state_of
from service.rules.reorg import Plan, Planner
from service.store.models import GameRow

_PLANNERS: OrderedDict[tuple[str, int], Planner] = OrderedDict()
_PLANNERS_MAX = 8


def plan(game: GameRow, unit: str) -> Plan:
    """Every way to reorganize `unit` in the game's current state (KeyError for a unit
    not in the game)."""
    key = (game.id, game.version)
    planner = _PLANNERS.get(key)
    if planner is None:
        planner = _PLANNERS[key] = Planner(state_of(game))
        if len(_PLANNERS) > _PLANNERS_MAX:
            _PLANNERS.popitem(last=False)
    else:
        _PLANNERS.move_to_end(key)
    return planner.plan(unit)
