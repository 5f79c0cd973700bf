"""Signed orders (DESIGN.md 4.1): check the envelope, the signer, the seq; then apply."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from service.crypto import signing
from service.crypto.canonical import canonical_bytes, sha256_hex
from service.referee.core import apply, lock_game, rfc3339, utc_now
from service.referee.games import Unauthorized
from service.rules import Actor, Command
from service.rules.awaiting import awaiting
from service.rules.decide import position
from service.rules.errors import Forbidden, Malformed, Refused
from service.store.models import OrderRow, PlayerRow


@dataclass
class OrderResult:
    body: dict[str, Any]
    replayed: bool


async def submit_order(
    session: AsyncSession, game_id: str, caller: PlayerRow, envelope: Mapping[str, Any],
) -> OrderResult:
    order = envelope["order"]
    if order["game"] != game_id:
        raise Malformed("order/wrong_game", "the order names another game",
                        errors=[("/order/game", f"expected {game_id}")])
    game = await lock_game(session, game_id)
    if order["player"] != caller.id:
        raise Forbidden("order/signer_mismatch",
                        "the bearer token belongs to another player than the order's",
                        errors=[("/order/player", "not the token's player")])
    if not signing.verify(caller.public_key, signing.order_signing_bytes(order),
                          envelope["signature"]):
        raise Unauthorized("order/bad_signature",
                           "the signature does not verify with the player's registered key")
    order_hash = sha256_hex(canonical_bytes(order))
    previous = (
        await session.execute(
            select(OrderRow).where(OrderRow.game_id == game_id, OrderRow.player_id == caller.id,
                                   OrderRow.seq == order["seq"])
        )
    ).scalar_one_or_none()
    if previous is not None:
        if previous.order_hash == order_hash:
            return OrderResult(previous.result, replayed=True)
        raise Refused("order/seq_reused", f"seq {order['seq']} was already used for another "
                      "order", rule="DESIGN 4.1", errors=[("/order/seq", "reused")])
    command = Command(
        kind=order["kind"],
        body=order.get("body") or {},
        actor=Actor(id=caller.id, role="player", side=caller.side,
                    powers=tuple(caller.powers)),
        at=rfc3339(utc_now()),
        position=(order["turn"], order["impulse"], order["step"]),
    )
    applied = await apply(session, game, command)
    result = {
        "accepted": True,
        "seq": order["seq"],
        "version": applied.version,
        "events": applied.events,
        "position": position(applied.state),
        "awaiting": awaiting(applied.state),
    }
    await session.execute(insert(OrderRow).values(
        game_id=game_id, player_id=caller.id, seq=order["seq"], order_hash=order_hash,
        envelope=dict(envelope), result=result,
        first_event=applied.events[0]["seq"] if applied.events else None,
    ))
    return OrderResult(result, replayed=False)
