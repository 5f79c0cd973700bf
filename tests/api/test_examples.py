"""Every example of the OpenAPI document is accepted where it belongs (issue 23, item
5): a dno-demo game created from `CreateGame`'s example and joined with `JoinSeat`'s is
walked through its first turn; each order kind's example is sent at the step its
example names, each GM act's example to its /admin route there, and in a second game
whose GM has a key, each act's example as a signed order of "gm". Only what an example
cannot know is filled in: the game, the signer, its seq and `prev`, the signature, a
player's id, and a join's code, key and signature."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from conftest import documented_hosts
from doc_examples import agrees, example, runs

from service.api.schemas import EXAMPLE_AT
from service.crypto import identity, signing
from service.referee import egress
from service.settings import Settings
from tests.support import Game, Player

GmAct = Callable[[str, dict[str, Any]], Awaitable[httpx.Response]]
ROUTES = {"admin.pause": "pause", "admin.resume": "resume", "admin.end": "end",
          "admin.deadlines": "deadlines", "admin.weather": "weather", "admin.edit": "edit",
          "admin.dropout": "dropout", "admin.act": "act", "admin.force": "force",
          "admin.rollback": "rollback", "admin.rollback_withdraw": "rollback/withdraw",
          "admin.replace_key": "players/{player}/key",
          "admin.reopen_seat": "players/{player}/reassign"}


@pytest.fixture
async def client(migrated_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """An app that resolves the examples' webhook host (and runs no courier)."""
    from service.app import create_app

    settings = Settings(database_url=migrated_url, rate_limit=0, sweep_interval=0)
    app = create_app(settings, database_url=migrated_url)
    async with app.router.lifespan_context(app):
        app.state.egress = egress.Policy(resolver=documented_hosts)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield c


class Examples:
    """The examples of the OpenAPI document, and which were sent and taken."""

    def __init__(self, spec: dict[str, Any]) -> None:
        schemas = spec["components"]["schemas"]
        self.orders = {s["properties"]["kind"]["const"]: s["examples"][0]["order"]
                       if "order" in s["examples"][0] else s["examples"][0]
                       for name, s in schemas.items()
                       if name.endswith("Order") and "examples" in s and "kind" in s.get(
                           "properties", {})}
        self.bodies = {name: schemas[name]["examples"][0]
                       for name in ("CreateGame", "JoinSeat", "WebhookSettings")}
        self.routes: dict[str, Any] = {}
        for path, operations in spec["paths"].items():
            for operation in operations.values():
                content = operation.get("requestBody", {}).get("content", {})
                named = content.get("application/json", {}).get("examples", {})
                if named:
                    self.routes[path] = named["example"]["value"]
        self.taken: set[str] = set()

    def route(self, kind: str) -> dict[str, Any]:
        suffix = "/admin/" + ROUTES[kind].replace("{player}", "{player_id}")
        return dict(next(v for p, v in self.routes.items() if p.endswith(suffix)))


def _order(game: Game, signer: str, seq: int, head: dict[str, Any], position: dict[str, Any],
           example: dict[str, Any]) -> dict[str, Any]:
    """An order example with what it cannot know filled in, its position checked."""
    assert example["turn"] == position["turn"] and example["step"] == position["step"], \
        (example, position)
    if example["step"].startswith("initiative."):
        assert example["impulse"] == 0
    return {**example, "game": game.id, "player": signer, "seq": seq, "prev": head["hash"],
            "impulse": position["impulse"]}


async def _summary(game: Game) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}", headers=game.gm)
    summary: dict[str, Any] = r.json()
    return summary


async def _send(game: Game, player: Player, ex: Examples, kind: str) -> None:
    """The example of `kind`, signed by `player` at the game's position: taken (201)."""
    summary = await _summary(game)
    player.seq += 1
    order = _order(game, player.id, player.seq, summary["head"], summary["position"],
                   ex.orders[kind])
    envelope = {"order": order,
                "signature": signing.sign(player.key, signing.order_signing_bytes(order))}
    r = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                               headers=player.headers)
    assert r.status_code == 201, (kind, r.text)
    ex.taken.add(kind)


