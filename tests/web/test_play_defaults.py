"""A whole turn of dno-demo played with every default armed, from the page (issue 30):
three players (the Communists on a phone), a spectator and the GM. The standing orders
answer only what their name says and never cost a player an attack or his RPs:

- armed in the reroll window, the reroll defaults answer it; the Axis, which armed the
  combat and exploitation defaults, is still asked in its own combat and exploitation
  steps, and attacks on the map;
- in the reaction step the Allies (no reaction order) react first; the Communists, whose
  standing order answers for them, are not told "Your move" meanwhile;
- "Done through reorganization" says first what the reorganization step has to spend,
  and stops there to ask instead of letting the RPs lapse; the Axis keeps its basket as
  its final-reorganization plan;
- at the turn's end each side's final-reorganization order spends its RPs (its plan,
  then the cheapest way for every unit) and, RPs still left, asks the side, whose Done
  says how many lapse: every RP that lapses lapses by a player's own `done` (the export
  says which order caused each `rps.lapsed`);
- the turn-end status says the turn has ended, and its sum shows the pass bonuses;
- the page's layout: the map in view on a desk; on the phone the log before a few units.

Screenshots go to test-artifacts/ (desk 1440x900 and phone 390x844)."""

from __future__ import annotations

import re
from typing import Any

import httpx
from support import AXIS_FIRST, Game, join
from test_play_page import (  # noqa: F401 (fixtures)
    browser,
    play_url,
)
from test_play_turn import (  # noqa: F401 (fixtures)
    DICE,
    OPTIONS,
    Pages,
    axe_source,
    axis_attacks_on_the_map,
    everyone_joins,
    gm_opens_and_invites_a_spectator,
    my_move,
    nothing_wider_than_the_screen,
    shot,
    step_is,
)

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # the browser fixture reports it
    pass


async def an_order_that_lets_rps_lapse_says_so(allies: Page) -> None:
    """A final-reorganization order armed by hand to spend nothing and ask nothing (an
    API client could): the panel says what it would let lapse, with the figure."""
    await allies.click("[data-form=generic] summary")
    await allies.fill("[data-form=generic] [name=kind]", "standing")
    await allies.fill("[data-form=generic] [name=body]",
                      '{"step": "final_reorganization", "spend": "none"}')
    await allies.click("[data-form=generic] [name=send-generic]")
    final = allies.locator("[data-form=standing] [data-standing=final_reorganization]")
    await expect(final.locator(".lapse-warning")).to_have_text(re.compile(
        r"^done: lets \d+ RPs lapse \(cw \d+, .*\)$"))
    await shot(allies, "defaults-desk-allies-lapsing-order")
    await allies.click("[data-form=standing] [name=standing-disarm-final_reorganization]")
    await expect(final).to_have_attribute("data-armed", "no")


async def arm_defaults(players: dict[str, Page]) -> None:
    """Every side arms the defaults in the reroll window (they answer it at once); the
    Allies then disarm their reaction order: they will react by hand."""
    await an_order_that_lets_rps_lapse_says_so(players["allies"])
    for page in players.values():
        await page.click("[data-form=standing] [name=standing-arm-all]")
        form = page.locator("[data-form=standing]")
        await expect(form.locator("li[data-armed=yes]")).to_have_count(5)
        final = form.locator("[data-standing=final_reorganization]")
        await expect(final).to_contain_text(
            "spend RPs (the cheapest way for every unit), then done, unless an HQ is out of "
            "supply or RPs would lapse")
        await expect(form.locator("[data-standing=combat]")).to_contain_text(
            "done where your side is not phasing (never your own attacks)")
    await players["allies"].click("[data-form=standing] [name=standing-disarm-reaction]")
    await expect(players["allies"].locator("[data-standing=reaction]")).to_have_attribute(
        "data-armed", "no")


async def initiative(players: dict[str, Page], spectator: Page) -> None:
    """The reroll defaults answered the window; the winner and the runner-up choose."""
    for side in ("axis", "allies"):
        await expect(spectator.locator("#log-list")).to_contain_text(
            f"{side} answered the reroll window by a standing order")
    await my_move(players["axis"], "Your move: initiative choose")
    await players["axis"].click("[name=choose-first]")
    await my_move(players["allies"], "Your move: initiative choose")
    await players["allies"].click("[name=choose-before]")
    await step_is(players["axis"], "declare")


