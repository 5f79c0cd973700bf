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
from gm_support import start_impulses, summary
from sqlalchemy import select
from support import full_game

from service.referee.audit import replay_check
from service.rules import Event, State
from service.rules.evolve import EVOLVE
from service.store.models import EventRow, SnapshotRow


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
    assert checked.divergence is None and checked.text().endswith("stored state)")
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
