"""Who the caller is in a game: the GM, a player or a spectator, from a bearer token
checked against the stored hashes (tokens are never stored). A spectator's token reads
the public view and nothing else: only the reads ask for `member(..., watching=True)`,
every other use case refuses it (403 `auth/spectator`)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from service.crypto.tokens import hash_token
from service.referee.errors import Denied, NotFound, Unauthorized
from service.rules.view import Viewer
from service.store.games import GameNotFound
from service.store.models import GameRow, PlayerRow, SpectatorRow
from service.store.uow import UnitOfWork

BEARER = {"WWW-Authenticate": "Bearer"}
_KNOWN: OrderedDict[str, None] = OrderedDict()  # digests of tokens seen valid, newest last
_KNOWN_MAX = 100_000


def seen_valid(digest: str) -> None:
    """Note that the token with this digest resolved to a member."""
    _KNOWN[digest] = None
    _KNOWN.move_to_end(digest)
    if len(_KNOWN) > _KNOWN_MAX:
        _KNOWN.popitem(last=False)


def known_token(token: str) -> bool:
    """Whether this process has seen `token` resolve to a member (GM or active player).
    The rate limits give such a token its own budget; any other token spends its client
    address's, so made-up tokens cannot buy fresh bursts (nor queries)."""
    return hash_token(token) in _KNOWN


@dataclass
class Member:
    """The caller's seat in a game, and the game's row (its state is loaded only by
    the use cases that need it: `uow.games.with_state(member.row)`)."""

    row: GameRow
    player: PlayerRow | None
    spectator: SpectatorRow | None = None

    @property
    def is_gm(self) -> bool:
        return self.player is None and self.spectator is None

    @property
    def viewer(self) -> Viewer:
        if self.spectator is not None:
            return Viewer(role="spectator")
        if self.player is None:
            return Viewer(role="gm")
        return Viewer(role="player", player_id=self.player.id, side=self.player.side,
                      powers=tuple(self.player.powers))

    def require_gm(self) -> None:
        if not self.is_gm:
            raise Denied("auth/gm_only", "only the game master may do this")

    def require_player(self) -> PlayerRow:
        if self.player is None:
            raise Denied("auth/player_only", "orders come from players; the GM uses /admin")
        return self.player


async def member(uow: UnitOfWork, game_id: str, token: str, *, watching: bool = False
                 ) -> Member:
    """The caller's seat in `game_id`: 404 unknown game, 401 unknown token, 403 a token
    of another game, or a spectator's token where the caller does more than read
    (`watching`: the reads that show spectators the public view)."""
    return await member_by_digest(uow, game_id, hash_token(token), watching=watching)


async def member_by_digest(uow: UnitOfWork, game_id: str, digest: str, *,
                           watching: bool = False) -> Member:
    """`member`, from the digest of the token (what a stream ticket keeps)."""
    try:
        game = await uow.games.row(game_id)
    except GameNotFound:
        raise NotFound("game/not_found", f"no game {game_id}") from None
    if digest == game.gm_token_hash:
        seen_valid(digest)
        return Member(game, None)
    player = await uow.players.by_token(game_id, digest)
    if player is not None:
        if not player.active:
            _KNOWN.pop(digest, None)
            raise Unauthorized("auth/seat_replaced", "this seat's token was revoked")
        seen_valid(digest)
        return Member(game, player)
    spectator = await uow.spectators.by_token(game_id, digest)
    if spectator is not None:
        seen_valid(digest)
        if not watching:
            raise Denied("auth/spectator", "a spectator's token only reads the game")
        return Member(game, None, spectator)
    if await uow.players.game_of_token(digest) or await uow.games.gm_of(digest) \
            or await uow.spectators.game_of_token(digest):
        seen_valid(digest)
        raise Denied("auth/not_a_member", "this token belongs to another game")
    raise Unauthorized("auth/bad_token", "unknown token", headers=BEARER)


async def player_for_order(uow: UnitOfWork, game_id: str, token: str) -> PlayerRow:
    """The caller as a player of `game_id`, for orders: one query when the token is an
    active player's (the game row is read once, when the order locks it); otherwise
    `member`'s precise refusal (404, 401, 403)."""
    digest = hash_token(token)
    found = await uow.players.by_token(game_id, digest)
    if found is not None and found.active:
        seen_valid(digest)
        return found
    return (await member(uow, game_id, token)).require_player()
