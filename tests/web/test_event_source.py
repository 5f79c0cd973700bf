"""A browser's own EventSource follows a game (issue 23, item 4): Chromium asks for a
stream ticket with the bearer token, opens `new EventSource(ticket.url + "&after=...")`
(no Authorization header, the token in no URL) and receives the next event, named
after its kind, with its seq as the event's id.

Needs /usr/bin/chromium and the playwright package: scripts/install-browser.sh."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from doc_examples import example, runs
from support import AXIS_FIRST, full_game, to_action

try:
    from playwright.async_api import Browser, async_playwright
except ImportError:  # reported by the `browser` fixture as a failure, not a skip
    PLAYWRIGHT_MISSING = True
else:
    PLAYWRIGHT_MISSING = False

CHROMIUM = Path("/usr/bin/chromium")
WAIT_MS = 15_000

OPEN = """async ({game, token}) => {
  const r = await fetch(`/v1/games/${game}/stream/tickets`,
                        {method: "POST", headers: {Authorization: `Bearer ${token}`}});
  const issued = await r.json();
  window.got = [];
  window.opened = false;
  const source = new EventSource(`${issued.url}&after=${issued.head_seq}`);
  window.source = source;
  source.onopen = () => { window.opened = true; };
  source.onmessage = (m) => window.got.push({unnamed: m.data});
  source.addEventListener("dice.rolled", (m) => window.got.push(
    {id: m.lastEventId, type: m.type, data: JSON.parse(m.data)}));
  return {status: r.status, issued};
}"""


async def _until(page: Any, condition: str, timeout: float = WAIT_MS / 1000) -> None:
    """Poll `condition` in the page (wait_for_function would need the 'unsafe-eval'
    the page's Content-Security-Policy rightly refuses)."""
    deadline = time.monotonic() + timeout
    while not await page.evaluate(condition):
        assert time.monotonic() < deadline, f"{condition}: not met in time"
        await asyncio.sleep(0.05)


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    if PLAYWRIGHT_MISSING:
        pytest.fail("the Playwright Python package is missing: run scripts/install-browser.sh "
                    "(never `playwright install`)", pytrace=False)
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-browser.sh (apt chromium)",
                    pytrace=False)
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking"])
        yield launched
        await launched.close()


async def test_the_browsers_event_source_follows_a_game_with_a_ticket(
    live_url: str, browser: Browser,
) -> None:
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await full_game(http, dice=AXIS_FIRST)
        axis = await to_action(game)
        context = await browser.new_context()
        context.set_default_timeout(WAIT_MS)
        try:
            page = await context.new_page()
            requested: list[tuple[str, dict[str, str]]] = []
            page.on("request", lambda request: requested.append(
                (request.url, request.headers)))
            await page.goto(f"{live_url}/play/")
            opened: dict[str, Any] = await page.evaluate(
                OPEN, {"game": game.id, "token": axis.token})
            assert opened["status"] == 201
            head = opened["issued"]["head_seq"]
            await _until(page, "window.opened === true")

            await axis.ok("roll", {"dice": "2d6", "purpose": "seen by EventSource"})
            await _until(page, "window.got.length >= 1")
            got = await page.evaluate("window.got")
            assert len(got) == 1 and got[0]["type"] == "dice.rolled"
            assert got[0]["id"] == str(head + 1)
            assert got[0]["data"]["data"]["label"] == "seen by EventSource"
            await page.evaluate("window.source.close()")
        finally:
            await context.close()
    streams = [(url, headers) for url, headers in requested if "/stream?" in url]
    assert streams and all("authorization" not in h for _, h in streams)
    assert all(axis.token not in url for url, _ in requested)


@runs("docs/api.md", "event-source")
async def test_the_documented_event_source_shows_the_next_roll(
    live_url: str, browser: Browser,
) -> None:
    """docs/api.md's own lines, run by Chromium with `game`, `token`, `lastSeq` and
    `show` defined around them: the next roll is shown."""
    documented = example("docs/api.md", "event-source")
    run = ("async ({game, token, lastSeq}) => {\n  window.shown = [];\n"
           "  const show = (record) => window.shown.push(record);\n"
           f"{documented}\n"
           "  window.opened = false;\n  source.onopen = () => { window.opened = true; };\n"
           "  window.source = source;\n}")
    async with httpx.AsyncClient(base_url=live_url) as http:
        game = await full_game(http, dice=AXIS_FIRST)
        axis = await to_action(game)
        head = (await http.get(f"/v1/games/{game.id}", headers=axis.headers)).json()["head"]
        context = await browser.new_context()
        context.set_default_timeout(WAIT_MS)
        try:
            page = await context.new_page()
            await page.goto(f"{live_url}/play/")
            await page.evaluate(run, {"game": game.id, "token": axis.token,
                                      "lastSeq": head["seq"]})
            await _until(page, "window.opened === true")
            await axis.ok("roll", {"dice": "2d6", "purpose": "shown by the documented lines"})
            await _until(page, "window.shown.length >= 1")
            [record] = await page.evaluate("window.shown")
            assert record["seq"] == head["seq"] + 1 and record["kind"] == "dice.rolled"
            assert record["data"]["label"] == "shown by the documented lines"
            await page.evaluate("window.source.close()")
        finally:
            await context.close()