async def axis_keeps_its_attacks(pages: Pages, axis: Page, everyone: dict[str, Page]) -> None:
    """The Axis declares; the reaction waits for the Allies while the Communists are not
    told "Your move"; the Axis is asked in its own combat step and attacks."""
    allies, communists = everyone["allies"], everyone["communists"]
    await my_move(axis, "Your move: declare (germany, italy, japan)")
    await axis.select_option("[data-form=declare] [name=action-germany]", "land")
    await axis.click("[data-form=declare] [name=declare]")
    await my_move(axis, "Your move: action")
    await axis.click("#done-holder [name=done]")
    await my_move(allies, "Your move: reaction")
    later = communists.locator("#my-move")
    await expect(later).to_contain_text("Waiting for allies (reaction)")
    await expect(later).to_contain_text("Your standing order answers the reaction step for "
                                        "you when your turn comes, after allies.")
    await expect(communists.locator("#awaiting li[data-side=communists]")).to_contain_text(
        "your standing order answers")
    await expect(communists).not_to_have_title(re.compile("Your move"))
    await pages.check(communists, "a side whose standing order will answer")
    await shot(communists, "defaults-phone-communists-standing-answers")
    await allies.click("#done-holder [name=done]")
    # The Communists' order answered; the Axis's own combat step asks the Axis.
    await expect(everyone["spectator"].locator("#log-list")).to_contain_text(
        "communists: done with the reaction step by order")
    await my_move(axis, "Your move: combat")
    await expect(axis.locator("#awaiting li[data-side=axis]")).not_to_contain_text(
        "standing order")
    await axis_attacks_on_the_map(pages, axis, everyone)
    await a_barrage_aims_from_a_list(axis)
    await axis.click("#done-holder [name=done]")
    await my_move(axis, "Your move: exploitation")


async def a_barrage_aims_from_a_list(axis: Page) -> None:
    """An artillery unit may barrage any enemy hex (its range is the table's): a list,
    nearest first, and one button, not a button per hex."""
    await axis.locator("#units-body [name=select-ger-art-1]").click()
    selected = axis.locator("[data-form=play] .selected-unit")
    await expect(selected.locator("h3")).to_contain_text("ger-art-1")
    await expect(selected).not_to_contain_text("Checking what it may do")
    targets = selected.locator("[name=target-barrage]")
    await expect(targets).to_have_count(1)
    assert await targets.locator("option").count() > 4
    await expect(selected.locator("button[name^=attack-barrage-]")).to_have_count(0)
    await expect(selected.locator("[name=add-barrage]")).to_have_text("Add the barrage")
    assert await selected.locator("button").count() <= 8
    await axis.click("[data-form=play] [name=unselect]")


async def done_through_asks_before_rps_lapse(pages: Pages, axis: Page,
                                            everyone: dict[str, Page]) -> None:
    """At exploitation "Done through reorganization" says what the reorganization step
    has to spend; it stops there and the Axis is asked, its RPs whole; it keeps its
    basket as its final-reorganization plan, then lets the rest lapse by its own Done."""
    note = axis.locator("[data-form=done] .through-note")
    await expect(note).to_contain_text(
        "its 93 RPs (germany 45, italy 14, japan 34) are yours to spend")
    await pages.check(axis, "done through, with the RPs it stops for")
    await shot(axis, "defaults-desk-axis-done-through")
    await axis.click("[data-form=done] [name=done-through]")
    await my_move(axis, "Your move: reorganization")
    for page in everyone.values():
        await expect(page.locator("#log-list")).to_contain_text(
            "93 RPs would lapse (germany 45, italy 14, japan 34; 11.18: RPs may not be saved)")
    panel = axis.locator("[data-form=reorg]")
    await panel.locator("[name=reorg-cheapest]").click()
    await expect(panel.locator(".reorg-basket tbody tr").first).to_be_visible()
    await panel.locator("[name=reorg-keep-plan]").click()
    final = axis.locator("[data-form=standing] [data-standing=final_reorganization]")
    await expect(final).to_contain_text("spend RPs (your plan, then the cheapest way for every "
                                        "unit), then done, unless an HQ is out of supply or "
                                        "RPs would lapse")
    done = axis.locator("#done-holder [name=done]")
    await expect(done).to_have_text("Done: let 93 RPs lapse")
    await done.click()


