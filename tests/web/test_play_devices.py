"""A second device from the page (issue 30): the seat's link opens the seat on another
device, whose page makes a key of its own and asks for it at once; the page that holds
the seat's key shows the request and approves it with its consent: the new device signs
at once (no GM, no wait), and the old page's order buttons go off the moment its key
stops. The GM's approval without consent stays the way back for a lost key: it asks
first, saying what it does, and both pages count down to the new key's day.

Screenshots go to test-artifacts/ (desk 1440x900 and phone 390x844)."""

from __future__ import annotations

import re
from typing import Any

import httpx
from test_play_page import (  # noqa: F401 (fixtures)
    browser,
    play_url,
)
from test_play_turn import DESK, Pages, axe_source, shot  # noqa: F401 (fixtures)

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # the browser fixture reports it
    pass


async def _game(url: str, wait_hours: int = 24) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url) as http:
        r = await http.post("/v1/games", json={
            "name": "Keys", "scenario": "dno-demo",
            "options": {"game": {"key_wait_hours": wait_hours}}})
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
    return created


async def _join(pages: Pages, created: dict[str, Any], side: str, name: str) -> Page:
    page = await pages.open(side, f"/play/?game={created['id']}&side={side}"
                                  f"&code={created['join_codes'][side]}")
    await page.fill("#join-form [name=name]", name)
    await page.click("#join-form [name=join]")
    await expect(page.locator("#seat-badge")).to_contain_text(side)
    return page


async def _other_device(pages: Pages, desk: Page, url: str, clock: bool = False) -> Page:
    """The first click: the desk page's "Use on another device" shows the link, which the
    phone opens."""
    await desk.click("#seat-card [name=device-link-show]")
    link = await desk.locator("#seat-card [name=device-link]").input_value()
    assert "#seat=" in link and "token" in link
    phone = await pages.open("phone", link.removeprefix(url), phone=True, clock=clock)
    await expect(phone.locator("#seat-badge")).to_contain_text("axis")
    assert "#" not in phone.url  # the fragment is kept in the browser, off the address
    return phone


