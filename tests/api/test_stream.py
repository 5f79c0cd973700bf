"""The live stream (SSE): every event as it is committed, by whichever process
committed it; Last-Event-ID resumes with nothing missed and nothing twice."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from processes import Server
from support import AXIS_FIRST, full_game, to_action


async def _sse(client: httpx.AsyncClient, url: str, headers: dict[str, str],
               want: int, timeout: float = 20) -> list[dict[str, Any]]:
    """Read SSE events until `want` have arrived (bounded by `timeout`)."""
    got: list[dict[str, Any]] = []
    async with client.stream("GET", url, headers=headers, timeout=timeout) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        fields: dict[str, str] = {}
        async for line in response.aiter_lines():
            if line == "":
                if "data" in fields:
                    got.append({"id": int(fields["id"]), "event": fields["event"],
                                "data": json.loads(fields["data"])})
                    if len(got) >= want:
                        return got
                fields = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                fields[key] = value.removeprefix(" ")
    return got


@pytest.fixture
async def live(live_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_url) as c:
        yield c


async def test_stream_replays_then_follows_and_resumes_without_gaps(
    live: httpx.AsyncClient,
) -> None:
    import asyncio

    game = await full_game(live, dice=AXIS_FIRST)
    axis = await to_action(game)
    url = f"/v1/games/{game.id}/stream"
    head = len(await game.log())
    backlog = await _sse(live, url, axis.headers, want=head)
    assert [e["id"] for e in backlog] == list(range(1, head + 1))

    follow = asyncio.create_task(_sse(live, url, {**axis.headers, "Last-Event-ID": str(head)},
                                      want=2))
    await asyncio.sleep(0)
    await axis.ok("roll", {"dice": "1d10", "purpose": "live one"})
    await axis.ok("roll", {"dice": "1d10", "purpose": "live two"})
    live_events = await asyncio.wait_for(follow, 20)
    assert [e["id"] for e in live_events] == [head + 1, head + 2]
    assert [e["data"]["data"]["label"] for e in live_events] == ["live one", "live two"]

    resumed = await _sse(live, url, {**axis.headers, "Last-Event-ID": str(head + 1)}, want=1)
    assert [e["id"] for e in resumed] == [head + 2]


async def test_stream_needs_membership(live: httpx.AsyncClient) -> None:
    game = await full_game(live)
    r = await live.get(f"/v1/games/{game.id}/stream")
    assert r.status_code == 401
    r = await live.get(f"/v1/games/{game.id}/stream",
                       headers={**game.gm, "Last-Event-ID": "x"})
    assert r.status_code == 422


@pytest.fixture
def other_process(migrated_url: str) -> Iterator[str]:
    """A second server process on the same database."""
    server = Server(migrated_url)
    yield server.url
    server.stop()


async def test_stream_delivers_an_event_committed_by_another_process(
    live: httpx.AsyncClient, other_process: str
) -> None:
    import asyncio

    game = await full_game(live, dice=AXIS_FIRST)
    axis = await to_action(game)
    head = len(await game.log())
    follow = asyncio.create_task(_sse(live, f"/v1/games/{game.id}/stream",
                                      {**axis.headers, "Last-Event-ID": str(head)}, want=1))
    async with httpx.AsyncClient(base_url=other_process) as elsewhere:
        envelope = axis.envelope("roll", {"dice": "1d6", "purpose": "from afar"},
                                 await axis.position())
        r = await elsewhere.post(f"/v1/games/{game.id}/orders", json=envelope,
                                 headers=axis.headers)
        assert r.status_code == 201, r.text
    started = time.monotonic()
    events = await asyncio.wait_for(follow, 20)
    assert events[0]["data"]["data"]["label"] == "from afar"
    assert time.monotonic() - started < 4, "delivered by NOTIFY, not by the periodic re-read"


class Follower:
    """Reads a stream in the background until the server ends it; `events` so far."""

    def __init__(self, client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> None:
        import asyncio

        self.events: list[dict[str, Any]] = []
        self.ended: float | None = None
        self.task = asyncio.create_task(self._read(client, url, headers))

    async def _read(self, client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> None:
        async with client.stream("GET", url, headers=headers, timeout=60) as response:
            assert response.status_code == 200
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line == "":
                    if "data" in fields:
                        self.events.append({"id": int(fields["id"]), "event": fields["event"]})
                    fields = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(":")
                    fields[key] = value.removeprefix(" ")
        self.ended = time.monotonic()

    async def until(self, predicate: Any, timeout: float = 20) -> None:
        import asyncio

        deadline = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < deadline, "condition not met in time"
            assert not self.task.done() or predicate(), "the stream ended early"
            await asyncio.sleep(0.02)


@pytest.mark.parametrize("revocation", ["reassign", "new key and token", "new key"])
async def test_a_stream_ends_when_its_token_is_revoked(live: httpx.AsyncClient,
                                                       revocation: str) -> None:
    """Issue 14, item 6: a stream kept delivering after its seat was reassigned or its
    key replaced with a new token. The seat change is itself an event, which wakes the
    stream; the stream checks its token again and ends at once (well before its
    5-second re-read), delivering nothing more, not even that event. A new key that
    keeps the token revokes nothing: that stream goes on."""
    game = await full_game(live, dice=AXIS_FIRST)
    axis = await to_action(game)
    head = len(await game.log())
    follower = Follower(live, f"/v1/games/{game.id}/stream",
                        {**axis.headers, "Last-Event-ID": str(head)})
    try:
        await _revoke_and_watch(game, follower, head, revocation)
    finally:
        follower.task.cancel()


async def _revoke_and_watch(game: Any, follower: Follower, head: int, revocation: str) -> None:
    from service.crypto import signing

    axis = game.players["axis"]
    await axis.ok("roll", {"dice": "1d6", "purpose": "before"})
    await follower.until(lambda: len(follower.events) == 1)  # connected and following

    key = signing.public_key_text(signing.new_private_key())
    if revocation == "reassign":
        r = await game.admin(f"players/{axis.id}/reassign", {"reason": "moved away"})
    else:
        r = await game.admin(f"players/{axis.id}/key", {
            "public_key": key, "reason": "lost laptop",
            "new_token": revocation == "new key and token"})
    assert r.status_code == 200, r.text
    changed = time.monotonic()
    if revocation == "new key":
        await follower.until(lambda: len(follower.events) == 2)
        assert follower.events[1]["event"] == "player.key_replaced"
        assert follower.ended is None
        return
    await follower.until(lambda: follower.ended is not None, timeout=10)
    assert follower.ended is not None and follower.ended - changed < 4, "ended by its re-read"
    r = await game.admin("deadlines", {"deadlines": {"declare": 3600}, "reason": "after"})
    assert r.status_code == 200, r.text
    assert [e["id"] for e in follower.events] == [head + 1]
