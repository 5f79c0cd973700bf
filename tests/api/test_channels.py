"""Notifications where players are (issue 20, item 3): e-mail received by a real SMTP
server (aiosmtpd on an ephemeral port of 127.0.0.1), Discord and Slack payloads
accepted by a local receiver that checks their shape, quiet hours and digests; only
the side that must act is notified, on the one-call path as on the long way, and the
sending is the courier's, after the order's transaction.

As in test_webhook_retries, the server runs no background worker: each test drives a
`Courier` by hand on a clock of its own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import message_from_bytes
from email.message import Message
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from conftest import free_port, fresh_database, local_settings
from support import AXIS_FIRST, Game, full_game, to_action

from service.app import channel_setup, create_app
from service.clock import utc_now
from service.referee import egress, notifications, one_call, receipts
from service.referee.notifications import Courier

PUBLIC_URL = "https://wif.example.org"


class Clock:
    def __init__(self) -> None:
        self.now = utc_now()

    def __call__(self) -> datetime:
        return self.now

    def to(self, moment: datetime) -> None:
        self.now = max(self.now, moment)


@dataclass
class Mailbox:
    """What the SMTP server received: (envelope recipients, parsed message)."""

    received: list[tuple[list[str], Message]] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)  # recipients answered 550

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any,  # noqa: N802
                          address: str, options: Any) -> str:
        if address in self.refuse:
            return "550 5.1.1 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.received.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
        return "250 OK"


def _text(msg: Message) -> str:
    body = msg.get_payload(decode=True)
    assert isinstance(body, bytes)
    return body.decode()


@pytest.fixture
def smtp() -> Iterator[tuple[Mailbox, int]]:
    """A real SMTP server (aiosmtpd) on an ephemeral port of 127.0.0.1."""
    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield mailbox, port
    finally:
        controller.stop()


def discord_problems(body: Any) -> list[str]:
    """Discord's execute-webhook shape: `content` (<= 2,000 characters) or `embeds`
    (<= 10), each embed's title <= 256 and description <= 4,096, field names and
    values non-empty strings, no unknown top-level keys."""
    out = []
    if not isinstance(body, dict):
        return ["not an object"]
    known = {"content", "username", "avatar_url", "tts", "embeds", "allowed_mentions"}
    out += [f"unknown key {k}" for k in body if k not in known]
    if not body.get("content") and not body.get("embeds"):
        out.append("neither content nor embeds")
    if not isinstance(body.get("content", ""), str) or len(body.get("content", "")) > 2000:
        out.append("content")
    embeds = body.get("embeds", [])
    if not isinstance(embeds, list) or len(embeds) > 10:
        out.append("embeds")
    for e in embeds if isinstance(embeds, list) else []:
        if len(e.get("title", "")) > 256 or len(e.get("description", "")) > 4096:
            out.append("embed too long")
        if "url" in e and not str(e["url"]).startswith(("http://", "https://")):
            out.append("embed url")
        for f in e.get("fields", []):
            if not (isinstance(f.get("name"), str) and f["name"]
                    and isinstance(f.get("value"), str) and f["value"]):
                out.append("field")
    return out


def slack_problems(body: Any) -> list[str]:
    """Slack's incoming-webhook shape: `text` (the fallback) a non-empty string; each
    block a `section` whose text is a `mrkdwn` or `plain_text` object (<= 3,000)."""
    if not isinstance(body, dict):
        return ["not an object"]
    out = []
    if not isinstance(body.get("text"), str) or not body["text"]:
        out.append("text")
    for b in body.get("blocks", []):
        text = b.get("text", {})
        if b.get("type") != "section" or text.get("type") not in ("mrkdwn", "plain_text") \
                or not 0 < len(text.get("text", "")) <= 3000:
            out.append("block")
    return out


class Receiver:
    """A local HTTP receiver that answers 204 to a body passing its shape check and 400
    (with the problems) to one that does not; keeps the accepted bodies."""

    def __init__(self, check: Any) -> None:
        self.check = check
        self.accepted: list[dict[str, Any]] = []
        self.refused: list[list[str]] = []
        self.server: asyncio.Server | None = None
        self.url = ""

    async def __aenter__(self) -> Receiver:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/api/webhooks/1/token"
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in head.split("\r\n")[1:] if line)}
            body = json.loads(await reader.readexactly(int(headers["content-length"])))
            problems = self.check(body)
            if headers.get("content-type") != "application/json":
                problems.append("content-type")
            if problems:
                self.refused.append(problems)
                writer.write(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n"
                             b"connection: close\r\n\r\n")
            else:
                self.accepted.append(body)
                writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n"
                             b"connection: close\r\n\r\n")
            await writer.drain()
        finally:
            writer.close()


@dataclass
class Rig:
    client: httpx.AsyncClient
    courier: Courier
    clock: Clock
    http: httpx.AsyncClient

    async def deliver(self) -> int:
        self.clock.to(utc_now())
        return await self.courier.deliver_due(self.http)

    async def messages(self, who: dict[str, str], game: Game) -> list[dict[str, Any]]:
        r = await self.client.get(f"/v1/games/{game.id}/webhook/deliveries", headers=who)
        assert r.status_code == 200, r.text
        found: list[dict[str, Any]] = r.json()["messages"]
        return found


@pytest.fixture
async def rig(database_url: str, smtp: tuple[Mailbox, int], request: pytest.FixtureRequest
              ) -> AsyncIterator[Rig]:
    """A server with an SMTP server configured (no TLS: a local test server) and a
    public address for links; no background workers. Orders take one call when they can
    (`request.param` False: always the long way, through the session)."""
    _, port = smtp
    one = getattr(request, "param", True)
    kept = receipts._current[:]  # the process's receipt key is the shared database's:
    receipts._current.clear()  # this server signs with its own, and gives it back after
    try:
        async with _server(database_url, port, one) as rig:
            yield rig
    finally:
        receipts._current[:] = kept


@asynccontextmanager
async def _server(database_url: str, port: int, one: bool) -> AsyncIterator[Rig]:
    async with fresh_database(database_url, "channels") as url:
        settings = local_settings(url, sweep_interval=0, rate_limit=0, one_call=one,
                                  smtp_host="127.0.0.1",
                                  smtp_port=port, smtp_sender="referee@wif.example.org",
                                  smtp_tls="none", public_url=PUBLIC_URL)
        app = create_app(settings, database_url=url)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
            clock = Clock()
            courier = Courier(app.state.transactions, app.state.egress, concurrency=4,
                              interval=0, clock=clock, rand=lambda: 0.5,
                              channel_setup=channel_setup(settings))
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client, \
                    egress.client() as http:
                yield Rig(client, courier, clock, http)


async def _channel(client: httpx.AsyncClient, game: Game, who: dict[str, str], kind: str,
                   **body: Any) -> dict[str, Any]:
    r = await client.put(f"/v1/games/{game.id}/channels/{kind}", headers=who, json=body)
    assert r.status_code == 200, r.text
    shown: dict[str, Any] = r.json()
    return shown


async def _at_action(rig: Rig) -> Game:
    game = await full_game(rig.client, dice=AXIS_FIRST)
    await to_action(game)
    return game


HAND_OVER = {"orders": [], "through": "reorganization"}  # the Axis's impulse, done


async def _hand_over(game: Game) -> httpx.Response:
    """The Axis finishes its impulse in one `steps` order: the move goes to another
    side (issue 20, item 1)."""
    r = await game.players["axis"].order("steps", HAND_OVER)
    assert r.status_code == 201, r.text
    return r


# long: one order, three sides' e-mail channels, the mail the SMTP server got.
@pytest.mark.parametrize("rig", [True, False], ids=["one_call", "long_way"], indirect=True)
async def test_email_reaches_the_smtp_server_with_the_recipient_and_the_link(
        rig: Rig, smtp: tuple[Mailbox, int]) -> None:
    """Each side registers an e-mail channel (and a webhook, nobody listening); the
    Axis finishing its impulse makes another side awaited: it, and no one else, gets one
    e-mail at its address from the configured sender, naming its side and step with a
    link to the page; on the one-call path as on the long way."""
    mailbox, _ = smtp
    game = await _at_action(rig)
    address = {side: f"{side}@players.example.org" for side in game.players}
    for side, player in game.players.items():
        await _channel(rig.client, game, player.headers, "email", target=address[side])
        r = await rig.client.put(f"/v1/games/{game.id}/webhook", headers=player.headers,
                                 json={"url": "http://127.0.0.1:9/hook"})
        assert r.status_code == 200, r.text
    r = await _hand_over(game)
    awaited = {a["side"] for a in r.json()["awaiting"]}
    assert awaited and "axis" not in awaited
    assert mailbox.received == []  # nothing is sent inside the order
    await rig.deliver()
    got = {tuple(rcpt): msg for rcpt, msg in mailbox.received}
    assert set(got) == {(address[s],) for s in awaited}
    for side in awaited:
        msg = got[(address[side],)]
        assert msg["From"] == "referee@wif.example.org" and msg["To"] == address[side]
        assert side in msg["Subject"]
        text = _text(msg)
        assert f"{PUBLIC_URL}/play/?game={game.id}" in text and "your move" in text
        [sent] = [m for m in await rig.messages(game.players[side].headers, game)
                  if m["state"] == "delivered"]
        assert sent["id"].startswith("msg_move_email_")
        assert sent["payload"]["data"]["awaiting"]["side"] == side
    axis = await rig.messages(game.players["axis"].headers, game)
    assert not [m for m in axis if m["id"].startswith("msg_move_email_")]


async def test_discord_and_slack_payloads_pass_their_shape_checks(rig: Rig) -> None:
    game = await _at_action(rig)
    async with Receiver(discord_problems) as discord, Receiver(slack_problems) as slack:
        for player in game.players.values():
            await _channel(rig.client, game, player.headers, "discord", target=discord.url)
            await _channel(rig.client, game, player.headers, "slack", target=slack.url)
        r = await _hand_over(game)
        awaited = {a["side"] for a in r.json()["awaiting"]}
        assert "axis" not in awaited
        await rig.deliver()
        assert discord.refused == [] and slack.refused == []
        assert len(discord.accepted) == len(slack.accepted) == len(awaited) >= 1
        link = f"{PUBLIC_URL}/play/?game={game.id}"
        for body in discord.accepted:
            assert body["embeds"][0]["url"] == link and link in body["content"]
        for body in slack.accepted:
            assert f"<{link}|Open the game>" in body["blocks"][0]["text"]["text"]
    for side, player in game.players.items():
        states = [m["state"] for m in await rig.messages(player.headers, game)]
        assert states == (["delivered", "delivered"] if side in awaited else [])


async def test_the_one_call_path_queues_channel_messages_for_the_awaited_side_only(
        rig: Rig) -> None:
    """The order taken in one call (wif_take_order, 0012) writes "your move" to the
    awaited sides' channels as the long way does, and nothing for the others."""
    game = await _at_action(rig)
    axis = game.players["axis"]
    async with Receiver(slack_problems) as slack:
        for player in game.players.values():
            await _channel(rig.client, game, player.headers, "slack", target=slack.url)
        await axis.ok("roll", {"dice": "2d6", "purpose": "warm the one call"})
        before = one_call.TAKEN.get("taken", 0)
        r = await _hand_over(game)
        assert one_call.TAKEN.get("taken", 0) == before + 1
        awaited = {a["side"] for a in r.json()["awaiting"]}
        for side, player in game.players.items():
            queued = [m for m in await rig.messages(player.headers, game)
                      if m["id"].startswith("msg_move_slack_")]
            assert len(queued) == (1 if side in awaited else 0), side
        await rig.deliver()
        assert len(slack.accepted) == len(awaited)
        side = sorted(awaited)[0]  # the owner resends it from the delivery log
        who = game.players[side].headers
        [sent] = await rig.messages(who, game)
        r = await rig.client.post(
            f"/v1/games/{game.id}/webhook/deliveries/{sent['id']}/resend", headers=who)
        assert r.status_code == 202 and r.json()["state"] == "pending", r.text
        await rig.deliver()
        assert len(slack.accepted) == len(awaited) + 1