def _routes_of(game: Game, ex: Examples) -> GmAct:
    async def act(kind: str, body: dict[str, Any]) -> httpx.Response:
        route = ROUTES[kind]
        if "{player}" in route:
            route = route.replace("{player}", body.pop("player_id"))
        return await game.client.post(f"/v1/games/{game.id}/admin/{route}", json=body,
                                      headers=game.gm)
    return act


def _signed_by_gm(game: Game, ex: Examples) -> GmAct:
    async def act(kind: str, body: dict[str, Any]) -> httpx.Response:
        summary = await _summary(game)
        game.gm_seq += 1
        # A GM act is taken at any position: the example's is replaced by the game's.
        example = {**ex.orders[kind], **summary["position"]}
        order = {**_order(game, "gm", game.gm_seq, summary["head"], summary["position"],
                          example), "body": body}
        envelope = {"order": order, "signature": signing.sign(
            game.gm_key, signing.order_signing_bytes(order))}
        return await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                                      headers=game.gm)
    return act


async def _gm(act: GmAct, ex: Examples, kind: str, signed: bool, **fill: str) -> None:
    body = dict(ex.orders[kind]["body"]) if signed else ex.route(kind)
    for key, value in fill.items():
        if key in body or (not signed and key == "player_id"):
            body[key] = value
    r = await act(kind, body)
    assert r.status_code == (201 if signed else 200), (kind, r.text)
    ex.taken.add(kind)


async def _join(game: Game, ex: Examples, side: str, powers: list[str] | None,
                name: str | None = None) -> Player:
    player = Player(game.client, game.id, side)
    body = dict(ex.bodies["JoinSeat"]) if name is None else {"name": name, "powers": powers}
    body.setdefault("powers", powers)
    public = signing.public_key_text(player.key)
    signed = identity.join_object(game.id, side, body["name"], public, body["powers"])
    body.update(join_code=game.join_codes[side], public_key=public,
                signature=signing.sign(player.key, identity.signing_bytes(signed)))
    r = await game.client.post(f"/v1/games/{game.id}/seats/{side}", json=body)
    assert r.status_code == 201, r.text
    player.id, player.token = r.json()["player_id"], r.json()["token"]
    return player


