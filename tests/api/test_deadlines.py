"""Deadlines (issue 4.6): the GM sets them per step; when one passes the sweeper
applies the default action, once, even with two sweepers at the same time."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
from support import Game, full_game, to_action

from service.clock import utc_now
from service.referee.games import sweep_deadlines


async def _sweep(app: object, seconds_ahead: float) -> int:
    now = utc_now() + timedelta(seconds=seconds_ahead)
    async with app.state.transactions() as uow:  # type: ignore[attr-defined]
        return await sweep_deadlines(uow, now)


async def _reroll_game(client: httpx.AsyncClient) -> Game:
    game = await full_game(client)
    r = await game.admin("deadlines", {"deadlines": {"initiative.reroll": 3600,
                                                     "declare": 600}, "reason": "tempo"})
    assert r.status_code == 200, r.text
    return game


async def test_deadline_shows_in_awaiting_and_fires_the_default(
    client: httpx.AsyncClient, app: object
) -> None:
    game = await _reroll_game(client)
    state = await game.state()
    assert all(a["deadline"] and a["deadline"].endswith("Z") for a in state["awaiting"])
    await _sweep(app, 60)  # not yet due
    assert not [e for e in await game.log() if e["kind"] == "deadline.passed"]
    assert (await game.state())["turn"]["step"] == "initiative.reroll"
    await _sweep(app, 3601)
    log = await game.log()
    passed = [e for e in log if e["kind"] == "deadline.passed"]
    assert len(passed) == 1 and passed[0]["actor"] == "clock"
    answers = [e for e in log if e["kind"] == "initiative.reroll_answered"]
    assert answers and all(e["data"]["demand"] is False and e["actor"] == "clock"
                           for e in answers)
    assert (await game.state())["turn"]["step"] == "initiative.choose"


async def test_two_sweepers_apply_a_default_once(client: httpx.AsyncClient, app: object) -> None:
    game = await _reroll_game(client)
    await asyncio.gather(_sweep(app, 3601), _sweep(app, 3601))
    passed = [e for e in await game.log() if e["kind"] == "deadline.passed"]
    assert len(passed) == 1


async def test_a_paused_game_stops_its_clock(client: httpx.AsyncClient, app: object) -> None:
    game = await _reroll_game(client)
    assert (await game.admin("pause", {"reason": "holiday"})).status_code == 200
    await _sweep(app, 7200)
    assert not [e for e in await game.log() if e["kind"] == "deadline.passed"]
    assert (await game.admin("resume", {})).status_code == 200
    state = await game.state()
    assert state["awaiting"][0]["step"] == "initiative.reroll"


async def test_gm_forces_the_default_now(client: httpx.AsyncClient) -> None:
    game = await _reroll_game(client)
    r = await game.admin("force", {"reason": "the Allies are asleep"})
    assert r.status_code == 200, r.text
    assert r.json()["position"]["step"] == "initiative.choose"
    forced = [e for e in await game.log() if e["kind"] == "default.forced"]
    assert forced[0]["text"].endswith("the Allies are asleep")


async def test_only_the_gm_may_administer(client: httpx.AsyncClient) -> None:
    game = await _reroll_game(client)
    r = await client.post(f"/v1/games/{game.id}/admin/pause", json={},
                          headers=game.players["axis"].headers)
    assert r.status_code == 403
    assert r.json()["type"] == "/problems/auth/gm_only"
    r = await game.admin("deadlines", {"deadlines": {"nonsense": 5}})
    assert r.status_code == 422


async def test_reminders_at_half_and_ninety_percent_of_the_deadline_once_each(
    client: httpx.AsyncClient, app: object
) -> None:
    from service.referee.notifications import enqueue_reminders

    game = await _reroll_game(client)
    allies = game.players["allies"]
    r = await client.put(f"/v1/games/{game.id}/webhook", headers=allies.headers,
                         json={"url": "http://127.0.0.1:9/unused"})
    assert r.status_code == 200
    async def remind(seconds: float) -> list[str]:
        async with app.state.transactions() as uow:  # type: ignore[attr-defined]
            await enqueue_reminders(uow, utc_now() + timedelta(seconds=seconds))
        log = (await client.get(f"/v1/games/{game.id}/webhook/deliveries",
                                headers=allies.headers)).json()["messages"]
        return sorted(m["payload"]["data"]["elapsed"] for m in log if m["kind"] == "reminder")

    assert await remind(600) == []
    assert await remind(1900) == ["50%"]
    assert await remind(3300) == ["50%", "90%"]
    assert await remind(3400) == ["50%", "90%"]


async def test_gm_sets_the_weather_table_for_a_coming_turn(client: httpx.AsyncClient) -> None:
    """RULES-NOTES: the GM may replace the weather table for a coming turn (logged)."""
    game = await _reroll_game(client)
    blizzards = [{"roll": r, "weather": "monsoon", "dice": 4, "supply_path": 2}
                 for r in range(1, 11)]
    bad = await game.admin("weather", {"table": blizzards[:9], "reason": "x"})
    assert bad.status_code == 422
    now = await game.admin("weather", {"table": blizzards, "from_turn": 1})
    assert now.status_code == 422  # only a coming turn
    r = await game.admin("weather", {"table": blizzards, "reason": "winter comes"})
    assert r.status_code == 200, r.text
    state = await game.state(game.players["axis"])
    assert state["game"]["weather_table_from_turn"] == 2
    assert state["game"]["weather_table"][0]["weather"] != "monsoon"  # turn 1 keeps its own
    log = await game.log(game.players["allies"])
    assert log[-1]["kind"] == "weather.table_set" and "winter comes" in log[-1]["text"]


async def test_dice_record_lists_the_chain_commitments_and_rolls(
    client: httpx.AsyncClient,
) -> None:
    """docs/dice.md: the chain committed at creation, then per turn its commitment (the
    chain's anchor for turn 1), its seed once revealed, every roll with its trigger."""
    game = await full_game(client, dice={"mode": "scripted",
                                         "script": {"initiative": [10, 1, 1]}})
    axis = await to_action(game)
    await axis.ok("roll", {"dice": "3d6", "purpose": "listing"})
    r = await client.get(f"/v1/games/{game.id}/dice", headers=game.players["allies"].headers)
    body = r.json()
    assert body["mode"] == "scripted" and body["scripted"] is True
    [chain] = body["chains"]
    assert chain["from_turn"] == 1 and chain["length"] == 1000 and len(chain["anchor"]) == 64
    turn = body["turns"][0]
    assert turn["commitment"] == chain["anchor"] and turn["seed"] is None  # not revealed yet
    purposes = [roll["purpose"] for roll in turn["rolls"]]
    assert purposes == ["initiative", "weather", "roll"]
    assert turn["rolls"][2]["faces"] == 6 and len(turn["rolls"][2]["values"]) == 3
    assert all(len(roll["trigger"]) == 64 for roll in turn["rolls"])
