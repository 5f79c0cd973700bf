"""The move panel's "Not offered" line and the reorganization panel's fuel and port repairs
(issue 34), on the modes test scenario with fuel and a damaged German port:

- OCS 5.4a: the Axis has two Reserve markers, both in use (ger-inf-2 with ger-art-1 in
  h40, ger-inf-1 in h30): ger-inf-2 may move into h30 (sharing its marker) but the
  hexes where it would need a third are not offered, and the panel says so with the
  rule;
- the GM sets Germany's fuel stock from the GM page (admin.edit powers.fuel, RULES-NOTES
  30), and the player's panel counts with the new figure; the scenario has no combat
  tables, and the GM sets the group's (admin.edit combat);
- 11.18.4: "Damaged ports can receive RPs in order to repair the port only": the
  reorganization panel lists the damaged port of h43 with the way to repair it from
  Mitte, the Axis puts the repair and ger-inf-3's reorganization (1 fuel of Germany's)
  in one basket, and the order repairs the port and spends the fuel.

Screenshots go to test-artifacts/ (desk 1440x900 and phone 390x844)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from combat_kit import combat_section, one_code
from support import Game, join, scenario
from test_play_page import browser, play_url  # noqa: F401 (fixtures)
from test_play_turn import (  # noqa: F401 (fixtures)
    PHONE,
    Pages,
    axe_source,
    my_move,
    nothing_wider_than_the_screen,
    select_on_map,
    shot,
)

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # the browser fixture reports it
    pass

# The Axis wins the initiative and moves first; the Allies are runners-up.
DICE = {"mode": "scripted", "script": {"initiative": [10, 2, 1]}}


def _scenario() -> dict[str, Any]:
    """The modes scenario: three German units in Reserve in two stacks (the Axis's two
    markers), ger-inf-3 face down, a damaged minor port in h43, and fuel (an INF costs 1
    to reorganize)."""
    data = scenario("modes")
    reserve = {"ger-inf-1", "ger-inf-2", "ger-art-1"}
    for u in data["units"]:
        if u["id"] in reserve:
            u["ocs"] = {**u["ocs"], "mode": "reserve", "orientation": "move"}
        if u["id"] == "ger-inf-3":
            u["face_up"] = False
    for h in data["map"]["hexes"]:
        if h["id"] == "h43":
            h.update(port="minor", port_damaged=True, seas=["west-sea"])
    data["fuel"] = {"reorganize": {"INF": 1},
                    "powers": {"germany": {"stock": 5, "per_turn": 1}}}
    return data


async def not_offered(pages: Pages, axis: Page) -> None:
    """OCS 5.4a: ger-inf-2's moves are those the report accepts with the markers left."""
    await my_move(axis, "Your move: action")
    await select_on_map(axis, "h40", "ger-inf-2")
    selected = axis.locator("[data-form=play] .selected-unit")
    why = selected.locator("p.why", has_text="Not offered")
    await expect(why).to_have_text(re.compile(
        r"^Not offered: (h\d\d, )*h\d\d: .*axis.* Reserve marker.*\(OCS 5\.4a\)"))
    listed = (await why.text_content() or "").split(": ")[1].split(", ")
    assert "h30" not in listed and "h41" in listed, listed
    await expect(axis.locator("#map .reach[data-hex='h30']")).to_have_count(1)
    await expect(axis.locator("#map .reach[data-hex='h41']")).to_have_count(0)
    await pages.check(axis, "a Reserve unit's moves with the markers all used")
    await why.scroll_into_view_if_needed()
    await shot(axis, "reorg-panel-desk-not-offered")
    await axis.click("[data-form=play] [name=unselect]")


async def gm_sets_the_fuel(pages: Pages, gm: Page) -> None:
    await gm.click("details.gm-edit-section > summary")
    await gm.fill("[name=reason]", "the oil track on the table")
    await gm.select_option("[name=edit-power]", "germany")
    fuel = gm.locator("[name=edit-power-fuel]")
    await expect(fuel).to_have_value("5")
    await fuel.fill("7")
    await pages.check(gm, "the GM's power form with fuel")
    await shot(gm, "reorg-panel-desk-gm-fuel")
    async with gm.expect_response(lambda r: r.url.endswith("/admin/edit")) as answer:
        await gm.click("[name=admin-edit-power]")
    assert json.loads((await answer.value).request.post_data or "{}")["powers"] == {
        "germany": {"fuel": 7}}
    await expect(gm.locator("#log-list")).to_contain_text("germany fuel=7")
    await gm.select_option("[name=edit-power]", "cw")
    await expect(fuel).to_have_value("0")  # a power the fuel section does not list has 0


async def gm_sets_the_combat_tables(pages: Pages, gm: Page) -> None:
    """The scenario has no combat tables (its players report results): the GM sets the
    group's (docs/game-master.md "Rules versions"); once they decide, the form is gone."""
    part = gm.locator("fieldset.gm-edit-part:has([name=edit-combat])")
    await expect(part).to_be_visible()
    await expect(gm.locator("[name=edit-combat]")).to_have_value('{"results": "reported"}')
    await gm.fill("[name=edit-combat]", json.dumps(combat_section(
        one_code("DE", [{"kind": "defender_eliminated"}], title="the club's own"))))
    await pages.check(gm, "the GM's combat section")
    await part.scroll_into_view_if_needed()
    await shot(gm, "reorg-panel-desk-gm-combat")
    await gm.click("[name=admin-edit-combat]")
    await expect(gm.locator("#log-list")).to_contain_text(
        "combat section set: land decided by the tables")
    await expect(part).to_be_hidden()


