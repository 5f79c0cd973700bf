"""Webhooks that ride out a redeploy (issue 23, item 3): retries over more than a day
with jitter, a receiver down for longer than the old 127-second window still gets its
message; the owner resends a message; a webhook failing for five days is disabled, says
so in GET /webhook and the state view (whose ETag changes), and PUT enables it again;
the GM's webhook gets every event and deadline notices.

The server here runs no background worker: each test drives a `Courier` by hand on a
clock of its own (`Clock`), so days pass in a moment and no other test's courier sends
these messages."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from conftest import free_port, fresh_database, local_settings
from doc_examples import agrees, example, runs
from support import Game, Player, create_game, full_game, join

from service.app import create_app
from service.clock import utc_now
from service.crypto import webhooks
from service.referee import egress, notifications
from service.referee.notifications import Courier


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = utc_now()

    def __call__(self) -> datetime:
        return self.now

    def to(self, moment: datetime) -> None:
        self.now = max(self.now, moment)


class Receiver:
    """An HTTP receiver on a fixed port of 127.0.0.1, down (the port closed) until
    `up()`: records each request's headers and body, answers 204."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.calls: list[tuple[dict[str, str], bytes]] = []
        self.server: asyncio.Server | None = None

    async def up(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def down(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in head.split("\r\n")[1:] if line)}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            self.calls.append((headers, body))
            writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n"
                         b"connection: close\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@dataclass
class Rig:
    client: httpx.AsyncClient
    courier: Courier
    clock: Clock
    http: httpx.AsyncClient

    async def deliver(self) -> int:
        return await self.courier.deliver_due(self.http)

    def catch_up(self) -> None:
        """The test clock never lags the real one: messages are queued in real time."""
        self.clock.to(utc_now())

    async def messages(self, who: dict[str, str], game: Game) -> list[dict[str, Any]]:
        r = await self.client.get(f"/v1/games/{game.id}/webhook/deliveries", headers=who)
        assert r.status_code == 200, r.text
        found: list[dict[str, Any]] = r.json()["messages"]
        return found

    async def until_settled(self, who: dict[str, str], game: Game, *, limit: int = 30,
                            before: Any = None) -> list[dict[str, Any]]:
        """Deliver, move the clock to the next attempt, again, until no message of
        `who` is pending (`before()` runs before each round); the messages then."""
        self.catch_up()
        for _ in range(limit):
            if before is not None:
                await before()
            await self.deliver()
            messages = await self.messages(who, game)
            due = [m["next_attempt_at"] for m in messages if m["state"] == "pending"]
            if not due:
                return messages
            self.clock.to(datetime.fromisoformat(min(due)))
        raise AssertionError("messages still pending")


@pytest.fixture
async def rig(database_url: str) -> AsyncIterator[Rig]:
    """A server on a database of its own without background workers, and a courier
    with a test clock and the jitter at its middle (each wait is its nominal delay)."""
    async with fresh_database(database_url, "webhook_retries") as url:
        app = create_app(local_settings(url, sweep_interval=0, rate_limit=0), database_url=url)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
            clock = Clock()
            courier = Courier(app.state.transactions, app.state.egress, concurrency=4,
                              interval=0, clock=clock, rand=lambda: 0.5)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client, \
                    egress.client() as http:
                yield Rig(client, courier, clock, http)


async def _register(rig: Rig, game: Game, who: dict[str, str], url: str,
                    every_event: bool = False) -> str:
    r = await rig.client.put(f"/v1/games/{game.id}/webhook", headers=who,
                             json={"url": url, "every_event": every_event})
    assert r.status_code == 200, r.text
    secret: str = r.json()["secret"]
    return secret


async def _game_awaiting_allies(rig: Rig, url: str) -> tuple[Game, Player, str]:
    """A game whose Allies registered `url`; the last join makes a "your move" for them."""
    game = await create_game(rig.client)
    await join(game, "axis")
    allies = await join(game, "allies")
    secret = await _register(rig, game, allies.headers, url)
    await join(game, "communists")
    return game, allies, secret


