"""Signed orders (DESIGN.md 4.1), on one straight path: find the player by token, check
the envelope and the signature over the order's canonical bytes (computed once, before
the game is locked), lock the game, answer a seq already used, decide and append.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.clock import rfc3339, utc_now
from service.crypto import signing
from service.crypto.canonical import sha256_hex
from service.referee import members
from service.referee.errors import Unauthorized
from service.referee.ledger import apply
from service.rules import Actor, Command, awaiting, decide, position
from service.rules.errors import Forbidden, Malformed, Refused
from service.store.models import PlayerRow
from service.store.uow import UnitOfWork


@dataclass
class OrderResult:
    body: dict[str, Any]
    replayed: bool


@dataclass(frozen=True, slots=True)
class Order:
    """What a player signs (DESIGN 4.1): the game, the player and its seq, the position
    the player saw, the order's kind and body."""

    game: str
    player: str
    seq: int
    turn: int
    impulse: int
    step: str
    kind: str
    body: Mapping[str, Any]

    def signed(self) -> dict[str, Any]:
        """The object the signature covers (its RFC 8785 bytes)."""
        return {"game": self.game, "player": self.player, "seq": self.seq, "turn": self.turn,
                "impulse": self.impulse, "step": self.step, "kind": self.kind,
                "body": dict(self.body)}


@dataclass(frozen=True, slots=True)
class Envelope:
    """A signed order as it arrives: the order and the base64url Ed25519 signature."""

    order: Order
    signature: str

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Envelope:
        """From the API's validated body."""
        return cls(Order(**data["order"]), str(data["signature"]))

    def stored(self) -> dict[str, Any]:
        """The envelope as it is kept and exported."""
        return {"order": self.order.signed(), "signature": self.signature}


@dataclass(frozen=True, slots=True)
class Checked:
    """An order whose signature verified: its canonical bytes' hash and its command."""

    order: Order
    order_hash: str
    command: Command


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


def check(game_id: str, player: PlayerRow, envelope: Envelope) -> Checked:
    """The envelope names this game and the token's player, and the signature verifies
    with the player's key over the order's RFC 8785 bytes (canonicalised once: the same
    bytes give the order's hash)."""
    order = envelope.order
    if order.game != game_id:
        raise Malformed("order/wrong_game", "the order names another game",
                        errors=[("/order/game", f"expected {game_id}")])
    if order.player != player.id:
        raise Forbidden("order/signer_mismatch",
                        "the bearer token belongs to another player than the order's",
                        errors=[("/order/player", "not the token's player")])
    try:
        signed = signing.order_signing_bytes(order.signed())
    except ValueError as error:
        raise Malformed("order/not_canonical", f"the order has no RFC 8785 canonical form "
                        f"(so it cannot be signed): {error}", rule="DESIGN 4.1",
                        errors=[("/order", str(error))]) from None
    if not signing.verify(player.public_key, signed, envelope.signature):
        raise Unauthorized("order/bad_signature",
                           "the signature does not verify with the player's registered key")
    command = Command(
        kind=order.kind, body=order.body,
        actor=Actor(id=player.id, role="player", side=player.side,
                    powers=tuple(player.powers)),
        at=rfc3339(utc_now()), position=(order.turn, order.impulse, order.step))
    return Checked(order, sha256_hex(signed), command)


async def dry_run(uow: UnitOfWork, game_id: str, token: str, envelope: Envelope
                  ) -> dict[str, Any]:
    """Validate an order and say what it would do, changing nothing."""
    player = await members.player_for_order(uow, game_id, token)
    checked = check(game_id, player, envelope)
    game = await uow.games.lock(game_id)
    try:
        decision = decide(game.state, checked.command, _NoDice())
    except _WouldRoll:
        return {"valid": True, "dry_run": True, "rolls_dice": True, "events": [],
                "note": "the order is valid; what follows depends on dice, which are "
                        "rolled only when the order is submitted"}
    return {"valid": True, "dry_run": True, "rolls_dice": False,
            "events": [e.record(game.head_seq + i + 1)
                       for i, e in enumerate(decision.events)],
            "position": position(decision.state), "awaiting": awaiting(decision.state)}


async def submit(uow: UnitOfWork, game_id: str, token: str, envelope: Envelope
                 ) -> OrderResult:
    player = await members.player_for_order(uow, game_id, token)
    checked = check(game_id, player, envelope)
    order = checked.order
    game, stored, signer = await uow.games.lock_for_order(game_id, player.id, order.seq)
    if signer.public_key != player.public_key or not signer.active:
        # The GM replaced the key or reassigned the seat while this order waited.
        raise Unauthorized("order/key_changed", "the player's key or seat changed while "
                           "the order waited for the game: sign it again")
    if stored is not None:
        if stored.order_hash == checked.order_hash:
            return OrderResult(stored.result, replayed=True)
        raise Refused("order/seq_reused", f"seq {order.seq} was already used for another "
                      "order", rule="DESIGN 4.1", errors=[("/order/seq", "reused")])
    applied = await apply(uow, game, checked.command)
    result = {"accepted": True, "seq": order.seq, **applied.outcome()}
    await uow.orders.add(
        game_id=game_id, player_id=player.id, seq=order.seq, order_hash=checked.order_hash,
        envelope=envelope.stored(), result=result,
        first_event=applied.events[0]["seq"] if applied.events else None)
    return OrderResult(result, replayed=False)
