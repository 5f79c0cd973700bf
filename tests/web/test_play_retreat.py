"""The results form's retreats (OCS 5.10a, OCS 5.8a): the page offers only the hexes the
referee accepts, names the hexes in an enemy ZOC, and asks for the step loss the referee
requires when units already DG retreat into one (`losses`, OCS 5.10a C).

A two-side scenario on a 5x5 map: the Commonwealth stack in 0202 (cw-inf-1 DG, cw-inf-2
in Strat Mode, cw-inf-3 in Combat Mode) is attacked by ger-inf-1 from 0302. Around 0202:
0302 holds the enemy, 0102 is neutral (the USA's, neutral), 0301 and 0203 are in
ger-inf-1's ZOC, 0201 and 0103 are free.

- `service/web/retreat.js`, run by Node, against the referee itself: for every retreat
  of one or two hexes from 0202, of each unit and of the whole stack, after nothing and
  after a DG result on the attacker's hex (which takes its ZOC away), the module accepts
  exactly what a dry run accepts, with the same enemy ZOC, Strat eliminations and step
  losses; leaving out a loss it asks for is refused (409 `report/retreat_loss`).
- The page, in Chromium: the Axis attacks through the map and reports a retreat with
  the results form, which offers only those hexes, labels the ZOC ones, shows the loss
  choices, and whose order is accepted (201).
"""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import httpx
from js_tools import ROOT, node
from support import Game, Player, join
from test_play_page import ARTIFACTS, browser, play_url  # noqa: F401 (fixtures)
from test_play_turn import (
    PHONE,
    Pages,
    axe_source,  # noqa: F401 (a fixture)
    my_move,
    nothing_wider_than_the_screen,
    select_on_map,
    shot,
)

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # the browser fixture reports it
    pass

RETREAT = ROOT / "service" / "web" / "retreat.js"
AXIAL = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
HEX = "0202"  # the defenders' hex
ATTACKER_HEX = "0302"
NEUTRAL_HEX = "0102"
DEFENDERS = ["cw-inf-1", "cw-inf-2", "cw-inf-3"]
# The Allies win the initiative (10 against 1; nobody may reroll from box 3) and go last:
# the Axis moves first.
DICE = {"mode": "scripted", "script": {"initiative": [1, 10], "weather": [7]}}


def _hex_id(q: int, r: int) -> str:
    return f"{q:02d}{r:02d}"


def _neighbours(hex_id: str) -> list[str]:
    q, r = int(hex_id[:2]), int(hex_id[2:])
    return [_hex_id(q + dq, r + dr) for dq, dr in AXIAL
            if 0 <= q + dq < 5 and 0 <= r + dr < 5]


def _infantry(uid: str, power: str, at: str, mode: str) -> dict[str, Any]:
    return {"id": uid, "power": power, "class": "land", "type": "INF", "size": "corps",
            "cost": 2, "at": at,
            "ocs": {"mode": mode, "combat": {"strength": 4, "ma": 4},
                    "move": {"strength": 1, "ma": 8}, "action_rating": 3}}


def retreat_scenario() -> dict[str, Any]:
    """Germany (Axis) against the Commonwealth (Allies); the USA is an Allied power, and
    neutral: its hex 0102 is neutral territory to the Commonwealth (OCS 5.10a)."""
    hexes = [{"id": _hex_id(q, r), "q": q, "r": r,
              "controller": "usa" if _hex_id(q, r) == NEUTRAL_HEX else "cw" if q <= 2
              else "germany"}
             for q in range(5) for r in range(5)]
    return {
        "id": "retreats", "title": "A stack with few ways out",
        "sides": [{"id": "axis", "initiative_box": 3}, {"id": "allies", "initiative_box": 3}],
        "powers": [
            {"id": "germany", "side": "axis", "at_war_with": ["cw"]},
            {"id": "cw", "side": "allies", "at_war_with": ["germany"]},
            {"id": "usa", "side": "allies", "neutral": True},
        ],
        "map": {"hexes": hexes},
        "units": [_infantry("ger-inf-1", "germany", ATTACKER_HEX, "combat"),
                  _infantry("cw-inf-1", "cw", HEX, "dg"),
                  _infantry("cw-inf-2", "cw", HEX, "strat"),
                  _infantry("cw-inf-3", "cw", HEX, "combat")],
        # The results form is for results players report: this scenario has no tables.
        "combat": {"results": "reported"},
    }