def test_the_retry_schedule_spans_more_than_a_day_with_bounded_jitter() -> None:
    """The waits follow the Standard Webhooks schedule (5 s, 5 min, 30 min, 2 h, 5 h,
    10 h ...), each within ±20% of its delay whatever the randomness gives, and the
    retries span at least 24 hours even with every wait at its least."""
    start = datetime(2026, 1, 1)
    delays = notifications.RETRY_DELAYS
    assert delays[:6] == (timedelta(seconds=5), timedelta(minutes=5), timedelta(minutes=30),
                          timedelta(hours=2), timedelta(hours=5), timedelta(hours=10))
    for extreme, factor in ((lambda: 0.0, 0.8), (lambda: 0.5, 1.0)):
        waits = [notifications.next_attempt(n, start, extreme) for n in range(1, len(delays) + 1)]
        assert [w - start for w in waits if w] == [d * factor for d in delays]
    least = sum((notifications.next_attempt(n, start, lambda: 0.0) - start  # type: ignore[operator]
                 for n in range(1, len(delays) + 1)), timedelta())
    assert least >= timedelta(hours=24), least
    almost_one = lambda: 1 - 2**-53  # noqa: E731
    most = sum((notifications.next_attempt(n, start, almost_one) - start  # type: ignore[operator]
                for n in range(1, len(delays) + 1)), timedelta())
    assert most <= sum(delays, timedelta()) * 1.2
    sample = random.Random(23)
    for n in range(1, len(delays) + 1):
        for _ in range(200):
            wait = notifications.next_attempt(n, start, sample.random)
            assert wait is not None
            assert delays[n - 1] * 0.8 <= wait - start <= delays[n - 1] * 1.2
    waits = {notifications.next_attempt(3, start) for _ in range(20)}  # the system's jitter
    assert len(waits) > 1
    assert all(w is not None and delays[2] * 0.8 <= w - start <= delays[2] * 1.2 for w in waits)
    assert notifications.next_attempt(len(delays) + 1, start, lambda: 0.5) is None
    assert notifications.MAX_ATTEMPTS == len(delays) + 1


async def test_a_receiver_down_longer_than_the_old_retry_window_gets_its_message(
    rig: Rig,
) -> None:
    """Until issue 23 a message failed for good after 8 attempts in about 127 s: a
    receiver redeployed for a few minutes lost "your move". Here the receiver is down
    (its port closed) for ten minutes of the test's clock, and gets the message, once
    and correctly signed, at the first attempt after it is back."""
    receiver = Receiver()
    game, allies, secret = await _game_awaiting_allies(rig, receiver.url)
    started = rig.clock()

    async def back_after_ten_minutes() -> None:
        if receiver.server is None and rig.clock() - started >= timedelta(minutes=10):
            await receiver.up()
        if rig.clock() - started > timedelta(seconds=130):
            [message] = await rig.messages(allies.headers, game)
            assert message["state"] in ("pending", "delivered"), message

    try:
        [message] = await rig.until_settled(allies.headers, game, before=back_after_ten_minutes)
    finally:
        await receiver.down()
    assert message["state"] == "delivered" and message["kind"] == "your_move"
    attempts = message["attempts"]
    assert [a["status_code"] for a in attempts] == [None, None, None, 204]
    assert all(a["error"] == egress.NO_ANSWER for a in attempts[:3])
    at = [datetime.fromisoformat(a["at"]) for a in attempts]
    assert [b - a for a, b in zip(at, at[1:], strict=False)] == [
        timedelta(seconds=5), timedelta(minutes=5), timedelta(minutes=30)]
    assert at[-1] - at[0] > timedelta(seconds=127)
    [(headers, body)] = receiver.calls
    assert webhooks.verify(secret, headers, body)
    assert headers["webhook-id"] == message["id"]
    assert json.loads(body)["type"] == "game.your_move"


