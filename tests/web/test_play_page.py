"""End to end: the /play page in a real browser (Playwright driving Debian's chromium)
against a real server. Three browsers join the three sides through the page, answer the
reroll window, choose the order and play the first impulse (a pass, then done), each
page following the others' moves live, without reloading; a fourth browser watches as
the game master. One page has the stream blocked, so the polling fallback is played too.
Then the Axis plays the second impulse: it declares a land action, changes a unit's mode
through the mode form (OCS 5.4), finishes the steps and reorganizes its face-down
armour through the reorganization panel (11.18: options, basket, dry run, order).

Needs /usr/bin/chromium and the playwright package: scripts/install-browser.sh.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import SIDES, scenario

try:
    from playwright.async_api import (
        Browser,
        BrowserContext,
        Locator,
        Page,
        Route,
        async_playwright,
        expect,
    )
except ImportError:  # reported by the `browser` fixture as a failure, not a skip
    PLAYWRIGHT_MISSING = True
else:
    PLAYWRIGHT_MISSING = False

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
WAIT_MS = 15_000
# Seed 002's initiative example: Allies win (8), the Communists take the tie from the Axis.
DICE = {"mode": "scripted", "script": {"initiative": [5, 8, 5], "weather": [7],
                                       "turn_end": [2, 2]}}


@pytest.fixture(scope="module")
def play_url(migrated_url: str) -> Iterator[str]:
    """A real uvicorn server (own thread and event loop) with the page mounted."""
    import uvicorn

    from service.app import create_app
    from service.settings import Settings
    from service.web import mount

    app = create_app(Settings(database_url=migrated_url), database_url=migrated_url)
    mount(app)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            lifespan="on", ws="none")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="play-page-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the uvicorn server for the play page did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    if PLAYWRIGHT_MISSING:
        pytest.fail("the Playwright Python package is missing: run scripts/install-browser.sh "
                    "(never `playwright install`)", pytrace=False)
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-browser.sh (apt chromium)",
                    pytrace=False)
    expect.set_options(timeout=WAIT_MS)
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking"],
        )
        yield launched
        await launched.close()


class Problems:
    """JavaScript errors of every page (failed requests the test provokes excepted)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def watch(self, name: str, page: Page) -> None:
        page.on("pageerror", lambda error: self.seen.append(f"{name}: {error}"))
        page.on("console", lambda message: self.seen.append(f"{name}: {message.text}")
                if message.type == "error" and "Failed to load resource" not in message.text
                else None)


async def _open(browser: Browser, problems: Problems, name: str, url: str,
                block_stream: bool = False) -> Page:
    context: BrowserContext = await browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(WAIT_MS)
    if block_stream:
        async def not_found(route: Route) -> None:
            await route.fulfill(status=404, content_type="application/problem+json",
                                body='{"status": 404, "detail": "Not Found"}')

        # The stream and its tickets (a ticket's URL has a query, which globs miss).
        await context.route(re.compile(r"/v1/games/[^/?]+/stream(/tickets)?(\?|$)"), not_found)
    page = await context.new_page()
    problems.watch(name, page)
    await page.goto(url)
    return page


async def _shot(page: Page, name: str, full_page: bool = False) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"play-{name}.png"), full_page=full_page)


async def _expect_step(page: Page, step: str) -> None:
    await expect(page.locator("#status-step")).to_have_attribute("data-step", step)


