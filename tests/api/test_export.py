"""Export and the offline verifier (`python -m service verify`): a clean game verifies;
tampering with a stored event, a signature or a revealed roll is caught."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from support import AXIS_FIRST, Game, full_game, to_action

from service.verify import verify_export


async def _finished_game(client: httpx.AsyncClient) -> Game:
    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    for i in range(3):
        await axis.ok("roll", {"dice": "2d10", "purpose": f"export check {i}"})
    assert (await game.admin("end", {"reason": "export"})).status_code == 200
    return game


async def _export(game: Game) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}/export", headers=game.gm)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_export_of_a_finished_game_verifies(client: httpx.AsyncClient) -> None:
    export = await _export(await _finished_game(client))
    report = verify_export(export)
    assert report.ok, report.text()
    assert {c.name for c in report.checks} >= {"signatures", "hash chain", "dice seeds",
                                               "replay", "orders"}
    assert len(export["orders"]) == 3 + 2 + 1 + 3  # rerolls, 2 choices, declare, 3 rolls


async def test_verify_command_exits_non_zero_on_a_tampered_event(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    export = await _export(await _finished_game(client))
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(export))
    tampered = copy.deepcopy(export)
    roll = next(e for e in tampered["events"] if e["kind"] == "dice.rolled")
    roll["data"]["values"] = [v % 10 + 1 for v in roll["data"]["values"]]
    bad.write_text(json.dumps(tampered))
    ok = subprocess.run([sys.executable, "-m", "service", "verify", str(good)],
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    failed = subprocess.run([sys.executable, "-m", "service", "verify", str(bad)],
                            capture_output=True, text=True, check=False)
    assert failed.returncode == 1
    assert "FAIL hash chain" in failed.stdout and "FAIL replay" in failed.stdout


async def test_forged_signature_and_forged_roll_are_caught(client: httpx.AsyncClient) -> None:
    export = await _export(await _finished_game(client))
    listed = copy.deepcopy(export)
    listed["orders"][-1]["order"]["body"]["purpose"] = "something else"
    assert [c.name for c in verify_export(listed).checks if not c.ok] == ["orders"]
    applied = copy.deepcopy(export)
    roll = next(c for c in applied["commands"] if c["kind"] == "roll")
    roll["signed"]["order"]["body"]["purpose"] = "something else"
    assert "signatures" in [c.name for c in verify_export(applied).checks if not c.ok]
    wrong_seed = copy.deepcopy(export)
    turn = next(iter(wrong_seed["revealed_seeds"]))
    wrong_seed["revealed_seeds"][turn] = "00" * 32
    assert "dice seeds" in [c.name for c in verify_export(wrong_seed).checks if not c.ok]


async def test_an_event_edited_in_the_database_fails_verification(
    client: httpx.AsyncClient, migrated_url: str
) -> None:
    """Even an operator who bypasses the append-only trigger cannot hide an edit."""
    game = await _finished_game(client)
    engine = create_async_engine(migrated_url)
    async with engine.begin() as connection:
        await connection.execute(text("ALTER TABLE events DISABLE TRIGGER events_no_update_delete"))
        await connection.execute(
            text("UPDATE events SET text = 'nothing happened' WHERE game_id = :g AND seq = 2"),
            {"g": game.id},
        )
        await connection.execute(text("ALTER TABLE events ENABLE TRIGGER events_no_update_delete"))
    await engine.dispose()
    report = verify_export(await _export(game))
    assert [c.name for c in report.checks if not c.ok] == ["hash chain", "replay"]


async def test_players_see_sealed_reroll_answers_withheld_until_the_window_closes(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    axis, allies = game.players["axis"], game.players["allies"]
    await axis.ok("initiative.reroll", {"demand": True})
    allies_view = await game.log(allies)
    answer = [e for e in allies_view if e["kind"] == "initiative.reroll_answered"][0]
    assert answer["data"] == {"side": "axis", "sealed": True}
    gm_view = await game.log()
    gm_answer = [e for e in gm_view if e["kind"] == "initiative.reroll_answered"][0]
    assert gm_answer["data"]["demand"] is True
    assert len(gm_answer["data"]["salt"]) == 64  # so the hash every side sees reveals nothing
    assert gm_answer["hash"] == answer["hash"]
    state = await game.state(allies)
    assert state["initiative"]["reroll_answers"] == {}
    assert state["initiative"]["reroll_answered"] == ["axis"]
