"""End to end (issue 19): a whole turn of dno-demo played by three browsers through the
/play page's controls only, with a fourth browser watching as a spectator and the GM's
page inviting it. After the game is created (the one API call), everything is a click,
a tap or a choice on a page: joining, the initiative, declarations, a move chosen on the
map (the hexes a unit may reach, from the options endpoint) and a rail move, two attacks
chosen on the map that the referee decides by the scenario's table (the odds shown before
they are sent, the roll and the result after; issue 29): the Communists, notified, choose
their retreat on their own page (the phone) and the Axis its advance, a reorganization
through the planner, passes, the final reorganization and production,
until turn 2 begins; then the GM rolls back to the Communists' impulse with the other
sides' consent. The Communists play on a phone (390x844, touch), the Allies try the map
by keyboard, the overlays and the log's filters. axe-core (tools/js, installed by
scripts/npm-tools.sh) checks every state visited: no critical and no serious violation.

Screenshots go to test-artifacts/ (desk 1440x900 and phone 390x844).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from js_tools import npm_tools
from test_play_page import (  # noqa: F401 (fixtures)
    ARTIFACTS,
    WAIT_MS,
    Problems,
    browser,
    play_url,
)

try:
    from playwright.async_api import Browser, Page, expect
    from playwright.async_api import Error as PlaywrightError
except ImportError:  # the browser fixture reports it
    pass

SCENARIO = "dno-demo"
# The Axis wins the initiative (9) and moves first, then the Allies and the Communists;
# fine weather (2 turn-end dice). With the threshold at 20 the turn-end dice (2+2, 2+2,
# 9+9, and the passing powers' bonus) end the turn after the Communists' impulse.
# The combats: 3 + 4 = 7 on the 1:1 column (DL1o1), then 1 + 1 (+1 for the Action
# Ratings) = 3 on the 1:2 column (AL1).
DICE = {"mode": "scripted", "script": {"initiative": [9, 3, 1], "weather": [7],
                                       "turn_end": [2, 2, 2, 2, 9, 9], "combat": [3, 4, 1, 1]}}
OPTIONS = {"turn_end": {"threshold": 20}}
NOTIFICATIONS = """
window.notified = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title) { window.notified.push(title); }
};
"""
DESK = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def axe_source() -> str:
    folder, _ = npm_tools()
    return (folder / "node_modules" / "axe-core" / "axe.min.js").read_text()


class Pages:
    """The browsers of the test, their JavaScript errors, and the accessibility check."""

    def __init__(self, chromium: Browser, axe: str, url: str) -> None:
        self.browser = chromium
        self.axe = axe
        self.url = url
        self.problems = Problems()
        self.checked = 0

    async def open(self, name: str, path: str, phone: bool = False, clock: bool = False) -> Page:
        """A page in a browser of its own; `clock`: its time is Playwright's, which runs
        as the real one until the test moves it on."""
        context = await self.browser.new_context(
            viewport=PHONE if phone else DESK, has_touch=phone, is_mobile=phone,
            device_scale_factor=2 if phone else 1)
        context.set_default_timeout(WAIT_MS)
        if clock:
            await context.clock.install()
        # Headless chromium shows no notifications: the page's are recorded instead, as
        # if the player had allowed them.
        await context.add_init_script(NOTIFICATIONS)
        page = await context.new_page()
        self.problems.watch(name, page)
        await page.goto(f"{self.url}{path}")
        return page

    async def seat(self, game: Any, side: str, name: str) -> Page:
        """A player who joins `side` of `game` from the page, by its join link."""
        page = await self.open(side, f"/play/?game={game.id}&side={side}"
                                     f"&code={game.join_codes[side]}")
        await page.fill("#join-form [name=name]", name)
        await page.click("#join-form [name=join]")
        await expect(page.locator("#seat-badge")).to_contain_text(side)
        return page

    async def check(self, page: Page, state: str) -> None:
        """axe-core on the page as it is: no critical and no serious violation."""
        if not await page.evaluate("typeof window.axe === 'object'"):
            await page.evaluate(self.axe)
        found: list[dict[str, Any]] = await page.evaluate(
            """async () => {
                 const r = await axe.run(document, {resultTypes: ["violations"]});
                 return r.violations.map((v) => ({id: v.id, impact: v.impact,
                   help: v.help, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" "))}));
               }""")
        bad = [v for v in found if v["impact"] in ("critical", "serious")]
        assert bad == [], f"axe-core in {state}: {bad}"
        self.checked += 1


async def shot(page: Page, name: str, full_page: bool = False) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"turn-{name}.png"
    await page.screenshot(path=str(path), full_page=full_page)
    return path


async def nothing_wider_than_the_screen(page: Page) -> None:
    """No element is wider than the viewport or reaches past its right edge (the map's
    drawing is clipped by the map), and the page does not scroll sideways."""
    wide = await page.evaluate(
        """() => {
             const limit = window.innerWidth + 0.5;
             const out = [];
             for (const el of document.querySelectorAll("body *:not(svg *)")) {
               const r = el.getBoundingClientRect();
               const name = String(el.className?.baseVal ?? el.className);
               if (r.width > limit || r.right > limit) out.push(
                 `${el.tagName.toLowerCase()}#${el.id}.${name.replaceAll(" ", ".")} `
                 + `${Math.round(r.left)}-${Math.round(r.right)}px`);
             }
             if (document.documentElement.scrollWidth > window.innerWidth)
               out.push(`the page scrolls: ${document.documentElement.scrollWidth}px`);
             return out;
           }""")
    assert wide == [], f"wider than the screen: {wide[:12]}"


async def step_is(page: Page, step: str) -> None:
    await expect(page.locator("#status-step")).to_have_attribute("data-step", step)


async def my_move(page: Page, text: str) -> None:
    await expect(page.locator("#my-move")).to_have_text(text)


def unit_row(page: Page, unit: str) -> Any:
    return page.locator(f"#units-body tr[data-unit='{unit}']")


async def select_on_map(page: Page, hex_id: str, unit: str) -> None:
    """Select my unit on the map: a click (a tap) on its hex, and on its counter when the
    stack fans out."""
    await page.locator(f"#map .stack[data-stack='{hex_id}']").click()
    fanned = page.locator(f"#map .fan [data-unit='{unit}']")
    selected = page.locator("[data-form=play] .selected-unit")
    # The fan is drawn after the click is handled (later on a busy machine): wait for it,
    # or for the unit selected (a lone counter), before deciding which it is.
    await expect(fanned.or_(selected.locator("h3", has_text=unit)).first).to_be_visible()
    if await fanned.count():
        await fanned.click()
    await expect(selected.locator("h3")).to_contain_text(unit)
    await expect(selected).not_to_contain_text("Checking what it may do")


async def test_three_browsers_play_a_whole_turn_of_dno_demo_with_a_spectator(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Drang 1945", "scenario": SCENARIO,
                                               "dice": DICE, "options": OPTIONS})
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
    pages = Pages(browser, axe_source, play_url)
    game = created["id"]

    gm = await gm_opens_and_invites_a_spectator(pages, game, created["gm_token"])
    spectator_link = await gm.locator("[name=spectator-link]").input_value()
    players = await everyone_joins(pages, game, created["join_codes"])
    axis, allies, communists = players["axis"], players["allies"], players["communists"]
    watcher = await pages.open("spectator", spectator_link.removeprefix(play_url))
    await expect(watcher.locator("#seat-badge")).to_have_text("Spectator")
    await expect(watcher.locator("#orders")).to_be_hidden()
    await watcher.evaluate("window.notReloaded = true")
    everyone = {**players, "gm": gm, "spectator": watcher}

    try:
        await initiative(players, everyone)
        await pages.check(watcher, "the spectator's page")
        await a_stack_fans_out_on_hover(watcher)
        # The log reads as sentences, with the players' names (not their ids).
        await expect(watcher.locator("#log-list")).to_contain_text(
            "Communists player joins communists with ussr, communist_china.")
        await axis_impulse(pages, axis, everyone)
        await pass_impulse(pages, allies, "allies", everyone)
        await pass_impulse(pages, communists, "communists", everyone)
        await turn_end(pages, players, everyone)
        await rollback_with_consent(pages, gm, players, everyone)
    except BaseException:
        for name, page in everyone.items():  # what each page showed, for the report
            await shot(page, f"failed-{name}", full_page=True)
        raise

    for name, page in everyone.items():
        assert await page.evaluate("window.notReloaded === true"), f"{name} reloaded"
    assert pages.checked >= 12
    assert pages.problems.seen == []


async def gm_opens_and_invites_a_spectator(pages: Pages, game: str, token: str) -> Page:
    gm = await pages.open("gm", f"/play/?game={game}")
    await pages.check(gm, "the lobby")
    await gm.fill("#gm-form [name=token]", token)
    await gm.click("#gm-form [name=open-gm]")
    await expect(gm.locator("#seat-badge")).to_have_text("Game master")
    await step_is(gm, "join")
    await gm.evaluate("window.notReloaded = true")
    await gm.fill("[name=spectator-name]", "Erwin")
    await gm.click("[name=admin-spectator]")
    await expect(gm.locator("[name=spectator-link]")).to_have_value(re.compile(r"#watch=\S+"))
    await pages.check(gm, "the GM's page")
    return gm


async def everyone_joins(pages: Pages, game: str, codes: dict[str, str]) -> dict[str, Page]:
    players: dict[str, Page] = {}
    for side in ("axis", "allies", "communists"):
        page = await pages.open(side, f"/play/?game={game}&side={side}&code={codes[side]}",
                                phone=side == "communists")
        await expect(page.locator("#join-form [name=join_code]")).to_have_value(codes[side])
        await page.fill("#join-form [name=name]", f"{side.title()} player")
        await page.click("#join-form [name=join]")
        await expect(page.locator("#seat-badge")).to_contain_text(side)
        await page.evaluate("window.notReloaded = true")
        players[side] = page
    return players


async def initiative(players: dict[str, Page], everyone: dict[str, Page]) -> None:
    # The reroll window is for the sides on the first three boxes: not the Communists.
    for page in everyone.values():
        await step_is(page, "initiative.reroll")
    await expect(players["communists"].locator("#my-move")).to_contain_text("Waiting for")
    await expect(players["communists"].locator("[data-form=reroll]")).to_have_count(0)
    for side in ("axis", "allies"):
        await my_move(players[side], "Your move: initiative reroll")
        await players[side].click("[name=reroll-no]")
    await my_move(players["axis"], "Your move: initiative choose")
    await players["axis"].click("[name=choose-first]")
    await my_move(players["allies"], "Your move: initiative choose")
    await players["allies"].click("[name=choose-before]")
    for page in everyone.values():
        await step_is(page, "declare")
        await expect(page.locator("#status-order")).to_have_text("axis → allies → communists")


async def axis_impulse(pages: Pages, axis: Page, everyone: dict[str, Page]) -> None:
    """Germany declares a land action; a move and an attack chosen on the map; the result
    reported; the reorganization planned and sent; Done in each step."""
    await my_move(axis, "Your move: declare (germany, italy, japan)")
    await pages.check(axis, "the declaration")
    await axis.select_option("[data-form=declare] [name=action-germany]", "land")
    await axis.select_option("[data-form=declare] [name=action-italy]", "pass")
    await axis.select_option("[data-form=declare] [name=action-japan]", "pass")
    await axis.click("[data-form=declare] [name=declare]")
    await my_move(axis, "Your move: action")
    await axis_moves_on_the_map(pages, axis, everyone)
    await axis.click("#done-holder [name=done]")
    # The Allies and the Communists may release Reserves in the reaction step: Done.
    for side in ("allies", "communists"):
        await my_move(everyone[side], "Your move: reaction")
        if side == "communists":  # the phone: the decision, its forms, the map, then Done
            await pages.check(everyone[side], "the reaction step on the phone")
            await nothing_wider_than_the_screen(everyone[side])
            await shot(everyone[side], "phone-communists-reaction", full_page=True)
        await everyone[side].click("#done-holder [name=done]")
    await my_move(axis, "Your move: combat")
    await axis_attacks_on_the_map(pages, axis, everyone)
    await axis.click("#done-holder [name=done]")
    await my_move(axis, "Your move: exploitation")
    await axis.click("#done-holder [name=done]")
    await axis_reorganizes(pages, axis, everyone)


async def axis_moves_on_the_map(pages: Pages, axis: Page, everyone: dict[str, Page]) -> None:
    await select_on_map(axis, "1003", "ger-inf-5")
    reach = axis.locator("#map .reach:not(.transport)")
    await expect(reach.first).to_be_visible()
    count = await reach.count()
    assert count > 3, count
    await expect(axis.locator("[data-form=play] .selected-unit")).to_contain_text(
        f"{count} hexes in reach")
    await pages.check(axis, "a unit selected, its reach on the map")
    await shot(axis, "desk-axis-reach")
    # The hex of the dearest move in reach: its cost is on the map and in the report.
    costs = {await r.get_attribute("data-hex"): int(await r.locator(".reach-cost").text_content())
             for r in await reach.all()}
    target = max(sorted(costs), key=lambda h: costs[h])
    await axis.locator(f"#map .reach[data-hex='{target}']").click(force=True)
    row = axis.locator("[data-form=play] tr[data-row='moves/0']")
    await expect(row).to_contain_text(f"1003 → {target}")
    await expect(row.locator("td.num")).to_have_text(str(costs[target]))
    await expect(axis.locator("#map .planned-move")).to_have_count(1)
    # A rail move in the same report: the replacement unit, by the railway (blue hexes).
    await select_on_map(axis, "0803", "ger-repl-1")
    await expect(axis.locator("#map .reach.transport").first).to_be_attached()
    rail = axis.locator("[data-form=play] [name=transport-rail]")
    by_rail = await rail.locator("option").last.get_attribute("value")
    await rail.select_option(by_rail)
    await axis.click("[data-form=play] [name=add-rail]")
    await expect(axis.locator("[data-form=play] tr[data-row='moves/1']")).to_contain_text(
        f"0803 → {by_rail}")
    await expect(axis.locator("[data-form=play] tr[data-row='moves/1']")).to_contain_text("by rail")
    await expect(axis.locator("#map .planned-move")).to_have_count(2)
    await axis.click("[data-form=play] [name=report]")
    # Every page shows them there, on the map and in the units table (the phone lists its
    # own side's units).
    for name, page in everyone.items():
        for unit, hex_id in (("ger-inf-5", target), ("ger-repl-1", by_rail)):
            await expect(page.locator(f"#map .stack[data-stack='{hex_id}'] [data-unit='{unit}']")
                         ).to_have_count(1)
            if name != "communists":
                await expect(unit_row(page, unit).locator("td.at")).to_have_text(hex_id)
    await expect(everyone["spectator"].locator("#log-list")).to_contain_text("ger-repl-1")
    await expect(axis.locator("#map .planned-move")).to_have_count(0)


async def axis_attacks_on_the_map(pages: Pages, axis: Page, everyone: dict[str, Page]) -> None:
    """Two attacks chosen on the map, each with the referee's odds before it is sent. 1:
    ger-inf-4 (1006) and hun-inf-2 (1007) on ussr-inf-3 in the swamp of 1106: 6 : 4,
    3:2 less a column for the swamp, 1:1; 2d6 = 7: DL1o1. The Communists, notified, are
    asked on their own page (the phone): they retreat into 1206, chosen on the map; the
    Axis is asked whether to advance into the emptied hex: ger-inf-4 does. 2: fin-inf-1
    (1102) on ussr-gar-1 in the city of 1203: 4 : 6 (x2 urban) is 1:2; 2d6 = 2, +1 for
    the Action Ratings: 3, AL1, which the referee applies alone."""
    communists = everyone["communists"]
    await select_on_map(axis, "1006", "ger-inf-4")
    await expect(axis.locator("#map .target-hex[data-hex='1106']")).to_have_count(1)
    await axis.locator("#map .stack[data-stack='1106']").click()
    await select_on_map(axis, "1007", "hun-inf-2")
    await axis.locator("#map .stack[data-stack='1106']").click()
    row = axis.locator("[data-form=play] tr[data-row='combats/0']")
    await expect(row).to_contain_text("Combat on 1106")
    await expect(row).to_contain_text("by ger-inf-4, hun-inf-2")
    # The odds before the attack is sent: the server's own computation.
    odds = axis.locator("[data-form=play] .planned-odds[data-hex='1106'] .odds")
    await expect(odds).to_contain_text(
        "ger-inf-4 4 + hun-inf-2 2 (6) against ussr-inf-3 4 in swamp (4): 6 : 4 → 3:2, "
        "-1 column swamp → 1:1")
    await expect(odds.locator(".odds-cells .cell")).to_have_count(7)
    await expect(odds).to_contain_text("of our own making")
    await odds.locator("details.whole-table > summary").click()
    await expect(odds.locator(".combat-table thead th.here")).to_have_text("1:1")
    await expect(odds.locator(".combat-table tbody tr")).to_have_count(7)
    await pages.check(axis, "an attack's odds before it is sent")
    await shot(axis, "desk-axis-odds")
    await expect(axis.locator("[data-form=play] [name=report]")).to_have_text("Report and attack")
    notified = len(await communists.evaluate("window.notified"))
    await axis.click("[data-form=play] [name=report]")
    resolved = ("axis: combat on 1106: ger-inf-4 4 + hun-inf-2 2 (6) against ussr-inf-3 4 in "
                "swamp (4): 6 : 4 → 3:2, -1 column swamp → 1:1; column 1:1, 2d6 = 7: DL1o1")
    for page in everyone.values():
        await expect(page.locator("#log-list")).to_contain_text(resolved)
    # The defender's question, on its own page, with a notification.
    await my_move(communists, "Your move: combat choice")
    assert (await communists.evaluate("window.notified"))[notified:] == [
        "Your move: combat choice"]
    choice = communists.locator("[data-form=combat-choice]")
    await expect(choice.locator(".combat-result")).to_contain_text("DL1o1")
    await expect(choice.locator(".question")).to_contain_text("ussr-inf-3 in 1106 lose 1 step(s)")
    await expect(choice.locator("[name=retreat-path]")).to_have_count(4)
    ends = communists.locator("#map .reach.transport")
    await expect(ends).to_have_count(3)
    await pages.check(communists, "the defender's retreat on the phone")
    await nothing_wider_than_the_screen(communists)
    await choice.scroll_into_view_if_needed()
    await shot(communists, "phone-communists-retreat")
    await shot(communists, "phone-communists-retreat-full", full_page=True)
    await communists.locator("#map .reach.transport[data-hex='1206']").click(force=True)
    await expect(choice.locator("label:has-text('1206') [name=retreat-path]")).to_be_checked()
    await choice.locator("[name=choose-retreat]").click()
    for page in everyone.values():
        await expect(page.locator("#map .stack[data-stack='1206'] [data-unit='ussr-inf-3']")
                     ).to_have_count(1)
    # The attacker's question: the advance into the emptied hex.
    await my_move(axis, "Your move: combat choice")
    advance = axis.locator("[data-form=combat-choice]")
    await expect(advance.locator(".question")).to_contain_text("1106 is empty")
    await advance.locator("[name=advance-ger-inf-4]").check()
    await pages.check(axis, "the attacker's advance")
    await shot(axis, "desk-axis-advance")
    await advance.locator("[name=choose-advance]").click()
    await expect(axis.locator("#map .stack[data-stack='1106'] [data-unit='ger-inf-4']")
                 ).to_have_count(1)
    await my_move(axis, "Your move: combat")
    # The second attack: the referee applies its result alone.
    await select_on_map(axis, "1102", "fin-inf-1")
    await axis.locator("#map .stack[data-stack='1203']").click()
    second = axis.locator("[data-form=play] .planned-odds[data-hex='1203']")
    await expect(second.locator(".odds")).to_contain_text(
        "fin-inf-1 4 (4) against ussr-gar-1 3 in urban (3, x2 urban = 6): 4 : 6 → 1:2")
    await axis.click("[data-form=play] [name=report]")
    results = axis.locator("[data-form=play] .combat-results .combat-result")
    await expect(results).to_have_count(2)
    await expect(results.nth(1)).to_contain_text(
        "column 1:2, 2d6 = 2, +1 action ratings → 3: AL1")
    await expect(results.nth(1)).to_contain_text("fin-inf-1 loses 1 step")
    await pages.check(axis, "the roll and the result after")
    for attempt in range(3):  # a live update may draw the results again meanwhile
        try:
            await results.nth(1).scroll_into_view_if_needed()
            break
        except PlaywrightError:
            if attempt == 2:
                raise
    await shot(axis, "desk-axis-result")
    # Dice are drawn as dice in the log, the technical kind is on hover only.
    rolled = everyone["spectator"].locator("#log-list li[data-kind='dice.rolled']").first
    await expect(rolled.locator(".die")).to_have_count(2)
    await expect(rolled).to_have_attribute("title", re.compile(r"^dice\.rolled"))


async def axis_reorganizes(pages: Pages, axis: Page, everyone: dict[str, Page]) -> None:
    await my_move(axis, "Your move: reorganization")
    panel = axis.locator("[data-form=reorg]")
    await expect(panel.locator(".unit-picks li").first).to_be_visible()
    await panel.locator("[name=reorg-cheapest]").click()
    await expect(panel.locator(".reorg-basket tbody tr").first).to_be_visible()
    await panel.locator("[name=reorg-preview]").click()
    await expect(panel.locator(".preview")).to_contain_text("Dry run: valid.")
    await pages.check(axis, "the reorganization planner")
    await nothing_wider_than_the_screen(axis)
    await shot(axis, "desk-axis-reorganization")
    before = await panel.locator(".reorg-basket tbody tr").count()
    await panel.locator("[name=reorg-submit]").click()
    for page in everyone.values():
        await expect(page.locator("#log-list")).to_contain_text("reorganizes")
    assert before > 0
    await axis.click("#done-holder [name=done]")


async def pass_impulse(pages: Pages, page: Page, side: str,
                       everyone: dict[str, Page]) -> None:
    await expect(page.locator("#my-move")).to_contain_text("Your move: declare")
    await pages.check(page, f"the {side}'s declaration")
    if side == "communists":
        await page.evaluate("window.scrollTo(0, 0)")
        await shot(page, "phone-communists-declare")
        await shot(page, "phone-communists-declare-full", full_page=True)
        await nothing_wider_than_the_screen(page)
    # "Your move" in the tab's title, and as a notification (the game came back to us).
    await expect(page).to_have_title(re.compile(r"^● Your move · Drang 1945"))
    assert "Your move: declare" in await page.evaluate("window.notified")
    if side == "allies":
        await the_map_by_keyboard(page)
        await overlays_and_log_filters(page)
    else:
        await the_map_by_touch(page)
    await page.click("[data-form=declare] [name=pass-all]")
    first = {"allies": "cw", "communists": "ussr"}[side]
    await expect(everyone["gm"].locator("#log-list")).to_contain_text(f"{first} declares pass.")
    await my_move(page, "Your move: reorganization")
    await page.click("#done-holder [name=done]")


async def rollback_with_consent(pages: Pages, gm: Page, players: dict[str, Page],
                                everyone: dict[str, Page]) -> None:
    """The Communists ask for their impulse again: the GM proposes the rollback on the GM's
    page; it undoes revealed dice, so the Axis and the Allies consent on theirs, and every
    page is back at the Communists' declaration of turn 1, the undone events struck."""
    await gm.click("details.gm-section:has([name=admin-rollback]) > summary")
    await gm.fill("[name=rollback-turn]", "1")
    await gm.fill("[name=rollback-impulse]", "3")
    await gm.select_option("[name=rollback-requested-by]", "communists")
    await gm.fill("[name=reason]", "the Communists misclicked")
    await gm.click("[name=admin-rollback]")
    for side in ("axis", "allies"):
        form = players[side].locator("[data-form=consent]")
        await expect(form).to_contain_text("return to turn 1, impulse 3, undoing 2 rolls")
        await expect(form).to_contain_text("the Communists misclicked")
        await pages.check(players[side], f"the {side}' consent")
        await form.locator("[name=consent-yes]").click()
    for page in everyone.values():
        await step_is(page, "declare")
        await expect(page.locator("#status-turn")).to_have_text("1")
        await expect(page.locator("#status-phasing")).to_have_text("communists")
    await expect(players["communists"].locator("#my-move")).to_contain_text("Your move: declare")
    struck = everyone["spectator"].locator("#log-list li.rolled-back")
    await expect(struck.first).to_be_attached()


