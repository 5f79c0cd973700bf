"""A player's webhook: register, read, remove; and the delivery log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from service.api.auth import bearer, work
from service.api.games import GameId
from service.api.schemas import WebhookSettings
from service.referee import webhooks

router = APIRouter(prefix="/v1")


@router.put("/games/{game_id}/webhook", summary="Register my webhook (returns its secret)")
async def put_webhook(game_id: GameId, body: WebhookSettings, request: Request
                      ) -> dict[str, Any]:
    token = bearer(request)
    async with work(request) as uow:
        return await webhooks.put(uow, game_id, token, url=body.url,
                                  every_event=body.every_event,
                                  policy=request.app.state.egress)


@router.get("/games/{game_id}/webhook", summary="My webhook (without its secret)")
async def get_webhook(game_id: GameId, request: Request) -> dict[str, Any]:
    token = bearer(request)
    async with work(request) as uow:
        return await webhooks.get(uow, game_id, token)


@router.delete("/games/{game_id}/webhook", status_code=204, summary="Remove my webhook")
async def delete_webhook(game_id: GameId, request: Request) -> Response:
    token = bearer(request)
    async with work(request) as uow:
        await webhooks.delete(uow, game_id, token)
    return Response(status_code=204)


@router.get("/games/{game_id}/webhook/deliveries", summary="My notifications and attempts")
async def deliveries(game_id: GameId, request: Request,
                     limit: Annotated[int, Query(ge=1, le=500)] = 100) -> dict[str, Any]:
    token = bearer(request)
    async with work(request) as uow:
        return await webhooks.deliveries(uow, game_id, token, limit)
