"""A combat's questions on the page (issue 29): the standing orders panel offers the three
combat-choice orders in words, with their answers, and the side panel offers only what
the referee accepts from the side now (no "Roll dice" while a combat's question waits).

dno-demo, the Axis first; its attack on 1106 (ger-inf-4 and hun-inf-2 against
ussr-inf-3, 2d6 = 7 on the 1:1 column: DL1o1) asks the Communists their retreat, which
the standing order they armed on their page (the phone) answers: the longest path
entering no enemy ZOC, 1206 (RULES-NOTES 32). The Axis is then asked whether to advance:
its page offers the question and no roll; it arms "nobody advances" in the panel, which
answers at once, and the combat step offers the roll again.

Screenshots go to test-artifacts/ (desk 1440x900 and phone 390x844)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from test_play_page import browser, play_url  # noqa: F401 (fixtures)
from test_play_turn import (  # noqa: F401 (fixtures)
    DICE,
    OPTIONS,
    Pages,
    axe_source,
    everyone_joins,
    initiative,
    my_move,
    nothing_wider_than_the_screen,
    select_on_map,
    shot,
)

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # the browser fixture reports it
    pass

RETREAT = "retreat as far as the result allows, entering no enemy ZOC"


async def _arm(page: Page, step: str, answer: str) -> dict[str, Any]:
    """Arm the standing order for `step` with `answer` from the panel: the signed body."""
    row = page.locator(f"[data-form=standing] li[data-standing='{step}']")
    await row.locator(f"[name='standing-answer-{step}']").select_option(answer)
    async with page.expect_response(lambda r: r.url.endswith("/orders")
                                    and r.request.method == "POST") as answer_of:
        await row.locator(f"[name='standing-arm-{step}']").click()
    response = await answer_of.value
    assert response.status == 201, await response.text()
    sent: dict[str, Any] = json.loads(response.request.post_data or "{}")["order"]
    assert sent["kind"] == "standing"
    body: dict[str, Any] = sent["body"]
    return body


async def the_panel_offers_the_combat_choices(pages: Pages, communists: Page) -> None:
    """Each kind of question, its answers in words; none armed by the defaults."""
    form = communists.locator("[data-form=standing]")
    losses = form.locator("li[data-standing='combat.losses']")
    await expect(losses).to_have_attribute("data-armed", "no")
    await expect(losses).to_contain_text("asked (armed: the weakest units take the step losses "
                                         "(the default))")
    for step, answers in (("combat.retreat", [RETREAT, "take the retreat options as step "
                                                       "losses"]),
                          ("combat.advance", ["every attacker that may advances",
                                              "nobody advances"])):
        row = form.locator(f"li[data-standing='{step}']")
        await expect(row).to_have_attribute("data-armed", "no")
        await expect(row.locator("select option")).to_have_text(answers)
    assert await _arm(communists, "combat.retreat", "retreat") == {
        "step": "combat.retreat", "answer": "retreat"}
    row = form.locator("li[data-standing='combat.retreat']")
    await expect(row).to_have_attribute("data-armed", "yes")
    await expect(row).to_contain_text(f"Combat question: retreat: {RETREAT}, unless no retreat "
                                      "path avoids every enemy ZOC (then you are asked)")
    await expect(row.locator("[name='standing-disarm-combat.retreat']")).to_be_visible()
    await row.scroll_into_view_if_needed()
    await pages.check(communists, "the combat-choice standing orders on the phone")
    await nothing_wider_than_the_screen(communists)
    await shot(communists, "choices-phone-communists-standing")


async def roll_only_where_taken(players: dict[str, Page]) -> None:
    """The Axis's action step takes a roll from the Axis, not from the sides waiting."""
    axis = players["axis"]
    await my_move(axis, "Your move: declare (germany, italy, japan)")
    await axis.select_option("[data-form=declare] [name=action-germany]", "land")
    await axis.click("[data-form=declare] [name=declare]")
    await my_move(axis, "Your move: action")
    await expect(axis.locator("[data-form=roll]")).to_have_count(1)
    for side in ("allies", "communists"):
        await expect(players[side].locator("[data-form=roll]")).to_have_count(0)
    await axis.click("#done-holder [name=done]")
    for side in ("allies", "communists"):
        await my_move(players[side], "Your move: reaction")
        await expect(players[side].locator("[data-form=roll]")).to_have_count(1)
        await players[side].click("#done-holder [name=done]")
    await my_move(axis, "Your move: combat")
    await expect(axis.locator("[data-form=roll]")).to_have_count(1)


async def the_attack_and_its_questions(pages: Pages, players: dict[str, Page]) -> None:
    axis, communists = players["axis"], players["communists"]
    await select_on_map(axis, "1006", "ger-inf-4")
    await axis.locator("#map .stack[data-stack='1106']").click()
    await select_on_map(axis, "1007", "hun-inf-2")
    await axis.locator("#map .stack[data-stack='1106']").click()
    await axis.click("[data-form=play] [name=report]")
    # The Communists' standing order answered their retreat: into 1206, no enemy ZOC.
    log = axis.locator("#log-list")
    await expect(log).to_contain_text("communists answers the combat on 1106 by a standing "
                                      "order")
    await expect(log).to_contain_text("communists answers the combat on 1106 (standing order, "
                                      "retreat): retreat 1206")
    await expect(communists.locator("#map .stack[data-stack='1206'] [data-unit='ussr-inf-3']")
                 ).to_have_count(1)
    # The Axis is asked its advance: the question, and no roll the referee would refuse.
    await my_move(axis, "Your move: combat choice")
    await expect(axis.locator("[data-form=combat-choice] .question")).to_contain_text(
        "1106 is empty")
    await expect(axis.locator("[data-form=roll]")).to_have_count(0)
    await expect(axis.locator("#done-holder [name=done]")).to_have_count(0)
    await pages.check(axis, "a combat question, nothing else to play")
    await shot(axis, "choices-desk-axis-asked")
    assert await _arm(axis, "combat.advance", "stay") == {"step": "combat.advance",
                                                          "answer": "stay"}
    await expect(log).to_contain_text("axis answers the combat on 1106 (standing order, "
                                      "stay): nobody advances")
    await my_move(axis, "Your move: combat")
    await expect(axis.locator("[data-form=roll]")).to_have_count(1)
    row = axis.locator("[data-form=standing] li[data-standing='combat.advance']")
    await expect(row).to_contain_text("Combat question: advance: nobody advances, unless the "
                                      "advance would overstack the hex (then you are asked)")
    await row.scroll_into_view_if_needed()
    await shot(axis, "choices-desk-axis-standing")


async def test_the_combat_choices_are_offered_in_words_and_nothing_illegal_is(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Choices", "scenario": "dno-demo",
                                               "dice": DICE, "options": OPTIONS})
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
    pages = Pages(browser, axe_source, play_url)
    players = await everyone_joins(pages, created["id"], created["join_codes"])
    try:
        await initiative(players, players)
        await the_panel_offers_the_combat_choices(pages, players["communists"])
        await roll_only_where_taken(players)
        await the_attack_and_its_questions(pages, players)
    except BaseException:
        for name, page in players.items():
            await shot(page, f"choices-failed-{name}", full_page=True)
        raise
    assert pages.problems.seen == []
