"""Stream tickets: what lets a browser's EventSource, which cannot send an
Authorization header, open the caller's live stream without the bearer token ever
being in a URL. A ticket is random (256 bits), valid `TICKET_SECONDS`, opens one stream
of one game once, and is stored only as its SHA-256 (in the database, so that any
server process may redeem it) with the digest of the token that asked for it: the
stream it opens is that token's, checked again on every page, so it ends when the seat
is revoked just as a stream opened with the token does."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from service.answers import Ticket
from service.clock import rfc3339, utc_now
from service.crypto.tokens import hash_token
from service.referee import members
from service.referee.errors import Unauthorized
from service.store.uow import UnitOfWork

TICKET_SECONDS = 60
WHY = {
    "unknown": "this stream ticket is unknown (or expired long ago)",
    "used": "this stream ticket was used already: a ticket opens one stream once; ask for "
            "a new one",
    "expired": f"this stream ticket has expired (tickets are valid {TICKET_SECONDS} s); "
               "ask for a new one",
    "other_game": "this stream ticket was issued for another game",
}


async def issue(uow: UnitOfWork, game_id: str, token: str, now: datetime | None = None
                ) -> Ticket:
    """A new ticket for the caller's stream of `game_id` (401/403/404 as for any read)."""
    now = now or utc_now()
    member = await members.member(uow, game_id, token, watching=True)
    ticket = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=TICKET_SECONDS)
    await uow.tickets.add(ticket_hash=hash_token(ticket), game_id=game_id,
                          token_hash=hash_token(token),
                          player_id=member.player.id if member.player else None,
                          expires_at=expires, now=now)
    return {"ticket": ticket, "expires_at": rfc3339(expires),
            "url": f"/v1/games/{game_id}/stream?ticket={ticket}",
            "head_seq": member.row.head_seq}


async def redeem(uow: UnitOfWork, game_id: str, ticket: str, now: datetime | None = None
                 ) -> str:
    """Use `ticket` for `game_id`'s stream: the digest of the token it stands for. 401
    naming why when it is unknown, used, expired or another game's; as for the token
    itself when that is no longer valid."""
    found = await uow.tickets.redeem(hash_token(ticket), game_id, now or utc_now())
    if isinstance(found, str):
        raise Unauthorized(f"stream/ticket_{found}", WHY[found])
    await members.member_by_digest(uow, game_id, found.token_hash, watching=True)
    return found.token_hash


async def of_token(uow: UnitOfWork, game_id: str, token: str) -> str:
    """For a stream opened with the bearer token: check it, and its digest."""
    await members.member(uow, game_id, token, watching=True)
    return hash_token(token)