async def test_quiet_hours_hold_the_message_until_they_end(rig: Rig) -> None:
    game = await _at_action(rig)
    now = utc_now()
    start, end = now - timedelta(minutes=30), now + timedelta(hours=2)
    async with Receiver(discord_problems) as discord:
        for player in game.players.values():
            await _channel(rig.client, game, player.headers, "discord", target=discord.url,
                           quiet_hours={"from": start.strftime("%H:%M"),
                                        "to": end.strftime("%H:%M"), "timezone": "UTC"})
        r = await _hand_over(game)
        side = r.json()["awaiting"][0]["side"]
        await rig.deliver()
        assert discord.accepted == []
        [held] = await rig.messages(game.players[side].headers, game)
        assert held["state"] == "pending" and held["attempts"] == []
        assert datetime.fromisoformat(held["next_attempt_at"]) == end.replace(
            second=0, microsecond=0)
        rig.clock.to(datetime.fromisoformat(held["next_attempt_at"]))
        await rig.courier.deliver_due(rig.http)
        assert len(discord.accepted) >= 1


async def test_a_digest_sends_every_move_due_by_then_in_one_message(
        rig: Rig, smtp: tuple[Mailbox, int]) -> None:
    """With a 30-minute digest nothing goes at once; 30 minutes later one e-mail lists
    every "your move" of the channel, and each message is logged delivered."""
    mailbox, _ = smtp
    game = await _at_action(rig)
    for side, player in game.players.items():
        await _channel(rig.client, game, player.headers, "email",
                       target=f"{side}@players.example.org", digest_minutes=30)
    r = await _hand_over(game)
    [entry] = r.json()["awaiting"]
    awaited = [entry["side"]]
    assert entry["step"] == "declare"
    player = game.players[entry["side"]]
    r = await player.order("declare", {"actions": {p: "land" for p in entry["powers"]}})
    assert r.status_code == 201, r.text
    assert r.json()["awaiting"][0]["side"] == entry["side"]  # its action step: a 2nd move
    await rig.deliver()
    assert mailbox.received == []
    rig.clock.to(utc_now() + timedelta(minutes=31))
    await rig.courier.deliver_due(rig.http)
    mine = [msg for rcpt, msg in mailbox.received if rcpt == [f"{awaited[0]}@players.example.org"]]
    assert len(mine) == 1
    messages = await rig.messages(player.headers, game)
    assert {m["state"] for m in messages} == {"delivered"}
    assert _text(mine[0]).count("your move") == len(messages)


