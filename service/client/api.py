"""A small synchronous client for the referee's HTTP API (docs/api.md).

`Client` wraps httpx: one method per route, JSON in and out. Every non-2xx answer
raises `ProblemError`, which carries the server's RFC 9457 problem body (`type`,
`detail`, `errors`), so callers can show the server's own words. Orders are signed
here: `order()` builds the envelope of docs/api.md and signs the RFC 8785 bytes of
its `order` object with the player's Ed25519 key.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import httpx
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.answers import (
    Accepted,
    Channel,
    Channels,
    Created,
    Deliveries,
    DiceRecord,
    Export,
    GameList,
    Joined,
    LogPage,
    Message,
    Outcome,
    PlayerSettings,
    Registered,
    ReorgPlan,
    ServerKeys,
    SideOptions,
    StateAnswer,
    Summary,
    UnitOptions,
    Webhook,
)
from service.crypto import identity, signing
from service.rules.awaiting import Position
from service.rules.events import EventRecord

__all__ = ["Client", "ProblemError", "ServerEvent", "Unanswered", "envelope", "join_body",
           "signed"]

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
# The waits between sends of one signed order that went unanswered (then `Unanswered`).
RESEND_WAITS = (0.5, 2.0, 5.0)
LOG_PAGE = 500


class ProblemError(Exception):
    """The server refused a request; `body` is its problem+json (or a stand-in)."""

    def __init__(self, status: int, body: Mapping[str, Any]) -> None:
        self.status = status
        self.body: dict[str, Any] = dict(body)
        self.type: str = str(body.get("type") or "about:blank")
        self.code: str | None = body.get("code")
        self.detail: str = str(body.get("detail") or body.get("title") or f"HTTP {status}")
        raw_errors = body.get("errors")
        self.errors: list[dict[str, Any]] = (
            [e for e in raw_errors if isinstance(e, dict)] if isinstance(raw_errors, list) else []
        )
        super().__init__(self.detail)

    def lines(self) -> list[str]:
        """The problem for people: detail first, then each offending item."""
        out = [f"{self.detail} ({self.status} {self.code or self.type})"]
        out += [f"  {e.get('path', '?')}: {e.get('message', '')}" for e in self.errors]
        current = self.body.get("current")
        if isinstance(current, dict):
            out.append("  the game is at turn {turn}, impulse {impulse}, step {step}".format(
                turn=current.get("turn"), impulse=current.get("impulse"),
                step=current.get("step")))
        return out


@dataclass(frozen=True, slots=True)
class ServerEvent:
    """One Server-Sent Event: `id`, `event` (the kind), `data` (parsed JSON if it is)."""

    id: str | None
    event: str
    data: Any


def signed(order: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """`{"order", "signature"}`: Ed25519 by `key` over the RFC 8785 bytes of `order`,
    which is sent exactly as signed (docs/api.md, Signed orders)."""
    return {"order": dict(order),
            "signature": signing.sign(key, signing.order_signing_bytes(order))}


def envelope(game: str, player: str, key: Ed25519PrivateKey, kind: str,
             body: Mapping[str, Any], seq: int, position: Mapping[str, Any],
             prev: str) -> dict[str, Any]:
    """The signed order envelope (docs/api.md) for the position and the chain head
    (`prev`, the newest event's hash) the player saw."""
    return signed({
        "game": game, "player": player, "seq": seq, "prev": prev,
        "turn": int(position["turn"]), "impulse": int(position["impulse"]),
        "step": str(position["step"]), "kind": kind, "body": dict(body),
    }, key)


def join_body(game: str, side: str, join_code: str, name: str, key: Ed25519PrivateKey,
              powers: list[str] | None = None) -> dict[str, Any]:
    """The body of `POST /v1/games/{game}/seats/{side}`: the join, signed by the key it
    registers (the RFC 8785 bytes of `{type: "wif-join/1", game, side, name, public_key,
    powers}`), which proves the player holds it."""
    public_key = signing.public_key_text(key)
    joined = identity.join_object(game, side, name, public_key, powers)
    return {"join_code": join_code, "name": name, "public_key": public_key, "powers": powers,
            "signature": signing.sign(key, identity.signing_bytes(joined))}


def _problem(response: httpx.Response) -> ProblemError:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        text = response.text.strip()[:500]
        body = {"type": "about:blank", "status": response.status_code,
                "detail": text or response.reason_phrase or f"HTTP {response.status_code}"}
    return ProblemError(response.status_code, body)


class Unanswered(Exception):
    """A signed order that got no answer, however often it was sent: the server may
    have taken it. Send the same bytes (`sent`) again (`Client.send`); never sign anew."""

    def __init__(self, message: str, sent: bytes) -> None:
        super().__init__(message)
        self.sent = sent


class Client:
    """The referee API over HTTP. `token` is a player's or GM's bearer token."""

    def __init__(self, base_url: str, token: str | None = None,
                 transport: httpx.BaseTransport | None = None,
                 timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self._sleep = sleep
        self._http = httpx.Client(base_url=self.base_url, transport=transport, timeout=timeout)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # ------------------------------------------------------------------ plumbing

    def _headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json, application/problem+json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        headers.update(extra or {})
        return headers

    def request(self, method: str, path: str, *, json_body: Any = None,
                params: Mapping[str, Any] | None = None) -> Any:
        """Send one request; the parsed JSON answer, or ProblemError."""
        response = self._http.request(method, path, json=json_body, params=params,
                                      headers=self._headers())
        if response.status_code >= 400:
            raise _problem(response)
        if not response.content:
            return None
        return response.json()

    def _get(self, path: str, **params: object) -> Any:
        return self.request("GET", path, params=params or None)

    def _post(self, path: str, body: Mapping[str, object]) -> Any:
        return self.request("POST", path, json_body=dict(body))

    # ------------------------------------------------------------------ games and seats

    def create_game(self, name: str, scenario: str | Mapping[str, Any],
                    options: Mapping[str, Any] | None = None,
                    dice: Mapping[str, Any] | None = None) -> Created:
        """POST /v1/games: `{id, gm_token, join_codes}`."""
        return cast(Created, self._post("/v1/games", {
            "name": name,
            "scenario": scenario if isinstance(scenario, str) else dict(scenario),
            "options": dict(options or {}),
            "dice": dict(dice or {"mode": "fair"}),
        }))

    def join(self, game: str, side: str, join_code: str, name: str, key: Ed25519PrivateKey,
             powers: list[str] | None = None) -> Joined:
        """POST /v1/games/{id}/seats/{side}, signed by the key it registers:
        `{player_id, token, side, powers, head}`."""
        return cast(Joined, self._post(f"/v1/games/{game}/seats/{side}",
                                       join_body(game, side, join_code, name, key, powers)))

    def server_keys(self) -> ServerKeys:
        """GET /v1/server-key: the keys the server signs receipts with."""
        return cast(ServerKeys, self._get("/v1/server-key"))

    def games(self, limit: int = 100) -> Iterator[Summary]:
        """Every game the token belongs to (all pages)."""
        after: str | None = None
        while True:
            params: dict[str, object] = {"limit": limit}
            if after:
                params["after"] = after
            page = cast(GameList, self._get("/v1/games", **params))
            yield from page["games"]
            after = page.get("next")
            if not after:
                return

    # ------------------------------------------------------------------ reads

    def summary(self, game: str) -> Summary:
        """GET /v1/games/{id}: status, turn, step, `awaiting`, `position`."""
        return cast(Summary, self._get(f"/v1/games/{game}"))

    def position(self, game: str) -> Position:
        """The current `{turn, impulse, step}` that an order must pin."""
        return self.summary(game)["position"]

    def state(self, game: str) -> StateAnswer:
        """GET /v1/games/{id}/state: the caller's view."""
        return cast(StateAnswer, self._get(f"/v1/games/{game}/state"))

    def log(self, game: str, after: int = 0, limit: int = LOG_PAGE) -> Iterator[EventRecord]:
        """Every event after seq `after`, following the pages to the end."""
        while True:
            page = cast(LogPage, self._get(f"/v1/games/{game}/log", after=after, limit=limit))
            events = page["events"]
            yield from events
            nxt = page.get("next_after")
            if nxt is None or not events:
                return
            after = int(nxt)

    def log_head(self, game: str) -> int:
        """The seq of the newest event."""
        return int(self._get(f"/v1/games/{game}/log", limit=1)["head"])

    def dice(self, game: str) -> DiceRecord:
        return cast(DiceRecord, self._get(f"/v1/games/{game}/dice"))

    def export(self, game: str) -> Export:
        """GET /v1/games/{id}/export: the whole verifiable record."""
        return cast(Export, self._get(f"/v1/games/{game}/export"))

    def stream(self, game: str, last_event_id: str | None = None,
               read_timeout: float | None = 60.0) -> Iterator[ServerEvent]:
        """GET /v1/games/{id}/stream (SSE), from after `last_event_id`. Ends when the server
        closes the stream; the caller reconnects with the last `id` it saw."""
        headers = self._headers({"Accept": "text/event-stream"})
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        timeout = httpx.Timeout(10.0, read=read_timeout)
        with self._http.stream("GET", f"/v1/games/{game}/stream", headers=headers,
                               timeout=timeout) as response:
            if response.status_code >= 400:
                response.read()
                raise _problem(response)
            yield from parse_sse(response.iter_lines())

    def unit_options(self, game: str, unit: str) -> UnitOptions:
        """A unit's legal choices now: modes, moves with cost and path, transport,
        attacks, release, exploitation (docs/api.md "Who must act, and the options")."""
        return cast(UnitOptions, self._get(f"/v1/games/{game}/units/{unit}/options"))

    def side_options(self, game: str, side: str | None = None, *,
                     units: Sequence[str] = (), near: str | None = None, within: int = 0,
                     after: str | None = None, limit: int | None = None) -> SideOptions:
        """A page of a side's units with their legal choices (the caller's own side by
        default), narrowed to `units` or to those within `within` hexes of `near`;
        `next_after` is the next page's `after` (None: the last page)."""
        params: dict[str, object] = {"side": side, "units": ",".join(units) or None,
                                     "near": near, "within": within if near else None,
                                     "after": after, "limit": limit}
        return cast(SideOptions, self._get(f"/v1/games/{game}/options",
                                           **{k: v for k, v in params.items()
                                              if v is not None}))

    def every_side_option(self, game: str, side: str | None = None) -> dict[str, Any]:
        """Every unit of a side with its legal choices, page after page."""
        found: dict[str, Any] = {}
        after = None
        while True:
            page = self.side_options(game, side, after=after, limit=200)
            found.update(page["units"])
            after = page["next_after"]
            if after is None:
                return found

    def reorg_options(self, game: str, unit: str) -> ReorgPlan:
        """Every legal way to reorganize `unit` now, and why not the others (11.18)."""
        return cast(ReorgPlan, self._get(f"/v1/games/{game}/reorg/options", unit=unit))

    # ------------------------------------------------------------------ a player's own

    def settings(self, game: str) -> PlayerSettings:
        return cast(PlayerSettings, self._get(f"/v1/games/{game}/players/me/settings"))

    def set_settings(self, game: str, **changes: object) -> PlayerSettings:
        """PUT /players/me/settings: the settings named change, the others stay."""
        return cast(PlayerSettings, self.request(
            "PUT", f"/v1/games/{game}/players/me/settings", json_body=changes))

    def webhook(self, game: str) -> Webhook:
        return cast(Webhook, self._get(f"/v1/games/{game}/webhook"))

    def set_webhook(self, game: str, url: str, every_event: bool = False) -> Registered:
        """PUT /webhook: register (or replace, or enable again) the caller's receiver;
        the answer carries the signing secret once."""
        return cast(Registered, self.request(
            "PUT", f"/v1/games/{game}/webhook",
            json_body={"url": url, "every_event": every_event}))

    def delete_webhook(self, game: str) -> None:
        self.request("DELETE", f"/v1/games/{game}/webhook")

    def deliveries(self, game: str, limit: int = 100) -> Deliveries:
        """The delivery log of the caller's webhook, newest first."""
        return cast(Deliveries, self._get(f"/v1/games/{game}/webhook/deliveries",
                                          limit=limit))

    def resend(self, game: str, message_id: str) -> Message:
        """Send a message of the delivery log again (a failed or a delivered one)."""
        return cast(Message, self._post(
            f"/v1/games/{game}/webhook/deliveries/{message_id}/resend", {}))

    def channels(self, game: str) -> Channels:
        """The caller's notification channels (e-mail, Discord, Slack; issue 20)."""
        return cast(Channels, self._get(f"/v1/games/{game}/channels"))

    def set_channel(self, game: str, kind: str, target: str, *,
                    quiet_hours: Mapping[str, str] | None = None,
                    digest_minutes: int = 0) -> Channel:
        """PUT /channels/{kind}: register (or replace) a channel: an e-mail address, or
        a Discord or Slack incoming-webhook URL, with quiet hours and a digest."""
        body: dict[str, Any] = {"target": target, "digest_minutes": digest_minutes}
        if quiet_hours is not None:
            body["quiet_hours"] = dict(quiet_hours)
        return cast(Channel, self.request("PUT", f"/v1/games/{game}/channels/{kind}",
                                          json_body=body))

    def delete_channel(self, game: str, kind: str) -> None:
        self.request("DELETE", f"/v1/games/{game}/channels/{kind}")

    # ------------------------------------------------------------------ writes

    def order(self, game: str, player: str, key: Ed25519PrivateKey, kind: str,
              body: Mapping[str, Any], seq: int, position: Mapping[str, Any] | None = None,
              prev: str | None = None) -> Accepted:
        """Sign and send one order (`send`). Without `position` and `prev`, pins the
        game's current position and chain head. The answer carries the server's signed
        `receipt` (a refusal's problem too: `ProblemError.body["receipt"]`)."""
        if position is None or prev is None:
            summary = self.summary(game)
            position = position or summary["position"]
            prev = prev or summary["head"]["hash"]
        return self.send(game, envelope(game, player, key, kind, body, seq, position, prev))

    def send(self, game: str, signed: Mapping[str, Any] | bytes) -> Accepted:
        """POST a signed order; after a timeout, a lost connection, a 5xx or a 429, the
        identical bytes again (`RESENDS` times, waiting longer each time). Never sign
        an order again that the server may have seen: the signature keys its dice, so
        a re-signed order is a new roll (docs/security.md). The server answers a resent
        order it took with the stored answer (`Idempotent-Replayed`). `Unanswered`
        when every try went unanswered: keep the envelope and send it again later."""
        content = signed if isinstance(signed, bytes) else json.dumps(
            dict(signed), separators=(",", ":")).encode()
        headers = self._headers({"Content-Type": "application/json"})
        why = ""
        for attempt, wait in enumerate((*RESEND_WAITS, None)):
            try:
                response = self._http.post(f"/v1/games/{game}/orders", content=content,
                                           headers=headers)
            except httpx.TransportError as error:
                why = f"no answer ({type(error).__name__})"
            else:
                if response.status_code < 500 and response.status_code != 429:
                    if response.status_code >= 400:
                        raise _problem(response)
                    return cast(Accepted, response.json())
                why = f"HTTP {response.status_code}"
                retry = response.headers.get("retry-after", "")
                if wait is not None and retry.isdigit():
                    wait = max(wait, min(float(retry), 30.0))
            if wait is None:
                raise Unanswered(f"the order went unanswered {attempt + 1} times ({why})",
                                 content)
            self._sleep(wait)
        raise AssertionError("unreachable")

    def admin(self, game: str, action: str, reason: str = "",
              **body: object) -> Outcome:
        """POST /v1/games/{id}/admin/{action} with the GM token."""
        return cast(Outcome, self._post(f"/v1/games/{game}/admin/{action}",
                                        {"reason": reason, **body}))


def parse_sse(lines: Iterator[str]) -> Iterator[ServerEvent]:
    """Server-Sent Events from a stream's lines (WHATWG "event stream interpretation"):
    comments (heartbeats) are skipped, `data` lines joined, an event ends at a blank line."""
    event_id: str | None = None
    kind = ""
    data: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                text = "\n".join(data)
                try:
                    parsed: Any = json.loads(text)
                except ValueError:
                    parsed = text
                yield ServerEvent(event_id, kind or "message", parsed)
            kind, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "event":
            kind = value
        elif field == "id" and "\0" not in value:
            event_id = value
