"""An order in one call (issue 21, item 1): once a process has read a game and a seat,
a player's order takes one statement (`wif_take_order`, migration 0009) and none
through the session; whenever what the process remembers is out of date, the call
refuses and the order takes the long way, with the same answer it would have had."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from service.crypto import identity, signing
from service.referee import one_call
from service.verify import verify_export
from tests.support import AXIS_FIRST, Game, Player, full_game, to_action

_RECORDING: ContextVar[bool] = ContextVar("recording", default=False)


@pytest.fixture
def statements(app: Any) -> Iterator[list[str]]:
    """The SQL statements the test's requests run on the app's session engine (the one
    call runs on its own pool, so it is not among them). The app's background tasks
    (the deadline sweeper's claim across games, the courier) started with the app, so
    outside the test's context: theirs are left out (on a loaded machine a sweep fell
    inside the test's window)."""
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if _RECORDING.get():
            seen.append(statement)

    engine = app.state.engine.sync_engine
    event.listen(engine, "before_cursor_execute", count)
    token = _RECORDING.set(True)
    try:
        yield seen
    finally:
        _RECORDING.reset(token)
        event.remove(engine, "before_cursor_execute", count)


async def _rolls(player: Player, n: int) -> list[httpx.Response]:
    return [await player.order("roll", {"dice": "2d6", "purpose": "test"}) for _ in range(n)]


async def test_a_seat_and_a_game_at_hand_make_an_order_one_call(
        client: httpx.AsyncClient, statements: list[str]) -> None:
    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    position = await axis.position()
    before = dict(one_call.TAKEN)
    statements.clear()
    for _ in range(5):
        envelope = axis.envelope("roll", {"dice": "2d6", "purpose": "test"}, position)
        r = await client.post(f"/v1/games/{game.id}/orders", json=envelope,
                              headers=axis.headers)
        assert r.status_code == 201, r.text
    assert one_call.TAKEN.get("taken", 0) - before.get("taken", 0) == 5
    assert statements == []  # nothing through the session: the one call did it all
    assert (await game.admin("end", {"reason": "verify"})).status_code == 200
    assert statements  # the control: a GM act goes through the session, and is seen
    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    report = verify_export(export)
    assert report.ok, report.text()


async def _order_after_the_gm(game: Game, client: httpx.AsyncClient,
                              statements: list[str], acts: int = 1
                              ) -> tuple[httpx.Response, dict[str, int], Player]:
    """A roll after `acts` GM acts moved the head without the one call (as another
    process would): its answer, what the one call counted meanwhile (by answer), and
    the player."""
    axis = await to_action(game)
    await _rolls(axis, 1)  # the process now has the game at hand
    for n in range(acts):
        r = await game.admin("deadlines", {"deadlines": {"action": 3600 + n}})
        assert r.status_code == 200, r.text
    position = await axis.position()
    before = dict(one_call.TAKEN)
    statements.clear()
    envelope = axis.envelope("roll", {"dice": "2d6", "purpose": "after"}, position)
    r = await client.post(f"/v1/games/{game.id}/orders", json=envelope, headers=axis.headers)
    assert r.status_code == 201, r.text
    counted = {k: n - before.get(k, 0) for k, n in one_call.TAKEN.items()}
    return r, {k: n for k, n in counted.items() if n}, axis


async def _verified(game: Game, client: httpx.AsyncClient) -> None:
    assert (await game.admin("end", {"reason": "verify"})).status_code == 200
    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    report = verify_export(export)
    assert report.ok, report.text()


async def test_a_head_heard_to_move_is_caught_up_before_the_order_is_decided(
        client: httpx.AsyncClient, statements: list[str]) -> None:
    """The GM's act is hinted (service/store/notify.py, as another process's commit is
    heard): the next order reads the events since the head at hand, folds them and is
    decided once, on the game as it is; no call is wasted on the old head."""
    game = await full_game(client, dice=AXIS_FIRST)
    r, counted, _ = await _order_after_the_gm(game, client, statements)
    assert statements == []
    assert counted == {"caught_up": 1, "taken": 1}
    state = await game.state()
    assert state["deadlines"] == {"action": 3600}
    assert r.json()["head"] == state["head"]
    await _verified(game, client)


async def test_a_head_too_far_ahead_sends_the_order_the_long_way(
        client: httpx.AsyncClient, statements: list[str]) -> None:
    """More than 64 events since the head at hand: not worth folding one by one; the
    order takes the long way, which reads the game, and answers as always."""
    game = await full_game(client, dice=AXIS_FIRST)
    r, counted, axis = await _order_after_the_gm(game, client, statements, acts=65)
    assert counted == {"behind": 1}
    assert r.json()["head"] == (await game.state())["head"]
    before = one_call.TAKEN.get("taken", 0)
    assert (await _rolls(axis, 1))[0].status_code == 201  # and the next is one call again
    assert one_call.TAKEN.get("taken", 0) == before + 1
    await _verified(game, client)


class _Unheard(OrderedDict[str, int]):
    """Every hint lost on the way: nothing is kept."""

    def __setitem__(self, key: str, value: int) -> None:
        pass

    def move_to_end(self, key: str, last: bool = True) -> None:
        pass


async def test_a_head_moved_unheard_is_caught_up_from_the_calls_answer(
        client: httpx.AsyncClient, statements: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The hint has not come (every hint is lost here): the order's call finds the head
    moved and answers the events since; the referee folds them, decides again and
    calls once more. The answer is the long way's, and the game still verifies."""
    monkeypatch.setattr(one_call, "_NEWER", _Unheard())
    game = await full_game(client, dice=AXIS_FIRST)
    r, counted, _ = await _order_after_the_gm(game, client, statements)
    assert statements == []
    assert counted == {"moved": 1, "taken": 1}
    state = await game.state()
    assert state["deadlines"] == {"action": 3600}
    assert r.json()["head"] == state["head"]
    await _verified(game, client)


async def test_an_order_sent_again_gets_its_first_answer(client: httpx.AsyncClient) -> None:
    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    await _rolls(axis, 1)
    envelope = axis.envelope("roll", {"dice": "2d6", "purpose": "twice"}, await axis.position())
    url = f"/v1/games/{game.id}/orders"
    first = await client.post(url, json=envelope, headers=axis.headers)
    again = await client.post(url, json=envelope, headers=axis.headers)
    assert first.status_code == 201 and again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["events"] == first.json()["events"]
    other = dict(envelope)
    other["order"] = {**envelope["order"], "body": {"dice": "1d6", "purpose": "other"}}
    other["signature"] = signing.sign(axis.key, signing.order_signing_bytes(other["order"]))
    r = await client.post(url, json=other, headers=axis.headers)
    assert r.status_code == 409 and r.json()["code"] == "order/seq_reused"


async def test_a_replaced_key_is_not_taken_in_one_call(client: httpx.AsyncClient) -> None:
    """The GM binds a new key (with the player's consent): the process still remembers
    the old one, the call finds the seat changed, and the long way refuses the old key."""
    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    await _rolls(axis, 1)
    new = signing.new_private_key()
    public = signing.public_key_text(new)
    consent = signing.sign(axis.key, identity.signing_bytes(
        identity.consent_object(game.id, axis.id, public)))
    r = await client.post(f"/v1/games/{game.id}/admin/players/{axis.id}/key",
                          json={"public_key": public, "consent": consent}, headers=game.gm)
    assert r.status_code == 200, r.text
    [r] = await _rolls(axis, 1)
    assert r.status_code == 401 and r.json()["code"] == "order/bad_signature"
    axis.key = new
    [r] = await _rolls(axis, 1)
    assert r.status_code == 201, r.text


async def test_your_move_is_queued_by_the_one_call_as_by_the_long_way(
        client: httpx.AsyncClient, game_with_hooks: Game) -> None:
    game = game_with_hooks
    axis = game.players["axis"]
    await _rolls(axis, 1)
    before = dict(one_call.TAKEN)
    r = await axis.order("done")  # the action step ends: another step awaits
    assert r.status_code == 201, r.text
    assert one_call.TAKEN.get("taken", 0) == before.get("taken", 0) + 1
    now = r.json()["position"]
    awaited = {a["side"] for a in r.json()["awaiting"]}
    assert awaited
    for side, player in game.players.items():
        r = await client.get(f"/v1/games/{game.id}/webhook/deliveries",
                             headers=player.headers)
        kinds = [m["kind"] for m in r.json()["messages"]
                 if m["payload"].get("data", {}).get("position") == now]
        assert ("your_move" in kinds) == (side in awaited), (side, kinds)
    r = await client.get(f"/v1/games/{game.id}/webhook/deliveries", headers=game.gm)
    assert any(m["kind"] == "events" for m in r.json()["messages"])


@pytest.fixture
async def game_with_hooks(client: httpx.AsyncClient) -> Game:
    """A game at the Axis's action step whose three players and GM have webhooks (to a
    local address nobody listens on: the messages stay queued, which is all we read)."""
    game = await full_game(client, dice=AXIS_FIRST)
    await to_action(game)
    for who in (*[p.headers for p in game.players.values()], game.gm):
        r = await client.put(f"/v1/games/{game.id}/webhook", headers=who,
                             json={"url": "http://127.0.0.1:9/hook", "every_event": False})
        assert r.status_code == 200, r.text
    return game
