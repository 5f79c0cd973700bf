"""JSON numbers are values (RFC 8785, JSON Schema): `2146.0` and `1e3` are the integers
2146 and 1000, as `2146` and `1000` are. Request bodies are parsed so: a number with a
fraction or exponent whose value is whole becomes an int, so an integer field takes
it, and the signed order's canonical bytes (which write it `2146`) do not change.
Strings are never numbers: `"7"` stays a string and an integer field refuses it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute


def _number(text: str) -> float | int:
    value = float(text)
    if math.isfinite(value) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    return value


def loads(body: bytes) -> Any:
    """JSON with whole numbers read as ints."""
    return json.loads(body, parse_float=_number)


class JsonRequest(Request):
    """A request whose JSON body reads whole numbers as ints."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = loads(await self.body())
        return self._json


class JsonRoute(APIRoute):
    """Routes whose bodies are read by `JsonRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            return await handler(JsonRequest(request.scope, request.receive))

        return route
