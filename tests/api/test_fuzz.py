"""Schemathesis over the whole OpenAPI (bounded examples): no input gives a 500, and
every error is problem+json. Requests run against a live server with real tokens, so
the generated bodies reach validation inside each route. (Schemathesis' own pytest
plugin does not load under pytest 9, so its Hypothesis strategies are driven here.)"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from support import full_game

EXAMPLES = 25


@pytest.fixture(scope="module")
def fuzz_game(live_url: str) -> dict[str, Any]:
    async def make() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=live_url) as client:
            game = await full_game(client)
            return {"id": game.id, "gm": game.gm_token, "player": game.players["axis"].token}

    return asyncio.run(make())


def _operations(live_url: str) -> list[Any]:
    schema = schemathesis.openapi.from_url(f"{live_url}/openapi.json")
    return [result.ok() for result in schema.get_all_operations()]


def test_no_input_gives_a_server_error(live_url: str, fuzz_game: dict[str, Any]) -> None:
    operations = _operations(live_url)
    assert len(operations) >= 15
    failures: list[str] = []
    for operation in operations:
        if operation.path.endswith("/stream"):
            continue  # an endless SSE response; tests/api/test_stream.py covers it
        failures += _fuzz(operation, live_url, fuzz_game)
    assert failures == []


def _fuzz(operation: Any, live_url: str, fuzz_game: dict[str, Any]) -> list[str]:
    """Run one operation's examples; the failure, if any, as text."""

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def check(case: Any) -> None:
        if "game_id" in (case.path_parameters or {}):
            case.path_parameters["game_id"] = fuzz_game["id"]
        player_route = case.path.endswith(("/orders", "/webhook")) or "/webhook/" in case.path
        token = fuzz_game["player"] if player_route else fuzz_game["gm"]
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        response = case.call(base_url=live_url, timeout=30)
        where = f"{case.method} {case.formatted_path}"
        assert response.status_code < 500, (where, response.text[:300])
        if response.status_code >= 400:
            kind = response.headers.get("content-type") or [""]
            kind = kind[0] if isinstance(kind, list) else kind
            assert kind.startswith("application/problem+json"), (where, kind)
            assert {"type", "title", "status", "detail"} <= set(response.json())

    try:
        check()
    except AssertionError as failure:
        return [f"{operation.method.upper()} {operation.path}: {failure}"]
    return []
