"""Notification channels where players are (issue 20): e-mail over SMTP, and Discord and
Slack incoming webhooks, beside the Standard Webhook (`webhooks`). A player registers a
channel per kind with its quiet hours and a digest; "your move" messages for it are
written to the outbox in the order's transaction (both ways: `notifications.enqueue`
and `wif_take_order`, migration 0012) and sent by the `Courier`, never inside an order's
transaction: held through quiet hours, and with a digest sent `digest_minutes` after
they were due together with every other one of the channel not yet sent.

E-mail needs the operator's SMTP server (`SMTP_HOST`, `SMTP_SENDER`); without it the
e-mail channel is refused (409) and the server runs as before. Discord and Slack URLs
go through `egress` like webhooks (public addresses only, unless allowed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any, Literal, cast
from urllib.parse import quote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import aiosmtplib
import httpx

from service.answers import Channel, Channels, QuietHoursShown
from service.clock import rfc3339
from service.referee import egress, members
from service.referee.errors import Conflict, Denied, NotFound
from service.referee.webhooks import owner_of
from service.rules import Malformed
from service.store.models import ChannelRow
from service.store.uow import UnitOfWork

Kind = Literal["email", "discord", "slack"]
KINDS: tuple[Kind, ...] = ("email", "discord", "slack")
DISCORD_CONTENT_MAX = 2000  # Discord's limit on `content`
TEST_TYPE = "game.test"  # the payload type of a "send a test" message
EMAIL_PATTERN = r"^[^@\s<>,;:\"]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}$"


@dataclass(frozen=True, slots=True)
class Mail:
    """The operator's SMTP server (None of it set: no e-mail channel)."""

    host: str
    port: int
    sender: str
    username: str | None = None
    password: str | None = None
    tls: Literal["none", "starttls", "tls"] = "starttls"
    timeout: float = 10.0


@dataclass(frozen=True, slots=True)
class Setup:
    """What sending to channels needs: the SMTP server (None: no e-mail) and the page's
    public address (links in messages; None: a path on this server)."""

    mail: Mail | None = None
    public_url: str | None = None


# --------------------------------------------------------------------------- quiet hours


def _minute(text: str, path: str) -> int:
    hours, _, minutes = text.partition(":")
    if not (hours.isdigit() and minutes.isdigit() and len(minutes) == 2
            and int(hours) < 24 and int(minutes) < 60):
        raise Malformed("channel/invalid_quiet_hours", f"{path}: expected HH:MM (00:00-23:59)",
                        errors=[(path, "expected HH:MM")])
    return int(hours) * 60 + int(minutes)


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise Malformed("channel/invalid_quiet_hours", f"/quiet_hours/timezone: {name!r} is "
                        "not an IANA time zone",
                        errors=[("/quiet_hours/timezone", "unknown time zone")]) from None


def quiet_until(channel: ChannelRow, now: datetime) -> datetime | None:
    """When the channel's quiet hours end, if `now` is inside them (None: not quiet)."""
    start, end = channel.quiet_from, channel.quiet_to
    if start is None or end is None or start == end:
        return None
    local = now.astimezone(_zone(channel.timezone))
    minute = local.hour * 60 + local.minute
    inside = start <= minute < end if start < end else (minute >= start or minute < end)
    if not inside:
        return None
    wait = (end - minute) % (24 * 60)
    return (local.replace(second=0, microsecond=0) + timedelta(minutes=wait)).astimezone(
        now.tzinfo)


# --------------------------------------------------------------------------- formats


def page_link(setup: Setup, game_id: str) -> str:
    base = (setup.public_url or "").rstrip("/")
    return f"{base}/play/?game={quote(game_id)}"


