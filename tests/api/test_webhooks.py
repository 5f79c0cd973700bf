"""Webhooks through the outbox: a receiver on 127.0.0.1 gets a correctly signed
"your move" once, and again after a failure by the retry; the player reads the log."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import LiveServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from support import create_game, join

from service.crypto import webhooks


class Receiver:
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: list[tuple[dict[str, str], bytes]] = []

    async def hook(self, request: Request) -> Response:
        self.calls.append((dict(request.headers), await request.body()))
        if len(self.calls) <= self.failures:
            return Response(status_code=500)
        return Response(status_code=204)


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    rec = Receiver(failures=1)
    app = Starlette(routes=[Route("/hook", rec.hook, methods=["POST"])])
    with LiveServer(app) as url:
        yield rec, f"{url}/hook"


async def _wait_for(predicate: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_your_move_is_signed_and_retried_after_a_failure(
    live_url: str, receiver: tuple[Receiver, str]
) -> None:
    rec, hook_url = receiver
    async with httpx.AsyncClient(base_url=live_url) as client:
        game = await create_game(client)
        await join(game, "axis")
        allies = await join(game, "allies")
        r = await client.put(f"/v1/games/{game.id}/webhook", headers=allies.headers,
                             json={"url": hook_url})
        assert r.status_code == 200, r.text
        secret = r.json()["secret"]
        await join(game, "communists")  # the game starts: the reroll window awaits allies

        await _wait_for(lambda: len(rec.calls) >= 2)
        (h1, b1), (h2, b2) = rec.calls[:2]
        assert h1["webhook-id"] == h2["webhook-id"]  # the same message, retried
        assert b1 == b2
        for headers, body in rec.calls[:2]:
            assert webhooks.verify(secret, headers, body)
        payload = json.loads(b2)
        assert payload["type"] == "game.your_move"
        assert payload["data"]["awaiting"]["side"] == "allies"
        assert payload["data"]["awaiting"]["step"] == "initiative.reroll"

        # The receiver has answered 204; the courier records it just after.
        async def delivery_log() -> list[dict[str, Any]]:
            r = await client.get(f"/v1/games/{game.id}/webhook/deliveries",
                                 headers=allies.headers)
            messages: list[dict[str, Any]] = r.json()["messages"]
            return messages

        deadline = time.monotonic() + 30
        while (log := await delivery_log())[0]["state"] != "delivered":
            assert time.monotonic() < deadline, log
            await asyncio.sleep(0.05)
        assert len(log) == 1
        assert [a["status_code"] for a in log[0]["attempts"]] == [500, 204]

        # Once the Allies have answered, their next order enqueues no new "your move"
        # (the outbox is written in the order's own transaction).
        await allies.ok("initiative.reroll", {"demand": False})
        log = (await client.get(f"/v1/games/{game.id}/webhook/deliveries",
                                headers=allies.headers)).json()["messages"]
        assert len(log) == 1


async def test_a_tampered_body_does_not_verify() -> None:
    secret = webhooks.new_secret()
    body = b'{"type":"game.your_move"}'
    headers = webhooks.headers(secret, "msg_1", 1_700_000_000, body)
    assert webhooks.verify(secret, headers, body)
    assert not webhooks.verify(secret, headers, body + b" ")
    assert not webhooks.verify(webhooks.new_secret(), headers, body)


async def test_only_http_urls_may_register(live_url: str) -> None:
    """(The GM may register one too since issue 23: tests/api/test_webhook_retries.py.)"""
    async with httpx.AsyncClient(base_url=live_url) as client:
        game = await create_game(client)
        axis = await join(game, "axis")
        r = await client.put(f"/v1/games/{game.id}/webhook", headers=axis.headers,
                             json={"url": "file:///etc/passwd"})
        assert r.status_code == 422
        r = await client.put(f"/v1/games/{game.id}/webhook", headers=axis.headers,
                             json={"url": "http://127.0.0.1:9/x", "extra": 1})
        assert r.status_code == 422
