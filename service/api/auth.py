"""Bearer tokens: who the caller is in a game (GM or a player), checked against hashes."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from service.api.problems import Problem
from service.crypto.tokens import hash_token
from service.referee.core import GameNotFound, get_game
from service.rules.view import Viewer
from service.store.models import GameRow, PlayerRow


@dataclass
class Member:
    game: GameRow
    player: PlayerRow | None

    @property
    def viewer(self) -> Viewer:
        if self.player is None:
            return Viewer(role="gm")
        return Viewer(role="player", player_id=self.player.id, side=self.player.side,
                      powers=tuple(self.player.powers))


def bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(401, "auth/missing_token", "send Authorization: Bearer <token>",
                      headers={"WWW-Authenticate": "Bearer"})
    return token.strip()


async def member(session: AsyncSession, game_id: str, token: str) -> Member:
    """The caller's seat in `game_id`: 404 unknown game, 401 unknown token, 403 a token
    of another game."""
    try:
        game = await get_game(session, game_id)
    except GameNotFound:
        raise Problem(404, "game/not_found", f"no game {game_id}") from None
    digest = hash_token(token)
    if digest == game.gm_token_hash:
        return Member(game, None)
    player = (
        await session.execute(
            select(PlayerRow).where(PlayerRow.game_id == game_id, PlayerRow.token_hash == digest)
        )
    ).scalar_one_or_none()
    if player is not None:
        if not player.active:
            raise Problem(401, "auth/seat_replaced", "this seat's token was revoked")
        return Member(game, player)
    elsewhere = (
        await session.execute(select(PlayerRow.game_id).where(PlayerRow.token_hash == digest)
                              .limit(1))
    ).first() or (
        await session.execute(select(GameRow.id).where(GameRow.gm_token_hash == digest).limit(1))
    ).first()
    if elsewhere:
        raise Problem(403, "auth/not_a_member", "this token belongs to another game")
    raise Problem(401, "auth/bad_token", "unknown token", headers={"WWW-Authenticate": "Bearer"})


async def player(session: AsyncSession, game_id: str, token: str) -> PlayerRow:
    """The caller as a player of `game_id`, for orders: one query when the token is an
    active player's (the game row is read once, when the order locks it); otherwise
    `member`'s precise refusal (404, 401, 403)."""
    found = (
        await session.execute(_PLAYER_BY_TOKEN, {"game": game_id, "digest": hash_token(token)})
    ).scalar_one_or_none()
    if found is not None and found.active:
        return found
    return require_player(await member(session, game_id, token))


# Built once: constructing a statement per request costs more than running it.
_PLAYER_BY_TOKEN = select(PlayerRow).where(PlayerRow.game_id == bindparam("game"),
                                           PlayerRow.token_hash == bindparam("digest"))


def require_gm(m: Member) -> None:
    if m.player is not None:
        raise Problem(403, "auth/gm_only", "only the game master may do this")


def require_player(m: Member) -> PlayerRow:
    if m.player is None:
        raise Problem(403, "auth/player_only", "orders come from players; the GM uses /admin")
    return m.player
