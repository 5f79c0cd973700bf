"""Hostile input: oversized bodies, deep JSON, huge numbers, unicode edge cases and
request-rate limits. Each gets a clear problem+json answer and changes nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from support import Game, full_game

from service.app import create_app
from service.settings import Settings

PROBLEM = "application/problem+json"


def _problem(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert r.json()["type"] == f"/problems/{code}"


async def test_an_oversized_body_is_413(client: httpx.AsyncClient) -> None:
    body = b'{"name": "' + b"x" * (9 * 1024 * 1024) + b'", "scenario": "dno-demo"}'
    r = await client.post("/v1/games", content=body, headers={"content-type": "application/json"})
    _problem(r, 413, "request/too_large")

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
        for start in range(0, len(body), 1 << 20):
            yield body[start:start + (1 << 20)]

    r = await client.post("/v1/games", content=chunks(),
                          headers={"content-type": "application/json"})
    _problem(r, 413, "request/too_large")


@pytest.mark.parametrize("body", [
    '{"name": "x", "scenario": "dno-demo", "options": {"a": ' + "9" * 5000 + "}}",
    '{"name": "x", "scenario": ',
    "\xff\xfe not json",
])
async def test_unparseable_bodies_are_422(client: httpx.AsyncClient, body: str) -> None:
    r = await client.post("/v1/games", content=body.encode("utf-8", "surrogatepass"),
                          headers={"content-type": "application/json"})
    _problem(r, 422, "request/unparseable_body")


@pytest.mark.parametrize("depth", [65, 600, 2_000, 100_000])
async def test_deep_json_is_refused_before_parsing_with_constant_logs(
    live_url: str, depth: int, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 14, item 5: a signed order nested 600 deep answered 500 and logged a
    3,000-line traceback; 2,000 deep reset the connection. Over real HTTP, each depth
    past the limit (64) is one short 422 and no log line, inside an order, a game's
    options or a bare array, in UTF-8 or UTF-16."""
    async with httpx.AsyncClient(base_url=live_url, timeout=30) as client:
        game = await full_game(client)
        axis = game.players["axis"]
        envelope = axis.envelope("roll", {"dice": "1d6", "purpose": "x", "extra": 1},
                                 await axis.position())
        deep = "[" * depth + "]" * depth
        order = httpx.Request("POST", "/", json=envelope).content.replace(
            b'"extra":1', b'"extra":' + deep.encode())
        options = '{"name": "x", "scenario": "dno-demo", "options": {"a": ' + deep + "}}"
        inside_strings = '{"a": "[[[[", "b": ' + deep + ', "c": "]]]]\\\\"}'
        caplog.clear()
        for path, body, headers in [
            (f"/v1/games/{game.id}/orders", order, axis.headers),
            ("/v1/games", options.encode(), {}),
            ("/v1/games", deep.encode(), {}),
            ("/v1/games", options.encode("utf-16"), {}),
            ("/v1/games", inside_strings.encode(), {}),
        ]:
            r = await client.post(path, content=body,
                                  headers={**headers, "content-type": "application/json"})
            _problem(r, 422, "request/too_deep")
        assert caplog.text == ""
        shallow = ('{"name": "x", "scenario": "dno-demo", "options": {"a": "\\"' + deep
                   + '\\\\", "b": []}}')
        r = await client.post("/v1/games", content=shallow,
                               headers={"content-type": "application/json"})
        _problem(r, 422, "game/invalid_options")  # brackets inside a string are text


@pytest.mark.parametrize("name", ['"\\ud800"', '""', '"' + "x" * 81 + '"', "17", "null"])
async def test_bad_names_are_422(client: httpx.AsyncClient, name: str) -> None:
    """A lone surrogate (escaped in JSON), empty, too long, not a string."""
    body = '{"name": ' + name + ', "scenario": "dno-demo"}'
    r = await client.post("/v1/games", content=body,
                          headers={"content-type": "application/json"})
    _problem(r, 422, "request/malformed_body")


