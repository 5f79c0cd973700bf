"""Planning reorganization (11.18): `GET /v1/games/{id}/reorg/options?unit=...` lists,
for one unit, every method that would work now (source, path, cost, capacity used)
and why each other would not; `GET /v1/games/{id}/reorg/repairs` lists the damaged
ports and the ways to repair each (11.18.4). Players plan their own side's; the GM
any."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from service.answers import ReorgPlan, ReorgRepairs
from service.api.auth import bearer, heavy
from service.api.contract import BEARER, LIMITS, answers
from service.api.games import GameId
from service.api.numbers import JsonRoute
from service.referee import planning

router = APIRouter(prefix="/v1", route_class=JsonRoute)


@router.get("/games/{game_id}/reorg/options",
            summary="Plan a unit's reorganization: every legal method, and why not the others",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, ReorgPlan, 401, 403, 404, 422, *LIMITS))
async def options(
    game_id: GameId,
    request: Request,
    unit: Annotated[str, Query(min_length=1, max_length=64, description="a unit's id")],
) -> Response:
    token = bearer(request)
    return await heavy(request, planning.plan_json, game_id, token, unit, game=game_id,
                       read=False)


@router.get("/games/{game_id}/reorg/repairs",
            summary="Plan port repairs: the side's damaged ports and the ways to repair each",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, ReorgRepairs, 401, 403, 404, 422, *LIMITS))
async def repairs(game_id: GameId, request: Request) -> Response:
    token = bearer(request)
    return await heavy(request, planning.repairs_json, game_id, token, game=game_id,
                       read=False)
