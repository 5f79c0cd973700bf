"""An ATR mission of dno-demo flown through the /play page by both sides (issue 31;
11.18.1, docs/api.md "ATR missions"): in the Axis's reorganization step the Axis flies
air reorganization; the Allies (a phone, 390x844) fly usa-ftr-1 (0103, range 5) on combat
air patrol over 0605, chosen on the map (step 1), and the Communists' standing order
places none, ahead; the Axis chooses on the map its ATR,
ger-atr-1 (0803), its target 0507 (ger-inf-2, face down, 6 hexes: its range) and its
escort ger-ftr-1 (0407) (step 2); the Allies intercept over 0507 with cw-ftr-1 (0404),
chosen on the map (step 3); the Axis could fly ita-ftr-1 (0709, range 3) against it
and does not (step 4). Air-to-air (step 5): cw-ftr-1's 3 against ger-ftr-1's 3 and the ATR's 0, the
0 column of the demo air table, 1d10 = 7: M1, one aircraft of the mission lost: the Axis,
asked on its page, loses the escort, ger-ftr-1. AA (step 6): cw-hq-montgomery (0506, next
to 0507, factor 1), 1d10 = 3: no result. The ATR reorganizes ger-inf-2 (step 7) and every
aircraft that flew is home, face down, the patrol too (step 8).

Screenshots go to test-artifacts/ (desk 1440x900 and phone 390x844)."""

from __future__ import annotations

from typing import Any

import httpx
from support import Game, join
from test_play_page import (  # noqa: F401 (fixtures)
    browser,
    play_url,
)
from test_play_turn import (  # noqa: F401 (fixtures)
    Pages,
    axe_source,
    everyone_joins,
    my_move,
    nothing_wider_than_the_screen,
    shot,
    step_is,
)

try:
    from playwright.async_api import Browser, Page, expect
    from playwright.async_api import Error as PlaywrightError
except ImportError:  # the browser fixture reports it
    pass

# The Axis wins the initiative and moves first; fine weather; the air-to-air die, then
# the AA die.
DICE = {"mode": "scripted", "script": {"initiative": [9, 3, 1], "weather": [7],
                                       "combat": [7, 3]}}


async def tap_counter(page: Page, hex_id: str, unit: str) -> None:
    """A unit's counter on the map: its stack, then the counter when the stack fans out."""
    await page.locator(f"#map .stack[data-stack='{hex_id}']").click()
    fanned = page.locator(f"#map .fan [data-unit='{unit}']")
    if await fanned.count():
        await fanned.click()


async def fly_to(page: Page, hex_id: str) -> None:
    """A blue hex of the map: where the aircraft chosen may fly (clicked as the map hears
    it, wherever the page's notices stand over it)."""
    blue = page.locator(f"#map .reach.transport[data-hex='{hex_id}']")
    await expect(blue).to_be_attached()
    await blue.dispatch_event("click")


async def test_the_allies_intercept_an_axis_atr_mission_through_the_page_11_18_1(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Air 1944", "scenario": "dno-demo",
                                               "dice": DICE})
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
        game = Game(http, created["id"], created["gm_token"], created["join_codes"])
        pages = Pages(browser, axe_source, play_url)
        axis = await pages.open("axis", f"/play/?game={game.id}&side=axis"
                                        f"&code={game.join_codes['axis']}")
        allies = await pages.open("allies", f"/play/?game={game.id}&side=allies"
                                            f"&code={game.join_codes['allies']}", phone=True)
        for side, page in (("axis", axis), ("allies", allies)):
            await page.fill("#join-form [name=name]", f"{side.title()} player")
            await page.click("#join-form [name=join]")
            await expect(page.locator("#seat-badge")).to_contain_text(side)
        communists = await join(game, "communists")
        # Step 1, placed ahead: the Communists patrol nowhere (a standing order).
        await communists.ok("standing", {"step": "air.patrol", "patrols": []})
        try:
            await fly(pages, axis, allies)
        except BaseException:
            for name, page in (("axis", axis), ("allies", allies)):
                await shot(page, f"air-failed-{name}", full_page=True)
            raise
        state = (await http.get(f"/v1/games/{game.id}/state",
                                headers={"Authorization": f"Bearer {game.gm_token}"})).json()
    units = state["units"]
    assert "ger-ftr-1" not in units and state["eliminated"]["ger-ftr-1"] == "0407"
    assert units["ger-inf-2"]["face_up"] is True
    assert units["ger-atr-1"]["face_up"] is False and units["ger-atr-1"]["at"] == "0803"
    assert units["cw-ftr-1"]["face_up"] is False and units["cw-ftr-1"]["at"] == "0404"
    assert units["usa-ftr-1"]["face_up"] is False and units["usa-ftr-1"]["at"] == "0103"
    assert state["air"] is None
    assert pages.problems.seen == []


