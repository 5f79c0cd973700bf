"""Every answer has the shape the OpenAPI document gives it (issue 18, item 2): real
answers of a game played over HTTP are validated against their types
(service/referee/answers.py and the rules' views), and none carries a key its type
does not declare, so the document cannot fall behind the code."""

from __future__ import annotations

import types
import typing
from typing import Any, get_args, get_origin

import httpx
import pytest
from pydantic import TypeAdapter
from typing_extensions import is_typeddict

from service import answers
from service.rules.view import StateView
from tests.support import AXIS_FIRST, Game, full_game, play_impulse, start_impulses


def undeclared(value: Any, typ: Any, path: str = "") -> list[str]:
    """The JSON pointers of keys in `value` that its type (followed through lists, dicts,
    unions and nested TypedDicts) does not declare."""
    found: list[str] = []
    options = get_args(typ) if get_origin(typ) in (typing.Union, types.UnionType) else (typ,)
    if any(is_typeddict(t) for t in options) and isinstance(value, dict):
        best: list[str] | None = None
        for t in options:
            if not is_typeddict(t):
                continue
            hints = typing.get_type_hints(t)
            here = [f"{path}/{k}" for k in value if k not in hints]
            for k, v in value.items():
                if k in hints:
                    here += undeclared(v, hints[k], f"{path}/{k}")
            if best is None or len(here) < len(best):
                best = here
        return best or []
    for t in options:
        origin = get_origin(t)
        if origin is list and isinstance(value, list):
            (inner,) = get_args(t)
            for i, item in enumerate(value):
                found += undeclared(item, inner, f"{path}/{i}")
        elif origin is dict and isinstance(value, dict):
            inner = get_args(t)[1]
            for k, item in value.items():
                found += undeclared(item, inner, f"{path}/{k}")
    return found


def conforms(body: Any, typ: Any) -> None:
    TypeAdapter(typ).validate_python(body)
    assert undeclared(body, typ) == []


@pytest.fixture
async def game(client: httpx.AsyncClient) -> Game:
    return await full_game(client, dice=AXIS_FIRST)


async def test_the_answers_of_a_played_game_have_their_documented_shapes(game: Game) -> None:
    c, gid = game.client, game.id
    axis = game.players["axis"]
    conforms((await c.get(f"/v1/games/{gid}", headers=game.gm)).json(), answers.Summary)
    conforms((await c.get("/v1/games", headers=axis.headers)).json(), answers.GameList)
    start = await start_impulses(game)
    side = start["awaiting"][0]["side"]
    r = await game.players[side].order("declare", {"actions": {
        p: "pass" for p in start["awaiting"][0]["powers"]}}, {**start["position"],
                                                               "prev": start["head"]["hash"]})
    assert r.status_code == 201, r.text
    conforms(r.json(), answers.Accepted)
    summary = (await c.get(f"/v1/games/{gid}", headers=game.gm)).json()
    for who in (game.gm, axis.headers):
        r = await c.get(f"/v1/games/{gid}/state", headers=who)
        conforms(r.json(), answers.StateAnswer)
    conforms((await c.get(f"/v1/games/{gid}/log", headers=axis.headers)).json(),
             answers.LogPage)
    conforms((await c.get(f"/v1/games/{gid}/dice", headers=axis.headers)).json(),
             answers.DiceRecord)
    r = await c.get(f"/v1/games/{gid}/export", headers=game.gm)
    conforms(r.json(), answers.Export)
    conforms((await c.get("/v1/server-key")).json(), answers.ServerKeys)
    r = await game.admin("pause", {"reason": "tea"})
    conforms(r.json(), answers.ActOutcome)
    r = await game.admin("resume", {})
    conforms(r.json(), answers.ActOutcome)
    player = game.players["communists"].id
    r = await c.post(f"/v1/games/{gid}/admin/players/{player}/reassign", headers=game.gm)
    conforms(r.json(), answers.SeatReopened)
    assert summary["awaiting"]


async def test_a_dry_run_and_a_resent_order_have_their_shapes(game: Game) -> None:
    start = await start_impulses(game)
    side = start["awaiting"][0]["side"]
    player = game.players[side]
    position = await player.position()
    envelope = player.envelope("declare", {"actions": {
        p: "land" for p in start["awaiting"][0]["powers"]}}, position)
    url = f"/v1/games/{game.id}/orders"
    r = await game.client.post(url, params={"dry_run": "true"}, json=envelope,
                               headers=player.headers)
    assert r.status_code == 200, r.text
    conforms(r.json(), answers.Preview)
    first = await game.client.post(url, json=envelope, headers=player.headers)
    again = await game.client.post(url, json=envelope, headers=player.headers)
    assert again.headers["Idempotent-Replayed"] == "true"
    conforms(again.json(), answers.Accepted)
    assert again.json()["seq"] == first.json()["seq"]


async def test_later_impulses_keep_the_shapes(game: Game) -> None:
    start = await start_impulses(game)
    for _ in range(3):
        side = start["awaiting"][0]["side"]
        start = await play_impulse(game, side, {p: "pass" for p in start["awaiting"][0]["powers"]})
        if start["awaiting"][0]["step"] != "declare":
            break
    for player in game.players.values():
        state = await game.state(player)
        conforms(state, answers.StateAnswer)
        # The walker sees what a type leaves out: the rules' view lacks the server's keys.
        assert set(undeclared(state, StateView)) == {"/supply", "/head", "/webhook"}