@pytest.mark.parametrize("name", ["Драг нах Остен", "مرحبا", "🎲 1945", "a\u0301\u200d", "名前"])
async def test_unicode_names_round_trip(client: httpx.AsyncClient, name: str) -> None:
    r = await client.post("/v1/games", json={"name": name, "scenario": "dno-demo"})
    assert r.status_code == 201, r.text
    gm = {"Authorization": f"Bearer {r.json()['gm_token']}"}
    summary = (await client.get(f"/v1/games/{r.json()['id']}", headers=gm)).json()
    assert summary["name"] == name


@pytest.fixture
async def game(client: httpx.AsyncClient) -> Game:
    return await full_game(client)


@pytest.mark.parametrize("literal", [b"18446744073709551616", b"-1e400", b"Infinity",
                                     b"NaN", b"1" * 400])
async def test_numbers_without_a_canonical_form_are_refused(game: Game, literal: bytes) -> None:
    """RFC 8785 has no form for these, so no signature can cover them: 422, never 500."""
    axis = game.players["axis"]
    envelope = axis.envelope("report", {"moves": [{"unit": "ger-arm-1", "to": "h31", "mp": 1}]},
                             await axis.position())
    raw = httpx.Request("POST", "/", json=envelope).content.replace(b'"mp":1',
                                                                    b'"mp":' + literal)
    r = await game.client.post(f"/v1/games/{game.id}/orders", content=raw,
                               headers={**axis.headers, "content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["type"] in ("/problems/order/not_canonical",
                                "/problems/request/unparseable_body",
                                "/problems/request/malformed_body")


async def test_huge_seq_and_negative_turn_are_422(game: Game) -> None:
    axis = game.players["axis"]
    position = await axis.position()
    for order_changes, code in (({"seq": 2**63}, "request/malformed_body"),
                                ({"turn": -1}, "request/malformed_body"),
                                ({"kind": "k" * 41}, "order/unknown_kind")):
        envelope = axis.envelope("roll", {"dice": "1d6", "purpose": "x"}, position)
        envelope["order"].update(order_changes)
        r = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                                   headers=axis.headers)
        _problem(r, 422, code)


