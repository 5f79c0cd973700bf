"""Notifications against hostile receivers (issue 14, items 3 and 9): a receiver that
drips its answer a byte a second holds neither the game clock nor other deliveries,
an attempt has one time limit in all, and a webhook cannot be pointed at the server's
own network (refused at registration and at delivery, the checked address pinned, no
redirect followed, no transport detail echoed)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest
from conftest import free_port, fresh_database, local_settings
from support import create_game, full_game, join

from service.app import create_app
from service.referee import egress
from service.settings import Settings


async def _wait_for(predicate: Callable[[], Awaitable[bool]], timeout: float) -> float:
    """Poll until `predicate()` holds; the seconds it took (fails after `timeout`)."""
    started = time.monotonic()
    while not await predicate():
        assert time.monotonic() - started < timeout, "condition not met in time"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


class Receiver:
    """An HTTP receiver on an ephemeral port of 127.0.0.1: `answer` is sent back, a
    byte every `drip` seconds when set (the connection stays open until the client
    closes it), at once otherwise. Records each request and when each connection
    opened and closed."""

    def __init__(self, answer: bytes, drip: float | None = None) -> None:
        self.answer = answer
        self.drip = drip
        self.requests: list[bytes] = []
        self.opened: list[float] = []
        self.closed: list[float] = []
        self.server: asyncio.Server | None = None

    @property
    def open(self) -> int:
        return len(self.opened) - len(self.closed)

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/hook"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.opened.append(time.monotonic())
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            self.requests.append(head + await reader.readexactly(length))
            if self.drip is None:
                writer.write(self.answer)
                await writer.drain()
            else:
                for byte in self.answer:
                    writer.write(bytes([byte]))
                    await writer.drain()
                    try:  # the client closing its end ends the drip
                        if await asyncio.wait_for(reader.read(1), self.drip) == b"":
                            break
                    except TimeoutError:
                        continue
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.closed.append(time.monotonic())
            writer.close()


DRIP = b"HTTP/1.1 200 OK\r\n" + b"x-slow: " + b"." * 10_000
NO_CONTENT = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


@pytest.fixture
async def isolated(database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A server on a database of its own, sweeping every 0.1 s, a delivery attempt
    limited to 4 s in all: no other test server's sweeper or courier touches it."""
    async with fresh_database(database_url, "notifications_alone") as url:
        app = create_app(local_settings(url, sweep_interval=0.1, webhook_timeout=4,
                                        webhook_concurrency=4, rate_limit=0),
                         database_url=url)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
            async with httpx.AsyncClient(transport=transport, base_url="http://iso") as c:
                yield c


async def test_a_slow_webhook_holds_neither_the_clock_nor_other_deliveries(
    isolated: httpx.AsyncClient,
) -> None:
    """Issue 14, item 3: a receiver dripping a byte every 2 s held an unrelated game's
    2 s deadline for 25 s (deliveries ran one at a time, on the deadline sweeper's
    loop, with a per-read timeout). Here one drips a byte a second: another game's
    1 s deadline fires while it is still dripping, another receiver gets its message
    meanwhile, and the dripping attempt ends at its 4 s limit with a plain error."""
    client = isolated
    slow, fast = Receiver(DRIP, drip=1.0), Receiver(NO_CONTENT)
    async with slow as slow_url, fast as fast_url:
        game = await create_game(client)
        axis, allies = await join(game, "axis"), await join(game, "allies")
        for player, url in ((allies, slow_url), (axis, fast_url)):
            r = await client.put(f"/v1/games/{game.id}/webhook", headers=player.headers,
                                 json={"url": url, "every_event": True})
            assert r.status_code == 200, r.text
        await join(game, "communists")  # an event for both webhooks
        await _wait_for(_true(lambda: slow.open > 0), 10)

        other = await full_game(client)
        r = await other.admin("deadlines", {"deadlines": {"initiative.reroll": 1}})
        assert r.status_code == 200, r.text

        async def deadline_passed() -> bool:
            return any(e["kind"] == "deadline.passed" for e in await other.log())

        await _wait_for(deadline_passed, 10)
        assert slow.open > 0, "the deadline fired only once the drip ended"
        assert fast.requests, "the other receiver waited for the slow one"

        await _wait_for(_true(lambda: slow.open == 0), 10)
        held = [closed - opened for opened, closed in zip(slow.opened, slow.closed, strict=True)]
        assert all(3.5 <= h <= 6.5 for h in held), held  # 4 s in all, however it drips

        async def attempt_logged() -> bool:
            r = await client.get(f"/v1/games/{game.id}/webhook/deliveries",
                                 headers=allies.headers)
            return any(m["attempts"] for m in r.json()["messages"])

        await _wait_for(attempt_logged, 10)
        r = await client.get(f"/v1/games/{game.id}/webhook/deliveries", headers=allies.headers)
        attempt = next(m for m in r.json()["messages"] if m["attempts"])["attempts"][0]
        assert attempt["error"] == "no answer within 4 s" and attempt["status_code"] is None