async def to_reorganization(axis: Page, game: Game) -> None:
    """The Axis is done with its action, combat and exploitation steps; the other sides
    answer whatever they are asked, through the API."""
    await axis.click("#done-holder [name=done]")
    await expect(axis.locator("#my-move")).not_to_have_text("Your move: action")
    for _ in range(6):
        summary = (await game.client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        entry = summary["awaiting"][0]
        if (entry["side"], entry["step"]) == ("axis", "reorganization"):
            return
        if entry["side"] == "axis":
            await my_move(axis, f"Your move: {entry['step']}")
            await axis.click("#done-holder [name=done]")
            await expect(axis.locator("#my-move")).not_to_have_text(
                f"Your move: {entry['step']}")
        else:
            await game.players[entry["side"]].ok("done")
    raise AssertionError("no reorganization step for the Axis")


async def repair_and_reorganize(pages: Pages, axis: Page) -> None:
    """The damaged port and ger-inf-3 in one basket; the fuel line counts Germany's 7."""
    await my_move(axis, "Your move: reorganization")
    panel = axis.locator("[data-form=reorg]")
    port = panel.locator(".reorg-repairs li.option[data-port='h43']")
    await expect(port).to_contain_text("port of h43 (minor)")
    await expect(port).to_contain_text("from Mitte (h41) 2 RPs")
    await port.locator("[name='reorg-repair-h43-h41']").click()
    await expect(port.locator("[name='reorg-repair-h43-h41']")).to_have_text("in basket")
    await panel.locator("[name=reorg-unit-ger-inf-3]").click()
    options = panel.locator(".reorg-options li.option.legal")
    await expect(options.first).to_be_visible()
    await expect(options.first.locator(".option-notes")).to_contain_text(
        "1 fuel of germany's 7")
    await options.first.locator("button").click()
    basket = panel.locator(".reorg-basket tbody tr")
    await expect(basket).to_have_count(2)
    await expect(basket.first).to_contain_text("port of h43")
    await expect(basket.first).to_contain_text("port repair")
    await expect(panel.locator("[name=reorg-submit]")).to_have_text(
        "Reorganize 1 unit, repair 1 port")
    await panel.locator("[name=reorg-preview]").click()
    await expect(panel.locator(".preview")).to_contain_text("✓ Dry run: valid.")
    await pages.check(axis, "a port repair and a unit in the basket")
    await panel.scroll_into_view_if_needed()
    await shot(axis, "reorg-panel-desk-repair")
    await axis.set_viewport_size(PHONE)
    await nothing_wider_than_the_screen(axis)
    await panel.locator(".reorg-repairs").scroll_into_view_if_needed()
    await shot(axis, "reorg-panel-phone-repair")
    async with axis.expect_response(lambda r: r.url.endswith("/orders")
                                    and r.request.method == "POST") as answer:
        await panel.locator("[name=reorg-submit]").click()
    assert (await answer.value).status == 201
    sent = json.loads((await answer.value).request.post_data or "{}")["order"]["body"]
    assert {"method": "port_repair", "port": "h43", "source": "h41"} in sent["items"]
    log = axis.locator("#log-list")
    await expect(log).to_contain_text("germany repairs the port of hex h43 from Mitte")
    await expect(log).to_contain_text(re.compile(r"germany has \d+ RPs and 6 fuel left"))
    await expect(panel.locator(".reorg-repairs")).to_have_count(0)


async def test_not_offered_moves_fuel_and_port_repairs_on_the_page(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Repairs", "scenario": _scenario(),
                                               "dice": DICE})
        assert r.status_code == 201, r.text
        created = r.json()
        game = Game(http, created["id"], created["gm_token"], created["join_codes"])
        pages = Pages(browser, axe_source, play_url)
        axis = await pages.seat(game, "axis", "Dave")
        for side in ("allies", "communists"):
            await join(game, side)
        gm = await pages.open("gm", f"/play/?game={game.id}")
        await gm.fill("#gm-form [name=token]", game.gm_token)
        await gm.click("#gm-form [name=open-gm]")
        await expect(gm.locator("#seat-badge")).to_have_text("Game master")
        try:
            await axis.click("[name=reroll-no]")
            for side in ("allies", "communists"):
                await game.players[side].ok("initiative.reroll", {"demand": False})
            await axis.click("[name=choose-first]")
            await expect(axis.locator("#my-move")).not_to_have_text(
                "Your move: initiative choose")
            await game.players["allies"].ok("initiative.choose", {"position": "before"})
            await axis.select_option("[data-form=declare] [name=action-germany]", "land")
            await axis.click("[data-form=declare] [name=declare]")
            await not_offered(pages, axis)
            await gm_sets_the_fuel(pages, gm)
            await gm_sets_the_combat_tables(pages, gm)
            await to_reorganization(axis, game)
            await repair_and_reorganize(pages, axis)
        except BaseException:
            for name, page in (("axis", axis), ("gm", gm)):
                await shot(page, f"reorg-panel-failed-{name}", full_page=True)
            raise
    assert pages.problems.seen == []
