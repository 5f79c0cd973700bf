"""Webhooks, a player's or the game master's: register one (a new secret each time, and
an active webhook again if it was disabled), read it with its state, remove it; the log
of the notifications sent to it, and sending one of them again."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from service.answers import (
    Deliveries,
    Message,
    MessageKind,
    Notification,
    Registered,
    Webhook,
    WebhookStatus,
)
from service.clock import rfc3339, utc_now
from service.crypto import webhooks
from service.referee import egress, members
from service.referee.errors import Conflict, NotFound
from service.rules import Malformed
from service.store.models import GM_OWNER, DeliveryRow, OutboxRow, WebhookRow
from service.store.uow import UnitOfWork

SIGNATURE = ("Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature "
             "(v1, HMAC-SHA256)")


def owner_of(member: members.Member) -> str:
    """Whose webhook the caller manages: its player id, or the GM's owner id."""
    return GM_OWNER if member.player is None else member.player.id


def status(hook: WebhookRow | None) -> WebhookStatus | None:
    """A webhook's state as its owner sees it (in GET /webhook and the state view)."""
    if hook is None:
        return None
    return {"url": hook.url, "state": "disabled" if hook.disabled_at else "active",
            "disabled_at": rfc3339(hook.disabled_at) if hook.disabled_at else None,
            "reason": hook.disabled_reason,
            "failing_since": rfc3339(hook.failing_since) if hook.failing_since else None}


async def put(uow: UnitOfWork, game_id: str, token: str, *, url: str, every_event: bool,
              policy: egress.Policy) -> Registered:
    """Register (or replace) the caller's webhook: an http(s) URL whose host resolves to
    a public address (or one the operator allowed); 422 otherwise. The GM's gets every
    event whatever `every_event` says."""
    member = await members.member(uow, game_id, token)
    owner = owner_of(member)
    every_event = every_event or owner == GM_OWNER
    try:
        await egress.check(url, policy)
    except egress.Failed as refusal:
        raise Malformed("webhook/forbidden_destination",
                        f"the webhook URL is refused: {refusal}; it must be http(s) to a "
                        "host on the public internet", errors=[("/url", str(refusal))]
                        ) from None
    secret = webhooks.new_secret()
    await uow.webhooks.put(game_id, owner, url=url, secret=secret, every_event=every_event)
    return {"url": url, "every_event": every_event, "secret": secret, "signature": SIGNATURE,
            "state": "active", "disabled_at": None, "reason": None, "failing_since": None}


async def get(uow: UnitOfWork, game_id: str, token: str) -> Webhook:
    owner = owner_of(await members.member(uow, game_id, token))
    hook = await uow.webhooks.get(game_id, owner)
    if hook is None:
        raise NotFound("webhook/not_found", "no webhook registered")
    shown = status(hook)
    assert shown is not None
    return {"every_event": hook.every_event, **shown}


async def delete(uow: UnitOfWork, game_id: str, token: str) -> None:
    owner = owner_of(await members.member(uow, game_id, token))
    await uow.webhooks.delete(game_id, owner)


def _message(msg: OutboxRow, attempts: list[DeliveryRow]) -> Message:
    return {
        "id": msg.id, "kind": cast(MessageKind, msg.kind),
        "payload": cast(Notification, msg.payload),
        "state": "delivered" if msg.delivered_at else "failed" if msg.failed else "pending",
        "attempts": [{"attempt": a.attempt, "at": rfc3339(a.at), "status_code": a.status_code,
                      "error": a.error} for a in attempts],
        "next_attempt_at": None if msg.delivered_at or msg.failed
        else rfc3339(msg.next_attempt_at)}


async def deliveries(uow: UnitOfWork, game_id: str, token: str, limit: int) -> Deliveries:
    """The caller's newest notifications, each with its attempts and its state."""
    owner = owner_of(await members.member(uow, game_id, token))
    messages, attempts = await uow.outbox.of_player(game_id, owner, limit)
    by_message: dict[str, list[DeliveryRow]] = {}
    for a in attempts:
        by_message.setdefault(a.outbox_id, []).append(a)
    return {"messages": [_message(msg, by_message.get(msg.id, [])) for msg in messages]}


async def resend(uow: UnitOfWork, game_id: str, token: str, message_id: str,
                 now: datetime | None = None) -> Message:
    """Send one of the caller's messages again (failed, delivered or still pending):
    pending, due now, its retry schedule started anew, under the same `webhook-id`.
    404 for a message that is not the caller's; 409 while its webhook (or channel) is
    missing or disabled."""
    now = now or utc_now()
    owner = owner_of(await members.member(uow, game_id, token))
    message = await uow.outbox.of_owner(game_id, owner, message_id)
    if message is None:
        raise NotFound("webhook/message_not_found", f"you have no message {message_id}")
    if message.channel is None:
        await _webhook_ready(uow, game_id, owner)
    else:  # a channel's message (issue 20): its channel, no webhook
        await _channel_ready(uow, game_id, owner, message.channel)
    await uow.outbox.requeue(game_id, message_id, now)
    message = await uow.outbox.of_owner(game_id, owner, message_id)
    assert message is not None  # locked since it was first read
    return _message(message, await uow.outbox.attempts_of(game_id, message_id))


async def _channel_ready(uow: UnitOfWork, game_id: str, owner: str, kind: str) -> None:
    """409 unless the owner's channel of `kind` is set and enabled."""
    found = [c for c in await uow.channels.of_player(game_id, owner) if c.kind == kind]
    if not found:
        raise Conflict("channel/not_found", f"you have no {kind} channel: set one (PUT "
                       f"/channels/{kind}), then resend")
    if found[0].disabled_at is not None:
        raise Conflict("channel/disabled", f"the {kind} channel is disabled "
                       f"({found[0].disabled_reason}): set it again (PUT /channels/{kind}) "
                       "to enable it, then resend")


async def _webhook_ready(uow: UnitOfWork, game_id: str, owner: str) -> None:
    """409 unless the owner's webhook is registered and enabled."""
    hook = await uow.webhooks.get(game_id, owner)
    if hook is None:
        raise Conflict("webhook/not_found", "no webhook registered: register one (PUT "
                       "/webhook), then resend")
    if hook.disabled_at is not None:
        raise Conflict("webhook/disabled", "the webhook is disabled: register it again "
                       "(PUT /webhook) to enable it, then resend",
                       extra={"webhook": status(hook)})
