"""A player's notifications from the page (issue 30): e-mail, Discord, Slack and the
player's webhook, with quiet hours and a digest, each saved with the server and each
with "Send a test". The test e-mail is received by a real SMTP server (aiosmtpd on an
ephemeral port of 127.0.0.1), the webhook's test by a local receiver; what the receiver
answered is shown on the page.

Screenshots go to test-artifacts/ (desk 1440x900 and phone 390x844)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes
from email.message import Message
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from conftest import free_port
from test_play_page import browser  # noqa: F401 (fixtures)
from test_play_turn import Pages, axe_source, shot  # noqa: F401 (fixtures)

try:
    from playwright.async_api import Browser, expect
except ImportError:  # the browser fixture reports it
    pass


class Mailbox:
    def __init__(self) -> None:
        self.received: list[tuple[list[str], Message]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.received.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
        return "250 OK"


@pytest.fixture(scope="module")
def smtp() -> Iterator[tuple[Mailbox, int]]:
    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield mailbox, port
    finally:
        controller.stop()


@pytest.fixture(scope="module")
def mail_url(migrated_url: str, smtp: tuple[Mailbox, int]) -> Iterator[str]:
    """The page's server with an SMTP server configured (no TLS: a local test server),
    and webhooks allowed to loopback (the local receiver)."""
    import uvicorn

    from service.app import create_app
    from service.settings import Settings
    from service.web import mount

    settings = Settings(database_url=migrated_url, smtp_host="127.0.0.1", smtp_port=smtp[1],
                        smtp_sender="referee@wif.example.org", smtp_tls="none",
                        public_url="https://wif.example.org",
                        webhook_allow_networks=["127.0.0.0/8"])
    app = create_app(settings, database_url=migrated_url)
    mount(app)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                           lifespan="on", ws="none"))
    thread = threading.Thread(target=server.run, name="notify-page-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the uvicorn server for the notifications page did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)


class Hook:
    """A local webhook receiver that answers 204 and keeps the bodies."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.server: asyncio.Server | None = None
        self.url = ""

    async def __aenter__(self) -> Hook:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/hook"
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            length = next(int(line.split(":")[1]) for line in head.split("\r\n")
                          if line.lower().startswith("content-length"))
            self.bodies.append(json.loads(await reader.readexactly(length)))
            writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n"
                         b"connection: close\r\n\r\n")
            await writer.drain()
        finally:
            writer.close()


async def test_notification_settings_are_saved_and_a_test_email_arrives(
    mail_url: str, browser: Browser, axe_source: str, smtp: tuple[Mailbox, int],  # noqa: F811
) -> None:
    mailbox, _ = smtp
    async with httpx.AsyncClient(base_url=mail_url) as http:
        r = await http.post("/v1/games", json={"name": "Mail", "scenario": "dno-demo"})
        created: dict[str, Any] = r.json()
    pages = Pages(browser, axe_source, mail_url)
    page = await pages.open("axis", f"/play/?game={created['id']}&side=axis"
                                    f"&code={created['join_codes']['axis']}", phone=True)
    await page.fill("#join-form [name=name]", "Dave")
    await page.click("#join-form [name=join]")
    await expect(page.locator("#seat-badge")).to_contain_text("axis")

    await page.click("#seat-card .notify-details > summary")
    email = page.locator("fieldset.channel[data-channel=email]")
    await expect(email.locator("legend")).to_contain_text("not set")
    await email.locator("[name=email-target]").fill("dave@players.example.org")
    await email.locator("[name=email-quiet-from]").fill("22:00")
    await email.locator("[name=email-quiet-to]").fill("07:30")
    await email.locator("[name=email-timezone]").fill("Europe/Paris")
    await email.locator("[name=email-digest]").fill("30")
    await email.locator("[name=email-save]").click()
    await expect(email.locator("legend")).to_contain_text("active")
    await expect(email.locator("[role=status]")).to_contain_text("Saved")
    # Saved with the server: its settings as the page reads them back.
    async with httpx.AsyncClient(base_url=mail_url) as http:
        token = await page.evaluate("Object.values(JSON.parse(localStorage.getItem("
                                    "'wif.play.seats')))[0].token")
        listed = (await http.get(f"/v1/games/{created['id']}/channels",
                                 headers={"Authorization": f"Bearer {token}"})).json()
    assert listed["channels"] == [{
        "kind": "email", "target": "dave@players.example.org",
        "quiet_hours": {"from": "22:00", "to": "07:30", "timezone": "Europe/Paris"},
        "digest_minutes": 30, "state": "active", "disabled_at": None, "reason": None,
        "failing_since": None}]
    await expect(email.locator("[name=email-quiet-from]")).to_have_value("22:00")

    await email.locator("[name=email-test]").click()
    await expect(email.locator("[role=status]")).to_have_text(
        "✓ E-mail: a test message was delivered to dave@players.example.org.")
    [(rcpt, msg)] = mailbox.received
    assert rcpt == ["dave@players.example.org"]
    assert msg["From"] == "referee@wif.example.org"
    assert msg["Subject"] == f"WiF {created['id']}: a test message"
    await pages.check(page, "the notification settings on a phone")
    await email.scroll_into_view_if_needed()
    await shot(page, "phone-notifications")

    # The player's webhook: saved (its secret shown once) and tested.
    async with Hook() as hook:
        webhook = page.locator("fieldset.channel[data-channel=webhook]")
        await webhook.locator("[name=webhook-url]").fill(hook.url)
        await webhook.locator("[name=webhook-save]").click()
        await expect(webhook.locator("[role=status]")).to_contain_text(
            "Its signing secret (shown once): whsec_")
        await webhook.locator("[name=webhook-test]").click()
        await expect(webhook.locator("[role=status]")).to_have_text(
            f"✓ The webhook: a test message was delivered to {hook.url} (HTTP 204).")
        assert [b["type"] for b in hook.bodies] == ["game.test"]
    # Discord, refused by the server (a private address): the page says why, nothing saved.
    discord = page.locator("fieldset.channel[data-channel=discord]")
    await discord.locator("[name=discord-target]").fill("http://10.0.0.1/api/webhooks/1/x")
    await discord.locator("[name=discord-save]").click()
    await expect(page.locator("#error-banner")).to_contain_text("refused")
    await expect(discord.locator("legend")).to_contain_text("not set")
    await email.locator("[name=email-remove]").click()
    await expect(email.locator("legend")).to_contain_text("not set")
    await page.set_viewport_size({"width": 1440, "height": 900})
    await page.locator("#seat-card").scroll_into_view_if_needed()
    await shot(page, "desk-notifications")
    assert pages.problems.seen == []
