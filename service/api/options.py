"""Legal choices (issue 16): for the current step, every mode a unit may take and why not
the others, the hexes its moves may end in with their MP cost and path, transport,
whether it may attack, be released or exploit. One unit, or a side's units a page at a
time (issue 33: `limit`, `after`), narrowed to some units (`units`) or an area (`near`,
`within`); players see their own side's units, the GM any side's (`?side=`); computed
by a worker process (service/referee/offload.py). And a combat's odds before it is sent
(issue 29)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request, Response

from service.answers import CombatOdds, SideOptions, UnitOptions
from service.api.auth import bearer, elsewhere, heavy, work
from service.api.contract import BEARER, LIMITS, answers
from service.api.games import GameId
from service.api.numbers import JsonRoute
from service.api.problems import Problem
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
    return await heavy(request, choices.unit_choices, game_id, token, unit, game=game_id,
                       read=False)


@router.get("/games/{game_id}/options",
            summary="A page of a side's units with their legal choices now (a player's own "
                    "side by default), narrowed to some units or to an area",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, SideOptions, 401, 403, 404, 422, *LIMITS))
async def side_options(
    game_id: GameId,
    request: Request,
    side: Annotated[str | None, Query(min_length=1, max_length=64,
                                      description=(
        "the side (a player's own by default; the GM's: the side awaited first)"))] = None,
    units: Annotated[str | None, Query(min_length=1, max_length=6600, description=(
        "only these units: comma-separated ids (at most 100)"))] = None,
    near: Annotated[str | None, Query(min_length=1, max_length=64, description=(
        "only units within `within` hexes of this hex"))] = None,
    within: Annotated[int, Query(ge=0, le=100, description=(
        "how far from `near`, in hexes"))] = 0,
    after: Annotated[str | None, Query(min_length=1, max_length=64, description=(
        "the page after this unit id (the previous page's `next_after`)"))] = None,
    limit: Annotated[int, Query(ge=1, le=choices.PAGE_UNITS_MAX, description=(
        "the most units in the page (fewer when their JSON passes OPTIONS_PAGE_BYTES)"))
    ] = choices.PAGE_UNITS,
) -> Response:
    token = bearer(request)
    listed = tuple(u.strip() for u in units.split(",") if u.strip()) if units else ()
    if len(listed) > 100:
        raise Problem(422, "request/invalid_parameter", "units lists at most 100 ids",
                      errors=[{"path": "/units", "message": "at most 100 ids"}])
    page = choices.Page(units=listed, near=near, within=within, after=after, limit=limit,
                        max_bytes=request.app.state.settings.options_page_bytes)
    return await heavy(request, choices.side_choices, game_id, token, side, page,
                       game=game_id, read=False)


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
    if await elsewhere(request, game_id):  # a big game's dry run: by a worker
        return await heavy(request, choices.combat_odds, game_id, token, by, hex, attackers,
                           game=game_id, read=False)
    async with work(request) as uow:
        body = await choices.combat_odds(uow, game_id, token, by, hex, attackers)
    return Response(body, media_type="application/json")