@dataclass(frozen=True, slots=True)
class Move:
    """One "your move" (or a reminder of one) as a person reads it."""

    game: str
    side: str
    step: str
    deadline: str | None
    link: str
    elapsed: str | None = None  # a deadline reminder: how much of the time has passed
    test: bool = False  # a player's "send a test" (issue 30)

    @property
    def line(self) -> str:
        if self.test:
            return (f"{self.side}: a test message from game {self.game}: your moves will "
                    f"be announced here: {self.link}")
        by = f", deadline {self.deadline}" if self.deadline else ", no deadline"
        what = f"reminder ({self.elapsed} of the time gone), your move" if self.elapsed \
            else "your move"
        return f"{self.side}: {what} in game {self.game} ({self.step}{by}): {self.link}"


def moves_of(payloads: Sequence[Mapping[str, Any]], setup: Setup) -> list[Move]:
    out = []
    for payload in payloads:
        data = payload.get("data") or {}
        awaiting = data.get("awaiting") or {}
        game = str(data.get("game", ""))
        out.append(Move(game=game, side=str(awaiting.get("side", "")),
                        step=str(awaiting.get("step", "")), deadline=data.get("deadline"),
                        link=page_link(setup, game), elapsed=data.get("elapsed"),
                        test=payload.get("type") == TEST_TYPE))
    return out


def subject(moves: Sequence[Move]) -> str:
    if len(moves) == 1 and moves[0].test:
        return f"WiF {moves[0].game}: a test message"
    if len(moves) == 1:
        return f"WiF {moves[0].game}: your move ({moves[0].side}, {moves[0].step})"
    return f"WiF: {len(moves)} moves waiting for you"


def discord_payload(moves: Sequence[Move]) -> dict[str, Any]:
    """A Discord incoming-webhook body: `content` (at most 2,000 characters) and one
    embed per move (at most 10) with its title, link and deadline."""
    text = "\n".join(m.line for m in moves)
    return {"username": "WiF referee",
            "content": text[:DISCORD_CONTENT_MAX],
            "embeds": [{"title": subject([m])[:256], "url": m.link,
                        "description": f"{m.side} must act: {m.step}",
                        "fields": [{"name": "deadline", "value": m.deadline or "none",
                                    "inline": True}]}
                       for m in moves[:10]]}


def slack_payload(moves: Sequence[Move]) -> dict[str, Any]:
    """A Slack incoming-webhook body: `text` (the fallback) and a section block per move
    in mrkdwn, the link as `<url|label>`."""
    return {"text": "\n".join(m.line for m in moves),
            "blocks": [{"type": "section", "text": {
                "type": "mrkdwn",
                "text": f"*{subject([m])}*\nDeadline: {m.deadline or 'none'}\n"
                        f"<{m.link}|Open the game>"}}
                for m in moves[:50]]}