async def _to_combat(game: Game, axis_done: Any) -> None:
    """The Allies go last; the Axis declares a land action and is done with its action
    step (`axis_done`), the Allies answer any step they are asked in, until the Axis is
    in its combat step."""
    allies = game.players["allies"]
    await allies.ok("initiative.choose", {"position": "last"})
    await axis_done()
    while True:
        summary = (await game.client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        awaited = summary["awaiting"][0]
        if awaited["side"] == "axis":
            assert awaited["step"] == "combat", summary["awaiting"]
            return
        await allies.ok("done")


# ------------------------------------------------------------------ retreat.js and the referee

def _cases() -> list[dict[str, Any]]:
    before = [[], [{"kind": "dg", "hex": ATTACKER_HEX}]]
    movers = [[u] for u in DEFENDERS] + [DEFENDERS]
    paths = [[a] for a in _neighbours(HEX)] + [[a, b] for a in _neighbours(HEX)
                                                for b in _neighbours(a)]
    return [{"before": b, "units": m, "path": p} for b in before for m in movers for p in paths]


def _module_answers(scenario: dict[str, Any], state: dict[str, Any],
                    cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """retreat.js's answer for each case: refused (and where), or each hex's enemy ZOC,
    Strat units eliminated and the units owing a step (the first of which is named: a
    lone DG unit is named for each enemy-ZOC hex it enters)."""
    script = (f"import * as r from {json.dumps(RETREAT.as_uri())};\n"
              "const data = JSON.parse(await new Promise((resolve) => {\n"
              "  let text = ''; process.stdin.on('data', (c) => { text += c; });\n"
              "  process.stdin.on('end', () => resolve(text)); }));\n"
              "const ground = new r.Ground(data.scenario, data.state);\n"
              "const combat = { by: 'combat', hex: data.hex, attackers: ['ger-inf-1'],\n"
              "  defenders: data.defenders };\n"
              "const out = data.cases.map((c) => {\n"
              "  const units = r.afterResults(ground, r.unitsOf(data.state), combat, c.before);\n"
              "  return r.retreat(ground, units, c.units, c.path);\n"
              "});\n"
              "process.stdout.write(JSON.stringify(out));\n")
    done = subprocess.run([node(), "--input-type=module", "-e", script],
                          input=json.dumps({"scenario": scenario, "state": state, "hex": HEX,
                                            "defenders": DEFENDERS, "cases": cases}),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers


async def _dry_run(axis: Player, position: dict[str, Any], results: list[dict[str, Any]]
                   ) -> httpx.Response:
    body = {"combats": [{"by": "combat", "hex": HEX, "attackers": ["ger-inf-1"],
                         "results": results}]}
    # A dry run stores nothing and takes no seq: every one is signed with the next.
    envelope = axis.envelope("report", body, position, seq=axis.seq + 1)
    return await axis.client.post(f"/v1/games/{axis.game}/orders", params={"dry_run": "true"},
                                  json=envelope, headers=axis.headers)


# long: each case's dry run is compared with the module's answer on four counts.
async def test_the_retreat_module_accepts_what_the_referee_accepts(
    client: httpx.AsyncClient,
) -> None:
    """OCS 5.10a, OCS 5.8a: for 336 retreats (each of the stack's units alone and the
    whole stack; one or two hexes, every neighbour; with and without a DG result on the
    attacker's hex before), retreat.js refuses exactly the retreats a dry run refuses,
    and for the others says which hexes are in an enemy ZOC, which Strat units are
    eliminated and who owes a step as the referee's events do; a retreat without the
    step losses it owes is refused (409 report/retreat_loss)."""
    r = await client.post("/v1/games", json={"name": "Retreats", "scenario": retreat_scenario(),
                                             "dice": DICE})
    assert r.status_code == 201, r.text
    created = r.json()
    game = Game(client, created["id"], created["gm_token"], created["join_codes"])
    axis = await join(game, "axis")
    await join(game, "allies")

    async def axis_done() -> None:
        await axis.ok("declare", {"actions": {"germany": "land"}})
        await axis.ok("done")

    await _to_combat(game, axis_done)
    state = await game.state(axis)
    scenario = (await client.get(f"/v1/games/{game.id}/export", headers=axis.headers)).json()[
        "scenario"]
    cases = _cases()
    answers = _module_answers(scenario, state, cases)
    position = await axis.position()
    accepted = owing = named_twice = 0
    seen_zoc = seen_strat = False
    for case, answer in zip(cases, answers, strict=True):
        losses = [step["owed"][0] for step in answer["steps"] if step["owed"]]
        retreat: dict[str, Any] = {"kind": "retreat", "units": case["units"],
                                   "path": case["path"]}
        if losses:
            retreat["losses"] = losses
        r = await _dry_run(axis, position, [*case["before"], retreat])
        what = f"{case} -> {answer}: {r.status_code} {r.text[:300]}"
        if answer["refusal"] is not None:
            assert r.status_code == 409, what
            assert r.json()["code"] == "report/retreat_path", what
            continue
        assert r.status_code == 200 and r.json()["valid"], what
        accepted += 1
        events = r.json()["events"]
        zoc = [e["data"]["enemy_zoc"] for e in events if e["kind"] == "units.retreated"]
        assert zoc == [step["zoc"] for step in answer["steps"]], what
        strat = sorted(e["data"]["unit"] for e in events if e["kind"] == "unit.eliminated")
        assert strat == sorted(u for step in answer["steps"] for u in step["eliminated"]), what
        seen_zoc |= any(zoc)
        seen_strat |= bool(strat)
        if losses:
            owing += 1
            named_twice += len(set(losses)) < len(losses)  # OCS 5.10a C: one step a hex
            del retreat["losses"]
            r = await _dry_run(axis, position, [*case["before"], retreat])
            assert r.status_code == 409, what
            assert r.json()["code"] == "report/retreat_loss", what
    # Every kind of case came up: refusals, ZOC hexes, Strat eliminations, step losses.
    assert len(cases) == 336 and 0 < accepted < len(cases) and owing > 0 and named_twice > 0
    assert seen_zoc and seen_strat


# ------------------------------------------------------------------ the page

async def test_the_results_form_offers_only_the_retreats_the_referee_accepts(
    play_url: str, browser: Browser, axe_source: str,  # noqa: F811
) -> None:
    """The Axis attacks 0202 on the map and reports a retreat of the whole stack: the
    first hex offers only 0301 and 0203 (enemy ZOC, so labelled) and 0201 and 0103, not
    the attacker's 0302 nor the neutral 0102 (OCS 5.10a); into 0301, cw-inf-2 (Strat
    Mode) is eliminated (OCS 5.8a) and DG cw-inf-1 loses a step (OCS 5.10a C: the page
    asks which unit); then the second hex excludes 0202 and 0302, and into 0401 (enemy
    ZOC) both survivors are DG, so a second loss is asked for, of either (one step a
    hex: cw-inf-1 may lose another); the player names cw-inf-3. The report, with its
    `losses`, is accepted (201)."""
    async with httpx.AsyncClient(base_url=play_url) as http:
        r = await http.post("/v1/games", json={"name": "Retreats", "scenario": retreat_scenario(),
                                               "dice": DICE})
        assert r.status_code == 201, r.text
        created = r.json()
        game = Game(http, created["id"], created["gm_token"], created["join_codes"])
        await join(game, "allies")
        pages = Pages(browser, axe_source, play_url)
        axis = await pages.open("axis", f"/play/?game={game.id}&side=axis"
                                f"&code={created['join_codes']['axis']}")
        await axis.fill("#join-form [name=name]", "Axis player")
        await axis.click("#join-form [name=join]")
        await expect(axis.locator("#seat-badge")).to_contain_text("axis")

        async def axis_done() -> None:
            await my_move(axis, "Your move: declare (germany)")
            await axis.select_option("[data-form=declare] [name=action-germany]", "land")
            await axis.click("[data-form=declare] [name=declare]")
            await my_move(axis, "Your move: action")
            await axis.click("#done-holder [name=done]")
            await expect(axis.locator("#my-move")).not_to_have_text("Your move: action")

        await _to_combat(game, axis_done)
    try:
        await _attack_and_retreat(pages, axis)
    except BaseException:
        await shot(axis, "failed-retreat", full_page=True)
        raise
    assert pages.problems.seen == []


async def _options(select: Any) -> list[str]:
    texts: list[str] = await select.locator("option").all_text_contents()
    return texts


# long: the form checked at each choice, on a desk and a phone, then the order sent.
async def _attack_and_retreat(pages: Pages, axis: Page) -> None:
    await my_move(axis, "Your move: combat")
    await select_on_map(axis, ATTACKER_HEX, "ger-inf-1")
    await axis.locator(f"#map .stack[data-stack='{HEX}']").click()
    await expect(axis.locator("[data-form=play] tr[data-row='combats/0']")).to_contain_text(
        f"Combat on {HEX}")
    await axis.click("[data-form=play] [name=report]")
    form = axis.locator(f"[data-form=play] .results-form[data-hex='{HEX}']")
    await expect(form).to_contain_text(re.compile(r"2d6 rolled \d+ \+ \d+ = \d+"))
    await form.locator("[name^=result-kind]").select_option("retreat")

    first, second = form.locator("[name=retreat-1]"), form.locator("[name=retreat-2]")
    losses = [form.locator("[name=retreat-loss-1]"), form.locator("[name=retreat-loss-2]")]
    # Only where the referee lets the stack go, the enemy ZOC named (OCS 5.10a).
    await expect(first.locator("option")).to_have_text(
        ["0301 (enemy ZOC)", "0201", "0103", "0203 (enemy ZOC)"])
    note = form.locator(".retreat-note")
    await expect(note).to_contain_text("Not offered: 0302 (enemy units), 0102 (neutral territory).")
    # Into 0301 (the first offered): the Strat unit is eliminated (OCS 5.8a); cw-inf-1,
    # DG already, loses a step (OCS 5.10a C), and it is the only one that may.
    await expect(first).to_have_value("0301")
    await expect(note).to_contain_text(
        "cw-inf-2 (Strat Mode) is eliminated entering 0301, in an enemy ZOC (OCS 5.8a).")
    await expect(losses[0]).to_be_visible()
    await expect(losses[0].locator("option")).to_have_text(["cw-inf-1"])
    await expect(form.locator(".retreat-loss").first).to_contain_text(
        "Step loss in 0301 (already DG, enemy ZOC; OCS 5.10a)")
    await expect(losses[1]).to_be_hidden()
    # Then: never back into 0202, never into the attacker's 0302.
    await expect(second.locator("option")).to_have_text(
        ["stop there", "0401 (enemy ZOC)", "0400", "0300", "0201"])
    # A free hex first asks for no loss.
    await first.select_option("0201")
    await expect(losses[0]).to_be_hidden()
    await expect(note).not_to_contain_text("eliminated")
    await expect(second.locator("option")).to_have_text(
        ["stop there", "0301 (enemy ZOC)", "0300", "0200", "0101"])
    # 0102 is next to 0201 too: it was said already.
    await expect(note).to_have_text("Not offered: 0302 (enemy units), 0102 (neutral territory).")
    await first.select_option("0301")
    await second.select_option("0401")
    # 0301 turned the survivors DG: into 0401 (enemy ZOC) one of them loses a step too,
    # cw-inf-1 (named for 0301 already: one step a hex, OCS 5.10a C) or cw-inf-3.
    await expect(losses[1]).to_be_visible()
    await expect(losses[1].locator("option")).to_have_text(["cw-inf-1", "cw-inf-3"])
    await losses[1].select_option("cw-inf-3")
    await pages.check(axis, "a retreat in the results form")
    await form.scroll_into_view_if_needed()
    await shot(axis, "desk-axis-retreat")
    await form.screenshot(path=str(ARTIFACTS / "turn-desk-axis-retreat-form.png"))
    await axis.set_viewport_size(PHONE)
    await nothing_wider_than_the_screen(axis)
    await form.scroll_into_view_if_needed()
    await shot(axis, "phone-axis-retreat")
    await pages.check(axis, "a retreat in the results form on a phone-sized screen")

    async with axis.expect_response(lambda r: r.url.endswith("/orders")
                                    and r.request.method == "POST") as answer:
        await form.locator("[name=result-report]").click()
    sent = json.loads((await answer.value).request.post_data or "{}")
    assert sent["order"]["body"]["combats"][0]["results"] == [
        {"kind": "retreat", "units": DEFENDERS, "path": ["0301", "0401"],
         "losses": ["cw-inf-1", "cw-inf-3"]}]
    assert (await answer.value).status == 201
    log = axis.locator("#log-list")
    await expect(log).to_contain_text("cw-inf-2 is eliminated in 0301")
    await expect(log).to_contain_text("cw-inf-3 loses 1 step")
    await expect(form).to_have_count(0)
    for unit in ("cw-inf-1", "cw-inf-3"):
        await expect(axis.locator(f"#units-body tr[data-unit='{unit}'] td.at")).to_have_text("0401")