async def test_three_browsers_join_and_play_the_first_impulse_live(
    play_url: str, browser: Browser,
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Browser game",
                                               "scenario": scenario("mini"), "dice": DICE})
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
        assert (await http.get("/play")).status_code == 307
    game = created["id"]
    problems = Problems()

    # The GM watches from the start; opened through the page's GM form.
    gm = await _open(browser, problems, "gm", f"{play_url}/play/?game={game}")
    await gm.fill("#gm-form [name=token]", created["gm_token"])
    await gm.click("#gm-form [name=open-gm]")
    await expect(gm.locator("#seat-badge")).to_have_text("Game master")
    await _expect_step(gm, "join")
    await gm.evaluate("window.notReloaded = true")

    pages: dict[str, Page] = {}
    for side in SIDES:
        # The Axis page cannot reach the stream: it must follow the game by polling.
        page = await _open(browser, problems, side, f"{play_url}/play/?game={game}",
                           block_stream=side == "axis")
        await expect(page.locator("#join-form [name=game]")).to_have_value(game)
        await page.select_option("#join-form [name=side]", side)
        await page.fill("#join-form [name=join_code]", created["join_codes"][side])
        await page.fill("#join-form [name=name]", f"{side.title()} player")
        await page.click("#join-form [name=join]")
        await expect(page.locator("#seat-badge")).to_contain_text(side)
        await page.evaluate("window.notReloaded = true")
        pages[side] = page
    axis, allies, communists = pages["axis"], pages["allies"], pages["communists"]
    await expect(axis.locator("#live-mode")).to_have_class("live polling")
    await expect(allies.locator("#live-mode")).to_have_class("live stream")

    # The last join began turn 1: every page (the first two live) shows the reroll window.
    for side, page in pages.items():
        await _expect_step(page, "initiative.reroll")
        await expect(page.locator("#my-move")).to_have_class("my-move yours")
        await expect(page.locator("#my-move")).to_have_text("Your move: initiative reroll")
        await expect(page.locator("[data-form=reroll]")).to_contain_text(
            {"axis": "total 5", "allies": "total 8", "communists": "total 5"}[side])
    await _shot(allies, "allies-reroll")

    for page in pages.values():
        await page.click("[name=reroll-no]")
    # Allies won (8) and choose first; the others see them awaited.
    await expect(allies.locator("#my-move")).to_have_text("Your move: initiative choose")
    for page in (axis, communists, gm):
        await _expect_step(page, "initiative.choose")
        await expect(page.locator("#my-move")).to_have_text(
            "Waiting for allies (initiative choose)")
    await allies.click("[name=choose-last]")
    await expect(communists.locator("#my-move")).to_have_text("Your move: initiative choose")
    await expect(communists.locator("[data-form=choose]")).to_contain_text("Before axis")
    await communists.click("[name=choose-before]")

    # Impulse 1: the Communists are phasing and declare; the others watch.
    await expect(communists.locator("#my-move")).to_have_text("Your move: declare (ussr, china)")
    for page in (axis, allies, gm):
        await _expect_step(page, "declare")
        await expect(page.locator("#status-phasing")).to_have_text("communists")
        await expect(page.locator("#status-order")).to_have_text(
            "communists → axis → allies")
        await expect(page.locator("#my-move")).to_have_text("Waiting for communists (declare)")
    await expect(communists.locator("#status-weather")).to_have_text("fine (roll 7, 2 dice)")
    await _shot(communists, "communists-declare")

    # A refused order shows the server's problem detail in the banner.
    await allies.click("[data-form=generic] summary")
    await allies.fill("[data-form=generic] [name=kind]", "declare")
    await allies.fill("[data-form=generic] [name=body]", '{"actions": {"cw": "pass"}}')
    await allies.click("[name=send-generic]")
    banner = allies.locator("#error-banner")
    await expect(banner).to_be_visible()
    await expect(banner).to_contain_text("it is communists's impulse, not allies's")
    await expect(banner).to_contain_text("409 order/not_your_turn")
    await _shot(allies, "allies-error")
    await allies.click("#error-close")

    await communists.click("[name=pass-all]")
    await expect(communists.locator("#my-move")).to_have_text("Your move: reorganization")
    for page in (axis, allies, gm):
        await _expect_step(page, "reorganization")
        await expect(page.locator("#log-list li").first).to_contain_text(
            "Reorganization step: communists.")
        await expect(page.locator("#powers-body")).to_contain_text("pass")
    await communists.click("[name=done]")

    # The turn-end roll (2 dice: 2 + 2, +2 and +1 per die for the passing powers), then
    # the Axis impulse: every page shows it, the Axis page by polling.
    for page in (axis, allies, communists, gm):
        await _expect_step(page, "declare")
        await expect(page.locator("#status-phasing")).to_have_text("axis")
        await expect(page.locator("#status-turn-end")).to_have_text("10 / 83")
        # The log is for people: the event's kind is on hover only, its dice as dice.
        rolled = page.locator("#log-list li[data-kind='turn_end.rolled']")
        await expect(rolled).to_contain_text("Turn-end number 0 + 10 = 10; below 83")
        await expect(rolled).to_have_attribute("title", re.compile(r"^turn_end\.rolled · #"))
        await expect(rolled.locator(".die")).to_have_count(2)
        await expect(page.locator("#log-list")).not_to_contain_text("turn_end.rolled")
    await expect(axis.locator("#my-move")).to_have_text("Your move: declare (germany, italy)")
    await expect(axis.locator("[data-form=declare] [name=pass-all]")).to_be_enabled()
    await expect(allies.locator("#my-move")).to_have_text("Waiting for axis (declare)")
    # The map shows the units as counters: h50 holds a Soviet HQ and a Chinese infantry
    # corps, a stack of two.
    await expect(axis.locator("#map .stack[data-stack=h50] .counter")).to_have_count(2)
    await expect(axis.locator("#map .stack[data-stack=h50] .stack-count-text")).to_have_text("2")
    await expect(gm.locator("[name=admin-pause]")).to_be_visible()

    for side, page in {**pages, "gm": gm}.items():
        await _shot(page, f"{side}-axis-impulse", full_page=True)
    await _shot(axis, "axis-laptop")

    everyone = {**pages, "gm": gm}
    await _axis_changes_a_mode(axis, everyone)
    await _axis_reorganizes(axis, everyone)
    await _standing_orders_and_done_through(allies, communists, everyone)

    for side, page in everyone.items():
        assert await page.evaluate("window.notReloaded === true"), f"{side} page reloaded"
    assert problems.seen == []