@pytest.mark.parametrize(("kind", "body", "status", "code"), [
    ("email", {"target": "not an address"}, 422, "channel/invalid_target"),
    ("discord", {"target": "http://169.254.169.254/latest"}, 422,
     "channel/forbidden_destination"),
    ("slack", {"target": "http://127.0.0.1:9/slack",
               "quiet_hours": {"from": "22:00", "to": "07:00", "timezone": "Mars/Olympus"}},
     422, "channel/invalid_quiet_hours"),
])
async def test_bad_channels_are_refused_naming_the_item(
        rig: Rig, kind: str, body: dict[str, Any], status: int, code: str) -> None:
    game = await full_game(rig.client)
    r = await rig.client.put(f"/v1/games/{game.id}/channels/{kind}",
                             headers=game.players["axis"].headers, json=body)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == code


async def test_without_an_smtp_server_email_is_refused_and_the_rest_runs_as_today(
        client: httpx.AsyncClient) -> None:
    """The suite's shared server has no SMTP_HOST: an e-mail channel is 409 saying so;
    Discord and Slack channels still register, list and delete."""
    game = await full_game(client)
    who = game.players["allies"].headers
    r = await client.put(f"/v1/games/{game.id}/channels/email", headers=who,
                         json={"target": "allies@players.example.org"})
    assert r.status_code == 409 and r.json()["code"] == "channel/email_unavailable"
    r = await client.put(f"/v1/games/{game.id}/channels/slack", headers=who,
                         json={"target": "http://127.0.0.1:9/slack", "digest_minutes": 15,
                               "quiet_hours": {"from": "23:00", "to": "06:30"}})
    assert r.status_code == 200, r.text
    listed = (await client.get(f"/v1/games/{game.id}/channels", headers=who)).json()
    assert listed == {"email_available": False, "channels": [{
        "kind": "slack", "target": "http://127.0.0.1:9/slack", "digest_minutes": 15,
        "quiet_hours": {"from": "23:00", "to": "06:30", "timezone": "UTC"},
        "state": "active", "disabled_at": None, "reason": None, "failing_since": None}]}
    assert (await client.delete(f"/v1/games/{game.id}/channels/slack",
                                headers=who)).status_code == 204
    r = await client.put(f"/v1/games/{game.id}/channels/slack", headers=game.gm,
                         json={"target": "http://127.0.0.1:9/slack"})
    assert r.status_code == 403 and r.json()["code"] == "channel/players_only"
    assert (await client.delete(f"/v1/games/{game.id}/channels/slack",
                                headers=who)).status_code == 404


