"""Heavy requests in worker processes (issue 33, service/referee/offload.py): answered by
another process than the serving one, one in flight per caller (429), a bounded queue
and a time budget (503), each with Retry-After; a worker's refusal is the same problem
as in-process; a worker that dies is replaced."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from conftest import local_settings
from fastapi import Request, Response
from heavy_cases import crash, niceness, refuse, slow
from support import AXIS_FIRST, full_game, to_action

from service.api.auth import heavy
from service.app import create_app
from service.referee import choices, reads
from service.referee.errors import NotFound
from service.referee.offload import Limits, Offload, Overloaded, Throttled, Where
from service.referee.work import Reads
from service.store.database import make_engine, make_sessionmaker
from service.store.games import known_size
from service.store.memory import BUDGET
from service.store.uow import Transactions


@contextlib.asynccontextmanager
async def _offload(url: str, nice: int = 0, **limits: Any) -> AsyncIterator[Offload]:
    engine = make_engine(url, pool_size=1)
    reads = Reads(Transactions(make_sessionmaker(engine)))
    offload = Offload(Where(url, nice=nice), Limits(**limits), reads)
    try:
        yield offload
    finally:
        await offload.stop()
        await engine.dispose()


async def _until(condition: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not met in time"
        await asyncio.sleep(0.02)


async def test_a_case_runs_in_a_worker_process(migrated_url: str) -> None:
    async with _offload(migrated_url) as offload:
        answer = json.loads(await offload.run(slow, 0, "a", caller="t:a"))
        assert answer["tag"] == "a" and answer["pid"] != os.getpid()
        assert offload.pids() == [answer["pid"]]
        assert offload.figures()["served"] == {"done": 1}


async def test_a_worker_yields_the_cores_to_the_serving_process(migrated_url: str) -> None:
    """HEAVY_NICE: on a busy machine the serving process, which answers everyone, runs
    before the heavy work."""
    async with _offload(migrated_url, nice=7) as offload:
        assert int(await offload.run(niceness, caller="t:a")) == min(19, os.nice(0) + 7)


async def test_one_heavy_request_in_flight_per_caller(migrated_url: str) -> None:
    async with _offload(migrated_url, per_caller=1) as offload:
        first = asyncio.create_task(offload.run(slow, 1.0, "first", caller="t:a"))
        await _until(lambda: offload.in_flight)
        with pytest.raises(Throttled) as caught:
            await offload.run(slow, 0, "again", caller="t:a")
        assert caught.value.status == 429 and caught.value.code == "request/heavy_in_flight"
        assert caught.value.headers["Retry-After"]
        other = await offload.run(slow, 0, "other", caller="t:b")  # waits its turn
        assert json.loads(other)["tag"] == "other"
        assert json.loads(await first)["tag"] == "first"
        assert json.loads(await offload.run(slow, 0, "after", caller="t:a"))["tag"] == "after"


async def test_past_the_budget_a_503_and_the_caller_stays_counted_until_done(
        migrated_url: str) -> None:
    async with _offload(migrated_url, budget=0.5) as offload:
        await offload.run(slow, 0, "warm", caller="t:w")  # the worker has started
        with pytest.raises(Overloaded) as caught:
            await offload.run(slow, 2.0, "long", caller="t:a")
        assert caught.value.status == 503 and caught.value.code == "server/too_slow"
        assert caught.value.headers["Retry-After"]
        with pytest.raises(Throttled):  # its request still runs: the attacker waits
            await offload.run(slow, 0, "again", caller="t:a")
        await _until(lambda: not offload.in_flight)
        assert json.loads(await offload.run(slow, 0, "then", caller="t:a"))["tag"] == "then"
        assert offload.figures()["served"]["too_slow"] == 1


async def test_past_the_queue_a_503(migrated_url: str) -> None:
    async with _offload(migrated_url, queue=1) as offload:
        running = asyncio.create_task(offload.run(slow, 1.0, "a", caller="t:a"))
        await _until(lambda: offload.in_flight)
        with pytest.raises(Overloaded) as caught:
            await offload.run(slow, 0, "b", caller="t:b")
        assert caught.value.code == "server/busy" and caught.value.headers["Retry-After"]
        await running


async def test_a_refusal_in_a_worker_is_the_same_refusal(migrated_url: str) -> None:
    async with _offload(migrated_url) as offload:
        with pytest.raises(NotFound) as caught:
            await offload.run(refuse, "thing", caller="t:a")
        error = caught.value
        assert (error.status, error.code, error.detail) == (404, "test/nothing", "no thing")
        assert error.errors == [("/what", "unknown")] and error.extra == {"what": "thing"}


async def test_a_worker_that_dies_is_a_503_and_is_replaced(migrated_url: str) -> None:
    async with _offload(migrated_url) as offload:
        first = json.loads(await offload.run(slow, 0, "a", caller="t:a"))["pid"]
        with pytest.raises(Overloaded):
            await offload.run(crash, caller="t:a")
        again = json.loads(await offload.run(slow, 0, "b", caller="t:a"))["pid"]
        assert again != first
        assert offload.figures()["served"]["crashed"] == 1


async def test_without_workers_the_case_runs_on_the_serving_loop(migrated_url: str) -> None:
    async with _offload(migrated_url, workers=0) as offload:
        answer = json.loads(await offload.run(slow, 0, "here", caller="t:a"))
        assert answer["pid"] == os.getpid() and offload.pids() == []


async def test_the_problems_over_http_carry_retry_after(migrated_url: str) -> None:
    app = create_app(local_settings(migrated_url, rate_limit=0, sweep_interval=0,
                                    heavy_budget=0.5), database_url=migrated_url)

    async def endpoint(request: Request, seconds: float) -> Response:
        return await heavy(request, slow, seconds, "http")

    app.add_api_route("/v1/test-heavy", endpoint)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            first = await c.get("/v1/test-heavy?seconds=0")
            assert first.json().get("tag") == "http", first.text
            slow_one = await c.get("/v1/test-heavy?seconds=2")
            assert slow_one.status_code == 503
            assert slow_one.headers["content-type"].startswith("application/problem+json")
            assert slow_one.json()["code"] == "server/too_slow"
            assert slow_one.headers["retry-after"]
            again = await c.get("/v1/test-heavy?seconds=0")
            assert again.status_code == 429 and again.json()["code"] == \
                "request/heavy_in_flight"
            assert again.headers["retry-after"]
            ready = (await c.get("/readyz")).json()
            assert ready["heavy"]["served"]["too_slow"] == 1
            assert ready["heavy"]["served"]["throttled"] == 1


async def test_a_sides_options_are_computed_by_a_worker(client: httpx.AsyncClient,
                                                       app: Any) -> None:
    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    r = await client.get(f"/v1/games/{game.id}/options", headers=axis.headers)
    assert r.status_code == 200, r.text
    assert r.json()["units"] and app.state.offload.pids()
    assert game.id not in choices._GAMES  # nothing of it computed in this process


async def test_a_big_games_view_is_rendered_by_a_worker(
        client: httpx.AsyncClient, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above `reads.BIG` a view is a heavy request: the same bytes and ETag as rendered
    in the serving process, and 304 for a current copy without a trip to the worker."""
    game = await full_game(client, dice=AXIS_FIRST)
    await to_action(game)
    url = f"/v1/games/{game.id}/state"
    monkeypatch.setattr(reads, "BIG", 0)
    done = app.state.offload.served["done"]
    there = await client.get(url, headers=game.gm)
    assert there.status_code == 200 and app.state.offload.served["done"] == done + 1
    again = await client.get(url, headers={**game.gm, "If-None-Match": there.headers["etag"]})
    assert again.status_code == 304 and app.state.offload.served["done"] == done + 1
    monkeypatch.setattr(reads, "BIG", 10**9)
    here = await client.get(url, headers=game.gm)  # rendered in this process
    assert app.state.offload.served["done"] == done + 1
    assert there.headers["etag"] == here.headers["etag"] and there.json() == here.json()