async def _standing_orders_and_done_through(allies: Page, communists: Page,
                                            everyone: dict[str, Page]) -> None:
    """Issue 20: the Communists arm a standing reaction order from the page (it shows
    what the server will answer, and unless what) and disarm it; the Allies declare and
    finish their impulse with "Done through reorganization", one signed `steps` order."""
    form = communists.locator("[data-form=standing]")
    await communists.click("[name=standing-arm-reaction]")
    row = form.locator("[data-standing=reaction]")
    await expect(row).to_have_attribute("data-armed", "yes")
    await expect(row).to_contain_text(
        "release nothing when your turn to react comes, unless an enemy comes next to a "
        "Reserve unit or a unit is attacked")
    await _shot(communists, "communists-standing")
    await communists.click("[name=standing-disarm-reaction]")
    await expect(row).to_have_attribute("data-armed", "no")

    actions = allies.locator("[data-form=declare] select[name^=action-]")
    for i in range(await actions.count()):
        await actions.nth(i).select_option("land")
    await allies.click("[data-form=declare] [name=declare]")
    await expect(allies.locator("#my-move")).to_have_text("Your move: action")
    await allies.click("[data-form=done] [name=done-through]")
    for page in everyone.values():
        await expect(page.locator("#log-list")).to_contain_text(
            "allies holds done for its steps after action through reorganization")


async def _select_on_map(page: Page, unit: str) -> None:
    """Select my unit on the map: its hex, and its counter when the stack fans out."""
    hex_id = await page.locator(f"#map .stack [data-unit='{unit}']").first.evaluate(
        "(node) => node.closest('.stack').dataset.stack")
    await page.locator(f"#map .stack[data-stack='{hex_id}']").click()
    fanned = page.locator(f"#map .fan [data-unit='{unit}']")
    if await fanned.count():
        await fanned.click()
    selected = page.locator("[data-form=play] .selected-unit")
    await expect(selected.locator("h3")).to_contain_text(unit)
    await expect(selected).not_to_contain_text("Checking what it may do")


def _unit_row(page: Page, unit: str) -> Locator:
    return page.locator(f"#units-body tr[data-unit='{unit}']")


def _rps(page: Page, power: str) -> Locator:
    return page.locator(f"#powers-body tr[data-power='{power}'] td.rps")