def _default(entry: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    step, powers = entry["step"], entry["powers"]
    if step == "initiative.reroll":
        return step, {"demand": False}
    if step == "initiative.choose":
        return step, {"position": entry["choices"]["position"][0]}
    if step == "declare":
        return step, {"actions": {p: "pass" for p in powers}}
    if step == "production":
        return step, {"powers": {p: {"bp_spent": 10, "bp_on_rps": 2} for p in powers}}
    if step == "consent":
        return step, {"proposal": 1, "agree": True}
    if step == "combat.choice":
        question = entry["combat"]
        return "combat.choose", {"hex": question["hex"], question["kind"]: question["default"]}
    if step.startswith("air."):  # an ATR mission's window: its default answer
        return entry["orders"][0], dict(entry["air"]["default"])
    return "done", {}


# long: one walk through a whole turn, each example sent where it belongs, in order.
async def _walk(game: Game, ex: Examples, act: GmAct, *, signed: bool, players: bool) -> None:
    by_power: dict[str, Player] = {}
    joined = [(await _join(game, ex, "allies", ["cw", "usa"])),
              (await _join(game, ex, "allies", ["france", "nationalist_china"], "Eve")),
              (await _join(game, ex, "axis", None, "Axel")),
              (await _join(game, ex, "communists", None, "Kim"))]
    for player in joined:
        state = await game.state(player)
        for power in state["me"]["powers"]:
            by_power[power] = player
    for kind in ("admin.pause", "admin.resume", "admin.deadlines", "admin.weather",
                 "admin.edit"):
        await _gm(act, ex, kind, signed)
    sent: set[str] = set()
    for _ in range(120):
        summary = await _summary(game)
        if summary["status"] == "finished" or summary["turn"] > 1:
            break
        entry = summary["awaiting"][0]
        step, side = entry["step"], entry["side"]
        player = by_power[entry["powers"][0]]
        if step == "declare" and side == "communists" and "admin.dropout" not in sent:
            for kind in ("admin.dropout", "admin.act", "admin.force"):
                await _gm(act, ex, kind, signed)
                sent.add(kind)
            r = await act("admin.dropout", {"side": "communists", "dropped": False})
            assert r.status_code == (201 if signed else 200), r.text
            continue
        if step == "production" and "admin.rollback" not in sent:
            await _gm(act, ex, "admin.rollback", signed)
            sent.add("admin.rollback")
            if players:
                await _send(game, by_power["germany"], ex, "consent")
            await _gm(act, ex, "admin.rollback_withdraw", signed)
            continue
        mine = [k for k, (_, at) in EXAMPLE_AT.items() if at == step and k not in sent
                and (k not in ("release", "air.patrol", "air.intercept") or side == "allies")
                and (k not in ("reorg", "air.begin") or side == "axis")
                and k not in ("consent",)]
        if players and step == "air.intercept":  # docs/api.md shows this very entry
            assert agrees(json.loads(example("docs/api.md", "air-window")), entry) == []
        if players and mine and (step != "declare" or side == "axis"):
            for kind in mine:
                await _send(game, by_power[_power_of(ex, kind) or entry["powers"][0]], ex, kind)
                sent.add(kind)
            continue
        own = [p for p in entry["powers"] if by_power[p] is player]
        kind, body = _default({**entry, "powers": own})
        r = await player.order(kind, body)
        assert r.status_code == 201, (entry, r.text)
    allies = joined[0].id, joined[1].id
    await _gm(act, ex, "admin.replace_key", signed, player_id=allies[0])
    await _gm(act, ex, "admin.reopen_seat", signed, player_id=allies[1])
    await _gm(act, ex, "admin.end", signed)


def _power_of(ex: Examples, kind: str) -> str | None:
    body = ex.orders[kind]["body"]
    named = body.get("power") or next(iter(body.get("powers", body.get("actions", {}))), None)
    return named if isinstance(named, str) else None


@runs("docs/api.md", "air-window")
async def test_every_example_is_accepted_where_it_belongs(client: httpx.AsyncClient) -> None:
    ex = Examples((await client.get("/openapi.json")).json())
    r = await client.post("/v1/games", json=ex.bodies["CreateGame"])
    assert r.status_code == 201, r.text
    created = r.json()
    game = Game(client, created["id"], created["gm_token"], created["join_codes"])
    await _walk(game, ex, _routes_of(game, ex), signed=False, players=True)
    assert ex.taken >= set(EXAMPLE_AT), set(EXAMPLE_AT) - ex.taken
    assert ex.taken >= set(ROUTES), set(ROUTES) - ex.taken


async def test_every_gm_act_example_is_accepted_signed(client: httpx.AsyncClient) -> None:
    ex = Examples((await client.get("/openapi.json")).json())
    key = signing.new_private_key()
    r = await client.post("/v1/games", json={**ex.bodies["CreateGame"],
                                             "gm_public_key": signing.public_key_text(key)})
    assert r.status_code == 201, r.text
    created = r.json()
    game = Game(client, created["id"], created["gm_token"], created["join_codes"], gm_key=key)
    await _walk(game, ex, _signed_by_gm(game, ex), signed=True, players=False)
    assert ex.taken >= set(ROUTES), set(ROUTES) - ex.taken


async def test_the_webhook_example_is_accepted(client: httpx.AsyncClient) -> None:
    ex = Examples((await client.get("/openapi.json")).json())
    r = await client.post("/v1/games", json=ex.bodies["CreateGame"])
    game = Game(client, r.json()["id"], r.json()["gm_token"], r.json()["join_codes"])
    player = await _join(game, ex, "allies", None)
    r = await client.put(f"/v1/games/{game.id}/webhook", json=ex.bodies["WebhookSettings"],
                         headers=player.headers)
    assert r.status_code == 200, r.text