async def the_map_by_keyboard(page: Page) -> None:
    """The map is operable by keyboard: focused, its cursor hex is described; arrows
    move it, Enter selects the hex (its units are listed), + zooms in. The mouse pans and
    zooms it too."""
    await page.locator("#map").focus()
    cursor = page.locator("#map-cursor")
    await expect(cursor).to_contain_text(re.compile(r"units?: 1\. |no units"))
    before = await cursor.text_content()
    for key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
        await page.keyboard.press(key)
        if await cursor.text_content() != before:
            break
    described = await cursor.text_content() or ""
    assert described != before, "the arrows did not move the map's cursor"
    hex_id = re.split(r"[ ,]", described)[0]
    await page.keyboard.press("Enter")
    await expect(page.locator("#hex-filter-name")).to_have_text(hex_id)
    scale = float(await page.locator("#map").get_attribute("data-scale") or 0)
    await page.keyboard.press("+")
    await expect(page.locator("#map")).not_to_have_attribute("data-scale", f"{scale:.2f}")
    await page.keyboard.press("Enter")  # the same hex again: every unit is listed again
    await expect(page.locator("#hex-filter")).to_be_hidden()
    # And by mouse: a drag pans (the view moves, no hex is selected), the wheel zooms.
    view = await page.locator("#map").get_attribute("viewBox")
    box = await page.locator("#map").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    await page.mouse.move(x, y)
    await page.mouse.down()
    await page.mouse.move(x - 120, y - 60, steps=6)
    await page.mouse.up()
    await expect(page.locator("#map")).not_to_have_attribute("viewBox", view or "")
    await expect(page.locator("#hex-filter")).to_be_hidden()
    scale = float(await page.locator("#map").get_attribute("data-scale") or 0)
    await page.mouse.wheel(0, -300)
    await expect(page.locator("#map")).not_to_have_attribute("data-scale", f"{scale:.2f}")


