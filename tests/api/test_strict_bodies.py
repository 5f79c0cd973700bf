"""Strict bodies (issue 23, item 1; docs/api.md "Strict bodies"): a key an order's body,
a GM act's body or any request body does not declare is a 422 whose `errors[]` points
at the key, and nothing reaches the log; values are not coerced."""

from __future__ import annotations

import httpx
import pytest

from service.api.schemas import ORDER_EXAMPLES
from service.crypto import signing
from service.rules import ACT_BODIES, ORDER_BODIES
from tests.support import AXIS_FIRST, Game, full_game, start_impulses

PROBLEM = "application/problem+json"


async def _head(game: Game) -> tuple[int, str]:
    r = await game.client.get(f"/v1/games/{game.id}", headers=game.gm)
    head = r.json()["head"]
    return head["seq"], head["hash"]


def _refused(r: httpx.Response, path: str, code: str = "request/unknown_key") -> None:
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert body["code"] == code, body
    assert path in [e["path"] for e in body["errors"]], body


@pytest.fixture
async def game(client: httpx.AsyncClient) -> Game:
    game = await full_game(client, dice=AXIS_FIRST)
    await start_impulses(game)
    return game


async def test_a_misspelt_key_is_refused_naming_it_and_nothing_is_logged(game: Game) -> None:
    """The three reported: `chit` for `chits`, `done {"really": true}`, a roll with extra
    keys. Each was 201 and signed into the log."""
    axis = game.players["axis"]
    before = await _head(game)
    r = await axis.order("declare", {"actions": {"germany": "land"},
                                     "chit": {"germany": {"kind": "land", "hq": "ger-hq"}}})
    _refused(r, "/order/body/chit")
    assert "chit" in r.json()["detail"]
    r = await axis.order("done", {"really": True})
    _refused(r, "/order/body/really")
    r = await axis.order("roll", {"dice": "1d6", "purpose": "x", "luck": 1})
    _refused(r, "/order/body/luck")
    # Deeper down too: a chit's own keys.
    r = await axis.order("declare", {"actions": {"germany": "land"},
                                     "chits": {"germany": {"kind": "land", "hq": "x", "q": 1}}})
    _refused(r, "/order/body/chits/germany/q")
    assert await _head(game) == before


@pytest.mark.parametrize("kind", sorted(ORDER_BODIES))
async def test_every_order_kind_refuses_an_unknown_key(game: Game, kind: str) -> None:
    axis = game.players["axis"]
    before = await _head(game)
    r = await axis.order(kind, {**ORDER_EXAMPLES[kind], "zz": 1})
    _refused(r, "/order/body/zz")
    assert await _head(game) == before


async def test_values_are_not_coerced(game: Game) -> None:
    """A signed "true" is not true and "7" is not 7: strict validation, 422."""
    axis = game.players["axis"]
    r = await axis.order("declare", {"actions": {"germany": 1}})
    _refused(r, "/order/body/actions/germany", "request/malformed_body")
    position = await axis.position()
    envelope = axis.envelope("done", {}, position)
    envelope["order"]["seq"] = str(envelope["order"]["seq"])
    r = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                               headers=axis.headers)
    _refused(r, "/order/seq", "request/malformed_body")


ADMIN_ROUTES: dict[str, str] = {
    "admin.pause": "pause", "admin.resume": "resume", "admin.end": "end",
    "admin.deadlines": "deadlines", "admin.force": "force", "admin.weather": "weather",
    "admin.edit": "edit", "admin.dropout": "dropout", "admin.act": "act",
    "admin.rollback": "rollback", "admin.rollback_withdraw": "rollback/withdraw",
}


@pytest.mark.parametrize("kind", sorted(ADMIN_ROUTES))
async def test_every_admin_body_refuses_an_unknown_key(game: Game, kind: str) -> None:
    before = await _head(game)
    r = await game.admin(ADMIN_ROUTES[kind], {**ORDER_EXAMPLES[kind], "zz": 1})
    _refused(r, "/zz")
    assert await _head(game) == before


async def test_player_admin_bodies_refuse_an_unknown_key(game: Game) -> None:
    player = game.players["axis"].id
    for route, body in (("key", {k: v for k, v in ORDER_EXAMPLES["admin.replace_key"].items()
                                 if k != "player_id"}), ("reassign", {"reason": "x"})):
        r = await game.client.post(f"/v1/games/{game.id}/admin/players/{player}/{route}",
                                   json={**body, "zz": 1}, headers=game.gm)
        _refused(r, "/zz")


async def test_acts_whose_fields_are_all_optional_take_no_body(game: Game) -> None:
    """Issue 23, item 5: pause, resume, end and force need no body at all."""
    for route in ("pause", "resume", "force"):
        r = await game.client.post(f"/v1/games/{game.id}/admin/{route}", headers=game.gm)
        assert r.status_code == 200, (route, r.text)
    r = await game.client.post(f"/v1/games/{game.id}/admin/end", headers=game.gm)
    assert r.status_code == 200, r.text
    assert (await game.state())["game"]["status"] == "finished"


async def test_the_gm_playing_a_side_is_held_to_the_order_kinds_body(game: Game) -> None:
    """`admin.act` carries another order's body: the rules refuse its unknown keys."""
    before = await _head(game)
    r = await game.admin("act", {"side": "communists", "kind": "declare",
                                 "body": {"actions": {"ussr": "pass"}, "chit": {}}})
    _refused(r, "/body/chit", "order/unknown_key")
    assert await _head(game) == before


@pytest.mark.parametrize("kind", sorted(ACT_BODIES))
async def test_a_player_cannot_sign_a_gm_act(game: Game, kind: str) -> None:
    """A GM act signed by a player's key is refused (403), whatever its body."""
    axis = game.players["axis"]
    before = await _head(game)
    body = dict(ORDER_EXAMPLES[kind])
    if "player_id" in body:
        body["player_id"] = axis.id
    r = await axis.order(kind, body)
    assert r.status_code == 403, r.text
    assert r.json()["code"] == "order/gm_only"
    assert await _head(game) == before


async def test_other_request_bodies_are_strict(client: httpx.AsyncClient, game: Game) -> None:
    r = await client.post("/v1/games", json={"name": "x", "scenario": "dno-demo", "colour": 1})
    _refused(r, "/colour")
    r = await client.post("/v1/games", json={"name": "x", "scenario": "dno-demo",
                                             "dice": {"mode": "fair", "seed": "00" * 16}})
    _refused(r, "/dice/seed")
    key = signing.new_private_key()
    r = await client.post(f"/v1/games/{game.id}/seats/axis", json={
        "join_code": "x", "name": "n", "public_key": signing.public_key_text(key),
        "signature": "x", "team": "blue"})
    _refused(r, "/team")
    axis = game.players["axis"]
    r = await client.put(f"/v1/games/{game.id}/webhook", headers=axis.headers,
                         json={"url": "https://example.org/h", "every": True})
    _refused(r, "/every")


def test_every_kind_has_its_example() -> None:
    assert set(ORDER_EXAMPLES) == set(ORDER_BODIES) | set(ACT_BODIES)
