"""The game master runs a game from the page alone (issue 30): pause and resume, edits of
a unit, a hex, a power's figures and the weather table, a rollback, the export as a file
(which verifies offline), the GM token and a GM link that opens the page as the GM in
another browser, reopening a seat and ending the game, each act that cannot be undone
after a confirmation saying what it does (Cancel leaves everything as it was). The
players' and a spectator's pages follow; deadlines read in words in the log; the log
pages back to the game's first event.

Screenshots go to test-artifacts/ (desk 1440x900 and phone 390x844)."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
from support import AXIS_FIRST, Game, join, to_action
from test_play_page import (  # noqa: F401 (fixtures)
    browser,
    play_url,
)
from test_play_turn import Pages, axe_source, shot  # noqa: F401 (fixtures)

from service.verify import verify_export

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # the browser fixture reports it
    pass


async def _game(http: httpx.AsyncClient) -> Game:
    """dno-demo with its three seats taken through the API (the players are not what this
    test is about), in the Axis's action step."""
    r = await http.post("/v1/games", json={"name": "Run by the GM", "scenario": "dno-demo",
                                           "dice": AXIS_FIRST})
    assert r.status_code == 201, r.text
    created = r.json()
    game = Game(http, created["id"], created["gm_token"], created["join_codes"])
    for side in ("axis", "allies", "communists"):
        await join(game, side)
    return game


async def _open_gm(pages: Pages, game: Game, name: str = "gm", path: str | None = None) -> Page:
    gm = await pages.open(name, path or f"/play/?game={game.id}")
    if path is None:
        await gm.fill("#gm-form [name=token]", game.gm_token)
        await gm.click("#gm-form [name=open-gm]")
    await expect(gm.locator("#seat-badge")).to_have_text("Game master")
    return gm


async def _act(gm: Page, reason: str, button: str) -> None:
    await gm.fill("[name=reason]", reason)
    await gm.click(f"[name={button}]")


async def edits(pages: Pages, gm: Page, spectator: Page) -> None:
    """A unit moved and turned face down, a hex given to another power, a power's RPs,
    and the weather table from the next turn: each an `admin/edit` (or `admin/weather`)
    with its reason, which every page shows."""
    await gm.click("details.gm-edit-section > summary")
    await gm.fill("[name=reason]", "the tabletop position")
    await gm.locator("#map .stack[data-stack='1006']").click()  # picks the hex and its unit
    await expect(gm.locator("[name=edit-hex]")).to_have_value("1006")
    await gm.select_option("[name=edit-unit]", "ger-inf-4")
    await expect(gm.locator("[name=edit-unit-at]")).to_have_value("1006")
    await gm.fill("[name=edit-unit-at]", "0906")
    await gm.uncheck("[name=edit-unit-face-up]")
    await pages.check(gm, "the GM's edit forms")
    await shot(gm, "gm-edit")
    await gm.click("[name=admin-edit-unit]")
    row = spectator.locator("#units-body tr[data-unit='ger-inf-4']")
    await expect(row.locator("td.at")).to_have_text("0906")
    await expect(row.locator("td.face")).to_contain_text("down")
    await gm.select_option("[name=edit-hex]", "1106")
    await gm.select_option("[name=edit-hex-controller]", "germany")
    await gm.click("[name=admin-edit-hex]")
    await gm.select_option("[name=edit-power]", "italy")
    await expect(gm.locator("[name=edit-power-fuel]")).to_be_hidden()  # dno-demo has no fuel
    await gm.fill("[name=edit-power-chits]", "4")
    await gm.click("[name=admin-edit-power]")
    await expect(spectator.locator("#powers-body tr[data-power=italy] td.chits")).to_have_text("4")
    await gm.fill("[name=weather-9]", "sunny")
    await gm.fill("[name=weather-from-turn]", "2")
    await gm.click("[name=admin-weather]")
    edited = spectator.locator("#log-list li[data-kind='state.edited']")
    await expect(edited).to_have_count(3)
    await expect(edited.first).to_contain_text("the tabletop position")
    await expect(spectator.locator("#log-list li[data-kind='weather.table_set']")).to_have_count(1)
    # Nothing changed: nothing sent.
    await gm.click("[name=admin-edit-power]")
    await expect(gm.locator("#notice")).to_have_text("Nothing changed: nothing sent.")
    await expect(edited).to_have_count(3)


async def export_and_access(pages: Pages, gm: Page, game: Game, url: str) -> None:
    """The export downloads as a file that verifies; the GM token and link are shown on
    demand, and the link opens the GM's page in another browser."""
    await gm.click("details.gm-section:has([name=gm-export]) > summary")
    async with gm.expect_download() as downloading:
        await gm.click("[name=gm-export]")
    download = await downloading.value
    assert download.suggested_filename == f"wif-{game.id}-export.json"
    export: dict[str, Any] = json.loads((await download.path()).read_text())
    report = verify_export(export)
    assert report.ok, report.text()
    await gm.click("[name=gm-token-show]")
    assert await gm.locator("[name=gm-token]").input_value() == game.gm_token
    link = await gm.locator("[name=gm-link]").input_value()
    assert link.startswith(url) and "#gm=" in link
    other = await _open_gm(pages, game, "gm-elsewhere", link.removeprefix(url))
    assert "#" not in other.url
    await expect(other.locator("#admin")).to_be_visible()
    await pages.check(gm, "the GM's export and access")


