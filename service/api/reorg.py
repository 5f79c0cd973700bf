"""Planning reorganization (11.18): `GET /v1/games/{id}/reorg/options?unit=...` lists,
for one unit, every method that would work now (source, path, cost, capacity used)
and why each other would not. Players plan their own side's units; the GM any."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from service.api import auth
from service.api.games import GameId, transaction
from service.api.problems import Problem
from service.referee.core import state_of
from service.referee.planning import plan
from service.rules.awaiting import position

router = APIRouter(prefix="/v1")


@router.get("/games/{game_id}/reorg/options",
            summary="Plan a unit's reorganization: every legal method, and why not the others")
async def options(
    game_id: GameId,
    request: Request,
    unit: Annotated[str, Query(min_length=1, max_length=64, description="a unit's id")],
) -> dict[str, Any]:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        state = state_of(m.game)
        found = state.units.get(unit)
        if found is None:
            raise Problem(422, "reorg/unknown_unit", f"no unit {unit!r} is in the game",
                          errors=[{"path": "/unit", "message": "unknown unit"}])
        side = state.setup.scenario.side_of_power(found.power)
        if m.player is not None and m.player.side != side:
            raise Problem(403, "reorg/not_your_unit",
                          f"{unit} is a unit of {side}: players plan their own side's units",
                          errors=[{"path": "/unit", "message": "another side's unit"}])
        return {"position": position(state), "version": m.game.version,
                **plan(m.game, unit).as_data()}
