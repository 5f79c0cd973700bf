"""A signed order as it arrives, and the checks every way of taking it makes first:
the game and the signer it names, its RFC 8785 canonical bytes (their hash is the
order's), the Ed25519 signature, that a player signs only players' kinds; then the
command the rules decide, with what the referee adds (the
player's settings that change what an order needs, the trigger of its dice)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.clock import rfc3339, utc_now
from service.crypto import dice as crypto_dice
from service.crypto import identity, signing
from service.crypto.canonical import sha256_hex
from service.referee.errors import Unauthorized
from service.rules import ORDERS, Actor, Command, RulesError
from service.rules.errors import Forbidden, Malformed

# Orders whose answers stay sealed from other sides until their window closes.
SEALED_ORDERS = ("initiative.reroll",)
# Orders whose later answers name them by their seq (standing orders, held steps).
NAMED_ORDERS = ("standing", "steps")


@dataclass(frozen=True, slots=True)
class Order:
    """What a player (or the GM) signs: the game, the signer and its seq, the chain head
    it last saw (`prev`), the position it saw, the order's kind and body."""

    game: str
    player: str
    seq: int
    prev: str
    turn: int
    impulse: int
    step: str
    kind: str
    body: Mapping[str, Any]

    def signed(self) -> dict[str, Any]:
        """The object the signature covers (its RFC 8785 bytes)."""
        return {"game": self.game, "player": self.player, "seq": self.seq, "prev": self.prev,
                "turn": self.turn, "impulse": self.impulse, "step": self.step,
                "kind": self.kind, "body": dict(self.body)}


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


def check(game_id: str, signer: str, key: str, actor: Actor, envelope: Envelope,
          settings: Mapping[str, Any] | None = None) -> Checked:
    """The envelope names this game and the token's signer, and the signature verifies
    with `key` over the order's RFC 8785 bytes (canonicalised once: the same bytes give
    the order's hash). The player's `settings` that change what an order needs ride in
    the command's `extra`, which the log keeps for the replay."""
    order = envelope.order
    if order.game != game_id:
        raise Malformed("order/wrong_game", "the order names another game",
                        errors=[("/order/game", f"expected {game_id}")])
    if order.player != signer:
        raise Forbidden("order/signer_mismatch",
                        "the bearer token belongs to another signer than the order's",
                        errors=[("/order/player", "not the token's player")])
    try:
        signed = signing.order_signing_bytes(order.signed())
    except ValueError as error:
        raise Malformed("order/not_canonical", f"the order has no RFC 8785 canonical form "
                        f"(so it cannot be signed): {error}; numbers must be finite and "
                        "integers within +-(2**53 - 1)",
                        errors=[("/order", str(error))]) from None
    if not signing.verify(key, signed, envelope.signature):
        raise Unauthorized("order/bad_signature",
                           "the signature does not verify with the signer's registered key")
    if actor.role == "player" and order.kind not in ORDERS:
        raise Forbidden("order/gm_only", f"{order.kind} is not a player's order: it is the "
                        "GM's",
                        errors=[("/order/kind", f"a player's kinds are {sorted(ORDERS)}")])
    extra: dict[str, Any] = {}
    if order.kind in ("done", "steps") and (settings or {}).get("confirm_lapse"):
        extra["confirm_lapse"] = "required"  # the player's setting (referee.settings)
    if order.kind in NAMED_ORDERS:
        extra["seq"] = order.seq  # the events of its answers name it (issue 20)
    command = Command(kind=order.kind, body=order.body, actor=actor, at=rfc3339(utc_now()),
                      position=(order.turn, order.impulse, order.step), extra=extra,
                      trigger=crypto_dice.trigger_of(envelope.signature))
    return Checked(order, sha256_hex(signed), command)


def in_request(refusal: RulesError, signer: str) -> RulesError:
    """A refusal whose paths point into the request: the rules point into the order (a
    player's) or into the act's body (the GM's), the request holds it under `order`."""
    prefix = "/order/body" if signer == identity.GM else "/order"

    def moved(path: str) -> str:
        return path if path.startswith("/order") else prefix + path

    refusal.errors = [(moved(path), message) for path, message in refusal.errors]
    refusal.units = {moved(path): unit for path, unit in refusal.units.items()}
    refusal.unit_labels = {moved(path): unit for path, unit in refusal.unit_labels.items()}
    return refusal