async def _axis_changes_a_mode(axis: Page, everyone: dict[str, Page]) -> None:
    """Impulse 2, action step: Germany's HQ goes from Combat to Move Mode (OCS 5.4)."""
    # Every unit of mini.json is in supply: ger-arm-1 (face down) by the railway from Mitte.
    for page in everyone.values():
        await expect(_unit_row(page, "ger-arm-1").locator("td.supply")).to_contain_text(
            "✓ rail h30 via h20")
        await expect(_unit_row(page, "ger-hq-1").locator("td.values")).to_have_text("3-3-4")
    await axis.select_option("[data-form=declare] [name=action-germany]", "land")
    await axis.select_option("[data-form=declare] [name=action-italy]", "land")
    await axis.click("[data-form=declare] [name=declare]")
    await expect(axis.locator("#my-move")).to_have_text("Your move: action")
    form = axis.locator("[data-form=mode]")
    # Face-down units cannot move, so they change no mode: ger-arm-1 is not listed.
    await expect(form.locator("tr[data-unit]")).to_have_count(2)
    await expect(form.locator("tr[data-unit='ger-arm-1']")).to_have_count(0)
    # Move Mode shows the Move side (OCS 5.2); the HQ may move 4 MP now in Combat Mode.
    await expect(_unit_row(axis, "ger-hq-1").locator("td.values")).to_have_text("3-3-4 4/4 MP")
    # OCS 5.4a: the form counts the Axis's Reserve markers (6) with the changes chosen, and
    # says which take a new one (ger-hq-1, in the USSR's ZOC, may not enter Reserve at all).
    markers = form.locator("p.markers")
    await expect(markers).to_have_text(
        "Reserve markers: 6 of 6 left. A stack's Reserve units share one marker (OCS 5.4a).")
    # The offered changes into Reserve say they take a new marker (the options endpoint).
    await expect(form.locator("[name='mode-ita-inf-1'] option[value='reserve/combat']")
                 ).to_have_text("Reserve, combat side up (new marker)")
    await form.locator("[name='mode-ita-inf-1']").select_option("reserve/combat")
    await expect(form.locator("tr[data-unit='ita-inf-1'] td.marker")).to_have_text(
        "needs a new marker")
    await expect(markers).to_have_text(
        "Reserve markers: 5 of 6 left after these changes (6 now). A stack's Reserve units "
        "share one marker (OCS 5.4a).")
    await _shot(axis, "axis-mode-form-reserve")
    await axis.set_viewport_size({"width": 390, "height": 844})
    await form.scroll_into_view_if_needed()
    await _shot(axis, "axis-mode-form-reserve-narrow")
    await axis.set_viewport_size({"width": 1440, "height": 900})
    await axis.evaluate("window.scrollTo(0, 0)")
    await form.locator("[name='mode-ita-inf-1']").select_option("")
    await expect(form.locator("tr[data-unit='ita-inf-1'] td.marker")).to_have_text("")
    await form.locator("[name='mode-ger-hq-1']").select_option("move")
    await expect(form.locator("tr[data-unit='ger-hq-1'] td.marker")).to_have_text("")
    await _shot(axis, "axis-mode-form")
    await form.locator("[name=change-modes]").click()
    for page in everyone.values():
        row = _unit_row(page, "ger-hq-1")
        await expect(row.locator("td.mode")).to_contain_text("move")
        await expect(row.locator("td.mode .mark")).to_have_text("mode changed")
        await expect(row.locator("td.values .strength")).to_have_text("1-1-8")
        await expect(page.locator("#log-list li").first).to_contain_text(
            "ger-hq-1 in h30: Combat Mode → Move Mode.")
    await expect(_unit_row(axis, "ger-hq-1").locator("td.values")).to_have_text("1-1-8 8/8 MP")
    # The form now says, as the referee does, that the HQ changed mode (OCS 5.4: once per
    # unit), and offers it no mode.
    await expect(form.locator("tr[data-unit='ger-hq-1']")).to_contain_text(
        "already changed mode this movement step")
    await expect(form.locator("[name='mode-ger-hq-1']")).to_be_disabled()

    # The Italian corps moves next door, chosen on the map: its hex, then where it may go
    # (h20, forest, 2 MP), which fills the report with the path.
    await _select_on_map(axis, "ita-inf-1")
    await expect(axis.locator("#map .reach[data-hex=h20] .reach-cost")).to_have_text("2")
    await axis.locator("#map .reach[data-hex=h20]").click(force=True)
    await expect(axis.locator("[data-form=play] tr[data-row='moves/0']")).to_contain_text("→ h20")
    await axis.locator("[data-form=play] [name=report]").click()
    for page in everyone.values():
        row = _unit_row(page, "ita-inf-1")
        await expect(row.locator("td.at")).to_have_text("h20")
        await expect(row.locator("td.mode .mark")).to_have_text("moved")
    # h20 is forest (2 MP) in cw-inf-1's ZOC: entering it ends the move (movement.zoc "stop")
    await expect(_unit_row(axis, "ita-inf-1").locator("td.values")).to_have_text("3-3-4 0/4 MP")


