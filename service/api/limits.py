"""Request limits: body size (413) and per-token request rate (429 with Retry-After).

Rates are token buckets kept per process (a token's budget is per process; with N
processes behind a balancer a client gets at most N times the rate, documented in
docs/security.md). Both are plain ASGI middleware, so they cost nothing per route.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import OrderedDict
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.problems import MEDIA_TYPE, Problem


async def _send_problem(send: Send, problem: Problem, path: str) -> None:
    body = json.dumps(problem.body(path)).encode()
    headers = [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode())]
    for key, value in (problem.headers or {}).items():
        headers.append((key.lower().encode(), value.encode()))
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse request bodies over `max_bytes` (by Content-Length, or while streaming)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = Problem(413, "request/too_large",
                          f"the request body is larger than {self.max_bytes} bytes")
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await _send_problem(send, too_big, scope["path"])
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _send_problem(send, too_big, scope["path"])


class _TooLarge(Exception):
    pass


class RateLimit:
    """A token bucket per bearer token (or per client address without one)."""

    def __init__(self, app: ASGIApp, rate: float, burst: int, max_keys: int = 100_000) -> None:
        self.app = app
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def _key(self, scope: Scope) -> str:
        for key, value in scope.get("headers", []):
            if key == b"authorization":
                return "t:" + hashlib.sha256(value).hexdigest()
        client: Any = scope.get("client")
        return "a:" + (client[0] if client else "?")

    def take(self, key: str, now: float) -> float:
        """Take one request; 0 if allowed, else the seconds until one is available."""
        tokens, stamp = self.buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - stamp) * self.rate)
        if tokens >= 1:
            self.buckets[key] = (tokens - 1, now)
            self.buckets.move_to_end(key)
            if len(self.buckets) > self.max_keys:
                self.buckets.popitem(last=False)
            return 0.0
        self.buckets[key] = (tokens, now)
        return (1 - tokens) / self.rate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.rate <= 0 or not scope["path"].startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        wait = self.take(self._key(scope), time.monotonic())
        if wait > 0:
            retry = str(max(1, math.ceil(wait)))
            await _send_problem(send, Problem(
                429, "request/rate_limited",
                f"too many requests for this token: at most {self.rate:g}/s "
                f"(bursts of {self.burst}); retry after {retry} s",
                headers={"Retry-After": retry}), scope["path"])
            return
        await self.app(scope, receive, send)