async def a_stack_fans_out_on_hover(page: Page) -> None:
    """New York's stack (five American units) shows one counter on top and its count; the
    mouse over it fans every counter out, each described, and leaving folds it again."""
    stack = page.locator("#map .stack[data-stack='0103']")
    await expect(stack.locator(".stack-count-text")).to_have_text("5")
    await stack.hover()
    fan = page.locator("#map .fan[data-stack='0103'] .counter")
    await expect(fan).to_have_count(5)
    await expect(fan.first.locator("title")).to_have_text(re.compile(r"^usa-\S+: usa "))
    await page.mouse.move(0, 0)
    await expect(fan).to_have_count(0)


async def overlays_and_log_filters(page: Page) -> None:
    """Supply lines and enemy ZOC are overlays to toggle; the log filters to the dice."""
    await expect(page.locator("#map .supply-line")).to_have_count(0)
    await page.check("#overlay-supply")
    await expect(page.locator("#map .supply-line").first).to_be_attached()
    await page.check("#overlay-zoc")
    await expect(page.locator("#map .zoc").first).to_be_attached()
    await page.uncheck("#overlay-supply")
    await page.uncheck("#overlay-zoc")
    await expect(page.locator("#map .zoc")).to_have_count(0)
    log = page.locator("#log-list")
    await page.select_option("#log-filter", "dice")
    await expect(log.locator("li[data-kind='power.declared']")).to_have_count(0)
    await expect(log.locator("li[data-kind='combat.resolved']")).to_have_count(2)
    await expect(log.locator("li[data-kind='combat.resolved'] .die.d6")).to_have_count(4)
    await page.select_option("#log-filter", "mine")
    await expect(log.locator("li[data-kind='combat.resolved']")).to_have_count(0)
    await expect(log.locator("li[data-kind='side.done']").first).to_contain_text("allies")
    await page.select_option("#log-filter", "all")


