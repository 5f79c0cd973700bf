"""A player's webhook: register, read, remove; and the delivery log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert

from service.api import auth
from service.api.games import GameId, transaction
from service.api.problems import Problem
from service.api.schemas import WebhookSettings
from service.crypto import webhooks
from service.referee.core import rfc3339
from service.store.models import DeliveryRow, OutboxRow, WebhookRow

router = APIRouter(prefix="/v1")


@router.put("/games/{game_id}/webhook", summary="Register my webhook (returns its secret)")
async def put_webhook(game_id: GameId, body: WebhookSettings, request: Request
                      ) -> dict[str, Any]:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        player = auth.require_player(m)
        secret = webhooks.new_secret()
        await session.execute(
            pg_insert(WebhookRow).values(game_id=game_id, player_id=player.id, url=body.url,
                                         secret=secret, every_event=body.every_event)
            .on_conflict_do_update(index_elements=["game_id", "player_id"],
                                   set_={"url": body.url, "secret": secret,
                                         "every_event": body.every_event})
        )
        return {"url": body.url, "every_event": body.every_event, "secret": secret,
                "signature": "Standard Webhooks: webhook-id, webhook-timestamp, "
                             "webhook-signature (v1, HMAC-SHA256)"}


@router.get("/games/{game_id}/webhook", summary="My webhook (without its secret)")
async def get_webhook(game_id: GameId, request: Request) -> dict[str, Any]:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        player = auth.require_player(m)
        hook = await session.get(WebhookRow, (game_id, player.id))
        if hook is None:
            raise Problem(404, "webhook/not_found", "no webhook registered")
        return {"url": hook.url, "every_event": hook.every_event}


@router.delete("/games/{game_id}/webhook", status_code=204, summary="Remove my webhook")
async def delete_webhook(game_id: GameId, request: Request) -> Response:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        player = auth.require_player(m)
        await session.execute(delete(WebhookRow).where(WebhookRow.game_id == game_id,
                                                       WebhookRow.player_id == player.id))
    return Response(status_code=204)


@router.get("/games/{game_id}/webhook/deliveries", summary="My notifications and attempts")
async def deliveries(game_id: GameId, request: Request,
                     limit: Annotated[int, Query(ge=1, le=500)] = 100) -> dict[str, Any]:
    async with transaction(request) as session:
        m = await auth.member(session, game_id, auth.bearer(request))
        player = auth.require_player(m)
        messages = (await session.execute(
            select(OutboxRow).where(OutboxRow.game_id == game_id,
                                    OutboxRow.player_id == player.id)
            .order_by(OutboxRow.created_at.desc(), OutboxRow.id).limit(limit))).scalars().all()
        attempts = (await session.execute(
            select(DeliveryRow).where(DeliveryRow.game_id == game_id,
                                      DeliveryRow.player_id == player.id)
            .order_by(DeliveryRow.at))).scalars().all()
        by_message: dict[str, list[dict[str, Any]]] = {}
        for a in attempts:
            by_message.setdefault(a.outbox_id, []).append(
                {"attempt": a.attempt, "at": rfc3339(a.at), "status_code": a.status_code,
                 "error": a.error})
        return {"messages": [
            {"id": msg.id, "kind": msg.kind, "payload": msg.payload,
             "state": "delivered" if msg.delivered_at else "failed" if msg.failed
             else "pending", "attempts": by_message.get(msg.id, []),
             "next_attempt_at": None if msg.delivered_at or msg.failed
             else rfc3339(msg.next_attempt_at)}
            for msg in messages]}
