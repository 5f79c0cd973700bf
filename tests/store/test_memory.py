"""The per-game caches bounded together (issue 33, service/store/memory.py): past the
limit the games used least recently are forgotten whole, by every cache; a game idle
too long too; and a server with a tiny budget still answers right, rebuilding what it
forgot. The figures are in /readyz."""

from __future__ import annotations

from typing import Any

import httpx
from conftest import local_settings
from support import AXIS_FIRST, full_game, to_action

from service.app import create_app
from service.store.memory import BUDGET, MB, Budget


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _budget(limit: int, idle: float = 1000.0) -> tuple[Budget, list[tuple[str, str]], Clock]:
    budget = Budget(limit, idle)
    clock = Clock()
    budget.clock = clock
    forgotten: list[tuple[str, str]] = []
    for name in ("states", "views"):
        budget.register(name, lambda game, name=name: forgotten.append((name, game)))
    return budget, forgotten, clock


def test_the_least_recently_used_games_go_first_from_every_cache() -> None:
    budget, forgotten, clock = _budget(100)
    budget.keep("a", "states", 40)
    budget.keep("b", "states", 40)
    clock.now = 1
    budget.touch("a")  # b is now the least recently used
    budget.keep("c", "views", 30)
    assert forgotten == [("states", "b"), ("views", "b")]
    assert list(budget.games) == ["a", "c"] and budget.total == 70
    budget.keep("a", "views", 50)  # a grows: c goes, a (in use) stays
    assert [g for _, g in forgotten[2:]] == ["c", "c"] and budget.total == 90
    budget.keep("a", "views", 0)
    assert budget.figures()["by_cache"] == {"states": 40}


def test_a_game_in_use_stays_even_alone_over_the_limit() -> None:
    budget, forgotten, _ = _budget(10)
    budget.keep("huge", "states", 500)
    assert budget.total == 500 and not forgotten
    budget.keep("next", "states", 1)
    assert ("states", "huge") in forgotten and list(budget.games) == ["next"]


def test_an_idle_game_is_forgotten_at_the_next_look() -> None:
    budget, forgotten, clock = _budget(10**9, idle=60)
    budget.keep("old", "states", 10)
    clock.now = 30
    budget.keep("new", "states", 10)
    clock.now = 61
    budget.sweep()
    assert forgotten == [("states", "old"), ("views", "old")]
    assert list(budget.games) == ["new"] and budget.figures()["evicted_games"] == 1


async def test_a_server_with_a_tiny_budget_forgets_games_and_answers_right(
        migrated_url: str) -> None:
    app = create_app(local_settings(migrated_url, rate_limit=0, sweep_interval=0,
                                    cache_mb=1), database_url=migrated_url)
    limit = BUDGET.limit
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                games = [await full_game(c, "dno-demo", dice=AXIS_FIRST) for _ in range(4)]
                views: dict[str, Any] = {}
                for game in games:
                    await to_action(game)
                    views[game.id] = (await game.state())
                for game in games:  # each read again, after the others pushed it out
                    again = await game.state()
                    assert again["game"]["version"] == views[game.id]["game"]["version"]
                    assert again["units"] == views[game.id]["units"]
                ready = (await c.get("/readyz")).json()
        memory = ready["memory"]
        assert memory["limit_bytes"] == 1 * MB and memory["evicted_games"] >= 3
        assert memory["games"] <= 2 and set(memory["by_cache"]) <= {
            "states", "views", "options", "planner"}
        assert "longest_ms" in ready["loop"] and "served" in ready["heavy"]
        assert set(ready["loop"]["collector"]) == {"collections", "longest_ms", "longest_cpu_ms",
                                                   "generation", "over_50ms"}
        assert ready["process"]["rss_bytes"] > ready["process"]["heap_in_use_bytes"] > 0
    finally:
        BUDGET.configure(limit, BUDGET.idle)
