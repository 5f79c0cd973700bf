"""Request limits: body size (413), JSON nesting depth (422) and request rates per client
address and per token (429 with Retry-After, and the IETF draft's RateLimit-Policy and
RateLimit fields on every answer under /v1/).

Rates are token buckets shared by every process through PostgreSQL (or, with
RATE_LIMIT_SHARED=false, kept per process: with N processes behind a balancer a client
then gets up to N times the rate; docs/scaling.md). Both are plain ASGI middleware, so
they cost nothing per route.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.problems import MEDIA_TYPE, Problem, printable
from service.referee import members
from service.referee.rates import Budget, LocalBudget, Verdict


async def _send_problem(send: Send, problem: Problem, path: str) -> None:
    body = json.dumps(printable(problem.body(path))).encode()
    headers = [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode())]
    for key, value in (problem.headers or {}).items():
        headers.append((key.lower().encode(), value.encode()))
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_OPENING = frozenset(b"[{")


def as_utf8(body: bytes) -> bytes | None:
    """`body` in UTF-8, as json.loads reads it (UTF-16 and UTF-32 too), or None: not
    JSON at all, which the parser says."""
    encoding = json.detect_encoding(body)
    if encoding == "utf-8":
        return body
    try:
        return body.decode(encoding, "surrogatepass").encode("utf-8", "surrogatepass")
    except UnicodeError:
        return None


def nests_deeper(body: bytes, limit: int) -> bool:
    """Whether the JSON in `body` nests arrays and objects more than `limit` deep,
    found without parsing it (strings removed by one regular expression, then only the
    brackets counted), so a hostile body costs a scan, not a recursion."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    recoded = as_utf8(body)
    if recoded is None:
        return False
    body = recoded
    depth = 0
    for byte in _STRING.sub(b"", body).translate(None, _NOT_BRACKETS):
        if byte in _OPENING:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


_NUL_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


def first_nul(value: object) -> str | None:
    """The JSON pointer of a string (value or key) in `value` holding a NUL character,
    or None: PostgreSQL cannot store one in text, so no request may carry one."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return where or "/"
        elif isinstance(item, dict):
            for key, inner in item.items():
                at = f"{where}/{str(key).replace('~', '~0').replace('/', '~1')}"
                if isinstance(key, str) and "\x00" in key:
                    return at
                stack.append((at, inner))
        elif isinstance(item, list):
            stack.extend((f"{where}/{i}", inner) for i, inner in enumerate(item))
    return None


def nul_problem(body: bytes) -> Problem | None:
    """A 422 naming the first string that holds a NUL character (written `\\u0000` in
    JSON, the only way a JSON text can carry one), found before the app parses it."""
    if b"\\u0000" not in body:  # the common case (UTF-8), in one scan of the bytes
        recoded = body if body[:1] in (b"{", b"[") else as_utf8(body)
        if recoded is None or recoded is body or b"\\u0000" not in recoded:
            return None
        body = recoded
    if not _NUL_ESCAPE.search(body):
        return None
    try:
        where = first_nul(json.loads(body))
    except ValueError:
        return None  # not JSON: the parser says so
    if where is None:
        return None
    return Problem(422, "request/malformed_body", f"{where}: text may not contain NUL "
                   "(U+0000) characters", errors=[{"path": where, "message": "text may not "
                                                   "contain NUL (U+0000) characters"}])


def nul_in_target(scope: Scope) -> Problem | None:
    """A 422 for a NUL character in the URL's path or query (decoded), naming where."""
    where: list[str] = []
    if "\x00" in scope.get("path", ""):
        where.append("/")
    query = scope.get("query_string", b"")
    if b"%00" in query.lower() or b"\x00" in query:
        where += [f"/{name}" for name, value in parse_qsl(query.decode("latin-1"),
                                                          keep_blank_values=True)
                  if "\x00" in name or "\x00" in value]
    if not where:
        return None
    return Problem(422, "request/invalid_parameter", "a URL may not contain NUL (U+0000) "
                   "characters", errors=[{"path": w, "message": "holds a NUL character"}
                                         for w in where])


