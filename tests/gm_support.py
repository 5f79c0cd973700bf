"""Helpers for the game master's tests: reach an impulse, read the summary, sweep the
clock at a chosen time."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from support import Game, answer_done_steps

from service.clock import utc_now
from service.referee.games import sweep_deadlines


async def summary(game: Game, token_headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}", headers=token_headers or game.gm)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def start_impulses(game: Game) -> dict[str, Any]:
    """Answer the reroll window (no) and the choices (first, then before) until the
    first impulse's declaration; the summary then."""
    while True:
        s = await summary(game)
        waiting = s["awaiting"]
        if not waiting or waiting[0]["step"] not in ("initiative.reroll", "initiative.choose"):
            return s
        side = waiting[0]["side"]
        if waiting[0]["step"] == "initiative.reroll":
            await game.players[side].ok("initiative.reroll", {"demand": False})
        else:  # the winner takes the first place, the runner-up goes before the lowest
            r = await game.players[side].order("initiative.choose", {"position": "first"})
            if r.status_code == 422:
                await game.players[side].ok("initiative.choose", {"position": "before"})
            else:
                assert r.status_code == 201, r.text


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