async def the_map_by_touch(page: Page) -> None:
    """On the phone a tap on a stack selects its hex (its units are listed, its stack
    fans out when it has several), and a pinch zooms the map."""
    card = page.locator(".map-card")
    await card.scroll_into_view_if_needed()
    stack = page.locator("#map .stack[data-stack='1205']")  # ussr-arm-1 and its friends
    await stack.tap()
    await expect(page.locator("#hex-filter-name")).to_have_text("1205")
    await expect(page.locator("#map .fan[data-stack='1205'] .counter").first).to_be_visible()
    await card.screenshot(path=str(ARTIFACTS / "turn-phone-communists-map.png"))
    await stack.tap(force=True)
    await expect(page.locator("#hex-filter")).to_be_hidden()
    # Two fingers spreading apart zoom in (touch events as the phone's screen sends them).
    box = await page.locator("#map").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    scale = float(await page.locator("#map").get_attribute("data-scale") or 0)
    cdp = await page.context.new_cdp_session(page)

    async def touch(kind: str, spread: float) -> None:
        points = [] if kind == "touchEnd" else [
            {"x": x - spread, "y": y, "id": 1}, {"x": x + spread, "y": y, "id": 2}]
        await cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    await touch("touchStart", 20)
    for spread in (40, 60, 80):
        await touch("touchMove", spread)
    await touch("touchEnd", 0)
    await expect(page.locator("#map")).not_to_have_attribute("data-scale", f"{scale:.2f}")
    assert float(await page.locator("#map").get_attribute("data-scale") or 0) > scale


