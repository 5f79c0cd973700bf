"""A webhook (a player's, or the game master's): register, read, remove; the delivery
log, and sending a message again."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from service.answers import Deliveries, Message, Registered, TestSent, Webhook
from service.api.auth import bearer, work
from service.api.contract import BEARER, BODY, GAME, LIMITS, READ, answers, link
from service.api.games import GameId
from service.api.numbers import JsonRoute
from service.api.schemas import Empty, WebhookSettings
from service.referee import notifications, webhooks

router = APIRouter(prefix="/v1", route_class=JsonRoute)


@router.put("/games/{game_id}/webhook",
            summary="Register my webhook (returns its secret; enables it again if disabled)",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, Registered, 401, 403, 404, *BODY, *LIMITS, links={
                "get_webhook": link("get_webhook", game_id=GAME),
                "deliveries": link("deliveries", game_id=GAME)}))
async def put_webhook(game_id: GameId, body: WebhookSettings, request: Request
                      ) -> Registered:
    token = bearer(request)
    async with work(request) as uow:
        return await webhooks.put(uow, game_id, token, url=body.url,
                                  every_event=body.every_event,
                                  policy=request.app.state.egress)


@router.get("/games/{game_id}/webhook", summary="My webhook and its state (without its secret)",
            response_model=None, openapi_extra=BEARER, responses=answers(200, Webhook, *READ))
async def get_webhook(game_id: GameId, request: Request) -> Webhook:
    token = bearer(request)
    async with work(request) as uow:
        return await webhooks.get(uow, game_id, token)


@router.delete("/games/{game_id}/webhook", status_code=204, summary="Remove my webhook",
               response_model=None, openapi_extra=BEARER,
               responses=answers(204, None, *READ, description="removed (or there was none)"))
async def delete_webhook(game_id: GameId, request: Request) -> Response:
    token = bearer(request)
    async with work(request) as uow:
        await webhooks.delete(uow, game_id, token)
    return Response(status_code=204)


@router.post("/games/{game_id}/webhook/test",
             summary="Send my webhook a test message now (what it answered)",
             response_model=None, openapi_extra=BEARER,
             responses=answers(200, TestSent, 401, 403, 404, 409, *BODY, *LIMITS))
async def test_webhook(game_id: GameId, request: Request, body: Empty | None = None
                       ) -> TestSent:
    token = bearer(request)
    async with work(request) as uow:
        due = await notifications.test_message(uow, game_id, token, "webhook")
    return await notifications.try_test(due, request.app.state.egress,
                                        request.app.state.channel_setup)


@router.get("/games/{game_id}/webhook/deliveries", summary="My notifications and attempts",
            response_model=None, openapi_extra=BEARER,
            responses=answers(200, Deliveries, *READ, links={"resend": link(
                "resend", game_id=GAME, message_id="$response.body#/messages/0/id")}))
async def deliveries(game_id: GameId, request: Request,
                     limit: Annotated[int, Query(ge=1, le=500)] = 100) -> Deliveries:
    token = bearer(request)
    async with work(request) as uow:
        return await webhooks.deliveries(uow, game_id, token, limit)


MessageId = Annotated[str, Path(max_length=200, description="a message id from the delivery log")]


@router.post("/games/{game_id}/webhook/deliveries/{message_id}/resend", status_code=202,
             summary="Send one of my notifications again (due now, retried anew)",
             response_model=None, openapi_extra=BEARER,
             responses=answers(202, Message, 401, 403, 404, 409, *BODY, *LIMITS))
async def resend(game_id: GameId, message_id: MessageId, request: Request,
                 body: Empty | None = None) -> Message:
    token = bearer(request)
    async with work(request) as uow:
        return await webhooks.resend(uow, game_id, token, message_id)
