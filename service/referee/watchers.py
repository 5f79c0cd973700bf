"""Spectators and key requests (issue 19). The GM issues a spectator a read-only token
whose view is the public one; a player who lost its key, or plays from another device,
asks for a new key, which the GM approves by replacing the player's key with it
(`admin/players/{player_id}/key`). Neither changes the game's state or log."""

from __future__ import annotations

import secrets

from service.answers import KeyRequest, KeyRequestList, SpectatorIssued, SpectatorList
from service.clock import rfc3339
from service.crypto.tokens import hash_token
from service.referee import members
from service.referee.games import check_public_key
from service.rules.errors import Refused
from service.store.uow import UnitOfWork

MAX_SPECTATORS = 100
MAX_PENDING_REQUESTS = 5


async def add_spectator(uow: UnitOfWork, game_id: str, token: str, name: str
                        ) -> SpectatorIssued:
    """A new spectator of `game_id` (the GM only); its token is shown once."""
    (await members.member(uow, game_id, token)).require_gm()
    if len(await uow.spectators.of_game(game_id)) >= MAX_SPECTATORS:
        raise Refused("spectator/limit", f"a game has at most {MAX_SPECTATORS} spectators",
                      rule="docs/game-master.md")
    spectator_id = secrets.token_hex(8)
    issued = secrets.token_urlsafe(32)
    await uow.spectators.add(game_id, spectator_id, name, hash_token(issued))
    row = next(s for s in await uow.spectators.of_game(game_id) if s.id == spectator_id)
    return {"spectator_id": spectator_id, "name": name, "created_at": rfc3339(row.created_at),
            "token": issued, "role": "spectator"}


async def spectators(uow: UnitOfWork, game_id: str, token: str) -> SpectatorList:
    (await members.member(uow, game_id, token)).require_gm()
    return {"spectators": [{"spectator_id": s.id, "name": s.name,
                            "created_at": rfc3339(s.created_at)}
                           for s in await uow.spectators.of_game(game_id)]}


async def request_key(uow: UnitOfWork, game_id: str, token: str, public_key: str
                      ) -> KeyRequest:
    """The caller (a player) asks the GM to make `public_key` its signing key."""
    player = (await members.member(uow, game_id, token)).require_player()
    check_public_key(public_key)
    if public_key == player.public_key:
        raise Refused("key/already_yours", "this is already the player's key",
                      rule="docs/game-master.md", errors=[("/public_key", "the current key")])
    mine = [r for r in await uow.key_requests.of_game(game_id) if r.player_id == player.id]
    if len(mine) >= MAX_PENDING_REQUESTS and all(r.public_key != player.public_key
                                                 for r in mine[-MAX_PENDING_REQUESTS:]):
        raise Refused("key/too_many_requests", f"{MAX_PENDING_REQUESTS} key requests are "
                      "waiting for the GM already", rule="docs/game-master.md")
    row = await uow.key_requests.add(game_id, secrets.token_hex(8), player.id, public_key)
    return {"request_id": row.id, "player_id": player.id, "name": player.name,
            "side": player.side, "public_key": public_key,
            "created_at": rfc3339(row.created_at), "approved": False}


async def key_requests(uow: UnitOfWork, game_id: str, token: str) -> KeyRequestList:
    """Every key request of the game, for the GM; `approved` once the player's key is
    the one asked for."""
    (await members.member(uow, game_id, token)).require_gm()
    players = {p.id: p for p in await uow.players.of_game(game_id)}
    out: list[KeyRequest] = []
    for r in await uow.key_requests.of_game(game_id):
        player = players.get(r.player_id)
        if player is None:
            continue
        out.append({"request_id": r.id, "player_id": r.player_id, "name": player.name,
                    "side": player.side, "public_key": r.public_key,
                    "created_at": rfc3339(r.created_at),
                    "approved": player.public_key == r.public_key})
    return {"requests": out}
