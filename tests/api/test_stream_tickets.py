"""Stream tickets (issue 23, item 4): a browser's EventSource cannot send an
Authorization header, so POST .../stream/tickets gives a short-lived, single-use ticket
that opens the caller's stream as `?ticket=`; the bearer token is never in a URL, the
ticket is kept hashed, and a refused ticket is 401 problem+json naming why."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from support import AXIS_FIRST, full_game, to_action

from service.clock import utc_now
from service.crypto.tokens import hash_token
from service.referee import tickets


@pytest.fixture
async def live(live_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_url) as c:
        yield c


class Reader:
    """Reads one stream in the background (no Authorization header): its status, the
    events so far, and whether the server ended it."""

    def __init__(self, client: httpx.AsyncClient, url: str) -> None:
        self.status: int | None = None
        self.events: list[dict[str, Any]] = []
        self.ended = False
        self.task = asyncio.create_task(self._read(client, url))

    async def _read(self, client: httpx.AsyncClient, url: str) -> None:
        async with client.stream("GET", url, timeout=60) as response:
            self.status = response.status_code
            if response.status_code != 200:
                await response.aread()
                self.ended = True
                return
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line == "":
                    if "data" in fields:
                        self.events.append({"id": int(fields["id"]), "event": fields["event"],
                                            "data": json.loads(fields["data"])})
                    fields = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(":")
                    fields[key] = value.removeprefix(" ")
        self.ended = True

    async def until(self, predicate: Any, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < deadline, "condition not met in time"
            await asyncio.sleep(0.02)


async def _ticket(client: httpx.AsyncClient, game_id: str, headers: dict[str, str]
                  ) -> dict[str, Any]:
    r = await client.post(f"/v1/games/{game_id}/stream/tickets", headers=headers)
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_a_ticket_opens_the_callers_stream_once(live: httpx.AsyncClient) -> None:
    game = await full_game(live, dice=AXIS_FIRST)
    axis = await to_action(game)
    before = utc_now()
    issued = await _ticket(live, game.id, axis.headers)
    assert set(issued) == {"ticket", "expires_at", "url", "head_seq"}
    assert issued["url"] == f"/v1/games/{game.id}/stream?ticket={issued['ticket']}"
    assert axis.token not in issued["url"] and len(issued["ticket"]) >= 40
    expires = datetime.fromisoformat(issued["expires_at"])
    assert before + timedelta(seconds=55) < expires < utc_now() + timedelta(seconds=65)
    head = issued["head_seq"]
    assert head == len(await game.log())

    reader = Reader(live, f"{issued['url']}&after={head}")
    try:
        await reader.until(lambda: reader.status is not None)
        assert reader.status == 200
        await axis.ok("roll", {"dice": "1d6", "purpose": "after the ticket"})
        await reader.until(lambda: len(reader.events) == 1)
        [event] = reader.events
        assert event["id"] == head + 1 and event["event"] == "dice.rolled"
        assert event["data"]["data"]["label"] == "after the ticket"
    finally:
        reader.task.cancel()

    r = await live.get(issued["url"])  # EventSource reconnecting with the same URL
    assert r.status_code == 401
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["type"] == "/problems/stream/ticket_used"
    assert "used" in r.json()["detail"]


async def test_a_gm_ticket_replays_the_whole_log_without_after(live: httpx.AsyncClient) -> None:
    """With neither Last-Event-ID nor `after` the stream starts at seq 1 (docs/api.md)."""
    game = await full_game(live)
    issued = await _ticket(live, game.id, game.gm)
    reader = Reader(live, issued["url"])
    try:
        await reader.until(lambda: len(reader.events) == issued["head_seq"])
        assert [e["id"] for e in reader.events] == list(range(1, issued["head_seq"] + 1))
        assert reader.events[0]["event"] == "game.created"
    finally:
        reader.task.cancel()


async def test_refused_tickets_say_why(live: httpx.AsyncClient, app: Any) -> None:
    """Unknown, expired or another game's ticket: 401 problem+json, each with its
    code; a ticket refused for another game still opens its own; no ticket and no
    token is 401 as before; a ticket is only issued to a member."""
    game, other = await full_game(live), await full_game(live)
    axis = game.players["axis"]

    async def refused(game_id: str, ticket: str) -> str:
        r = await live.get(f"/v1/games/{game_id}/stream", params={"ticket": ticket})
        assert r.status_code == 401, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert r.json()["detail"]
        code: str = r.json()["code"]
        return code

    assert await refused(game.id, "not-a-ticket-anyone-issued") == "stream/ticket_unknown"
    issued = await _ticket(live, game.id, axis.headers)
    assert await refused(other.id, issued["ticket"]) == "stream/ticket_other_game"
    reader = Reader(live, issued["url"])
    try:
        await reader.until(lambda: reader.status is not None)
        assert reader.status == 200
    finally:
        reader.task.cancel()

    async with app.state.transactions() as uow:
        stale = await tickets.issue(uow, game.id, axis.token,
                                    now=utc_now() - timedelta(seconds=61))
    assert await refused(game.id, stale["ticket"]) == "stream/ticket_expired"

    r = await live.get(f"/v1/games/{game.id}/stream")
    assert r.status_code == 401 and r.json()["code"] == "auth/missing_token"
    r = await live.post(f"/v1/games/{game.id}/stream/tickets",
                        headers=other.players["axis"].headers)
    assert r.status_code == 403
    r = await live.post(f"/v1/games/{game.id}/stream/tickets", headers=axis.headers,
                        json={"player": "someone"})
    assert r.status_code == 422


async def test_tickets_are_stored_hashed(live: httpx.AsyncClient, app: Any) -> None:
    game = await full_game(live)
    axis = game.players["axis"]
    issued = await _ticket(live, game.id, axis.headers)
    async with app.state.transactions() as uow:
        rows = (await uow.session.execute(text(
            "SELECT ticket_hash, token_hash, player_id FROM stream_tickets"
            " WHERE game_id = :g"), {"g": game.id})).all()
    assert [tuple(r) for r in rows] == [(hash_token(issued["ticket"]), hash_token(axis.token),
                                         axis.id)]
    assert all(issued["ticket"] not in str(value) for row in rows for value in row)


async def test_a_ticket_stream_ends_when_the_seat_is_revoked(live: httpx.AsyncClient) -> None:
    """The stream a ticket opened is its token's: reassigning the seat ends it, as it
    ends a stream opened with the token (tests/api/test_stream.py)."""
    game = await full_game(live, dice=AXIS_FIRST)
    axis = await to_action(game)
    issued = await _ticket(live, game.id, axis.headers)
    reader = Reader(live, f"{issued['url']}&after={issued['head_seq']}")
    try:
        await axis.ok("roll", {"dice": "1d6", "purpose": "seen"})
        await reader.until(lambda: len(reader.events) == 1)
        r = await game.admin(f"players/{axis.id}/reassign", {"reason": "moved away"})
        assert r.status_code == 200, r.text
        await reader.until(lambda: reader.ended, timeout=10)
        assert len(reader.events) == 1
    finally:
        reader.task.cancel()