async def test_deadline_reminders_reach_the_awaited_sides_channels_only(
        rig: Rig, smtp: tuple[Mailbox, int]) -> None:
    """At 50% of a step's deadline each side the step waits for gets a reminder by
    e-mail with the deadline and the link; the others get nothing."""
    mailbox, _ = smtp
    game = await full_game(rig.client)
    r = await game.admin("deadlines", {"deadlines": {"initiative.reroll": 3600,
                                                     "declare": 600}, "reason": "tempo"})
    assert r.status_code == 200, r.text
    await game.players["axis"].ok("initiative.reroll", {"demand": False})  # axis answered
    awaited = {a["side"]: a["deadline"] for a in (await game.state())["awaiting"]}
    assert awaited and "axis" not in awaited
    for side, player in game.players.items():
        await _channel(rig.client, game, player.headers, "email",
                       target=f"{side}@players.example.org")
    await rig.deliver()
    assert mailbox.received == []  # not yet half of the time
    rig.clock.to(utc_now() + timedelta(seconds=1900))
    await rig.courier.deliver_due(rig.http)
    got = {rcpt[0]: _text(msg) for rcpt, msg in mailbox.received}
    assert set(got) == {f"{side}@players.example.org" for side in awaited}
    for side, deadline in awaited.items():
        text = got[f"{side}@players.example.org"]
        assert "reminder (50% of the time gone)" in text
        assert f"{PUBLIC_URL}/play/?game={game.id}" in text
        assert deadline.replace("Z", "") in text.replace("+00:00", "")


