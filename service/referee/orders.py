"""Signed orders (DESIGN.md 4.1): check the envelope, the signer, the seq; then apply."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

from service.crypto import signing
from service.crypto.canonical import canonical_bytes, sha256_hex
from service.referee.core import apply, lock_for_order, lock_game, rfc3339, state_of, utc_now
from service.referee.games import Unauthorized
from service.rules import Actor, Command, decide
from service.rules.awaiting import awaiting, position
from service.rules.errors import Forbidden, Malformed, Refused
from service.store.models import OrderRow, PlayerRow, table


@dataclass
class OrderResult:
    body: dict[str, Any]
    replayed: bool


class _NoDice:
    """Dice for a dry run: any roll stops the preview. Showing a die before the order is
    committed would let a player preview (and grind) the real roll, which chains to the
    same hash."""

    def commit(self, turn: int) -> str:
        raise _WouldRoll

    def reveal(self, turn: int) -> str:
        raise _WouldRoll

    def recommit(self, turn: int, epoch: int) -> str:
        raise _WouldRoll

    def roll(self, **_: Any) -> Any:
        raise _WouldRoll


class _WouldRoll(Exception):
    pass


async def dry_run(session: AsyncSession, game_id: str, caller: PlayerRow,
                  envelope: Mapping[str, Any]) -> dict[str, Any]:
    """Validate an order and say what it would do, changing nothing."""
    order = envelope["order"]
    game = await lock_game(session, game_id)
    _check_signer(caller, envelope)
    state = state_of(game)
    command = _command(caller, order)
    try:
        decision = decide(state, command, _NoDice())
    except _WouldRoll:
        return {"valid": True, "dry_run": True, "rolls_dice": True, "events": [],
                "note": "the order is valid; what follows depends on dice, which are "
                        "rolled only when the order is submitted"}
    after = decision.state
    return {"valid": True, "dry_run": True, "rolls_dice": False,
            "events": [e.record(game.head_seq + i + 1) for i, e in enumerate(decision.events)],
            "position": position(after), "awaiting": awaiting(after)}


def _check_signer(caller: PlayerRow, envelope: Mapping[str, Any]) -> None:
    order = envelope["order"]
    if order["player"] != caller.id:
        raise Forbidden("order/signer_mismatch",
                        "the bearer token belongs to another player than the order's",
                        errors=[("/order/player", "not the token's player")])
    try:
        signed = signing.order_signing_bytes(order)
    except ValueError as error:
        raise Malformed("order/not_canonical", f"the order has no RFC 8785 canonical form "
                        f"(so it cannot be signed): {error}", rule="DESIGN 4.1",
                        errors=[("/order", str(error))]) from None
    if not signing.verify(caller.public_key, signed, envelope["signature"]):
        raise Unauthorized("order/bad_signature",
                           "the signature does not verify with the player's registered key")


def _command(caller: PlayerRow, order: Mapping[str, Any]) -> Command:
    return Command(
        kind=order["kind"],
        body=order.get("body") or {},
        actor=Actor(id=caller.id, role="player", side=caller.side,
                    powers=tuple(caller.powers)),
        at=rfc3339(utc_now()),
        position=(order["turn"], order["impulse"], order["step"]),
    )


async def submit_order(
    session: AsyncSession, game_id: str, caller: PlayerRow, envelope: Mapping[str, Any],
) -> OrderResult:
    order = envelope["order"]
    if order["game"] != game_id:
        raise Malformed("order/wrong_game", "the order names another game",
                        errors=[("/order/game", f"expected {game_id}")])
    game, previous = await lock_for_order(session, game_id, caller.id, order["seq"])
    _check_signer(caller, envelope)
    order_hash = sha256_hex(canonical_bytes(order))
    if previous is not None:
        stored_hash, stored_result = previous
        if stored_hash == order_hash:
            return OrderResult(stored_result, replayed=True)
        raise Refused("order/seq_reused", f"seq {order['seq']} was already used for another "
                      "order", rule="DESIGN 4.1", errors=[("/order/seq", "reused")])
    command = _command(caller, order)
    applied = await apply(session, game, command)
    result = {
        "accepted": True,
        "seq": order["seq"],
        "version": applied.version,
        "events": applied.events,
        "position": position(applied.state),
        "awaiting": awaiting(applied.state),
    }
    await session.execute(_INSERT_ORDER, {
        "game_id": game_id, "player_id": caller.id, "seq": order["seq"],
        "order_hash": order_hash, "envelope": dict(envelope), "result": result,
        "first_event": applied.events[0]["seq"] if applied.events else None,
    })
    return OrderResult(result, replayed=False)


_INSERT_ORDER = insert(table(OrderRow))  # built once (referee.core: the order path)
