"""Reorganization planning (11.18): one `Planner` per game version and process, so
planning every face-down unit of a big game builds its board and candidate indexes
once, kept for the next versions while the map stays the same (a standing order, a
roll: `same_map`), in the process's memory budget. (game id, version) names one
committed state. Players plan their own side's units and port repairs; the GM any."""

from __future__ import annotations

import orjson

from service.answers import ReorgPlan, ReorgRepairs
from service.referee import members
from service.referee.errors import Denied, NotFound
from service.rules import position
from service.rules.reorg import Planner
from service.rules.state import same_map
from service.store.games import Game
from service.store.memory import BUDGET, estimate
from service.store.uow import UnitOfWork

_PLANNERS: dict[str, tuple[int, Planner]] = {}  # game id -> the newest version's planner


def _forget(game_id: str) -> None:
    _PLANNERS.pop(game_id, None)


BUDGET.register("planner", _forget)


async def reorg_options(uow: UnitOfWork, game_id: str, token: str, unit: str
                        ) -> ReorgPlan:
    """Every way to reorganize `unit` now, and why each other method would not work."""
    m = await members.member(uow, game_id, token)
    game = await uow.games.with_state(m.row)
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


async def plan_json(uow: UnitOfWork, game_id: str, token: str, unit: str) -> bytes:
    """`reorg_options` as JSON (what a worker process answers, service.referee.offload)."""
    return orjson.dumps(await reorg_options(uow, game_id, token, unit))


async def reorg_repairs(uow: UnitOfWork, game_id: str, token: str) -> ReorgRepairs:
    """The damaged ports of the reader's side (the GM: every side's), each with the ways
    to repair it now (11.18.4)."""
    m = await members.member(uow, game_id, token)
    game = await uow.games.with_state(m.row)
    repairs = _planner(game).repairs(m.player.side if m.player is not None else None)
    return {"position": position(game.state), "version": game.version,
            "ports": [r.as_data(game.state) for r in repairs]}


async def repairs_json(uow: UnitOfWork, game_id: str, token: str) -> bytes:
    """`reorg_repairs` as JSON (what a worker process answers)."""
    return orjson.dumps(await reorg_repairs(uow, game_id, token))


def _planner(game: Game) -> Planner:
    """The game's planner: the one kept for its newest version, while the map is the
    same, else a new one (counted in the memory budget)."""
    kept = _PLANNERS.get(game.id)
    if kept is not None and (kept[0] == game.version or same_map(kept[1].state, game.state)):
        planner = kept[1]
    else:
        planner = Planner(game.state)
    _PLANNERS[game.id] = (game.version, planner)
    scenario = game.setup.scenario
    BUDGET.keep(game.id, "planner", estimate("board", len(scenario.map.hexes),
                                             len(game.state.units)))
    return planner
