"""A player's second device (issue 30): the page there makes a key of its own and asks
for it (`watchers.request_key`); the device that holds the seat's current key sees the
request (`my_key_requests`) and binds the new key with its consent (`bind_with_consent`),
in force at once and without the GM. The GM's approval without that consent
(`admin/players/{player_id}/key`) stays the way back for a lost key, with its wait."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.answers import KeyReplaced, KeyRequestList
from service.clock import rfc3339, utc_now
from service.crypto import dice as crypto_dice
from service.crypto import identity, signing
from service.referee import members
from service.referee.errors import Unauthorized
from service.referee.games import check_public_key
from service.referee.ledger import apply
from service.rules import Actor, Command
from service.rules.errors import Refused
from service.store.models import PlayerRow
from service.store.uow import UnitOfWork

RULE = "docs/game-master.md"


async def keep_key(uow: UnitOfWork, game_id: str, player: PlayerRow, key: str,
                   replaced: Mapping[str, Any], consent: str | None) -> None:
    """Make `key` the player's signing key and add it to its key history from the
    `player.key_replaced` event `replaced` on (`verify` checks each order with the key of
    its time, and each consent with the key before)."""
    keys = list(player.keys or [{"public_key": player.public_key, "from_seq": 0}])
    keys.append({"public_key": key, "from_seq": replaced["seq"],
                 "effective_at": replaced["data"].get("effective_at"), "consent": consent})
    await uow.players.update(game_id, player.id, public_key=key, keys=keys)


async def my_key_requests(uow: UnitOfWork, game_id: str, token: str) -> KeyRequestList:
    """The caller's own requests for a new key (a player's), newest last: what its other
    device asked for, which the device holding the current key may consent to."""
    player = (await members.member(uow, game_id, token)).require_player()
    return {"requests": [
        {"request_id": r.id, "player_id": player.id, "name": player.name,
         "side": player.side, "public_key": r.public_key, "created_at": rfc3339(r.created_at),
         "approved": player.public_key == r.public_key}
        for r in await uow.key_requests.of_game(game_id) if r.player_id == player.id]}


async def bind_with_consent(uow: UnitOfWork, game_id: str, token: str, public_key: str,
                            consent: str) -> KeyReplaced:
    """The caller (a player) makes `public_key` its signing key: `consent` is its current
    key's signature over {type: "wif-key-consent/1", game, player, public_key}. The log
    says so to every side (`player.key_replaced`, consented), the consent is the
    command's signature, and the new key orders at once."""
    player = (await members.member(uow, game_id, token)).require_player()
    check_public_key(public_key)
    if public_key == player.public_key:
        raise Refused("key/already_yours", "this is already the player's key", rule=RULE,
                      errors=[("/public_key", "the current key")])
    consented = identity.consent_object(game_id, player.id, public_key)
    if not signing.verify(player.public_key, identity.signing_bytes(consented), consent):
        raise Unauthorized("key/bad_consent", "the consent does not verify with the "
                           "player's current key: sign it on the device that holds it",
                           errors=[("/consent", "bad signature")])
    game = await uow.games.lock(game_id)
    command = Command(kind="seat.new_key", at=rfc3339(utc_now()),
                      actor=Actor(id=player.id, role="player", side=player.side),
                      body={"player_id": player.id, "public_key": public_key,
                            "consent": consent, "consented": True},
                      trigger=crypto_dice.trigger_of(consent))
    applied = await apply(uow, game, command, signed={"consent": consented,
                                                      "signature": consent})
    replaced = next(e for e in applied.events if e["kind"] == "player.key_replaced")
    await keep_key(uow, game_id, player, public_key, replaced, consent)
    return {**applied.outcome(), "player_id": player.id, "token": None}