async def turn_end(pages: Pages, players: dict[str, Page], everyone: dict[str, Page]) -> None:
    """The turn ends: every side's final reorganization (Done), then production, and
    turn 2 begins with its initiative."""
    for page in players.values():
        await expect(page.locator("#my-move")).to_contain_text("Your move: final reorganization")
        await page.click("#done-holder [name=done]")
    for n, (side, page) in enumerate(players.items()):
        await expect(page.locator("#my-move")).to_contain_text("Your move: production")
        if side == "communists":
            await nothing_wider_than_the_screen(page)
            await page.locator("[data-form=production]").scroll_into_view_if_needed()
            await shot(page, "phone-communists-production")
        await page.click("[data-form=production] [name=production]")
        if n == 0:  # dno-demo gives no build points: the figures are the player's word
            await expect(page.locator("#powers-body tr.mine").first).to_contain_text(
                "(as reported)")
    for page in everyone.values():
        await step_is(page, "initiative.reroll")
        await expect(page.locator("#status-turn")).to_have_text("2")
    await pages.check(players["communists"], "turn 2 on the phone")
    await pages.check(everyone["gm"], "the GM's page in turn 2")
    await pages.check(everyone["spectator"], "the spectator's page in turn 2")
    for name in ("gm", "spectator"):
        await nothing_wider_than_the_screen(everyone[name])
    await shot(everyone["spectator"], "desk-spectator-turn-2")
    await shot(players["communists"], "phone-communists-turn-2")