def _true(check: Callable[[], bool]) -> Callable[[], Awaitable[bool]]:
    async def predicate() -> bool:
        return check()

    return predicate


async def test_webhooks_to_non_public_addresses_are_refused_at_registration(
    migrated_url: str,
) -> None:
    """Issue 14, item 9: loopback, private, link-local, metadata, multicast and
    unspecified addresses (also spelt as names, IPv4-mapped or in hex) answer 422
    naming /url; a public address is taken."""
    app = create_app(Settings(database_url=migrated_url, sweep_interval=0, rate_limit=0),
                     database_url=migrated_url)
    app.state.egress = egress.Policy(resolver=_fake_dns)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            game = await create_game(client)
            axis = await join(game, "axis")
            for url in ["http://127.0.0.1:8000/x", "http://localhost/x", "http://[::1]/x",
                        "http://0x7f000001/x", "http://[::ffff:127.0.0.1]/x",
                        "http://10.1.2.3/x", "http://192.168.0.10/x", "http://172.16.5.4/x",
                        "http://100.64.0.1/x", "http://169.254.169.254/latest/meta-data/",
                        "http://[fd00:ec2::254]/latest/meta-data/", "http://[fe80::1]/x",
                        "http://224.0.0.1/x", "http://0.0.0.0/x", "http://[::]/x",
                        "http://[2002:7f00:1::1]/x", "http://[64:ff9b::a00:1]/x",
                        "http://[64:ff9b:1::1]/x", "http://[::7f00:1]/x",
                        "http://[::ffff:0:7f00:1]/x", "http://[fec0::1]/x",
                        "http://internal.example/x", "http://nowhere.invalid/x",
                        "https://rebinds.example/x"]:
                r = await client.put(f"/v1/games/{game.id}/webhook", headers=axis.headers,
                                     json={"url": url})
                assert r.status_code == 422, (url, r.text)
                assert r.json()["type"] == "/problems/webhook/forbidden_destination"
                assert [e["path"] for e in r.json()["errors"]] == ["/url"]
            r = await client.put(f"/v1/games/{game.id}/webhook", headers=axis.headers,
                                 json={"url": "https://hooks.example/wif"})
            assert r.status_code == 200, r.text


FAKE_DNS = {"internal.example": ["10.0.0.7"], "hooks.example": ["93.184.215.14"],
            "rebinds.example": ["127.0.0.1", "::1"]}


async def _fake_dns(host: str, port: int) -> list[str]:
    """Names the tests control, without a DNS server; addresses as themselves."""
    if host in FAKE_DNS:
        return FAKE_DNS[host]
    return await egress.system_resolver(host, port)


async def test_a_delivery_goes_to_the_checked_address_and_follows_no_redirect() -> None:
    """Issue 14, item 9: the name is resolved once, checked, and the connection made to
    that address (the name only in Host and SNI), so DNS rebinding cannot switch it;
    a redirect is not followed; a refusal or a transport failure says nothing of
    what answered."""
    target = Receiver(NO_CONTENT)
    redirect = Receiver(b"HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:9/elsewhere"
                        b"\r\ncontent-length: 0\r\n\r\n")
    async with target as target_url, redirect as redirect_url:
        port = httpx.URL(target_url).port
        lookups: list[str] = []

        async def dns(host: str, port: int) -> list[str]:  # answers once, then "rebinds"
            lookups.append(host)
            return ["127.0.0.1"] if len(lookups) == 1 else ["10.9.9.9"]

        local = egress.Policy.of(["127.0.0.0/8"], timeout=5)
        pinned = egress.Policy(local.allowed, 5, resolver=dns)
        async with egress.client() as http:
            status = await egress.post(http, f"http://receiver.test:{port}/hook", b"{}",
                                       {"content-type": "application/json"}, pinned)
            assert status == 204 and lookups == ["receiver.test"]
            assert b"\r\nhost: receiver.test:" in target.requests[0].lower()

            assert await egress.post(http, redirect_url, b"{}", {}, local) == 302
            assert len(target.requests) == 1 and len(redirect.requests) == 1

            with pytest.raises(egress.Failed) as refused:  # public only, by default
                await egress.post(http, target_url, b"{}", {}, egress.Policy(timeout=5))
            assert str(refused.value) == "the address is not a public one"
            assert len(target.requests) == 1

            closed = f"http://127.0.0.1:{free_port()}/hook"
            with pytest.raises(egress.Failed) as failed:
                await egress.post(http, closed, b"{}", {}, local)
            assert str(failed.value) == "no connection or no answer"