def test_only_the_side_whose_turn_it_is_to_react_is_told() -> None:
    """RULES-NOTES 31: the Allies and the Communists both react to the Axis, one after
    the other; "your move" (for webhooks and every channel, on either order path: both
    use `candidates`) goes to the Allies first, and to the Communists only when the
    Allies are done."""
    from modes_kit import game as rules_game

    from service.referee.notifications import candidates

    t = rules_game()
    before = t.state
    t.act("done", side="axis")
    assert t.state.step == "reaction"
    assert [a["side"] for a in t.awaiting()] == ["allies", "communists"]
    first = candidates("g", before, t.state, [], utc_now())
    assert set(first.moves) == {"p-allies"}
    before = t.state
    t.act("done", side="allies")
    second = candidates("g", before, t.state, [], utc_now())
    assert set(second.moves) == {"p-communists"}
    assert second.moves["p-communists"]["data"]["awaiting"]["step"] == "reaction"


def test_the_summary_on_the_row_knows_who_may_react_now() -> None:
    """The deadline reminders read who may act from the game row's summary (a serving
    process does not load a big game's state, issue 33): in the Reaction step only the
    first side not yet done, as from the state (RULES-NOTES 31)."""
    from modes_kit import game as rules_game

    from service.referee.summaries import acting, must_act, state_summary

    t = rules_game()
    t.act("done", side="axis")
    for reacting in ("allies", "communists"):
        kept = state_summary(t.state, {"seq": 1, "hash": "h"})
        assert [a["side"] for a in kept["awaiting"]] == ["allies", "communists"][
            ["allies", "communists"].index(reacting):]
        assert acting(kept) == must_act(t.state)
        assert [a["side"] for a in acting(kept)] == [reacting]
        t.act("done", side=reacting)


async def test_a_refused_email_is_logged_and_retried_until_it_goes(
        rig: Rig, smtp: tuple[Mailbox, int]) -> None:
    """The SMTP server refuses the recipient: the attempt is in the delivery log with
    the SMTP error and the message is due again later (the webhook retry schedule);
    once the mailbox exists, the retry delivers it."""
    mailbox, _ = smtp
    game = await _at_action(rig)
    for side, player in game.players.items():
        await _channel(rig.client, game, player.headers, "email",
                       target=f"{side}@players.example.org")
    r = await _hand_over(game)
    side = r.json()["awaiting"][0]["side"]
    address = f"{side}@players.example.org"
    mailbox.refuse.add(address)
    await rig.deliver()
    who = game.players[side].headers
    [message] = await rig.messages(who, game)
    assert message["state"] == "pending" and mailbox.received == []
    assert message["attempts"][0]["error"] == "SMTP: SMTPRecipientsRefused"
    mailbox.refuse.clear()
    rig.clock.to(datetime.fromisoformat(message["next_attempt_at"]))
    await rig.courier.deliver_due(rig.http)
    [message] = await rig.messages(who, game)
    assert message["state"] == "delivered" and len(message["attempts"]) == 2
    assert [rcpt for rcpt, _ in mailbox.received] == [[address]]