async def pass_impulse(page: Page, side: str) -> None:
    await expect(page.locator("#my-move")).to_contain_text("Your move: declare")
    await page.click("[data-form=declare] [name=pass-all]")
    await my_move(page, "Your move: reorganization")
    await page.click("#done-holder [name=done]")


async def the_turn_ends_spent(pages: Pages, players: dict[str, Page],
                              everyone: dict[str, Page]) -> None:
    """Each side's order spends at the final reorganization (the Axis's plan first), is
    disarmed by its `rps_lapse` stop with the RPs left, and the side says Done itself."""
    spectator = everyone["spectator"]
    for side in players:
        await expect(spectator.locator("#log-list")).to_contain_text(
            f"{side}: the final reorganization step answered by order")
    spent = spectator.locator("#log-list li[data-kind='unit.reorganized']")
    await expect(spent.first).to_be_attached()
    note = spectator.locator("#status-turn-end-note")
    await expect(note).to_contain_text("the turn has ended")
    await expect(note).to_contain_text(re.compile(r"dice \d+ \+ pass bonuses \d+"))
    for side, page in players.items():
        await expect(page.locator("#my-move")).to_contain_text("Your move: final reorganization")
        done = page.locator("#done-holder [name=done]")
        await expect(done).to_have_text(re.compile(r"^Done: let \d+ RPs lapse$"))
        if side == "communists":
            await pages.check(page, "the final reorganization on the phone")
            await nothing_wider_than_the_screen(page)
            await shot(page, "defaults-phone-final-reorganization")
        await done.click()
    for page in players.values():
        await expect(page.locator("#my-move")).to_contain_text("Your move: production")
        await page.click("[data-form=production] [name=production]")
    for page in everyone.values():  # turn 2: the reroll defaults answer its window
        await expect(page.locator("#status-turn")).to_have_text("2")
        await expect(page.locator("#status-step")).to_have_attribute(
            "data-step", re.compile(r"^initiative\."))


async def layout(players: dict[str, Page], spectator: Page) -> None:
    """The map starts within a desk's first screen; on the phone the log comes before
    a handful of units (all of them on demand); a spectator on a phone counts every unit,
    not its own side's (it has none)."""
    axis = players["axis"]
    await axis.evaluate("window.scrollTo(0, 0)")
    box = await axis.locator(".map-card").bounding_box()
    assert box is not None and box["y"] < 300, box
    phone = players["communists"]
    log_box = await phone.locator(".log-card").bounding_box()
    units_box = await phone.locator(".units-card").bounding_box()
    assert log_box is not None and units_box is not None
    assert log_box["y"] < units_box["y"]
    rows = phone.locator("#units-body tr")
    assert await rows.count() <= 6
    await phone.click("#units-more")
    assert await rows.count() > 6
    await expect(spectator.locator("#units-count")).to_have_text(re.compile(r"^(\d+) of \1$"))
    await expect(spectator.locator("#unit-filter option")).to_have_count(1)


