"""Who the caller is in a game: the GM or a player, from a bearer token checked against
the stored hashes (tokens are never stored)."""

from __future__ import annotations

from dataclasses import dataclass

from service.crypto.tokens import hash_token
from service.referee.errors import Denied, NotFound, Unauthorized
from service.rules.view import Viewer
from service.store.games import Game, GameNotFound
from service.store.models import PlayerRow
from service.store.uow import UnitOfWork

BEARER = {"WWW-Authenticate": "Bearer"}


@dataclass
class Member:
    game: Game
    player: PlayerRow | None

    @property
    def viewer(self) -> Viewer:
        if self.player is None:
            return Viewer(role="gm")
        return Viewer(role="player", player_id=self.player.id, side=self.player.side,
                      powers=tuple(self.player.powers))

    def require_gm(self) -> None:
        if self.player is not None:
            raise Denied("auth/gm_only", "only the game master may do this")

    def require_player(self) -> PlayerRow:
        if self.player is None:
            raise Denied("auth/player_only", "orders come from players; the GM uses /admin")
        return self.player


async def member(uow: UnitOfWork, game_id: str, token: str) -> Member:
    """The caller's seat in `game_id`: 404 unknown game, 401 unknown token, 403 a token
    of another game."""
    try:
        game = await uow.games.get(game_id)
    except GameNotFound:
        raise NotFound("game/not_found", f"no game {game_id}") from None
    digest = hash_token(token)
    if digest == game.row.gm_token_hash:
        return Member(game, None)
    player = await uow.players.by_token(game_id, digest)
    if player is not None:
        if not player.active:
            raise Unauthorized("auth/seat_replaced", "this seat's token was revoked")
        return Member(game, player)
    if await uow.players.game_of_token(digest) or await uow.games.gm_of(digest):
        raise Denied("auth/not_a_member", "this token belongs to another game")
    raise Unauthorized("auth/bad_token", "unknown token", headers=BEARER)


async def player_for_order(uow: UnitOfWork, game_id: str, token: str) -> PlayerRow:
    """The caller as a player of `game_id`, for orders: one query when the token is an
    active player's (the game row is read once, when the order locks it); otherwise
    `member`'s precise refusal (404, 401, 403)."""
    found = await uow.players.by_token(game_id, hash_token(token))
    if found is not None and found.active:
        return found
    return (await member(uow, game_id, token)).require_player()
