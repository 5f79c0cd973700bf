"""Rules versions (issue 10, docs/game-master.md): `python -m service replay-check`
replays every game in play under the code now running and reports the first diverging
event per game; a diverging game keeps its snapshots and is flagged to its GM."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

import httpx
import pytest
from forge import copy_of, rechain
from gm_support import start_impulses, summary
from sqlalchemy import select
from support import full_game

from service.referee import games as referee_games
from service.referee import imports
from service.referee.audit import replay_check
from service.rules import Event, Malformed, State, events
from service.rules.evolve import EVOLVE
from service.store.models import EventRow, SnapshotRow
from service.verify import PARTIAL, verify_export


async def test_the_divergence_report_finds_a_deliberately_changed_rule(
    client: httpx.AsyncClient, app: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await full_game(client)
    await start_impulses(game)
    state_before = await game.state()
    maker = app.state.sessionmaker  # type: ignore[attr-defined]
    async with maker() as session:
        snapshots = (await session.execute(select(SnapshotRow.seq, SnapshotRow.state).where(
            SnapshotRow.game_id == game.id).order_by(SnapshotRow.seq))).all()
        began = await session.scalar(select(EventRow.seq).where(
            EventRow.game_id == game.id, EventRow.kind == "impulse.began"))

    original = EVOLVE["weather.set"]

    def one_more_die(state: State, e: Event) -> State:  # a "new rules version"
        return original(state, replace(e, data={**e.data, "dice": e.data["dice"] + 1}))

    monkeypatch.setitem(EVOLVE,  # type: ignore[arg-type]
                         "weather.set", one_more_die)
    async with app.state.transactions() as uow:  # type: ignore[attr-defined]
        [checked] = await replay_check(uow, [game.id])
    monkeypatch.undo()
    found = checked.divergence
    assert found is not None
    assert found.seq == began  # the impulse's snapshot is the first to differ
    assert found.after_seq < began and "weather.set" in found.kinds
    assert found.path == "/turn/weather/dice"
    assert found.replayed == found.stored + 1
    assert "diverges at event" in checked.text()

    flag = (await summary(game))["divergence"]
    assert flag["seq"] == began and flag["path"] == "/turn/weather/dice"
    assert "divergence" not in await summary(game, game.players["axis"].headers)
    assert (await game.state())["game"]["divergence"]["seq"] == began
    assert "divergence" not in (await game.state(game.players["axis"]))["game"]
    async with maker() as session:  # nothing was rewritten
        assert (await session.execute(select(SnapshotRow.seq, SnapshotRow.state).where(
            SnapshotRow.game_id == game.id).order_by(SnapshotRow.seq))).all() == snapshots
    after = await game.state(game.players["axis"])
    assert after["turn"] == state_before["turn"]

    async with app.state.transactions() as uow:  # type: ignore[attr-defined]
        [checked] = await replay_check(uow, [game.id])  # the real rules agree again
    assert checked.divergence is None and "stored state)" in checked.text()
    assert (await summary(game))["divergence"] is None


async def test_replay_check_command_reports_each_game(
    client: httpx.AsyncClient, migrated_url: str
) -> None:
    game = await full_game(client)
    await start_impulses(game)
    done = subprocess.run(
        [sys.executable, "-m", "service", "replay-check", "--game", game.id],
        capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "DATABASE_URL": migrated_url})
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"game {game.id}: ok" in done.stdout
    assert "1 game(s) replayed, 0 diverge" in done.stdout


# long: a version-1 game followed from the operator's check to its GM's edit and its export.
async def test_a_game_created_under_rules_version_1_is_told_apart_and_fights_again(
    client: httpx.AsyncClient, app: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/game-master.md "Rules versions": a game begun under rules version 1 (its
    scenario with no combat section: its players reported results) replays as before;
    replay-check says it was created under version 1 and that its land combats are
    refused until its GM sets a combat section, which the GM does (`admin.edit`
    `combat`); `verify` of this release checks its export only in part (exit status 3),
    never decides version-1 events again, and the import refuses it. An event of
    version 1 after one of version 2 fails."""
    monkeypatch.setattr(events, "RULES_VERSION", "1")
    monkeypatch.setattr(referee_games, "RULES_VERSION", "1")
    game = await full_game(client)  # mini: no combat section
    await start_impulses(game)
    monkeypatch.undo()
    assert {e["rules_version"] for e in await game.log()} == {"1"}
    async with app.state.transactions() as uow:  # type: ignore[attr-defined]
        [checked] = await replay_check(uow, [game.id])
    assert checked.divergence is None
    assert "created under rules version 1 (now 2)" in checked.text()
    assert "its scenario has no combat section: land combats are refused until its GM sets " \
           "one (admin.edit `combat`" in checked.text()
    axis = game.players["axis"]
    assert (await game.state(axis))["game"]["combat_results"]["combat"] == "none"

    r = await game.admin("edit", {"combat": {"results": "reported"},
                                  "reason": "as we played before 0.5"})
    assert r.status_code == 200, r.text
    state = await game.state(axis)
    assert state["game"]["combat_results"]["combat"] == "reported"
    assert any(flag.startswith("combat results reported by players")
               for flag in state["game"]["not_modeled"])
    log = await game.log(axis)
    assert log[-1]["rules_version"] == "2" and log[-1]["data"]["combat"]["results"] == \
        "reported"
    async with app.state.transactions() as uow:  # type: ignore[attr-defined]
        [checked] = await replay_check(uow, [game.id])
    assert checked.divergence is None and "no combat section" not in checked.text()
    r = await game.admin("edit", {"combat": {"results": "dice"}, "reason": "typo"})
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "/combat/results"

    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    report = verify_export(export)
    assert report.status == PARTIAL, report.text()
    assert report.unchecked[0].startswith(
        f"replay: {len(log) - 1} events were decided under rules version 1, and this verifier "
        "decides under version 2 only")
    with pytest.raises(Malformed) as refused:
        imports.verify(export)
    assert refused.value.code == "import/verification_failed"

    r = await game.admin("deadlines", {"deadlines": {"declare": 3600}, "reason": "tempo"})
    assert r.status_code == 200, r.text
    honest = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    assert [e["rules_version"] for e in honest["events"][-2:]] == ["2", "2"]
    honest["events"][-1]["rules_version"] = "1"
    forged = verify_export(rechain(copy_of(honest)))
    assert [c.name for c in forged.checks if not c.ok] == ["rules versions"], forged.text()