async def _channel_shown(rig: Rig, game: Game, who: dict[str, str], kind: str
                         ) -> dict[str, Any]:
    r = await rig.client.get(f"/v1/games/{game.id}/channels", headers=who)
    assert r.status_code == 200, r.text
    [shown] = [c for c in r.json()["channels"] if c["kind"] == kind]
    return dict(shown)


# long: a 14-day step, its two reminders refused 5.6 days apart, the channel disabled,
# what that changes, and setting it again.
async def test_a_channel_failing_for_five_days_is_disabled_and_put_enables_it(
        rig: Rig, smtp: tuple[Mailbox, int]) -> None:
    """Every e-mail to a player refused for 5 days (the 50% and 90% deadline reminders
    of a 14-day step come 5.6 days apart): the channel is disabled as a webhook is,
    `GET /channels` says when and why, its pending messages fail, no reminder is
    queued for it and a resend is refused (409); `PUT` sets it again, active with a
    clean record, and the resent message goes."""
    mailbox, _ = smtp
    game = await full_game(rig.client)
    r = await game.admin("deadlines", {"deadlines": {"initiative.reroll": 14 * 86400},
                                       "reason": "a slow game"})
    assert r.status_code == 200, r.text
    await game.players["axis"].ok("initiative.reroll", {"demand": False})
    started = utc_now()
    side = sorted(a["side"] for a in (await game.state())["awaiting"])[0]
    who = game.players[side].headers
    address = f"{side}@players.example.org"
    await _channel(rig.client, game, who, "email", target=address)
    assert await _channel_shown(rig, game, who, "email") == {
        "kind": "email", "target": address, "quiet_hours": None, "digest_minutes": 0,
        "state": "active", "disabled_at": None, "reason": None, "failing_since": None}
    mailbox.refuse.add(address)

    rig.clock.to(started + timedelta(days=7, minutes=1))  # half of the deadline gone
    await rig.courier.deliver_due(rig.http)
    [first] = await rig.messages(who, game)
    assert first["state"] == "pending" and first["attempts"][0]["error"].startswith("SMTP")
    shown = await _channel_shown(rig, game, who, "email")
    assert shown["state"] == "active" and shown["failing_since"] == first["attempts"][0]["at"]

    rig.clock.to(started + timedelta(days=12, hours=15))  # 90%: 5.6 days of failures
    await rig.courier.deliver_due(rig.http)
    shown = await _channel_shown(rig, game, who, "email")
    assert shown["state"] == "disabled" and shown["failing_since"] == first["attempts"][0]["at"]
    assert datetime.fromisoformat(shown["disabled_at"]) - started >= timedelta(days=12)
    assert "failed" in shown["reason"] and "SMTP" in shown["reason"] and "PUT" in shown["reason"]
    messages = await rig.messages(who, game)
    assert len(messages) == 2 and {m["state"] for m in messages} == {"failed"}
    async with rig.courier.transactions() as uow:  # the reminders skip it now
        assert await notifications.enqueue_reminders(
            uow, started + timedelta(days=13)) == 0
    resend = f"/v1/games/{game.id}/webhook/deliveries/{first['id']}/resend"
    r = await rig.client.post(resend, headers=who)
    assert r.status_code == 409 and r.json()["type"] == "/problems/channel/disabled", r.text

    mailbox.refuse.clear()
    await _channel(rig.client, game, who, "email", target=address)
    assert await _channel_shown(rig, game, who, "email") == {
        "kind": "email", "target": address, "quiet_hours": None, "digest_minutes": 0,
        "state": "active", "disabled_at": None, "reason": None, "failing_since": None}
    r = await rig.client.post(resend, headers=who)
    assert r.status_code == 202, r.text
    await rig.courier.deliver_due(rig.http)
    assert [rcpt for rcpt, _ in mailbox.received] == [[address]]


