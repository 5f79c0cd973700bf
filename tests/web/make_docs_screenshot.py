"""Refresh docs/play.png, the README's picture of the /play page: the Axis of the
dno-demo scenario in its action step, a unit selected on the map of counters, the hexes
it may reach with their cost, and a move in the report.

Not part of the suite (the file name does not start with test_); run it by name:

    .venv/bin/python -m pytest tests/web/make_docs_screenshot.py

It reuses the browser test's server and browser fixtures, and also saves the picture
and a full-page one under test-artifacts/.
"""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.async_api import Browser, expect
from support import Game, join, scenario
from test_play_page import (  # noqa: F401 (fixtures)
    ARTIFACTS,
    Problems,
    _open,
    browser,
    play_url,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
# The Axis wins the initiative (9) and moves first; fine weather.
DICE = {"mode": "scripted", "script": {"initiative": [9, 3, 1], "weather": [7],
                                       "turn_end": [2, 2]}}


async def test_docs_screenshot(play_url: str, browser: Browser) -> None:  # noqa: F811
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Drang 1945",
                                               "scenario": scenario_of("dno-demo"),
                                               "dice": DICE})
        assert r.status_code == 201, r.text
        created = r.json()
        game = Game(http, created["id"], created["gm_token"], created["join_codes"])
        problems = Problems()
        axis = await _open(browser, problems, "axis", f"{play_url}/play/?game={game.id}")
        await axis.select_option("#join-form [name=side]", "axis")
        await axis.fill("#join-form [name=join_code]", created["join_codes"]["axis"])
        await axis.fill("#join-form [name=name]", "Dave")
        await axis.click("#join-form [name=join]")
        await expect(axis.locator("#seat-badge")).to_contain_text("axis")
        allies = await join(game, "allies")
        await join(game, "communists")

        await axis.click("[name=reroll-no]")
        await allies.ok("initiative.reroll", {"demand": False})
        await axis.click("[name=choose-first]")
        await expect(axis.locator("#my-move")).to_contain_text("Waiting for allies")
        await allies.ok("initiative.choose", {"position": "before"})
        await axis.select_option("[data-form=declare] [name=action-germany]", "land")
        await axis.click("[data-form=declare] [name=declare]")
        await expect(axis.locator("#my-move")).to_have_text("Your move: action")
        await axis.click("#map .stack[data-stack='1003']")
        selected = axis.locator("[data-form=play] .selected-unit")
        await expect(selected).to_contain_text("hexes in reach")
        await axis.locator("#map .reach[data-hex='0803']").click(force=True)
        await axis.click("#map .stack[data-stack='1005']")
        await expect(axis.locator("#map .fan[data-stack='1005']")).to_be_visible()
        await axis.click("#map .fan [data-unit='ger-art-1']")
        await expect(selected).to_contain_text("hexes in reach")
        # The map's card just under the sticky top bar.
        await axis.evaluate("window.scrollTo(0, document.querySelector('.map-card')"
                            ".getBoundingClientRect().top + window.scrollY - 44)")
        await axis.locator("#map .reach:not(.transport)").nth(2).hover(force=True)
        await axis.evaluate("document.activeElement.blur()")
        await expect(axis.locator("#notice")).to_be_hidden(timeout=10_000)
        ARTIFACTS.mkdir(exist_ok=True)
        await axis.screenshot(path=str(DOCS / "play.png"))
        await axis.screenshot(path=str(ARTIFACTS / "play-dno-map.png"))
        await axis.screenshot(path=str(ARTIFACTS / "play-dno-map-full.png"), full_page=True)
        assert problems.seen == []


def scenario_of(name: str) -> object:
    """A test scenario by name, or a bundled one (service/rules/scenario/scenarios) by id."""
    try:
        return scenario(name)
    except FileNotFoundError:
        return name