async def _axis_reorganizes(axis: Page, everyone: dict[str, Page]) -> None:
    """Action and combat done; in its reorganization step the Axis reorganizes ger-arm-1
    from the primary source Mitte (11.18.5) through the panel, after a dry run."""
    await axis.click("[data-form=done] [name=done]")
    await _expect_step(axis, "combat")
    await axis.click("[data-form=done] [name=done]")
    for page in everyone.values():
        await _expect_step(page, "reorganization")
        await expect(_rps(page, "germany")).to_have_text("35")  # accrued as the step began
    panel = axis.locator("[data-form=reorg]")
    # ger-arm-1, and ita-inf-1, which moved and turned face down at clean up (11.18)
    await expect(panel.locator(".unit-picks li")).to_have_count(2)
    await expect(_unit_row(axis, "ita-inf-1").locator("td.face")).to_have_text("down")
    await expect(panel.locator(".rp-total")).to_contain_text("0 RPs in the basket of 35 left")
    await panel.locator("[name='reorg-unit-ger-arm-1']").click()
    primary = panel.locator(".option.legal[data-method=primary]")
    await expect(primary).to_contain_text("Mitte (h30)")
    await expect(primary).to_contain_text("5 RPs")
    await expect(primary).to_contain_text("path h30 → h20 (basic, 2 hexes)")
    await expect(panel.locator(".option.legal[data-method=hq]")).to_contain_text(
        "ger-hq-1 turns face down")
    await expect(panel.locator(".option.illegal[data-method=chit]")).to_contain_text(
        "germany played no chit this impulse")
    await expect(panel.locator(".option.illegal[data-method=at_sea]")).to_contain_text(
        "ger-arm-1 is on a hex, not in a sea area (11.18.10)")
    await primary.locator("button").click()
    await expect(panel.locator(".reorg-basket tbody tr")).to_have_count(1)
    await expect(panel.locator(".rp-total")).to_contain_text(
        "5 RPs in the basket of 35 left (30 would be left)")
    await expect(panel.locator(".unit-picks li[data-unit='ger-arm-1']")).to_contain_text(
        "in basket")
    await panel.locator("[name=reorg-preview]").click()
    await expect(panel.locator(".preview")).to_contain_text(
        "Dry run: valid. ger-arm-1 5 RPs; germany would have 30 RPs left.")
    await expect(_rps(axis, "germany")).to_have_text("35")  # the dry run changed nothing
    await _shot(axis, "axis-reorganize")
    await panel.locator("[name=reorg-submit]").click()
    for page in everyone.values():
        await expect(_unit_row(page, "ger-arm-1").locator("td.face")).to_have_text("up")
        await expect(_rps(page, "germany")).to_have_text("30")
        await expect(page.locator("#log-list")).to_contain_text(
            "germany reorganizes ger-arm-1 from primary source Mitte (5 RPs): face up.")
    await expect(panel.locator(".unit-picks li")).to_have_count(1)
    await expect(panel.locator(".unit-picks li[data-unit='ita-inf-1']")).to_have_count(1)
    await _shot(axis, "axis-reorganized")
    await axis.click("[data-form=done] [name=done]")
    for page in everyone.values():
        await _expect_step(page, "declare")
        await expect(page.locator("#status-phasing")).to_have_text("allies")
        await expect(_rps(page, "germany")).to_have_text("0")  # unspent RPs lapse