@pytest.mark.parametrize("rig", [True, False], ids=["one_call", "long_way"], indirect=True)
async def test_a_disabled_channel_is_told_no_move(rig: Rig) -> None:
    """Both order paths (wif_take_order, migration 0013, and the long way) write "your
    move" only to channels that are not disabled; a channel set again is told again."""
    game = await _at_action(rig)
    async with Receiver(slack_problems) as slack:
        for player in game.players.values():
            await _channel(rig.client, game, player.headers, "slack", target=slack.url)
        await game.players["axis"].ok("roll", {"dice": "2d6", "purpose": "warm the one call"})
        async with rig.courier.transactions() as uow:
            for player in game.players.values():
                await uow.channels.disable(game.id, player.id, "slack", at=utc_now(),
                                           reason="a test")
        r = await _hand_over(game)
        awaited = {a["side"] for a in r.json()["awaiting"]}
        assert awaited
        for player in game.players.values():
            assert await rig.messages(player.headers, game) == []
        assert await rig.deliver() == 0 and slack.accepted == []
        side = sorted(awaited)[0]
        await _channel(rig.client, game, game.players[side].headers, "slack", target=slack.url)
        shown = await _channel_shown(rig, game, game.players[side].headers, "slack")
        assert shown["state"] == "active"


async def test_send_a_test_reaches_the_smtp_server_discord_and_the_webhook_at_once(
        rig: Rig, smtp: tuple[Mailbox, int]) -> None:
    """Issue 30 ("send a test"): each of a player's channels, and its webhook, gets one
    test message at once, inside its quiet hours too, and the answer says what the
    receiver answered; nothing is queued in the delivery log. A kind the player has not
    set is 404 (the GM has no channels)."""
    mailbox, _ = smtp
    game = await _at_action(rig)
    axis = game.players["axis"].headers
    quiet = {"from": "00:00", "to": "23:59", "timezone": "UTC"}
    await _channel(rig.client, game, axis, "email", target="dave@players.example.org",
                   quiet_hours=quiet, digest_minutes=60)
    r = await rig.client.post(f"/v1/games/{game.id}/channels/email/test", headers=axis)
    assert r.status_code == 200, r.text
    assert r.json() == {"kind": "email", "target": "dave@players.example.org",
                        "delivered": True, "status_code": None, "error": None}
    [(rcpt, msg)] = mailbox.received
    assert rcpt == ["dave@players.example.org"]
    assert msg["Subject"] == f"WiF {game.id}: a test message"
    assert "a test message from game" in _text(msg)
    assert f"{PUBLIC_URL}/play/?game={game.id}" in _text(msg)
    async with Receiver(discord_problems) as discord:
        await _channel(rig.client, game, axis, "discord", target=discord.url)
        r = await rig.client.post(f"/v1/games/{game.id}/channels/discord/test", headers=axis)
        assert r.json()["delivered"] is True and r.json()["status_code"] == 204
        assert len(discord.accepted) == 1 and discord.refused == []
    async with Receiver(lambda body: [] if body["type"] == "game.test" else ["type"]) as hook:
        r = await rig.client.put(f"/v1/games/{game.id}/webhook", headers=axis,
                                 json={"url": hook.url})
        assert r.status_code == 200, r.text
        r = await rig.client.post(f"/v1/games/{game.id}/webhook/test", headers=axis)
        assert r.json()["delivered"] is True and len(hook.accepted) == 1
        assert hook.accepted[0]["data"]["awaiting"] == {"side": "axis", "step": "test"}
    r = await rig.client.post(f"/v1/games/{game.id}/webhook/test", headers=axis)
    assert r.json() == {"kind": "webhook", "target": hook.url, "delivered": False,
                        "status_code": None, "error": "no connection or no answer"}
    r = await rig.client.post(f"/v1/games/{game.id}/channels/slack/test", headers=axis)
    assert r.status_code == 404 and r.json()["code"] == "channel/not_found"
    r = await rig.client.post(f"/v1/games/{game.id}/channels/email/test", headers=game.gm)
    assert r.status_code == 404
    assert await rig.messages(axis, game) == []
