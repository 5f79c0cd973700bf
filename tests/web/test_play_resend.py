"""The page resends an order it got no answer to, never signing it anew (issue 28; a
re-signed order is a new roll: docs/security.md).

The Axis's answer to the reroll window (a sealed answer, whose signature keys the dice)
reaches the server, and then the connection is lost; its three resends meet a server
that answers 503 before taking them. The page says the order got no answer and keeps its
text (localStorage). The next click, arming a standing order, first sends the kept text
again, byte for byte, which the server answers with its first answer; only then is the
new order signed, with the next seq. The server holds the answer once.

Before that, an order whose answer is a 503 from a proxy (the server had taken it) is
sent again at once by the same call, identical, and taken once.

Screenshots go to test-artifacts/ (desk 1440x900)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from support import AXIS_FIRST, Game, join
from test_play_page import browser, play_url  # noqa: F401 (fixtures)
from test_play_turn import Pages, axe_source, my_move, shot  # noqa: F401 (fixtures)

try:
    from playwright.async_api import Browser, Page, Request, Route, expect
except ImportError:  # the browser fixture reports it
    pass

UNAVAILABLE = json.dumps({"type": "about:blank", "title": "Service Unavailable",
                          "status": 503, "detail": "the proxy's upstream is busy"})


class Orders:
    """The page's POSTs of orders, as sent, and a route that fails them as told."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.sent: list[str] = []
        self.plan: list[str] = []  # per POST: "through", "taken-then-lost", "taken-then-503", "503"
        page.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/orders"):
            self.sent.append(request.post_data or "")

    async def _route(self, route: Route) -> None:
        how = self.plan.pop(0) if self.plan else "through"
        if how == "503":
            await route.fulfill(status=503, content_type="application/problem+json",
                                body=UNAVAILABLE)
            return
        if how == "through":
            await route.continue_()
            return
        answer = await route.fetch()  # the server takes the order and answers...
        assert answer.status == 201, await answer.text()
        if how == "taken-then-lost":
            await route.abort("connectionreset")  # ...but the answer is lost
        else:
            await route.fulfill(status=503, content_type="application/problem+json",
                                body=UNAVAILABLE)

    async def fail(self, *plan: str) -> None:
        self.plan = list(plan)
        await self.page.route("**/orders", self._route)

    async def heal(self) -> None:
        await self.page.unroute("**/orders")


def _order(text: str) -> dict[str, Any]:
    envelope: dict[str, Any] = json.loads(text)
    return envelope


async def _pending(page: Page, game: str) -> str | None:
    found: str | None = await page.evaluate(
        """(game) => {
             const key = Object.keys(localStorage).find(
               (k) => k.startsWith(`wif.play.pending/${game}/`));
             return key ? localStorage.getItem(key) : null;
           }""", game)
    return found


async def resent_within_the_call(orders: Orders, axis: Page, game: Game) -> None:
    """A 503 after the server took the order: the same call sends the same bytes again."""
    await orders.fail("taken-then-503")
    row = axis.locator("[data-form=standing] li[data-standing=reaction]")
    await row.locator("[name=standing-arm-reaction]").click()
    await expect(axis.locator("#notice")).to_contain_text("standing accepted (seq 1)")
    await expect(row).to_have_attribute("data-armed", "yes")
    await orders.heal()
    assert len(orders.sent) == 2 and orders.sent[0] == orders.sent[1], orders.sent
    assert await _pending(axis, game.id) is None
    armed = [e for e in await game.log() if e["kind"] == "standing.armed"]
    assert len(armed) == 1


async def kept_and_resent_before_a_new_order(pages: Pages, orders: Orders, axis: Page,
                                            game: Game) -> None:
    before = len(orders.sent)
    await orders.fail("taken-then-lost", "503", "503", "503")
    await axis.click("[name=reroll-no]")
    await expect(axis.locator("#error-text")).to_contain_text("the order got no answer",
                                                              timeout=30_000)
    await orders.heal()
    tries = orders.sent[before:]
    assert len(tries) == 4 and len(set(tries)) == 1, tries
    first = _order(tries[0])
    assert first["order"]["kind"] == "initiative.reroll"
    assert await _pending(axis, game.id) == tries[0]
    # The server took it once (the first try), whatever the page heard.
    answered = [e for e in await game.log() if e["kind"] == "initiative.reroll_answered"
                and e["data"].get("side") == "axis"]
    assert len(answered) == 1
    await pages.check(axis, "an order that got no answer")
    await shot(axis, "resend-desk-unanswered")

    await axis.click("#error-close")
    row = axis.locator("[data-form=standing] li[data-standing=exploitation]")
    await row.locator("[name=standing-arm-exploitation]").click()
    await expect(axis.locator("#notice")).to_contain_text("standing accepted (seq 3)")
    await expect(row).to_have_attribute("data-armed", "yes")
    resent, new = orders.sent[before + 4:]
    assert resent == tries[0]  # the kept bytes, not signed again
    assert _order(new)["order"]["kind"] == "standing"
    assert _order(new)["order"]["seq"] == first["order"]["seq"] + 1
    assert await _pending(axis, game.id) is None
    export = (await game.client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    signed = [o for o in export["orders"] if o["order"]["player"] == first["order"]["player"]
              and o["order"]["seq"] == first["order"]["seq"]]
    assert [o["signature"] for o in signed] == [first["signature"]]
    answered = [e for e in export["events"] if e["kind"] == "initiative.reroll_answered"
                and e["data"].get("side") == "axis"]
    assert len(answered) == 1


async def test_an_unanswered_order_is_sent_again_as_signed_never_signed_anew(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Resend", "scenario": "dno-demo",
                                               "dice": AXIS_FIRST})
        assert r.status_code == 201, r.text
        created = r.json()
        game = Game(http, created["id"], created["gm_token"], created["join_codes"])
        pages = Pages(browser, axe_source, play_url)
        axis = await pages.seat(game, "axis", "Dave")
        for side in ("allies", "communists"):
            await join(game, side)
        await my_move(axis, "Your move: initiative reroll")
        orders = Orders(axis)
        try:
            await resent_within_the_call(orders, axis, game)
            await kept_and_resent_before_a_new_order(pages, orders, axis, game)
        except BaseException:
            await shot(axis, "resend-failed", full_page=True)
            raise
    assert pages.problems.seen == []