@pytest.fixture
async def limited(migrated_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    """An app allowing 1 request/s in bursts of 10 per token (no limit per address beside
    it, so made-up tokens spend their address's budget at the same rate), with a count of
    its SQL statements
    (the shared rate buckets' own statements run on an engine of their own)."""
    from conftest import empty_rate_buckets
    from sqlalchemy import event

    await empty_rate_buckets(migrated_url)
    app = create_app(Settings(database_url=migrated_url, rate_limit=1.0, rate_burst=10,
                              rate_limit_address=0, rate_limit_pause=0, sweep_interval=0),
                     database_url=migrated_url)
    async with app.router.lifespan_context(app):
        queries = [0]

        def count(*args: object) -> None:
            queries[0] += 1

        event.listen(app.state.engine.sync_engine, "before_cursor_execute", count)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            yield c, queries


async def test_request_rate_is_limited_per_token(
    limited: tuple[httpx.AsyncClient, Any],
) -> None:
    c, _ = limited
    r = await c.post("/v1/games", json={"name": "rated", "scenario": "dno-demo"})
    gm = {"Authorization": f"Bearer {r.json()['gm_token']}"}
    game = f"/v1/games/{r.json()['id']}"
    assert (await c.get(game, headers=gm)).status_code == 200  # now a known token
    codes = [(await c.get(game, headers=gm)).status_code for _ in range(11)]
    assert codes[:10] == [200] * 10
    _problem(await c.get(game, headers=gm), 429, "request/rate_limited")
    assert int((await c.get(game, headers=gm)).headers["retry-after"]) >= 1
    assert (await c.get("/healthz")).status_code == 200  # probes are not limited


async def test_made_up_tokens_share_their_address_budget_and_cost_no_query(
    limited: tuple[httpx.AsyncClient, Any],
) -> None:
    """Issue 14, item 7: 1,000 requests with rotating made-up tokens each got a fresh
    burst and cost 3-4 queries. A token counts as itself only once it was seen valid;
    until then it spends its client address's budget, and past that it is refused
    before any query. A valid token keeps its own budget throughout."""
    c, queries = limited
    r = await c.post("/v1/games", json={"name": "flooded", "scenario": "dno-demo"})
    gm = {"Authorization": f"Bearer {r.json()['gm_token']}"}
    game = f"/v1/games/{r.json()['id']}"
    assert (await c.get(game, headers=gm)).status_code == 200
    before = queries[0]
    assert (await c.get(game, headers={"Authorization": "Bearer made-up"})).status_code == 401
    one = queries[0] - before  # what one made-up token costs the database
    before = queries[0]
    codes = [(await c.get(game, headers={"Authorization": f"Bearer made-up-{i}"})).status_code
             for i in range(1000)]
    assert codes.count(401) <= 10 and codes.count(429) >= 990, sorted(set(codes))
    # Only the few inside the burst reached the database; every 429 cost nothing.
    assert 0 < one and queries[0] - before <= codes.count(401) * one
    assert (await c.get(game, headers=gm)).status_code == 200


async def test_nul_in_text_is_422_naming_the_field(game: Game) -> None:
    """Issue 14, item 8: a NUL in a signed order's body or in a game's name answered 503
    "database unavailable". Text may not contain NUL (PostgreSQL cannot store it): the
    request is refused when it is validated, naming the field, before any query."""
    axis = game.players["axis"]
    envelope = axis.envelope("roll", {"dice": "1d6", "purpose": "a\u0000b"},
                             await axis.position())
    r = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                               headers=axis.headers)
    _problem(r, 422, "request/malformed_body")
    assert [e["path"] for e in r.json()["errors"]] == ["/order/body/purpose"]
    assert "NUL" in r.json()["detail"]
    for body, path in [
        ({"name": "Drang\u00001945", "scenario": "dno-demo"}, "/name"),
        # A problem never holds a NUL itself: it writes the one it found as \u0000.
        ({"name": "x", "scenario": "dno-demo", "options": {"a\u0000": 1}}, "/options/a\\u0000"),
        ({"name": "x", "scenario": {"sides": [{"id": "ok"}, {"id": "\u0000"}]}},
         "/scenario/sides/1/id"),
    ]:
        r = await game.client.post("/v1/games", json=body)
        _problem(r, 422, "request/malformed_body")
        assert [e["path"] for e in r.json()["errors"]] == [path]
    r = await game.admin("pause", {"reason": "\u0000"})
    _problem(r, 422, "request/malformed_body")
    assert r.json()["errors"][0]["path"] == "/reason"
    # JSON may come in UTF-16 (json.loads reads it): its NUL is found all the same.
    utf16 = json.dumps({"name": "Drang\u00001945", "scenario": "dno-demo"}).encode("utf-16")
    r = await game.client.post("/v1/games", content=utf16,
                               headers={"Content-Type": "application/json"})
    _problem(r, 422, "request/malformed_body")
    assert [e["path"] for e in r.json()["errors"]] == ["/name"]


async def test_an_unexpected_oserror_in_a_use_case_is_a_logged_500(
    app: object, game: Game, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 14, item 8: only a lost database connection is a 503; an OSError of our
    own (a full disk, say) is a bug, answered 500 and logged with its traceback."""
    import errno

    from service.referee import games

    async def broken(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(games, "game_summary", broken)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        r = await client.get(f"/v1/games/{game.id}", headers=game.gm)
    _problem(r, 500, "internal")
    assert "Retry-After" not in r.headers
    logged = [rec for rec in caplog.records if rec.name == "service.api"]
    assert logged and logged[0].exc_info and isinstance(logged[0].exc_info[1], OSError)
