"""Combats the referee decides over HTTP (issue 29), on dno-demo and its tables of our
own making: the odds before the attack (GET /combat/odds, the order's dry run), the
attack decided by the table, the defender's question answered by its own player, the
log in words, `verify` replaying the resolved combats from the export; and a game whose
scenario lets players report results, flagged so in every view and export."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from doc_examples import agrees, example, runs
from support import Game, full_game, start_impulses

from service import clock
from service.verify import verify_export

# The Axis moves first; the combat dice: 3 + 4 = 7.
DICE = {"mode": "scripted", "script": {"initiative": [10, 1, 1], "combat": [3, 4]}}
ATTACK = {"by": "combat", "hex": "1106", "attackers": ["ger-inf-4", "hun-inf-2"]}
WORDS = ("ger-inf-4 4 + hun-inf-2 2 (6) against ussr-inf-3 4 in swamp (4): 6 : 4 -> 3:2, "
         "-1 column swamp -> 1:1")


async def _axis_combat_step(client: httpx.AsyncClient) -> Game:
    game = await full_game(client, "dno-demo", dice=DICE)
    await start_impulses(game)
    await game.players["axis"].ok("declare", {"actions": {
        "germany": "land", "italy": "pass", "japan": "pass"}})
    for _ in range(10):
        entry = (await game.client.get(f"/v1/games/{game.id}", headers=game.gm)).json()[
            "awaiting"][0]
        if (entry["side"], entry["step"]) == ("axis", "combat"):
            return game
        await game.players[entry["side"]].ok("done")
    raise AssertionError("no combat step")


async def _odds(game: Game, who: dict[str, str], attack: dict[str, Any]) -> httpx.Response:
    params: list[tuple[str, str]] = [("by", attack["by"]), ("hex", attack["hex"])]
    params += [("attackers", a) for a in attack["attackers"]]
    return await game.client.get(f"/v1/games/{game.id}/combat/odds", params=params,
                                 headers=who)


@runs("docs/api.md", "combat-resolved", "combat-choice")
async def test_an_attack_is_previewed_decided_answered_and_verified(
    client: httpx.AsyncClient,
) -> None:
    game = await _axis_combat_step(client)
    axis, communists = game.players["axis"], game.players["communists"]
    r = await _odds(game, axis.headers, ATTACK)
    assert r.status_code == 200, r.text
    preview = r.json()
    assert (preview["decided_by"], preview["odds"]["column"], preview["odds"]["text"]) == (
        "table", "1:1", WORDS)
    assert [c["roll"] for c in preview["cells"]] == ["2", "3-4", "5-6", "7", "8-9", "10-11",
                                                     "12"]
    assert preview["cells"][3] == {"roll": "7", "code": "DL1o1",
                                   "results": ["defender_loss 1", "defender_option 1"]}
    assert "of our own making" in preview["table"]
    # Refused as the order would be, and only to the side that would send it.
    far = await _odds(game, axis.headers, {**ATTACK, "attackers": ["ger-inf-1"]})
    assert far.status_code == 409 and far.json()["code"] == "report/not_adjacent"
    assert far.json()["unit"] == "ger-inf-1"
    assert (await _odds(game, game.gm, ATTACK)).status_code == 403
    assert (await _odds(game, communists.headers, ATTACK)).json()["code"] == \
        "order/not_your_turn"
    assert (await _odds(game, axis.headers, {**ATTACK, "attackers": []})).status_code == 422

    reported = await axis.order("report", {"combats": [{**ATTACK, "dice": "2d6"}]})
    assert reported.status_code == 409 and reported.json()["code"] == "report/table_decides"
    await axis.ok("report", {"combats": [ATTACK]})
    log = await game.log()
    resolved = [e for e in log if e["kind"] == "combat.resolved"][-1]
    assert resolved["text"] == (f"axis: combat on 1106: {WORDS}; column 1:1, 2d6 = 7: DL1o1 "
                                "(defender loss 1, defender option 1).")
    assert resolved["data"]["values"] == [3, 4] and resolved["data"]["code"] == "DL1o1"
    assert agrees(example("docs/api.md", "combat-resolved"), resolved["text"]) == []
    rolled = [e for e in log if e["kind"] == "dice.rolled"][-1]
    assert (rolled["data"]["purpose"], rolled["data"]["label"]) == ("combat", "combat on 1106")

    summary = (await client.get(f"/v1/games/{game.id}", headers=communists.headers)).json()
    assert summary["position"]["step"] == "combat.choice"
    entry = summary["awaiting"][0]
    assert (entry["side"], entry["step"], entry["orders"]) == (
        "communists", "combat.choice", ["combat.choose", "standing"])
    assert entry["choices"]["retreat"] == [[], ["1105"], ["1206"], ["1207"]]
    assert entry["combat"]["default"] == ["1206"] and entry["combat"]["zoc"] == ["1105", "1207"]
    assert agrees(json.loads(example("docs/api.md", "combat-choice")), entry) == []
    waiting = await axis.order("done", {})
    assert waiting.status_code == 409
    assert waiting.json()["code"] in ("order/stale", "combat/choice_pending")
    wrong = await communists.order("combat.choose", {"hex": "1106", "retreat": ["1005"]})
    assert wrong.status_code == 409 and wrong.json()["code"] == "combat/not_a_choice"
    await communists.ok("combat.choose", {"hex": "1106", "retreat": ["1207"]})
    state = await game.state()
    unit = state["units"]["ussr-inf-3"]
    assert (unit["at"], unit["steps_lost"], unit["mode"]) == ("1207", 1, "dg")
    assert state["awaiting"][0]["combat"]["kind"] == "advance"
    await axis.ok("combat.choose", {"hex": "1106", "advance": []})
    assert (await game.state())["awaiting"][0]["step"] == "combat"

    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    assert export["combat_results"] == {"overrun": "table", "combat": "table",
                                        "barrage": "table", "naval": "reported"}
    assert export["state"]["game"]["combat_results"] == export["combat_results"]
    report = verify_export(export)
    assert report.ok, report.text()
    assert "combat results: decided by the scenario's tables (overrun, combat, barrage), " \
           "replayed above" in report.text()
    # A resolved combat's die edited in the export: the replay of its order disagrees.
    forged = [e for e in export["events"] if e["kind"] == "combat.resolved"][-1]
    forged["data"]["code"] = "DE"
    failed = [c.name for c in verify_export(export).checks if not c.ok]
    assert "replay" in failed, failed


async def test_a_game_whose_scenario_lets_players_report_is_flagged_everywhere(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client, "modes", dice={"mode": "scripted",
                                                  "script": {"initiative": [10, 1, 1]}})
    state = await game.state(game.players["allies"])
    flags = state["game"]["not_modeled"]
    assert any(f.startswith("combat results reported by players (overrun, combat, barrage")
               for f in flags), flags
    assert state["game"]["combat_results"]["combat"] == "reported"
    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    assert export["combat_results"]["combat"] == "reported"
    text = verify_export(export).text()
    assert "COMBAT RESULTS REPORTED BY PLAYERS" in text


def _clock_on(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The game's clock moved on by `seconds` (the database's clock as this process
    counts on from its sample)."""
    monkeypatch.setattr(clock, "_sample", clock.Sample(
        clock.utc_now() + timedelta(seconds=seconds), time.monotonic(), 0.0))