# Routes that take a whole scenario or an export (up to MAX_BODY_BYTES): a big body's
# depth and NUL checks are the route's, done off the loop with the parsing
# (service/api/bodies.py). Every other route takes MAX_OTHER_BODY_BYTES.
BIG_BODIES = frozenset({"/v1/games", "/v1/games/import"})
SCANNED_HERE = 64 * 1024  # a body up to this size is scanned here whatever its route


def body_problem(body: bytes, max_depth: int) -> Problem | None:
    """The 422 for a body nesting deeper than `max_depth` or holding a NUL, or None."""
    if nests_deeper(body, max_depth):
        return Problem(422, "request/too_deep",
                       f"the JSON body nests deeper than {max_depth} levels")
    return nul_problem(body)


class BodyLimit:
    """Read a request's whole body before the app sees it: over `max_bytes` for the
    routes that take a scenario or an export (`BIG_BODIES`), over `max_other_bytes` for
    every other route (by Content-Length, or as it arrives) is a 413, JSON nesting
    deeper than `max_depth` a 422 (`request/too_deep`), a NUL character in any text a
    422 naming where; each is answered here, in one short response and no log line,
    before the app sees it. A big body of `BIG_BODIES` is scanned by its route, off the
    loop (a scan of megabytes takes a tenth of a second)."""

    def __init__(self, app: ASGIApp, max_bytes: int, max_depth: int = 64,
                 max_other_bytes: int | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        self.max_other_bytes = min(max_bytes, max_other_bytes or max_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        in_target = nul_in_target(scope)
        if in_target is not None:
            await _send_problem(send, in_target, scope["path"])
            return
        big_route = scope["path"] in BIG_BODIES
        most = self.max_bytes if big_route else self.max_other_bytes
        too_big = Problem(413, "request/too_large",
                          f"the request body is larger than {most} bytes")
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit() and int(value) > most:
                await _send_problem(send, too_big, scope["path"])
                return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before sending its body
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > most:
                await _send_problem(send, too_big, scope["path"])
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        if not big_route or len(body) <= SCANNED_HERE:
            problem = body_problem(body, self.max_depth)
            if problem is not None:
                await _send_problem(send, problem, scope["path"])
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # after the body: the disconnect, for streams
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def quota(rate: float) -> tuple[int, int]:
    """The sustained rate as the draft's whole quota units `q` per window of `w`
    seconds (50/s: 50 per 1 s; 0.1/s: 1 per 10 s)."""
    exact = Fraction(rate).limit_denominator(3600)
    return exact.numerator, exact.denominator


@functools.lru_cache(maxsize=8)
def rate_policy(rate: float, burst: int) -> str:
    """The RateLimit-Policy field (draft-ietf-httpapi-ratelimit-headers): the sustained
    rate and its window, and the burst the bucket holds (`wif-burst`). Made once per
    bucket's settings (every answer under /v1/ carries one)."""
    q, w = quota(rate)
    return f'"default";q={q};w={w};wif-burst={burst}'


def rate_headers(policy: str, verdict: Verdict) -> dict[str, str]:
    """The RateLimit header fields: the policy, and where the caller stands: `r` the
    requests it may send now, `t` the seconds until it may send more (refused) or until
    its bucket is full again."""
    reset = verdict.reset if verdict.allowed else verdict.retry_after
    return {"RateLimit-Policy": policy,
            "RateLimit": f'"default";r={verdict.remaining};t={reset}'}


class RateLimit:
    """Two token buckets a request spends from: its client address's (every request,
    whatever token it sends: many tokens from one address share it) and, when it sends a
    bearer token this process has seen valid (a player's, the GM's or a spectator's),
    that token's own. A made-up token spends only its address's budget; past either
    budget the request is refused before any query.

    The buckets are shared by every process through PostgreSQL (`RATE_LIMIT_SHARED`,
    the default: the app's `rate_budget` and `address_budget`, service.referee.rates,
    leased a few tokens at a time) or kept per process. Every answer under /v1/ says
    where the caller stands in the tighter of its buckets (`rate_headers`: that
    bucket's policy and standing), and a 429 when to come back (`Retry-After`).

    A client that asks again before its Retry-After is up gets its next 429 after
    `pause` seconds (at most `max_paused` requests wait at once; past that they are
    answered at once): one that hammers past its limit, as the attack benchmark's
    attacker does, then sends one request a pause per connection instead of keeping
    the serving loop busy with refusals. A client that waits as told is answered at
    once."""

    def __init__(self, app: ASGIApp, rate: float, burst: int, max_keys: int = 100_000,
                 address_rate: float = 0.0, address_burst: int = 1, pause: float = 0.0,
                 max_paused: int = 256, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.clock = clock
        self.pause = pause
        self.max_paused = max_paused
        self.paused = 0  # requests waiting for their 429 now
        self.paused_total = 0
        self.max_keys = max_keys
        self.come_back: OrderedDict[str, float] = OrderedDict()  # key -> its Retry-After's end
        self.rate = rate
        self.burst = burst
        self.address_rate = address_rate if rate > 0 else 0.0
        self.address_burst = address_burst
        self.local = LocalBudget(rate, burst, max_keys)
        self.local_address = LocalBudget(address_rate, address_burst, max_keys) \
            if self.address_rate > 0 else None

    @staticmethod
    def _token_key(scope: Scope) -> str | None:
        for key, value in scope.get("headers", []):
            if key == b"authorization":
                scheme, _, token = value.decode("latin-1").partition(" ")
                token = token.strip()
                if scheme.lower() == "bearer" and token and members.known_token(token):
                    return "t:" + hashlib.sha256(value).hexdigest()
                break
        return None

    @staticmethod
    def _address_key(scope: Scope) -> str:
        client: Any = scope.get("client")
        return "a:" + (client[0] if client else "?")

    def _budgets(self, scope: Scope) -> tuple[Budget, Budget | None]:
        """The token budget, and the address budget (None: no address limit)."""
        app: Any = scope.get("app")
        state = app.state if app else None
        token: Budget = getattr(state, "rate_budget", None) or self.local
        address: Budget | None = getattr(state, "address_budget", None) or self.local_address
        return token, address if self.address_rate > 0 else None

    def _refused(self, key: str, until: float) -> None:
        self.come_back[key] = until
        self.come_back.move_to_end(key)
        if len(self.come_back) > self.max_keys:
            self.come_back.popitem(last=False)

    async def _pause_if_early(self, key: str, now: float) -> None:
        """Wait `pause` seconds when the key was refused and told to come back later
        than now, unless `max_paused` requests wait already."""
        if self.pause <= 0 or now >= self.come_back.get(key, 0.0) \
                or self.paused >= self.max_paused:
            return
        self.paused += 1
        self.paused_total += 1
        try:
            await asyncio.sleep(self.pause)
        finally:
            self.paused -= 1

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.rate <= 0 or not scope["path"].startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        token_budget, address_budget = self._budgets(scope)
        now = self.clock()
        token_key = self._token_key(scope)
        taken: list[tuple[str, Budget, Verdict]] = []
        if address_budget is not None or token_key is None:
            budget = address_budget or token_budget  # no address limit: the old keying
            taken.append(("this address", budget,
                          await budget.take(self._address_key(scope), now)))
        refused = bool(taken) and not taken[-1][2].allowed  # the token's then stays unspent
        if token_key is not None and not refused:
            taken.append(("this token", token_budget, await token_budget.take(token_key, now)))
        whose, budget, verdict = min(taken, key=lambda t: (t[2].allowed, t[2].remaining))
        headers = rate_headers(rate_policy(budget.rate, budget.burst), verdict)
        if not verdict.allowed:
            key = token_key if whose == "this token" and token_key else \
                self._address_key(scope)
            await self._pause_if_early(key, now)
            self._refused(key, self.clock() + verdict.retry_after)
            retry = str(verdict.retry_after)
            await _send_problem(send, Problem(
                429, "request/rate_limited",
                f"too many requests for {whose}: at most {budget.rate:g}/s "
                f"(bursts of {budget.burst}); retry after {retry} s",
                headers={**headers, "Retry-After": retry}), scope["path"])
            return
        extra = [(k.lower().encode(), v.encode()) for k, v in headers.items()]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