def email_message(moves: Sequence[Move], mail: Mail, to: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = mail.sender
    message["To"] = to
    message["Subject"] = subject(moves)
    message.set_content("\n".join(m.line for m in moves) + "\n")
    return message


# --------------------------------------------------------------------------- sending


async def send(http: httpx.AsyncClient, kind: str, target: str,
               payloads: Sequence[Mapping[str, Any]], setup: Setup, policy: egress.Policy
               ) -> tuple[int | None, str | None]:
    """One attempt to send `payloads` (one message, or a digest) to a channel: the
    receiver's status code (an SMTP reply's for e-mail) and the error (None: sent)."""
    moves = moves_of(payloads, setup)
    if kind == "email":
        if setup.mail is None:
            return None, "no SMTP server is configured (SMTP_HOST)"
        mail = setup.mail
        try:
            errors, reply = await aiosmtplib.send(
                email_message(moves, mail, target), hostname=mail.host, port=mail.port,
                username=mail.username, password=mail.password,
                use_tls=mail.tls == "tls", start_tls=True if mail.tls == "starttls" else False,
                timeout=mail.timeout)
        except aiosmtplib.SMTPException as failure:
            return getattr(failure, "code", None), f"SMTP: {type(failure).__name__}"
        except OSError:
            return None, egress.NO_ANSWER
        return None, (f"refused recipients: {', '.join(errors)}" if errors else None)
    body = discord_payload(moves) if kind == "discord" else slack_payload(moves)
    data = json.dumps(body, separators=(",", ":")).encode()
    try:
        status = await egress.post(http, target, data, {"content-type": "application/json"},
                                   policy)
    except egress.Failed as failure:
        return None, str(failure)
    return status, None if 200 <= status < 300 else f"HTTP {status}"


# --------------------------------------------------------------------------- the API


def shown(channel: ChannelRow) -> Channel:
    quiet: QuietHoursShown | None = None
    if channel.quiet_from is not None and channel.quiet_to is not None:
        quiet = {"from": f"{channel.quiet_from // 60:02d}:{channel.quiet_from % 60:02d}",
                 "to": f"{channel.quiet_to // 60:02d}:{channel.quiet_to % 60:02d}",
                 "timezone": channel.timezone}
    return {"kind": cast(Kind, channel.kind), "target": channel.target, "quiet_hours": quiet,
            "digest_minutes": channel.digest_minutes,
            "state": "disabled" if channel.disabled_at else "active",
            "disabled_at": rfc3339(channel.disabled_at) if channel.disabled_at else None,
            "reason": channel.disabled_reason,
            "failing_since": rfc3339(channel.failing_since) if channel.failing_since
            else None}


async def put(uow: UnitOfWork, game_id: str, token: str, kind: Kind, *, target: str,
              quiet_hours: Mapping[str, object] | None, digest_minutes: int, setup: Setup,
              policy: egress.Policy) -> Channel:
    """Register (or replace) the caller's channel of `kind` (a player's: the GM's
    notices go to its webhook)."""
    member = await members.member(uow, game_id, token)
    if member.player is None:
        raise Denied("channel/players_only", "channels tell a player their move; the game "
                     "master's notices go to its webhook (PUT /webhook)")
    owner = owner_of(member)
    values: dict[str, Any] = {"target": target, "digest_minutes": digest_minutes,
                              "quiet_from": None, "quiet_to": None, "timezone": "UTC"}
    if quiet_hours is not None:
        zone = str(quiet_hours.get("timezone", "UTC"))
        _zone(zone)
        values.update(quiet_from=_minute(str(quiet_hours["from"]), "/quiet_hours/from"),
                      quiet_to=_minute(str(quiet_hours["to"]), "/quiet_hours/to"),
                      timezone=zone)
    if kind == "email":
        if setup.mail is None:
            raise Conflict("channel/email_unavailable", "this server sends no e-mail: its "
                           "operator has set no SMTP server (SMTP_HOST; docs/operating.md, "
                           "Configuration)", errors=[("/kind", "no SMTP server")])
        if not re.fullmatch(EMAIL_PATTERN, target):
            raise Malformed("channel/invalid_target", "an e-mail channel's target is an "
                            "address such as player@example.org",
                            errors=[("/target", "expected an e-mail address")])
    else:
        try:
            await egress.check(target, policy)
        except egress.Failed as refusal:
            raise Malformed("channel/forbidden_destination",
                            f"the {kind} webhook URL is refused: {refusal}; it must be "
                            "http(s) to a host on the public internet",
                            errors=[("/target", str(refusal))]) from None
    await uow.channels.put(game_id, owner, kind, **values)
    found = [c for c in await uow.channels.of_player(game_id, owner) if c.kind == kind]
    return shown(found[0])


async def listed(uow: UnitOfWork, game_id: str, token: str, setup: Setup) -> Channels:
    owner = owner_of(await members.member(uow, game_id, token))
    return {"channels": [shown(c) for c in await uow.channels.of_player(game_id, owner)],
            "email_available": setup.mail is not None}


async def delete(uow: UnitOfWork, game_id: str, token: str, kind: Kind) -> None:
    owner = owner_of(await members.member(uow, game_id, token))
    if not await uow.channels.delete(game_id, owner, kind):
        raise NotFound("channel/not_found", f"you have no {kind} channel")
