"""Helpers for the game master's tests: reach an impulse, read the summary, sweep the
clock at a chosen time."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from support import Game, answer_done_steps
from support import start_impulses as start_impulses  # the GM tests reach impulses with it

from service.clock import utc_now
from service.referee.games import sweep_deadlines


async def summary(game: Game, token_headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}", headers=token_headers or game.gm)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def pass_impulse(game: Game) -> dict[str, Any]:
    """The phasing side passes with every power; the done-steps are answered."""
    s = await summary(game)
    assert s["position"]["step"] == "declare", s
    side = s["phasing_side"]
    powers = s["awaiting"][0]["powers"]
    await game.players[side].ok("declare", {"actions": {p: "pass" for p in powers}})
    return await answer_done_steps(game)


async def sweep(app: object, seconds_ahead: float) -> int:
    """Run the sweeper as if it were `seconds_ahead` seconds from now."""
    now = utc_now() + timedelta(seconds=seconds_ahead)
    async with app.state.transactions() as uow:  # type: ignore[attr-defined]
        return await sweep_deadlines(uow, now)