async def fly(pages: Pages, axis: Page, allies: Page) -> None:
    for page in (axis, allies):
        await my_move(page, "Your move: initiative reroll")
        await page.click("[name=reroll-no]")
    await my_move(axis, "Your move: initiative choose")
    await axis.click("[name=choose-first]")
    await my_move(allies, "Your move: initiative choose")
    await allies.click("[name=choose-before]")
    await my_move(axis, "Your move: declare (germany, italy, japan)")
    await axis.click("[data-form=declare] [name=pass-all]")
    await my_move(axis, "Your move: reorganization")
    card = axis.locator("[data-form=air]")
    await card.locator("[name=air-begin]").click()

    # Step 1: the Allies, on the phone, are asked first: usa-ftr-1 patrols over 0605.
    await my_move(allies, "Your move: air patrol")
    patrol = allies.locator("[data-form=air]")
    await expect(patrol).to_contain_text("11.18.1 step 1")
    await pages.check(allies, "the combat air patrol window on the phone")
    await nothing_wider_than_the_screen(allies)
    await patrol.scroll_into_view_if_needed()
    await shot(allies, "air-phone-allies-patrol")
    await patrol.locator("[name=air-pick-usa-ftr-1]").click()
    await fly_to(allies, "0605")
    await expect(patrol.locator("[name=air-to-usa-ftr-1]")).to_have_value("0605")
    await patrol.locator("[name=air-send]").click()

    # Step 2: the Axis chooses its ATR in the card, its target and escort on the map.
    await my_move(axis, "Your move: air flight")
    await card.locator("[name=air-pick-ger-atr-1]").click()
    await expect(axis.locator("#map .reach.transport[data-hex='0507']")).to_be_attached()
    await fly_to(axis, "0507")
    await card.locator("[name=air-unit-ger-inf-2]").check()
    await tap_counter(axis, "0407", "ger-ftr-1")
    await fly_to(axis, "0507")
    await expect(card.locator("[name=air-to-ger-ftr-1]")).to_have_value("0507")
    await expect(axis.locator("#map .planned-move")).to_have_count(2)
    await pages.check(axis, "the flight window")
    await shot(axis, "air-desk-axis-flight-map")
    await card.scroll_into_view_if_needed()
    await shot(axis, "air-desk-axis-flight")
    await card.locator("[name=air-send]").click()

    # Step 3: the Allies intercept over 0507 with cw-ftr-1, chosen on the map.
    await my_move(allies, "Your move: air intercept")
    await expect(allies.locator("[data-form=air] table.sorties")).to_contain_text("ger-atr-1")
    await tap_counter(allies, "0404", "cw-ftr-1")
    await fly_to(allies, "0507")
    await expect(allies.locator("[data-form=air] [name=air-to-cw-ftr-1]")).to_have_value("0507")
    await shot(allies, "air-phone-allies-intercept")
    await allies.locator("[data-form=air] [name=air-send]").click()

    # Step 4: the Axis may fly ita-ftr-1 against the interceptor; it does not.
    await my_move(axis, "Your move: air counter")
    await expect(card.locator("[name=air-to-ita-ftr-1] option[value='0507']")).to_have_count(1)
    await card.locator("[name=air-none]").click()

    # Step 5: M1, the Axis names the aircraft lost: its escort (the default).
    await my_move(axis, "Your move: air choice")
    await expect(card).to_contain_text("Air-to-air over 0507")
    await expect(card.locator("[name=air-fate-ger-ftr-1]")).to_have_value("lost")
    await expect(card.locator("[name=air-fate-ger-atr-1]")).to_have_value("")
    await pages.check(axis, "an air-to-air result's question")
    await card.scroll_into_view_if_needed()
    await shot(axis, "air-desk-axis-losses")
    await card.locator("[name=air-choose]").click()

    # Steps 6-8: AA fires and misses, ger-inf-2 is reorganized, everyone is home.
    await my_move(axis, "Your move: reorganization")
    log = axis.locator("#log-list")
    await expect(log).to_contain_text("ger-ftr-1 is shot down over 0507")
    await expect(log).to_contain_text("AA fire on ger-atr-1 over 0507 (11.18.1 step 6)")
    await expect(log).to_contain_text("germany reorganizes ger-inf-2 flown in by ATR ger-atr-1")
    await expect(log).to_contain_text(
        "cw-ftr-1, usa-ftr-1 return to base and turn face down (11.18.1 step 8)")
    await expect(allies.locator("#log-list")).to_contain_text(
        "germany reorganizes ger-inf-2 flown in by ATR ger-atr-1")
    await shot(axis, "air-desk-axis-after")
    for _ in range(5):  # the page may redraw the element between finding and scrolling
        try:
            await allies.locator("[data-form=air], #log-list").first \
                .scroll_into_view_if_needed()
            break
        except PlaywrightError as error:
            if "not attached" not in str(error):
                raise
    await shot(allies, "air-phone-allies-after")
    await step_is(allies, "reorganization")