async def test_the_owner_resends_a_message_and_no_one_else_can(rig: Rig) -> None:
    """POST .../deliveries/{id}/resend: 202 with the message pending and due now, sent
    again under the same webhook-id, its attempts numbered on; 404 problem+json for an
    unknown message and for another player's; 422 for a body with anything in it."""
    receiver = Receiver()
    await receiver.up()
    try:
        game, allies, secret = await _game_awaiting_allies(rig, receiver.url)
        [message] = await rig.until_settled(allies.headers, game)
        assert message["state"] == "delivered" and len(receiver.calls) == 1

        rig.clock.to(rig.clock() + timedelta(hours=1))
        before = utc_now()
        url = f"/v1/games/{game.id}/webhook/deliveries/{message['id']}/resend"
        r = await rig.client.post(url, headers=allies.headers)
        assert r.status_code == 202, r.text
        resent = r.json()
        assert resent["id"] == message["id"] and resent["state"] == "pending"
        due = datetime.fromisoformat(resent["next_attempt_at"])
        assert before - timedelta(seconds=1) <= due <= utc_now() + timedelta(seconds=1)
        assert resent["attempts"] == message["attempts"]  # the log is kept

        [again] = await rig.until_settled(allies.headers, game)
        assert again["state"] == "delivered"
        assert [a["attempt"] for a in again["attempts"]] == [1, 2]
        assert len(receiver.calls) == 2
        (h1, b1), (h2, b2) = receiver.calls
        assert h1["webhook-id"] == h2["webhook-id"] and b1 == b2
        assert webhooks.verify(secret, h2, b2)

        r = await rig.client.post(url, headers=allies.headers, json={"now": True})
        assert r.status_code == 422
        for who, path in ((allies.headers, "msg_nonexistent"),
                          (game.players["axis"].headers, message["id"]),
                          (game.gm, message["id"])):
            r = await rig.client.post(
                f"/v1/games/{game.id}/webhook/deliveries/{path}/resend", headers=who)
            assert r.status_code == 404, r.text
            assert r.headers["content-type"].startswith("application/problem+json")
            assert r.json()["type"] == "/problems/webhook/message_not_found"
        r = await rig.client.post(url)
        assert r.status_code == 401
    finally:
        await receiver.down()


async def _state(rig: Rig, game: Game, who: Player, etag: str | None = None
                 ) -> httpx.Response:
    headers = {**who.headers, **({"If-None-Match": etag} if etag else {})}
    return await rig.client.get(f"/v1/games/{game.id}/state", headers=headers)


@runs("docs/api.md", "webhook-state")
async def test_a_webhook_failing_for_five_days_is_disabled_and_put_enables_it(
    rig: Rig,
) -> None:
    """Every attempt failing for 5 days disables the webhook: GET /webhook and the
    owner's state view say so (the view's ETag changes, so a cached copy is not
    reused), its pending messages fail, a resend is refused (409) until PUT registers
    it again, which enables it. One message failing for good (after 30-45 hours) does
    not disable it."""
    receiver = Receiver()  # down throughout, until re-registered
    game = await full_game(rig.client)
    allies = game.players["allies"]
    r = await _state(rig, game, allies)
    assert r.json()["webhook"] is None
    await _register(rig, game, allies.headers, receiver.url, every_event=True)
    r = await _state(rig, game, allies)
    assert r.json()["webhook"] == {"url": receiver.url, "state": "active", "disabled_at": None,
                                   "reason": None, "failing_since": None}
    started = rig.clock()
    r = await game.admin("deadlines", {"deadlines": {"declare": 600}})  # an event for them
    assert r.status_code == 200, r.text
    [first] = await rig.until_settled(allies.headers, game)
    assert first["state"] == "failed" and len(first["attempts"]) == notifications.MAX_ATTEMPTS
    spent = datetime.fromisoformat(first["attempts"][-1]["at"]) - started
    assert timedelta(hours=24) <= spent < timedelta(days=2)
    hook = (await rig.client.get(f"/v1/games/{game.id}/webhook", headers=allies.headers)).json()
    assert hook["state"] == "active" and hook["failing_since"] is not None
    active = await _state(rig, game, allies)
    etag = active.headers["etag"]
    assert (await _state(rig, game, allies, etag)).status_code == 304

    rig.clock.to(started + timedelta(days=4))
    r = await game.admin("deadlines", {"deadlines": {"declare": 900}})
    assert r.status_code == 200, r.text
    messages = await rig.until_settled(allies.headers, game)
    second = next(m for m in messages if m["id"] != first["id"])
    assert second["state"] == "failed"
    last_attempt = datetime.fromisoformat(second["attempts"][-1]["at"])
    assert last_attempt - started >= timedelta(days=5)
    assert len(second["attempts"]) < notifications.MAX_ATTEMPTS  # stopped by the disabling

    hook = (await rig.client.get(f"/v1/games/{game.id}/webhook", headers=allies.headers)).json()
    assert hook["state"] == "disabled" and hook["url"] == receiver.url
    assert datetime.fromisoformat(hook["disabled_at"]) == last_attempt
    assert "failed" in hook["reason"] and "PUT" in hook["reason"]
    r = await _state(rig, game, allies, etag)
    assert r.status_code == 200, "the cached view hid the disabled webhook"
    assert r.json()["webhook"] == {k: v for k, v in hook.items() if k != "every_event"}
    page = json.loads(example("docs/api.md", "webhook-state"))
    page["webhook"]["url"] = receiver.url
    assert agrees(page, r.json()) == []
    disabled_etag = r.headers["etag"]
    assert disabled_etag != etag
    assert (await _state(rig, game, game.players["axis"])).json()["webhook"] is None

    resend = f"/v1/games/{game.id}/webhook/deliveries/{first['id']}/resend"
    r = await rig.client.post(resend, headers=allies.headers)
    assert r.status_code == 409 and r.json()["type"] == "/problems/webhook/disabled"
    r = await game.admin("deadlines", {"deadlines": {"declare": 1200}})
    assert len(await rig.messages(allies.headers, game)) == 2  # nothing queued meanwhile

    await receiver.up()
    try:
        await _register(rig, game, allies.headers, receiver.url, every_event=True)
        r = await _state(rig, game, allies, disabled_etag)
        assert r.status_code == 200 and r.json()["webhook"]["state"] == "active"
        hook = (await rig.client.get(f"/v1/games/{game.id}/webhook",
                                     headers=allies.headers)).json()
        assert hook["state"] == "active" and hook["disabled_at"] is None
        r = await rig.client.post(resend, headers=allies.headers)
        assert r.status_code == 202, r.text
        await rig.until_settled(allies.headers, game)
        assert len(receiver.calls) == 1
    finally:
        await receiver.down()