async def test_a_big_games_orders_and_acts_are_decided_by_a_worker(
        client: httpx.AsyncClient, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above `reads.BIG` an order, its dry run, a refusal and a GM act are decided by a
    worker process (there the final reorganization's default plans every face-down unit,
    11.18: seconds on the largest map, which on a thread would take the interpreter from
    the loop in turns). The answers are this process's; the stream hears the order; the
    identical bytes sent again are the same order."""
    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    url = f"/v1/games/{game.id}/orders"
    transactions = app.state.transactions
    heard: list[tuple[str, int]] = []
    publish = transactions.publish
    monkeypatch.setattr(transactions, "publish",
                        lambda g, s: (heard.append((g, s)), publish and publish(g, s)))
    monkeypatch.setattr(reads, "BIG", 0)
    done = app.state.offload.served["done"]
    position = await axis.position()
    BUDGET.forget(game.id)  # this process holds nothing of it: its row says it is big
    assert known_size(game.id) is None

    envelope = axis.envelope("roll", {"dice": "2d10", "purpose": "test"}, position)
    dry = await client.post(f"{url}?dry_run=true", json=envelope, headers=axis.headers)
    assert dry.status_code == 200 and dry.json()["valid"], dry.text
    assert known_size(game.id) is None  # nothing of it parsed here
    first = await client.post(url, json=envelope, headers=axis.headers)
    assert first.status_code == 201, first.text
    assert heard == [(game.id, first.json()["head"]["seq"])]
    again = await client.post(url, json=envelope, headers=axis.headers)
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json()["head"] == first.json()["head"]
    allies = game.players["allies"]
    refused = await allies.order("done")
    assert refused.status_code == 409, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    pause = await game.admin("pause", {"reason": "a worker decides it"})
    assert pause.status_code == 200, pause.text
    assert app.state.offload.served["done"] == done + 4  # dry run, order, replay, act
    assert (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()["status"] \
        == "paused"


async def test_a_serving_process_never_loads_a_big_games_state(
        client: httpx.AsyncClient, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big game's state lives in a worker only (issue 33: a big map's setup is a third
    of what the cyclic collector walks in a serving process). Its summary, its entry in
    the list of games, its ETag and 304, its log and a stream ticket are answered from
    rows: the summary of the state at the head, which the worker writes on the row with
    each change (service/referee/summaries.py); its view, orders and acts by a worker.
    The summary from the row is the one the state gives."""
    from service.referee.games import summary
    from service.store import games as stored

    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    position = await axis.position()
    monkeypatch.setattr(reads, "BIG", 0)
    BUDGET.forget(game.id)
    base = f"/v1/games/{game.id}"
    done = app.state.offload.served["done"]

    roll = await client.post(f"{base}/orders", headers=axis.headers, json=axis.envelope(
        "roll", {"dice": "2d10", "purpose": "test"}, position))
    assert roll.status_code == 201, roll.text
    head = roll.json()["head"]
    mine = (await client.get(base, headers=axis.headers)).json()
    assert mine["head"] == head and mine["position"] == position and "divergence" not in mine
    # Kept as written (JSON, not JSONB): the page keys its forms on the position's text.
    assert list(mine["position"]) == list(position) == ["turn", "impulse", "step"]
    assert [a["side"] for a in mine["awaiting"]] == ["axis"]
    gms = (await client.get(base, headers=game.gm)).json()
    assert gms == {**mine, "divergence": None}
    listed = (await client.get("/v1/games", headers=game.gm)).json()["games"]
    assert [g for g in listed if g["id"] == game.id] == [mine]
    view = await client.get(f"{base}/state", headers=axis.headers)
    assert view.status_code == 200 and view.json()["game"]["version"] == mine["version"]
    again = await client.get(f"{base}/state",
                             headers={**axis.headers, "If-None-Match": view.headers["etag"]})
    assert again.status_code == 304
    log = await client.get(f"{base}/log", params={"after": head["seq"] - 1},
                           headers=axis.headers)
    assert log.status_code == 200 and log.json()["head"] == head["seq"]
    assert [e["kind"] for e in log.json()["events"]] == ["dice.rolled"]
    ticket = await client.post(f"{base}/stream/tickets", headers=axis.headers)
    assert ticket.status_code == 201 and ticket.json()["head_seq"] == head["seq"]
    pause = await game.admin("pause", {"reason": "a worker decides it"})
    assert pause.status_code == 200, pause.text
    paused = (await client.get(base, headers=axis.headers)).json()
    assert paused["status"] == "paused" and paused["awaiting"] == []
    assert app.state.offload.served["done"] == done + 3  # the order, the view, the act
    assert known_size(game.id) is None and stored._CACHE.setup(game.id) is None

    async with app.state.transactions() as uow:  # the state's own summary
        from_state = summary(await uow.games.get(game.id))
    assert from_state == paused


async def test_a_big_games_deadline_is_swept_by_a_worker(
        client: httpx.AsyncClient, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The serving process's sweep leaves a big game whose deadline passed to a worker,
    which applies its default (the same as the sweep here would)."""
    from datetime import timedelta

    from service.clock import utc_now
    from service.referee.games import sweep, sweep_game

    game = await full_game(client, dice=AXIS_FIRST)
    await to_action(game)
    r = await game.admin("deadlines", {"deadlines": {"action": 60}, "reason": "tempo"})
    assert r.status_code == 200, r.text
    before = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
    later = utc_now() + timedelta(seconds=3600)
    monkeypatch.setattr(reads, "BIG", 0)
    async with app.state.transactions() as uow:
        swept = await sweep(uow, later, leave=reads.big)
    assert swept.applied == 0 and game.id in swept.left
    assert await app.state.offload.run(sweep_game, game.id, later, caller="clock",
                                       affinity=game.id, read=False) == 1
    after = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
    assert after["version"] > before["version"]
    assert after["position"] != before["position"]


async def test_a_big_games_view_is_refused_before_any_read_while_the_caller_waits(
        client: httpx.AsyncClient, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """One heavy request in flight per caller: a big game's state view, even one this
    process has at hand, is a 429 with Retry-After while the caller's previous heavy
    request is not done, and is answered again once it is."""
    from service.referee.offload import caller_of

    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    monkeypatch.setattr(reads, "BIG", 0)
    url = f"/v1/games/{game.id}/state"
    assert (await client.get(url, headers=axis.headers)).status_code == 200
    offload = app.state.offload
    caller = caller_of(axis.token, "127.0.0.1")
    read_view = reads.state_view
    views: list[str] = []

    async def counted(uow: Any, game_id: str, *args: Any, **kwargs: Any) -> Any:
        views.append(game_id)
        return await read_view(uow, game_id, *args, **kwargs)

    monkeypatch.setattr(reads, "state_view", counted)
    offload.in_flight[caller] += 1  # its previous heavy request, still computed
    try:
        refused = await client.get(url, headers=axis.headers)
    finally:
        offload._release(caller)
    assert views == []  # refused before reading anything
    assert refused.status_code == 429 and refused.headers["retry-after"]
    assert refused.json()["code"] == "request/heavy_in_flight"
    assert (await client.get(url, headers=axis.headers)).status_code == 200
    assert views == [game.id]
