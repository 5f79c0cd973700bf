"""The page and the heavy requests (issue 33): a unit's legal choices are answered one
at a time per seat, so a second request while one is computed gets 429
`request/heavy_in_flight`; the page asks again a moment later instead of showing the
refusal. Here the server's first answer for the unit is that 429 (Playwright stands in
for it), and the unit's reach still shows on the map, with no error; so is the first
answer for the state view (a big game's is a heavy request), and the page still shows.

Needs /usr/bin/chromium and the playwright package: scripts/install-browser.sh."""

from __future__ import annotations

import json
from typing import Any

import httpx
from test_play_page import browser, play_url  # noqa: F401 (fixtures)
from test_play_turn import (
    DICE,
    OPTIONS,
    SCENARIO,
    Pages,
    axe_source,  # noqa: F401 (fixture)
    everyone_joins,
    initiative,
    my_move,
    select_on_map,
)

try:
    from playwright.async_api import Browser, Route, expect
except ImportError:  # the browser fixture reports it
    pass


async def test_the_page_asks_again_when_its_heavy_request_waits_its_turn(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "heavy", "scenario": SCENARIO,
                                               "dice": DICE, "options": OPTIONS})
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
    pages = Pages(browser, axe_source, play_url)
    players = await everyone_joins(pages, created["id"], created["join_codes"])
    await initiative(players, players)
    axis = players["axis"]
    await my_move(axis, "Your move: declare (germany, italy, japan)")
    await axis.select_option("[data-form=declare] [name=action-germany]", "land")
    await axis.select_option("[data-form=declare] [name=action-italy]", "pass")
    await axis.select_option("[data-form=declare] [name=action-japan]", "pass")
    await axis.click("[data-form=declare] [name=declare]")
    await my_move(axis, "Your move: action")
    asked: list[str] = []

    async def first_in_flight(route: Route) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            await route.fulfill(status=429, headers={"Retry-After": "1"},
                                content_type="application/problem+json", body=json.dumps({
                                    "type": "/problems/request/heavy_in_flight",
                                    "title": "Too many requests", "status": 429,
                                    "code": "request/heavy_in_flight",
                                    "detail": "this caller's previous heavy request is not "
                                              "done yet"}))
        else:
            await route.continue_()

    await axis.route("**/units/*/options", first_in_flight)
    await select_on_map(axis, "1003", "ger-inf-5")
    await expect(axis.locator("#map .reach:not(.transport)").first).to_be_visible()
    assert len(asked) == 2
    await expect(axis.locator("[data-form=play] .selected-unit")).not_to_contain_text(
        "heavy request")

    # A big game's state view is a heavy request too: the page asks again for it.
    communists, states = players["communists"], []

    async def state_in_flight(route: Route) -> None:
        states.append(route.request.url)
        if len(states) == 1:
            await route.fulfill(status=429, headers={"Retry-After": "1"},
                                content_type="application/problem+json", body=json.dumps({
                                    "type": "/problems/request/heavy_in_flight",
                                    "title": "Too many requests", "status": 429,
                                    "code": "request/heavy_in_flight",
                                    "detail": "this caller's previous heavy request is not "
                                              "done yet"}))
        else:
            await route.continue_()

    await communists.route("**/v1/games/*/state", state_in_flight)
    await communists.reload()
    await expect(communists.locator("#my-move")).to_contain_text("Waiting for")
    assert len(states) >= 2
    assert pages.problems.seen == []