async def test_the_gms_webhook_gets_every_event_and_deadline_notices(rig: Rig) -> None:
    """Until issue 23 the GM's PUT /webhook was 403. The GM's webhook gets every event
    (whatever `every_event` says) and a notice at 50% and 90% of a step's deadline
    naming every side awaited; it has the same delivery log and resend."""
    receiver = Receiver()
    await receiver.up()
    try:
        game = await create_game(rig.client)
        r = await rig.client.put(f"/v1/games/{game.id}/webhook", headers=game.gm,
                                 json={"url": receiver.url})
        assert r.status_code == 200, r.text
        assert r.json()["every_event"] is True
        secret = r.json()["secret"]
        known = len(await game.log())
        for side in ("axis", "allies", "communists"):
            await join(game, side)
        messages = await rig.until_settled(game.gm, game)
        assert messages and all(m["state"] == "delivered" for m in messages)
        payloads = [json.loads(body) for _, body in receiver.calls]
        assert all(webhooks.verify(secret, h, b) for h, b in receiver.calls)
        assert {p["type"] for p in payloads} == {"game.events"}
        kinds = [k for p in sorted(payloads, key=lambda p: p["data"]["first_seq"])
                 for k in p["data"]["kinds"]]
        assert kinds == [e["kind"] for e in (await game.log())[known:]]
        assert "game.started" in kinds

        r = await game.admin("deadlines", {"deadlines": {"initiative.reroll": 3600}})
        assert r.status_code == 200, r.text
        rig.clock.to(utc_now() + timedelta(seconds=1900))
        messages = await rig.until_settled(game.gm, game)
        notices = [json.loads(b) for _, b in receiver.calls
                   if json.loads(b)["type"] == "game.deadline_notice"]
        assert len(notices) == 1 and notices[0]["data"]["elapsed"] == "50%"
        assert sorted(a["side"] for a in notices[0]["data"]["awaiting"]) == [
            "allies", "axis", "communists"]

        state = await game.state()
        assert state["webhook"]["state"] == "active" and state["webhook"]["url"] == receiver.url
        r = await rig.client.post(
            f"/v1/games/{game.id}/webhook/deliveries/{messages[0]['id']}/resend",
            headers=game.gm)
        assert r.status_code == 202, r.text
        assert r.json()["state"] == "pending"
    finally:
        await receiver.down()