async def test_a_second_device_takes_over_with_the_old_devices_consent(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    """Two clicks on the desk, none on the phone: the link, then "Approve the other
    device". The phone asks for its key as it opens, the desk page shows the request,
    and once approved the phone signs an order at once, while the desk page's order
    buttons are off and an order it is made to send is not sent."""
    created = await _game(play_url)
    pages = Pages(browser, axe_source, play_url)
    desk = await _join(pages, created, "axis", "Dave")
    for side in ("allies", "communists"):
        await _join(pages, created, side, side.title())
    await expect(desk.locator("#my-move")).to_have_text("Your move: initiative reroll")

    phone = await _other_device(pages, desk, play_url)
    help_box = phone.locator(".key-help")
    await expect(help_box.locator("[role=status]")).to_contain_text(
        "On the device that holds this seat, the page shows the request: approve it there")
    await expect(phone.locator("[name=reroll-no]")).to_be_visible()
    request = desk.locator("#seat-card .device-request")
    await expect(request).to_contain_text("Your other device asks to sign your orders")
    await pages.check(desk, "the other device's request on the desk")
    await pages.check(phone, "a phone asking for its key")
    await shot(desk, "devices-desk-request")
    posted: list[str] = []
    desk.on("request", lambda r: posted.append(r.url)
            if r.method == "POST" and r.url.endswith("/orders") else None)
    await request.locator("[name=device-approve]").click()

    # The desk's key stops: its buttons are off at once, its card says why.
    stopped = desk.locator(".key-help")
    await expect(stopped).to_contain_text("This browser no longer signs your orders")
    await expect(desk.locator("[name=reroll-no]")).to_be_disabled()
    await expect(desk.locator("[data-form=standing] [name=standing-arm-all]")).to_be_disabled()
    for page in (desk, phone):
        event = page.locator("#log-list li[data-kind='player.key_replaced']")
        await expect(event).to_contain_text("with the consent of the old one (another device)")
    await desk.locator("[data-form=reroll] [name=reroll-no]").evaluate("(b) => b.click()")
    assert posted == []
    await pages.check(desk, "a desk whose key stopped")
    await stopped.scroll_into_view_if_needed()
    await shot(desk, "devices-desk-stopped")

    # The phone signs at once: no countdown, its order is taken.
    await expect(phone.locator("[name=reroll-no]")).to_be_enabled()
    await phone.click("[name=reroll-no]")
    await expect(phone.locator("#log-list li[data-kind='initiative.reroll_answered']")
                 ).to_have_count(1)
    await expect(phone.locator("#error-banner")).to_be_hidden()
    await expect(desk.locator("#my-move")).not_to_have_text("Your move: initiative reroll")
    await pages.check(phone, "the phone signing")
    await shot(phone, "devices-phone-signing")
    assert pages.problems.seen == []


# long: the whole story of a lost key, from the request to the key in force on both pages.
async def test_a_lost_key_is_approved_by_the_gm_and_both_pages_count_down(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    """The fallback for a lost key: the GM approves the phone's request without the old
    key's consent, after a confirmation that says what it does. The old page's buttons
    go off at once and it counts down to the new key's day, as the phone does in its
    status line (the countdown a timer never read out unasked); the phone sends no order
    before then; a day later (the page's clock moved on) the key is in force."""
    created = await _game(play_url)
    pages = Pages(browser, axe_source, play_url)
    gm = await pages.open("gm", f"/play/?game={created['id']}")
    await gm.fill("#gm-form [name=token]", created["gm_token"])
    await gm.click("#gm-form [name=open-gm]")
    await expect(gm.locator("#seat-badge")).to_have_text("Game master")
    desk = await _join(pages, created, "axis", "Dave")
    phone = await _other_device(pages, desk, play_url, clock=True)
    posted: list[str] = []
    phone.on("request", lambda r: posted.append(r.url)
             if r.method == "POST" and r.url.endswith("/orders") else None)
    await expect(phone.locator(".key-help [role=status]")).to_contain_text("Asked at")

    await gm.click("details.gm-section:has([name=key-requests-refresh]) > summary")
    await gm.click("[name=key-requests-refresh]")
    request = gm.locator(".key-requests li")
    await expect(request).to_contain_text("Dave (axis) asks for key")
    await request.locator("button").click()
    dialog = gm.locator("dialog.confirm")
    await expect(dialog).to_contain_text("old key stops at once")
    await expect(dialog).to_contain_text("The new key signs only after 24 h")
    await pages.check(gm, "the GM's confirmation of a key without consent")
    await shot(gm, "devices-gm-confirm")
    await dialog.locator("[name=confirm-no]").click()
    await expect(gm.locator(".key-requests")).to_contain_text("Key requests (1 waiting)")
    await request.locator("button").click()
    await dialog.locator("[name=confirm-yes]").click()
    await expect(gm.locator(".key-requests")).to_contain_text("Key requests (0 waiting)")

    # Both pages count down; the desk's key signs no more, the phone's not yet.
    old = desk.locator(".key-help [role=status]")
    await expect(old).to_contain_text(re.compile(
        r"Your new key \(on your other device\) signs orders in 23 h 5[89] min"))
    await expect(desk.locator("[data-form=standing] [name=standing-arm-all]")).to_be_disabled()
    status = phone.locator(".key-help [role=status]")
    await expect(status).to_have_text(re.compile(
        r"^Your new key signs orders in 23 h 5[89] min \(from .+\): the game master approved "
        r"it without your old key's consent, so it waits\. Until then this page sends no "
        r"orders; the referee would refuse them\.$"))
    timer = status.locator("[role=timer]")
    await expect(timer).to_have_attribute("aria-live", "off")
    send = phone.locator("[data-form=generic] [name=send-generic]")
    await expect(send).to_be_disabled()
    await pages.check(phone, "a new key waiting on a phone")
    await pages.check(desk, "an old key stopped, the new one waiting")
    await expect(desk.locator("#seat-card .device-request")).to_have_count(0)
    await phone.locator(".key-help").scroll_into_view_if_needed()
    await shot(phone, "phone-key-wait")
    await desk.locator(".key-help").scroll_into_view_if_needed()
    await shot(desk, "desk-old-key-wait")
    # Made to send anyway (the form submitted by script): nothing goes to the server.
    await phone.click("[data-form=generic] summary")
    await phone.fill("[data-form=generic] [name=kind]", "roll")
    await phone.fill("[data-form=generic] [name=body]", '{"dice": "1d6", "purpose": "test"}')
    await phone.locator("[data-form=generic] form").evaluate("(form) => form.requestSubmit()")
    await expect(phone.locator("#error-banner")).to_contain_text(
        "Not sent: your new key signs orders from")
    assert posted == []
    await phone.click("#error-close")
    # A minute later the countdown says so, a day later the key is in force.
    before = await timer.text_content()
    await phone.clock.fast_forward("01:00")
    await expect(timer).not_to_have_text(before or "")
    await phone.set_viewport_size(DESK)
    await phone.clock.fast_forward("24:00:00")
    await expect(status).to_have_text("Your new key is in force: this browser signs your orders.")
    await expect(send).to_be_enabled()
    await pages.check(phone, "a new key in force")
    await shot(phone, "desk-key-in-force")
    assert posted == []
    assert pages.problems.seen == []
