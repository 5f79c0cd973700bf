"""Legal choices (issue 16): for the current step, every mode a unit may take and why not
the others, the hexes its moves may end in with their MP cost and path, transport,
whether it may attack, be released or exploit. One unit, or every unit of a side;
players see their own side's units, the GM any side's (`?side=`). And a combat's odds
before it is sent (issue 29)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request, Response

from service.answers import CombatOdds, SideOptions, UnitOptions
from service.api.auth import bearer, work
from service.api.contract import BEARER, LIMITS, answers
from service.api.games import GameId
from service.api.numbers import JsonRoute
from service.referee import choices

router = APIRouter(prefix="/v1", route_class=JsonRoute)
UnitId = Annotated[str, Path(min_length=1, max_length=64, description="a unit's id")]


@router.get("/games/{game_id}/units/{unit}/options",
            summary="A unit's legal choices now: modes, moves with cost and path, transport, "
                    "attacks, release, exploitation",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, UnitOptions, 401, 403, 404, 422, *LIMITS))
async def unit_options(game_id: GameId, unit: UnitId, request: Request) -> Response:
    token = bearer(request)
    async with work(request) as uow:
        body = await choices.unit_choices(uow, game_id, token, unit)
    return Response(body, media_type="application/json")


@router.get("/games/{game_id}/options",
            summary="Every unit of a side with its legal choices now (a player's own side by "
                    "default)",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, SideOptions, 401, 403, 404, 422, *LIMITS))
async def side_options(
    game_id: GameId,
    request: Request,
    side: Annotated[str | None, Query(min_length=1, max_length=64,
                                      description=(
        "the side (a player's own by default; the GM's: the side awaited first)"))] = None,
) -> Response:
    token = bearer(request)
    async with work(request) as uow:
        body = await choices.side_choices(uow, game_id, token, side)
    return Response(body, media_type="application/json")


@router.get("/games/{game_id}/combat/odds",
            summary="What a combat, overrun or barrage would fight at now: the referee's odds "
                    "from the effective values and the cells of its column (a dry run)",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, CombatOdds, 401, 403, 404, 409, 422, *LIMITS))
async def combat_odds(
    game_id: GameId,
    request: Request,
    by: Annotated[Literal["overrun", "combat", "barrage", "naval"],
                  Query(description="the kind of fight")],
    hex: Annotated[str, Query(min_length=1, max_length=64,
                              description="the hex attacked (a sea area for naval)")],
    attackers: Annotated[list[str], Query(min_length=1, max_length=50,
                                          description="the attacking units, repeated")],
) -> Response:
    token = bearer(request)
    async with work(request) as uow:
        body = await choices.combat_odds(uow, game_id, token, by, hex, attackers)
    return Response(body, media_type="application/json")