def lapses_by_their_orders(export: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(command kind, its actor's side, the lapsing side) of every `rps.lapsed` event."""
    commands = sorted(export["commands"], key=lambda c: int(c["first_event"]))
    out = []
    for e in export["events"]:
        if e["kind"] != "rps.lapsed" or e.get("rolled_back"):
            continue
        c = [c for c in commands if int(c["first_event"]) <= int(e["seq"])][-1]
        out.append((c["kind"], c["actor"].get("side"), e["data"]["side"]))
    return out


async def test_a_turn_with_every_default_armed_loses_no_attack_and_no_rp(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Defaults", "scenario": "dno-demo",
                                               "dice": DICE, "options": OPTIONS})
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
    pages = Pages(browser, axe_source, play_url)
    game = created["id"]
    gm = await gm_opens_and_invites_a_spectator(pages, game, created["gm_token"])
    spectator_link = await gm.locator("[name=spectator-link]").input_value()
    players = await everyone_joins(pages, game, created["join_codes"])
    spectator = await pages.open("spectator", spectator_link.removeprefix(play_url), phone=True)
    everyone = {**players, "gm": gm, "spectator": spectator}
    try:
        await arm_defaults(players)
        await initiative(players, spectator)
        await axis_keeps_its_attacks(pages, players["axis"], everyone)
        await done_through_asks_before_rps_lapse(pages, players["axis"], everyone)
        await pass_impulse(players["allies"], "allies")
        await pass_impulse(players["communists"], "communists")
        await the_turn_ends_spent(pages, players, everyone)
        await layout(players, spectator)
        await pages.check(spectator, "the spectator in turn 2")
        await shot(players["axis"], "defaults-desk-axis-turn-2")
    except BaseException:
        for name, page in everyone.items():
            await shot(page, f"defaults-failed-{name}", full_page=True)
        raise
    async with httpx.AsyncClient(base_url=play_url) as http:
        export = (await http.get(f"/v1/games/{game}/export", headers={
            "Authorization": f"Bearer {created['gm_token']}"})).json()
    lapses = lapses_by_their_orders(export)
    assert lapses and all(kind == "done" and by == side for kind, by, side in lapses), lapses
    # Its two attacks were its own, decided by dno-demo's table (issue 29).
    resolved = [e for e in export["events"] if e["kind"] == "combat.resolved"]
    assert [e["data"]["side"] for e in resolved] == ["axis", "axis"]
    assert pages.problems.seen == []


async def test_change_modes_offers_only_legal_modes_and_marks_a_refused_row(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    """OCS 5.7c, 5.8a: ger-inf-4 stands in an enemy ZOC, so the form offers it Move only
    (the options endpoint's legal modes), and says why not Reserve or Strat. The GM then
    puts the unit in Move Mode while the page has not heard of it (its reads held): the
    page's order is refused and its row marked with why, and the mark stays while the
    choices are read again."""
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Modes", "scenario": "dno-demo",
                                               "dice": AXIS_FIRST})
        created = r.json()
        game = Game(http, created["id"], created["gm_token"], created["join_codes"])
        pages = Pages(browser, axe_source, play_url)
        axis = await pages.seat(game, "axis", "Dave")
        for side in ("allies", "communists"):
            await join(game, side)
        await axis.click("[name=reroll-no]")
        await expect(axis.locator("#my-move")).not_to_have_text("Your move: initiative reroll")
        await game.players["allies"].ok("initiative.reroll", {"demand": False})
        await axis.click("[name=choose-first]")
        await expect(axis.locator("#my-move")).not_to_have_text("Your move: initiative choose")
        await game.players["allies"].ok("initiative.choose", {"position": "before"})
        await axis.select_option("[data-form=declare] [name=action-germany]", "land")
        await axis.click("[data-form=declare] [name=declare]")
    form = axis.locator("[data-form=mode]")
    select = form.locator("[name='mode-ger-inf-4']")
    await expect(select).to_be_enabled()
    assert [await o.get_attribute("value") for o in await select.locator("option").all()] == [
        "", "move"]
    await expect(select).to_have_attribute("title", re.compile(r"Reserve: is in an enemy ZOC"))
    await pages.check(axis, "the mode form with legal modes only")
    await shot(axis, "modes-legal-only")

    # The GM puts ger-inf-4 in Move Mode (an edit) while the page has not heard of it.
    held = re.compile(r"/v1/games/[^/?]+(/state|/log|/stream[^?]*)?(\?.*)?$")
    await axis.route(held, lambda route: route.abort())
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post(f"/v1/games/{game.id}/admin/edit", headers=game.gm, json={
            "units": {"ger-inf-4": {"mode": "move", "orientation": "move"}},
            "reason": "the table's position"})
        assert r.status_code == 200, r.text
    await select.select_option("move")
    await form.locator("[name=change-modes]").click()
    row = form.locator("tr[data-unit='ger-inf-4']")
    await expect(row).to_have_class(re.compile(r"\brefused\b"))
    await expect(row.locator(".refusal")).to_contain_text("Refused: ")
    await axis.unroute(held)
    await axis.click("#error-close")
    # Read again: Move is its mode now, not a change it may make; the mark stays.
    await expect(select.locator("option[value=move]")).to_have_count(0)
    await expect(row).to_have_class(re.compile(r"\brefused\b"))
    await pages.check(axis, "a refused row")
    await shot(axis, "modes-refused-row")
