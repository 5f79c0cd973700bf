"""Reorganization planning (11.18): one `Planner` per game version and process, so
planning every face-down unit of a big game builds its board and candidate indexes
once. (game id, version) names one committed state. Players plan their own side's
units and port repairs; the GM any."""

from __future__ import annotations

from collections import OrderedDict

from service.answers import ReorgPlan, ReorgRepairs
from service.referee import members
from service.referee.errors import Denied, NotFound
from service.rules import position
from service.rules.reorg import Planner
from service.store.games import Game
from service.store.uow import UnitOfWork

_PLANNERS: OrderedDict[tuple[str, int], Planner] = OrderedDict()
_PLANNERS_MAX = 8


async def reorg_options(uow: UnitOfWork, game_id: str, token: str, unit: str
                        ) -> ReorgPlan:
    """Every way to reorganize `unit` now, and why each other method would not work."""
    m = await members.member(uow, game_id, token)
    game = m.game
    found = game.state.units.get(unit)
    if found is None:
        raise NotFound("reorg/unknown_unit", f"no unit {unit!r} is in the game",
                       errors=[("/unit", "unknown unit")])
    side = game.setup.scenario.side_of_power(found.power)
    if m.player is not None and m.player.side != side:
        raise Denied("reorg/not_your_unit",
                     f"{unit} is a unit of {side}: players plan their own side's units",
                     errors=[("/unit", "another side's unit")])
    return {"position": position(game.state), "version": game.version,
            **_planner(game).plan(unit).as_data()}


async def reorg_repairs(uow: UnitOfWork, game_id: str, token: str) -> ReorgRepairs:
    """The damaged ports of the reader's side (the GM: every side's), each with the ways
    to repair it now (11.18.4)."""
    m = await members.member(uow, game_id, token)
    game = m.game
    repairs = _planner(game).repairs(m.player.side if m.player is not None else None)
    return {"position": position(game.state), "version": game.version,
            "ports": [r.as_data(game.state) for r in repairs]}


def _planner(game: Game) -> Planner:
    key = (game.id, game.version)
    planner = _PLANNERS.get(key)
    if planner is None:
        planner = _PLANNERS[key] = Planner(game.state)
        if len(_PLANNERS) > _PLANNERS_MAX:
            _PLANNERS.popitem(last=False)
    else:
        _PLANNERS.move_to_end(key)
    return planner