async def test_the_gm_creates_a_game_from_an_uploaded_scenario_on_the_page(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    """The lobby's create form takes a scenario file and a dropout policy; the GM's page
    then shows the join links and the policy, sets a deadline (logged with its reason),
    and shows why a game still open cannot be paused."""
    pages = Pages(browser, axe_source, play_url)
    gm = await pages.open("gm", "/play/")
    await gm.click("#create-details > summary")
    await gm.fill("#create-form [name=name]", "Uploaded")
    await gm.set_input_files("#create-form [name=scenario_file]",
                             str(Path(__file__).resolve().parents[1] / "scenarios" / "mini.json"))
    await gm.select_option("#create-form [name=dropout]", "gm")
    await gm.click("#create-form [name=create]")
    await expect(gm.locator("#seat-badge")).to_have_text("Game master")
    await expect(gm.locator("#game-title")).to_contain_text("Uploaded")
    await expect(gm.locator(".invites li")).to_have_count(3)
    await expect(gm.locator(".invites a").first).to_have_attribute("href", re.compile(r"code="))
    await expect(gm.locator(".gm-seats")).to_contain_text("gm, missed 0 deadlines")
    await pages.check(gm, "a new game's GM page")

    await gm.fill("[name=reason]", "a day to declare")
    await gm.click("details.gm-section:has([name=admin-deadlines]) > summary")
    await gm.fill("[name=deadline-declare]", "24")
    await gm.click("[name=admin-deadlines]")
    await expect(gm.locator("#log-list li[data-kind='deadlines.set']")).to_have_count(1)
    await expect(gm.locator("#log-list li[data-kind='deadlines.set']")).to_contain_text(
        "a day to declare")
    # In words, not a mapping of seconds (issue 30).
    await expect(gm.locator("#log-list li[data-kind='deadlines.set']")).to_contain_text(
        "The GM sets step deadlines: declare 1 day.")
    # A game still waiting for its players cannot be paused: the page says why.
    await gm.click("[name=admin-pause]")
    await expect(gm.locator("#error-banner")).to_contain_text(
        "only an active game can be paused (status open)")
    await expect(gm.locator("#error-banner")).to_contain_text("409 admin/not_active")
    await pages.check(gm, "the GM's page after its acts")
    assert pages.problems.seen == []
