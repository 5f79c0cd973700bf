"""The OpenAPI document declares every status and header an operation answers (issue 32,
items 3 and 6): every operation is called, by every kind of caller (no token, another
game's token, a spectator, a player, the GM), over HTTP on a server that limits rates;
each answer's status is one the operation declares, each of the API's own headers it
carries is declared for that status, each header declared required is there, and a
problem carries only the members the `Problem` schema declares (item 2)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import LiveServer, local_settings
from support import Game, full_game

from service.answers import Problem
from service.app import create_app
from tests.api.test_answers import conforms

# The headers the API itself sends (the rest are HTTP's or the server's own).
API_HEADERS = ("ratelimit-policy", "ratelimit", "retry-after", "etag", "idempotent-replayed",
               "www-authenticate")
CALLERS = ("none", "other game", "spectator", "player", "gm")


@pytest.fixture(scope="module")
def server(migrated_url: str) -> Iterator[str]:
    """A real server that limits rates (high enough never to refuse these calls)."""
    app = create_app(local_settings(migrated_url, rate_limit=10_000, rate_burst=100_000,
                                    sweep_interval=0), database_url=migrated_url)
    with LiveServer(app) as url:
        yield url


def _body(operation: dict[str, Any], schemas: dict[str, Any]) -> Any:
    """The operation's example body (its own, or its schema's), `{}` without one."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if content is None:
        return None
    if "examples" in content:
        return next(iter(content["examples"].values()))["value"]
    schema = content["schema"]
    ref = schema.get("$ref") or next((s["$ref"] for s in schema.get("anyOf", [])
                                      if "$ref" in s), None)
    named = schemas[ref.rsplit("/", 1)[-1]] if ref else schema
    return named.get("examples", [{}])[0]


def _calls(spec: dict[str, Any], game: Game) -> Iterator[tuple[str, str, str, Any]]:
    """(operation id, method, URL, body) of every operation, its path filled in."""
    fill = {"game_id": game.id, "side": "axis", "unit": "ger-inf-1", "kind": "email",
            "player_id": game.players["axis"].id, "message_id": "msg_move_none",
            "code": "order/stale", "by": "combat", "hex": "1106", "attackers": "ger-inf-4"}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            url = path.format(**fill)
            required = [p["name"] for p in operation.get("parameters", [])
                        if p["in"] == "query" and p.get("required")]
            if required:
                url += "?" + "&".join(f"{name}={fill[name]}" for name in required)
            yield (operation["operationId"], method.upper(), url,
                   _body(operation, spec["components"]["schemas"]))


async def _tokens(http: httpx.AsyncClient, game: Game, other: Game) -> dict[str, str | None]:
    r = await http.post(f"/v1/games/{game.id}/admin/spectators", json={"name": "Eve"},
                        headers=game.gm)
    assert r.status_code == 201, r.text
    return {"none": None, "other game": other.gm_token, "spectator": r.json()["token"],
            "player": game.players["axis"].token, "gm": game.gm_token}


async def _answer(http: httpx.AsyncClient, method: str, url: str, body: Any,
                  token: str | None) -> httpx.Response:
    """The answer's status and headers (a stream is closed once they are in)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    content = None if body is None else json.dumps(body)
    if content is not None:
        headers["content-type"] = "application/json"
    async with http.stream(method, url, content=content, headers=headers) as r:
        if not r.headers.get("content-type", "").startswith("text/event-stream"):
            await r.aread()
        return r


async def test_every_status_and_header_answered_is_declared(server: str) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        spec = (await http.get("/openapi.json")).json()
        game = await full_game(http, "dno-demo")
        other = await full_game(http, "dno-demo")
        tokens = await _tokens(http, game, other)
        wrong: list[str] = []
        seen: set[tuple[str, str]] = set()
        # The GM last: its acts (ending the game among them) come after every other call.
        for caller in CALLERS:
            for operation, method, url, body in _calls(spec, game):
                r = await _answer(http, method, url, body, tokens[caller])
                declared = _operation(spec, operation)["responses"]
                status = str(r.status_code)
                seen.add((operation, status))
                if status not in declared:
                    wrong.append(f"{operation} as {caller}: {status} is not declared "
                                 f"({r.headers.get('content-type')})")
                    continue
                if r.headers.get("content-type", "").startswith("application/problem+json"):
                    conforms(r.json(), Problem)
                names = {h.lower(): h for h in declared[status].get("headers", {})}
                wrong += [f"{operation} {status} as {caller}: {h} is not declared"
                          for h in API_HEADERS if h in r.headers and h not in names]
                for lower, name in names.items():
                    header = spec["components"]["headers"][name]
                    if header["required"] and lower not in r.headers:
                        wrong.append(f"{operation} {status}: required {name} is missing")
    assert wrong == []
    assert ("game_state", "403") in seen and ("put_webhook", "403") in seen
    print(f"{len(seen)} (operation, status) pairs answered, every one declared")


def _operation(spec: dict[str, Any], operation_id: str) -> dict[str, Any]:
    for operations in spec["paths"].values():
        for operation in operations.values():
            if operation["operationId"] == operation_id:
                found: dict[str, Any] = operation
                return found
    raise KeyError(operation_id)