# long: the clock moved through the question's life, each reading checked on the way.
async def test_a_question_s_deadline_and_reminders_count_from_its_asking(
    client: httpx.AsyncClient, app: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A combat's question has the step's time from when it is asked (docs/api.md
    "Combat choices"): asked 50 minutes into a combat step of one hour, its deadline is
    an hour after the asking, a pause moves it on by the pause's length, and the
    reminders at 50% and 90% count from the asking, not from the step's start."""
    from service.referee.games import sweep_deadlines
    from service.referee.notifications import enqueue_reminders

    game = await _axis_combat_step(client)
    axis, communists = game.players["axis"], game.players["communists"]
    r = await game.admin("deadlines", {"deadlines": {"combat": 3600}, "reason": "tempo"})
    assert r.status_code == 200, r.text
    r = await client.put(f"/v1/games/{game.id}/webhook", headers=communists.headers,
                         json={"url": "http://127.0.0.1:9/unused"})
    assert r.status_code == 200, r.text
    started = datetime.fromisoformat((await game.state())["turn"]["step_started_at"])
    _clock_on(monkeypatch, 3000)
    await axis.ok("report", {"combats": [ATTACK]})
    entry = (await game.state())["awaiting"][0]
    asked = datetime.fromisoformat(entry["combat"]["asked_at"])
    assert entry["step"] == "combat.choice" and asked - started >= timedelta(seconds=3000)
    assert datetime.fromisoformat(entry["deadline"]) == asked + timedelta(seconds=3600)
    # Paused for ten minutes: the question's clock stops with the game's.
    assert (await game.admin("pause", {"reason": "dinner"})).status_code == 200
    _clock_on(monkeypatch, 600)
    assert (await game.admin("resume", {"reason": "back"})).status_code == 200
    entry = (await game.state())["awaiting"][0]
    asked = datetime.fromisoformat(entry["combat"]["asked_at"])
    assert datetime.fromisoformat(entry["deadline"]) == asked + timedelta(seconds=3600)
    assert asked - started >= timedelta(seconds=3600)

    async def remind(after_asking: float) -> list[str]:
        async with app.state.transactions() as uow:
            await enqueue_reminders(uow, asked + timedelta(seconds=after_asking))
        log = (await client.get(f"/v1/games/{game.id}/webhook/deliveries",
                                headers=communists.headers)).json()["messages"]
        return sorted(m["payload"]["data"]["elapsed"] for m in log if m["kind"] == "reminder")

    async def sweep(after_asking: float) -> list[dict[str, Any]]:
        async with app.state.transactions() as uow:
            await sweep_deadlines(uow, asked + timedelta(seconds=after_asking))
        return [e for e in await game.log() if e["kind"] == "combat.answered"]

    # 50% of the step's hour since its start has long passed: no reminder yet.
    assert await remind(1700) == []
    assert await remind(1900) == ["50%"]
    assert await remind(3300) == ["50%", "90%"]
    # The step's hour from its start has passed too: the question still has its own.
    assert await sweep(0) == []
    answered = await sweep(3601)
    assert [(e["data"]["side"], e["data"]["how"]) for e in answered] == [
        ("communists", "default, by clock")]
