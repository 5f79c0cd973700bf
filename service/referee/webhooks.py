"""A player's webhook: register it (a new secret each time), read it, remove it, and the
log of the notifications sent to it."""

from __future__ import annotations

from typing import Any

from service.clock import rfc3339
from service.crypto import webhooks
from service.referee import egress, members
from service.referee.errors import NotFound
from service.rules import Malformed
from service.store.uow import UnitOfWork

SIGNATURE = ("Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature "
             "(v1, HMAC-SHA256)")


async def put(uow: UnitOfWork, game_id: str, token: str, *, url: str, every_event: bool,
              policy: egress.Policy) -> dict[str, Any]:
    """Register (or replace) the player's webhook: an http(s) URL whose host resolves to
    a public address (or one the operator allowed); 422 otherwise."""
    player = (await members.member(uow, game_id, token)).require_player()
    try:
        await egress.check(url, policy)
    except egress.Failed as refusal:
        raise Malformed("webhook/forbidden_destination",
                        f"the webhook URL is refused: {refusal}; it must be http(s) to a "
                        "host on the public internet", errors=[("/url", str(refusal))]
                        ) from None
    secret = webhooks.new_secret()
    await uow.webhooks.put(game_id, player.id, url=url, secret=secret, every_event=every_event)
    return {"url": url, "every_event": every_event, "secret": secret, "signature": SIGNATURE}


async def get(uow: UnitOfWork, game_id: str, token: str) -> dict[str, Any]:
    player = (await members.member(uow, game_id, token)).require_player()
    hook = await uow.webhooks.get(game_id, player.id)
    if hook is None:
        raise NotFound("webhook/not_found", "no webhook registered")
    return {"url": hook.url, "every_event": hook.every_event}


async def delete(uow: UnitOfWork, game_id: str, token: str) -> None:
    player = (await members.member(uow, game_id, token)).require_player()
    await uow.webhooks.delete(game_id, player.id)


async def deliveries(uow: UnitOfWork, game_id: str, token: str, limit: int) -> dict[str, Any]:
    """The player's newest notifications, each with its attempts and its state."""
    player = (await members.member(uow, game_id, token)).require_player()
    messages, attempts = await uow.outbox.of_player(game_id, player.id, limit)
    by_message: dict[str, list[dict[str, Any]]] = {}
    for a in attempts:
        by_message.setdefault(a.outbox_id, []).append(
            {"attempt": a.attempt, "at": rfc3339(a.at), "status_code": a.status_code,
             "error": a.error})
    return {"messages": [
        {"id": msg.id, "kind": msg.kind, "payload": msg.payload,
         "state": "delivered" if msg.delivered_at else "failed" if msg.failed else "pending",
         "attempts": by_message.get(msg.id, []),
         "next_attempt_at": None if msg.delivered_at or msg.failed
         else rfc3339(msg.next_attempt_at)}
        for msg in messages]}
