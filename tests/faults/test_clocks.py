"""One clock (issue 28, item 8; docs/security.md "One clock"): two server processes on
one database, the second's own clock two days ahead (libfaketime, preloaded into that
process alone: its wall clock is wrong everywhere, Python's and the C library's, with
no hook in the server's code). Key waits, deadlines and every `at` come from the
database's clock, so the second process neither lets a key the GM bound without
consent order early nor fires a one-hour deadline; it says at start and in /readyz
that its clock is off."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import libfaketime
import pytest
from conftest import fresh_database
from processes import Server
from support import Game, full_game

from service.crypto import signing

TWO_DAYS = 2 * 86400


@pytest.fixture
async def two_clocks(database_url: str) -> AsyncIterator[tuple[Server, Server]]:
    """A process with a true clock (no sweeper) and one two days ahead (sweeping every
    0.1 s), on a database of their own (the sweeper sweeps every game in it)."""
    _, preload = libfaketime.get_reload_information()
    async with fresh_database(database_url, "two_clocks") as url:
        true = Server(url)
        ahead = Server(url, sweep=0.1, env={**preload, "FAKETIME": "+2d"})
        try:
            yield true, ahead
        finally:
            ahead.stop()
            true.stop()


def _stderr(server: Server) -> str:
    server.log.seek(0)
    return server.log.read().decode(errors="replace")


async def _at(game: Game, kind: str) -> list[datetime]:
    return [datetime.fromisoformat(e["at"]) for e in await game.log() if e["kind"] == kind]


async def test_a_process_whose_clock_is_two_days_ahead_keeps_the_databases_time(
    two_clocks: tuple[Server, Server],
) -> None:
    true, ahead = two_clocks
    ready = httpx.get(f"{ahead.url}/readyz").json()
    assert ready["clock"]["ok"] is False
    assert abs(ready["clock"]["skew_seconds"] - TWO_DAYS) < 60
    assert "ahead of the database's" in ready["clock"]["detail"]
    assert "ahead of the database's" in _stderr(ahead)
    assert httpx.get(f"{true.url}/readyz").json()["clock"]["ok"] is True

    async with httpx.AsyncClient(base_url=true.url) as on_true, \
            httpx.AsyncClient(base_url=ahead.url) as on_ahead:
        # A key the GM binds without consent waits key_wait_hours (24) of the
        # database's time: the process two days ahead refuses its order too.
        game = await full_game(on_true)
        allies = game.players["allies"]
        new_key = signing.new_private_key()
        r = await game.admin(f"players/{allies.id}/key", {
            "public_key": signing.public_key_text(new_key), "reason": "lost laptop"})
        assert r.status_code == 200, r.text
        allies.key, allies.client = new_key, on_ahead
        r = await allies.order("initiative.reroll", {"demand": False})
        assert r.status_code == 409, r.text
        assert r.json()["code"] == "order/key_not_yet_effective"

        # A one-hour deadline in one game, a one-second deadline in another: the
        # sweeper two days ahead fires the second when the database's second has
        # passed, and in the same sweeps finds the first not due.
        hour = await full_game(on_true)
        r = await hour.admin("deadlines", {"deadlines": {"initiative.reroll": 3600}})
        assert r.status_code == 200, r.text
        second = await full_game(on_true)
        r = await second.admin("deadlines", {"deadlines": {"initiative.reroll": 1}})
        assert r.status_code == 200, r.text
        limit = time.monotonic() + 30
        while not await _at(second, "deadline.passed"):
            assert time.monotonic() < limit, "the one-second deadline never fired"
            await asyncio.sleep(0.1)
        assert await _at(hour, "deadline.passed") == []

        # Every `at` the process two days ahead wrote is the database's time.
        [fired] = await _at(second, "deadline.passed")
        assert abs(fired - datetime.now(UTC)) < timedelta(minutes=1)
        r = await on_ahead.post("/v1/games", json={"name": "made ahead", "scenario": "dno-demo"})
        assert r.status_code == 201, r.text
        made = Game(on_ahead, r.json()["id"], r.json()["gm_token"], r.json()["join_codes"])
        [created] = await _at(made, "game.created")
        assert abs(created - datetime.now(UTC)) < timedelta(minutes=1)