async def confirmations(pages: Pages, gm: Page, game: Game, spectator: Page) -> None:
    """Reopening a seat and ending the game each ask first, saying what they do; Cancel
    changes nothing."""
    await gm.click("details.gm-section:has(.gm-seats) > summary")
    reopen = gm.locator(".gm-seats [name^=admin-players-][name$=-reassign]").first
    await reopen.click()
    dialog = gm.locator("dialog.confirm")
    await expect(dialog).to_contain_text("token stops at once")
    await dialog.locator("[name=confirm-no]").click()
    await expect(dialog).to_have_count(0)
    await gm.fill("[name=reason]", "Dave moved away")
    await reopen.click()
    await pages.check(gm, "the confirmation of a reopened seat")
    await dialog.locator("[name=confirm-yes]").click()
    await expect(gm.locator("[name=substitute-link]")).to_have_value(re.compile(r"code=\S+"))
    await expect(spectator.locator("#log-list li[data-kind='seat.reopened']")).to_have_count(1)

    await gm.fill("[name=reason]", "the club closes")
    await gm.click("[name=admin-end]")
    await expect(dialog).to_contain_text("Every side's play stops")
    await expect(dialog).to_contain_text("“the club closes”")
    await pages.check(gm, "the confirmation of the game's end")
    await shot(gm, "gm-confirm-end")
    await dialog.locator("[name=confirm-no]").click()
    await expect(spectator.locator("#game-status")).to_contain_text("active")
    await gm.click("[name=admin-end]")
    await dialog.locator("[name=confirm-yes]").click()
    for page in (gm, spectator):
        await expect(page.locator("#game-status")).to_contain_text("finished")
        await expect(page.locator("#my-move")).to_have_text("The game is over.")


async def test_the_gm_runs_pause_edit_rollback_export_and_end_from_the_page(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        game = await _game(http)
        pages = Pages(browser, axe_source, play_url)
        gm = await _open_gm(pages, game)
        r = await http.post(f"/v1/games/{game.id}/admin/spectators", json={"name": "club"},
                            headers=game.gm)
        spectator = await pages.open("spectator",
                                     f"/play/?game={game.id}#watch={r.json()['token']}")
        await expect(spectator.locator("#seat-badge")).to_have_text("Spectator")
        # The players answer the initiative and the Axis declares, through the API.
        await to_action(game)
        await expect(gm.locator("#status-step")).to_have_attribute("data-step", "action")

        await _act(gm, "lunch", "admin-pause")
        await expect(spectator.locator("#my-move")).to_have_text("The game is paused.")
        await _act(gm, "back", "admin-resume")
        await expect(spectator.locator("#status-step")).to_have_attribute("data-step", "action")
        await edits(pages, gm, spectator)
        # A rollback to the start of the impulse undoes the edits (no dice since: at once).
        await gm.click("details.gm-section:has([name=admin-rollback]) > summary")
        await gm.fill("[name=rollback-turn]", "1")
        await gm.fill("[name=rollback-impulse]", "1")
        await _act(gm, "start the impulse again", "admin-rollback")
        await expect(spectator.locator("#status-step")).to_have_attribute("data-step", "declare")
        await expect(spectator.locator("#units-body tr[data-unit='ger-inf-4'] td.at")
                     ).to_have_text("1006")
        await expect(gm.locator("[name=edit-unit-at]")).to_have_value("1006")  # as it now is
        await export_and_access(pages, gm, game, play_url)
        await confirmations(pages, gm, game, spectator)
        await pages.check(spectator, "the spectator after the end")
        assert pages.problems.seen == []


async def test_the_log_pages_back_to_the_games_first_event(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    """The page starts with the newest 400 events; "Show older events" brings the ones
    before (a page of up to 400 at a time), down to the game's creation."""
    async with httpx.AsyncClient(base_url=play_url) as http:
        game = await _game(http)
        player = await to_action(game)
        position = await player.position()
        prev = player.head
        for i in range(430):
            signed = player.envelope("roll", {"dice": "1d6", "purpose": f"roll {i}"},
                                     {**position, "prev": prev})
            while (r := await http.post(f"/v1/games/{game.id}/orders", json=signed,
                                        headers=player.headers)).status_code == 429:
                await asyncio.sleep(1)  # the token's request budget (Retry-After)
            assert r.status_code == 201, r.text
            prev = r.json()["head"]["hash"]
        head = (await http.get(f"/v1/games/{game.id}", headers=game.gm)).json()["head"]["seq"]
    pages = Pages(browser, axe_source, play_url)
    gm = await _open_gm(pages, game)
    log = gm.locator("#log-list")
    older = gm.locator("#log-older")
    before = head - 400
    await expect(older).to_have_text(f"Show {before} older events ({before} before these)")
    await expect(log.locator("li[data-kind='game.created']")).to_have_count(0)
    await older.click()
    await expect(older).to_be_hidden()
    await gm.click("#log-list details.log-group:has(li[data-kind='game.created']) > summary")
    await expect(log.locator("li[data-kind='game.created']")).to_have_count(1)
    assert await log.locator("li.event").count() == head
    await pages.check(gm, "the whole log")
    assert pages.problems.seen == []
